// The DOT writer's own helpers (picture/dot.js, the twin of dot.py): escaping and quoting, and a closed box's fill. The
// DOT it writes is held to Python's by the fold vectors (picture/fold_tree.test.js, through picture/fold_tree.js's dotFor).

import { test } from "node:test";
import assert from "node:assert/strict";

import { boxFill, escape, largeLayout, quote, thousands } from "./dot.js";
import { colorScale } from "./format.js";
import { DOT_STYLE, PALETTE } from "../core/shared.js";

test("escaping and quoting match dot.py on hostile text", () => {
  assert.equal(escape('q"\\'), 'q\\"\\\\');
  assert.equal(escape("{a|b}<c>&", "record"), "\\{a\\|b\\}\\<c\\>&amp;");
  assert.equal(escape("{a|b}<c>&", "dot"), "{a|b}<c>&amp;");
  assert.equal(escape("plain a.b[0]"), "plain a.b[0]", "nothing to escape: as it is");
  assert.equal(escape("{x}", "dot"), "{x}");
  assert.equal(quote("n0"), "n0");
  assert.equal(quote("mgw-legend"), '"mgw-legend"');
  assert.equal(quote("Node"), '"Node"');
  assert.equal(quote("-0.5"), "-0.5");
  assert.equal(thousands(1234567), "1,234,567");
});

test("a box's fill: its largest member's colour; grey #eeeeee with colouring off or no member counted, white while stepping", () => {
  // dot.py's _fold_line (FOLD_COLOR: "nothing to colour it by"); the live picture painted such a box white, the zero
  // grad's colour, though it shows no grad. While stepping, a box none of whose members is reached yet is white as an
  // unreached node is (class mgw-unreached).
  const grad = Float64Array.from([-2, Infinity, NaN, 0]);
  const two = colorScale(2, 4);
  assert.equal(boxFill(grad, 0, two, PALETTE), PALETTE.negative);
  assert.equal(boxFill(grad, 1, two, PALETTE), PALETTE.nonfinite);
  assert.equal(boxFill(grad, 2, two, PALETTE), PALETTE.nonfinite);
  assert.equal(boxFill(grad, 3, two, PALETTE), PALETTE.zero);
  assert.equal(boxFill(grad, 0, null, PALETTE), "#eeeeee");
  for (const none of [-1, null]) {
    assert.equal(boxFill(grad, none, two, PALETTE), "#eeeeee");
    assert.equal(boxFill(grad, none, two, PALETTE, true), PALETTE.zero);
  }
});

test("a picture past 1,000 edges or 3,000 far ranks is laid out as a large one, its nslimit worked by hand as dot.py's", () => {
  assert.deepEqual(largeLayout(1000, 3000), {});
  assert.deepEqual(largeLayout(1001, 0), { ...DOT_STYLE.large, nslimit: "7.98" }); // 8e8 / 1001^2 = 798.4 hundredths
  assert.deepEqual(largeLayout(1000, 3001), { ...DOT_STYLE.large, nslimit: "0.49" }); // 8e8 / 4001^2 = 49.98
  assert.equal(largeLayout(2000, 2000).nslimit, "0.50"); // 8e8 / 4000^2 = 50
  assert.equal(largeLayout(240, 3120).nslimit, "0.70"); // Horner's rule of degree 40 drawn whole: 8e8 / 3360^2 = 70.9
  assert.equal(largeLayout(888, 7804).nslimit, "0.18"); // 10.6, at least 18
  assert.equal(largeLayout(100000, 0).nslimit, "0.18"); // 0.08, at least 18
});
