// The graph view's pure helpers (js/view/, js/codec.js; the view itself is tested in Chromium by tests/browser/).

import { test } from "node:test";
import assert from "node:assert/strict";

import { decodeList, encodeList, sameValues } from "./codec.js";
import { nodeKeys } from "./view/names.js";
import { shouldFit, svgWidthPx } from "./view/zoom.js";
import { sliderRange, sliderStep } from "./view/leaves.js";

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

test("number lists: non-finite numbers travel as strings and come back the same", () => {
  assert.deepEqual(encodeList(new Float64Array([1.5, NaN, Infinity, -Infinity, -0])), [1.5, "NaN", "Infinity", "-Infinity", -0]);
  assert.deepEqual(Array.from(decodeList([1.5, "NaN", "-Infinity"], 3)), [1.5, NaN, -Infinity]);
  assert.equal(decodeList([1, 2], 3), null, "a list of another length is refused");
  assert.equal(decodeList("1,2"), null, "so is anything but a list");
  assert.deepEqual(Array.from(decodeList([4, 5])), [4, 5], "any length when none is asked for");
  assert.throws(() => decodeList(["nan"], 1), /NaN/, "an unknown string is an error that names the accepted ones");
});

test("same values: NaN equals NaN, -0 differs from 0, lengths must match", () => {
  assert.equal(sameValues([1, NaN], new Float64Array([1, NaN])), true);
  assert.equal(sameValues([0], [-0]), false);
  assert.equal(sameValues([1, 2], [1, 2.000001]), false);
  assert.equal(sameValues([1], [1, 2]), false);
});
