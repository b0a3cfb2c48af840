// Pure parts of pan/zoom (view/zoom.js): the picture's size, when to fit it, the zoom limits and the scroll that
// keeps the point under the pointer; the gestures themselves are tested in Chromium (tests/browser/test_zoom_export.py).

import assert from "node:assert/strict";
import test from "node:test";
import { MAX_SCALE, MIN_SCALE, anchoredScroll, clampScale, fitScale, shouldFit, svgWidthPx } from "./view/zoom.js";

test("fit: the whole picture in the box, never above 100%", () => {
  assert.equal(fitScale(1400, 300, 700, 600), 0.5, "width decides");
  assert.equal(fitScale(400, 1200, 700, 600), 0.5, "height decides");
  assert.equal(fitScale(300, 100, 700, 600), 1, "a small picture is not enlarged");
  assert.equal(fitScale(1400, 300, 700, 0), 0.5, "no height limit");
  assert.equal(fitScale(0, 0, 700, 600), 1, "no picture yet");
  assert.equal(fitScale(1e6, 10, 700, 600), MIN_SCALE, "clamped");
});

test("zoom limits", () => {
  assert.equal(clampScale(100), MAX_SCALE);
  assert.equal(clampScale(0), MIN_SCALE);
  assert.equal(clampScale(1.5), 1.5);
});

test("zooming around the pointer keeps the point under it", () => {
  // Picture starts 10 px into the content; scrolled 100 px; pointer 50 px into the visible box.
  const before = 1.5;
  const after = 3;
  const scroll = anchoredScroll(100, 50, 10, before, after);
  const pointBefore = (100 + 50 - 10) / before;
  const pointAfter = (scroll + 50 - 10) / after;
  assert.ok(Math.abs(pointBefore - pointAfter) < 1e-12);
  assert.equal(anchoredScroll(0, 0, 0, 1, 2), 0, "the corner stays the corner");
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
