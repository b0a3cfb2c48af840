// The leaf sliders' pure helpers (graph/leaves.js): the range and step a slider gets from a leaf's value (the
// sliders themselves are tested in Chromium by tests/browser/).

import { test } from "node:test";
import assert from "node:assert/strict";

import { sliderRange, sliderStep } from "./leaves.js";

test("slider range is [v - |v| - 1, v + |v| + 1] widened to whole numbers", () => {
  assert.deepEqual(sliderRange(2), [-1, 5]);
  assert.deepEqual(sliderRange(-3), [-7, 1]);
  assert.deepEqual(sliderRange(0), [-1, 1]);
  assert.deepEqual(sliderRange(0.8813735870195432), [-1, 3]);
  assert.deepEqual(sliderRange(NaN), [-1, 1]);
  for (const v of [2, -3, 0, 0.25, -1e-9, 1234.5]) {
    const [lo, hi] = sliderRange(v);
    assert.ok(lo < v && v < hi, `${v} lies inside [${lo}, ${hi}]`);
  }
});

test("slider step is a round number giving about 200 positions", () => {
  assert.equal(sliderStep(-1, 1), 0.01);
  assert.equal(sliderStep(-1, 5), 0.02);
  assert.equal(sliderStep(-7, 1), 0.05);
  assert.equal(sliderStep(0, 2000), 10);
  assert.equal(sliderStep(3, 3), 0.01);
  for (const [lo, hi] of [[-1, 5], [-7, 1], [-3, 2469], [0, 0.001]]) {
    const n = (hi - lo) / sliderStep(lo, hi);
    assert.ok(n >= 100 && n <= 300, `${n} positions on [${lo}, ${hi}]`);
  }
});
