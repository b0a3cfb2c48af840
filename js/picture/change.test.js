// The change picture's maths on the lecture's L (a=2, b=-3, c=10, f=-2; e = a*b, d = e + c, L = d*f), pinned, then
// a set to 3: every number below worked out by hand.

import { test } from "node:test";
import assert from "node:assert/strict";

import { changeCaption, changeFrom, changeLegendWords, formatChange } from "./change.js";
import { boxMax } from "./dot.js";
import { colorScale, gradColor } from "./format.js";
import { PALETTE } from "../core/shared.js";

// node order: a, b, c, f, e, d, L
const PINNED = { data: [2, -3, 10, -2, -6, 4, -8], grad: [6, -4, -2, 4, -2, -2, 1] };
const NOW = { data: [3, -3, 10, -2, -9, 1, -2], grad: [6, -6, -2, 1, -2, -2, 1] };

test("changeFrom: Δdata and Δgrad of every node, a moved from 2 to 3", () => {
  const n = 7;
  assert.deepEqual([...changeFrom(NOW.data, PINNED.data, new Float64Array(n))], [1, 0, 0, 0, -3, -3, 6]);
  assert.deepEqual([...changeFrom(NOW.grad, PINNED.grad, new Float64Array(n))], [0, -2, 0, -3, 0, 0, 0]);
});

test("changeFrom: an unchanged infinity is no change, NaN stays NaN", () => {
  const out = changeFrom([Infinity, NaN, 1, -Infinity], [Infinity, 1, NaN, Infinity], new Float64Array(4));
  assert.equal(out[0], 0);
  assert.ok(Number.isNaN(out[1]) && Number.isNaN(out[2]));
  assert.equal(out[3], -Infinity);
});

test("formatChange: the sign is always said", () => {
  assert.equal(formatChange(1, 4), "+1.0000");
  assert.equal(formatChange(6, 4), "+6.0000");
  assert.equal(formatChange(-3, 4), "-3.0000");
  assert.equal(formatChange(0, 4), "0.0000");
  assert.equal(formatChange(0.00001, 4), "+0.0000");
  assert.equal(formatChange(2.5e6, 2), "+2.50e+06");
});

test("the diverging fills: full orange at the largest |Δdata| (L, +6), blue for a decrease, white for none", () => {
  const scale = colorScale(6, 4, false);
  const fills = [1, 0, 0, 0, -3, -3, 6].map((x) => gradColor(x, scale, PALETTE));
  // +1: t = sqrt(1/6) = 0.4082 of the way from white to #f0913a; -3: t = sqrt(3/6) = 0.7071 towards #5b9bd5
  assert.deepEqual(fills, ["#f9d2af", "#ffffff", "#ffffff", "#ffffff", "#8bb8e1", "#8bb8e1", "#f0913a"]);
});

test("a fold box's largest |Δ|: boxMax with no node left out", () => {
  const delta = [1, 0, 0, 0, -3, -3, 6];
  assert.equal(boxMax(delta, [0, 4], -1), 4); // a (+1) and e (-3): e
  assert.equal(boxMax(delta, [5, 6], -1), 6); // the output counts: its change is what the learner pinned for
  assert.equal(Math.abs(delta[boxMax(delta, [1, 2, 3], -1) ?? -1]), 0);
});

test("captions and legend words say the picture shows change from the pin", () => {
  assert.equal(changeCaption("data "), "\u0394data ");
  assert.equal(changeCaption("grad "), "\u0394grad ");
  assert.equal(changeCaption("max |grad| "), "max |\u0394data| ");
  assert.match(changeLegendWords(6, 4, false), /range from -6\.0000 to \+6\.0000/);
  assert.match(changeLegendWords(0, 4, false), /nothing drawn changed since the pin/);
});
