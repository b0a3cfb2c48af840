// The gradient check panel's pure helpers: the rows' order and how many leaves go in one kernel request (the
// panel itself is tested in Chromium by tests/browser/test_gradcheck_view.py; the maths by
// js/core/gradcheck.test.js).

import { test } from "node:test";
import assert from "node:assert/strict";

import { kernelChunk, orderRows } from "./gradcheck-panel.js";
import { MAX_KERNEL_LEAVES, MAX_KERNEL_WORK } from "../core/shared.js";

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
