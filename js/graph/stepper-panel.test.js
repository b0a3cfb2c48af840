// The backprop stepper panel's pure helpers: its keys and its starting speed (the panel itself is tested in
// Chromium by tests/browser/test_stepper.py; the steps' maths by js/core/stepper.test.js).

import { test } from "node:test";
import assert from "node:assert/strict";

import { defaultSpeed, SPEEDS, stepperAction } from "./stepper-panel.js";

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
