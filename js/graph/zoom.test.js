// Pure parts of pan/zoom (graph/zoom.js): the picture's size, when to fit it, the zoom limits and the scroll that
// keeps the point under the pointer; the gestures themselves are tested in Chromium (tests/browser/test_zoom_export.py).

import assert from "node:assert/strict";
import test from "node:test";
import { MAX_SCALE, MIN_SCALE, READABLE, anchoredScroll, clampScale, detailAt, fitScale, openingScale, scrollToPlace,
  svgWidthPx } from "./zoom.js";

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

test("a picture opens fitted to the width only when wider, and never below the readable 60%", () => {
  assert.equal(READABLE, 0.6, "issue 19: the default font at 60% or more is readable");
  assert.equal(openingScale(1500, 1350), 0.9);
  assert.equal(openingScale(1350, 1350), 1, "as wide as the box: nothing to fit");
  assert.equal(openingScale(800, 1350), 1, "narrower: never enlarged by default");
  assert.equal(openingScale(3000, 1350), 0.6, "fitting would make the text unreadable: 60%, the box scrolls");
  assert.equal(openingScale(2250, 1350), 0.6);
  assert.equal(openingScale(1500, 0), 1, "a box not laid out yet decides nothing");
});

test("a place in sight: the centre where it was, then moved the least to lie inside the margins", () => {
  // A 100 px box at 1000..1100 in the content, a 500 px visible area, 16 px margins.
  assert.equal(scrollToPlace(1000, 1100, 500, 250, 0), 800, "its centre 250 px into the visible area");
  assert.equal(scrollToPlace(1000, 1100, 500, 10, 0), 984, "a centre too near the edge: moved in to the margin");
  assert.equal(scrollToPlace(1000, 1100, 500, null, 0), 616, "no place: the least scroll from 0 that shows it");
  assert.equal(scrollToPlace(1000, 1100, 500, null, 900), 900, "in sight already: not moved");
  // Longer than the visible area: it fills it, its centre kept where it can be.
  assert.equal(scrollToPlace(0, 3000, 500, 250, 0), 1250);
  assert.equal(scrollToPlace(0, 3000, 500, null, 0), 0, "already filling the area: not moved");
  assert.equal(scrollToPlace(1000, 4000, 500, null, 0), 1000, "its start brought to the area's start");
  // Nearly as long as the area: the margins shrink, it is centred.
  assert.equal(scrollToPlace(1000, 1480, 500, null, 0), 990);
});

test("level of detail: the text drops below 30% and comes back at 37.5%, not in between", () => {
  assert.equal(detailAt(0.31, "full"), "full");
  assert.equal(detailAt(0.29, "full"), "low");
  assert.equal(detailAt(0.31, "low"), "low", "hysteresis: a pinch hovering at 30% does not flicker");
  assert.equal(detailAt(0.37, "low"), "low");
  assert.equal(detailAt(0.38, "low"), "full");
  assert.equal(detailAt(1, null), "full", "a new picture at 100%");
  assert.equal(detailAt(MIN_SCALE, null), "low");
});
