// The stepper's and the gradient check's pure helpers (their panels are tested in Chromium by tests/browser/).

import { test } from "node:test";
import assert from "node:assert/strict";

import { defaultSpeed, SPEEDS, stepperAction } from "./stepper.js";
import { kernelChunk, orderRows } from "./gradcheck.js";
import { MAX_KERNEL_LEAVES, MAX_KERNEL_WORK } from "./shared.js";

test("keys in the stepper panel: arrows and , . step, Home/End jump, Space plays, Esc leaves", () => {
  assert.equal(stepperAction("ArrowRight"), "forward");
  assert.equal(stepperAction("."), "forward");
  assert.equal(stepperAction("ArrowLeft"), "back");
  assert.equal(stepperAction(","), "back");
  assert.equal(stepperAction("Home"), "start");
  assert.equal(stepperAction("End"), "end");
  assert.equal(stepperAction(" "), "play");
  assert.equal(stepperAction("Escape"), "exit");
  assert.equal(stepperAction("a"), null);
  assert.equal(stepperAction("Enter"), null, "Enter presses the focused button instead");
});

test("the default speed plays the whole pass in about 15 s, never slower than 2 steps/s", () => {
  assert.equal(defaultSpeed(0), 2);
  assert.equal(defaultSpeed(3), 2);
  assert.equal(defaultSpeed(30), 2);
  assert.equal(defaultSpeed(31), 5);
  assert.equal(defaultSpeed(1400), 100);
  assert.equal(defaultSpeed(65077), SPEEDS[SPEEDS.length - 1]);
  for (const n of [1, 10, 100, 1000, 10000]) assert.ok(SPEEDS.includes(defaultSpeed(n)));
});

test("gradcheck rows: failures first, each group in leaf order", () => {
  const rows = [{ id: 0, ok: true }, { id: 1, ok: false }, { id: 2, ok: true }, { id: 3, ok: false }];
  assert.deepEqual(orderRows(rows).map((r) => r.id), [1, 3, 0, 2]);
  assert.deepEqual(orderRows([]), []);
});

test("kernel gradcheck requests stay small for large graphs and within the kernel's 256 leaves", () => {
  assert.equal(MAX_KERNEL_LEAVES, 256);
  assert.equal(kernelChunk(7), 256);
  assert.equal(kernelChunk(1953), 256);
  assert.equal(kernelChunk(1954), 255);
  assert.equal(kernelChunk(65818), 7);
  assert.equal(kernelChunk(5_000_000), 1);
});

test("a kernel gradcheck page never goes over the kernel's work limit (requests.py MAX_GRADCHECK_WORK)", () => {
  for (const n of [1, 7, 1953, 1954, 4000, 65818, 500_001, MAX_KERNEL_WORK]) {
    assert.ok(kernelChunk(n) * n <= MAX_KERNEL_WORK, `${kernelChunk(n)} leaves x ${n} nodes`);
  }
});
