// The view's pure helpers (the view itself is tested in Chromium by tests/browser/).

import { test } from "node:test";
import assert from "node:assert/strict";

import { nodeKeys, shouldFit, sliderRange, sliderStep, svgWidthPx } from "./widget.js";

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

test("node keys: the label when unique, else the node id", () => {
  assert.deepEqual(nodeKeys(["a", "", "w", "w", "out"]), ["a", "1", "2", "3", "out"]);
  assert.deepEqual(nodeKeys(["<img src=x>", "x"]), ["<img src=x>", "x"]);
});

test("the picture's width in CSS pixels: points are 4/3 px, else the viewBox", () => {
  assert.equal(svgWidthPx("600pt", "0 0 600 200"), 800);
  assert.equal(svgWidthPx("321px", null), 321);
  assert.equal(svgWidthPx("250", null), 250);
  assert.equal(svgWidthPx(null, "0 0 412.5 80"), 412.5);
  assert.equal(svgWidthPx("100%", "junk"), 0);
});

test("fit to the width only a picture wider than its box, and not below half size", () => {
  assert.equal(shouldFit(1500, 1350), true);
  assert.equal(shouldFit(1350, 1350), false, "as wide as the box: nothing to fit");
  assert.equal(shouldFit(800, 1350), false, "narrower: never enlarged by default");
  assert.equal(shouldFit(3000, 1350), false, "fitting would shrink the text below half size: scroll instead");
  assert.equal(shouldFit(2700, 1350), true);
  assert.equal(shouldFit(1500, 0), false, "a box not laid out yet decides nothing");
});
