// @ts-check
// The fill comparison of the level of detail (graph/visible.js looksAlike); what a frame writes at low detail is tested
// in Chromium (tests/browser/test_paint_in_sight.py).
import { test } from "node:test";
import assert from "node:assert/strict";
import { FILL_STEP, looksAlike } from "./visible.js";

test("fills within FILL_STEP on every channel look alike at low detail, by hand", () => {
  assert.equal(FILL_STEP, 16);
  assert.ok(looksAlike("#fef9f4", "#fcfdfe")); // 2, 4, 10 apart: a box near white from faint orange to faint blue
  assert.ok(looksAlike("#101010", "#202020")); // 16 apart on each: the step itself
  assert.ok(!looksAlike("#101010", "#211010")); // 17 apart on red
  assert.ok(!looksAlike("#ffffff", "#ffffee")); // 17 apart on blue
  assert.ok(looksAlike("#ABCDEF", "#abcdef")); // hex digits in either case
});

test("a fill that is not #rrggbb looks alike only when equal", () => {
  assert.ok(looksAlike("white", "white"));
  assert.ok(!looksAlike("white", "#ffffff"));
  assert.ok(!looksAlike(null, "#ffffff"));
  assert.ok(!looksAlike("#fff", "#ffffff"));
  assert.ok(!looksAlike("#ffffzz", "#ffffff")); // not hex: parseInt gives NaN
});
