// Pure parts of the overview map (graph/overview.js): its size and where a click on it scrolls the box; the map
// itself is tested in Chromium (tests/browser/test_place.py).

import assert from "node:assert/strict";
import test from "node:test";
import { mapSize, needsMap, scrollForMapPoint } from "./overview.js";

test("the map keeps the picture's proportions within 180 x 120 px, no side below 24 px", () => {
  assert.deepEqual(mapSize(3600, 1200), { width: 180, height: 60 });
  assert.deepEqual(mapSize(1200, 2400), { width: 60, height: 120 });
  assert.deepEqual(mapSize(100, 10000), { width: 24, height: 120 }, "a very tall picture: a 24 px wide map");
  assert.deepEqual(mapSize(0, 100), { width: 0, height: 0 }, "no picture");
});

test("a click on the map centres the part in sight there, within the picture", () => {
  // A 180 px map of a 3600 px wide picture seen through a 900 px box: the map's middle centres the view on 1800.
  assert.equal(scrollForMapPoint(90, 180, 3600, 900), 1350);
  assert.equal(scrollForMapPoint(0, 180, 3600, 900), 0, "the left edge: not scrolled past the start");
  assert.equal(scrollForMapPoint(180, 180, 3600, 900), 2700, "the right edge: not past the end");
});

test("the map is shown only when less than half the picture is in sight across or down", () => {
  const box = { width: 800, height: 300 };
  assert.equal(needsMap({ width: 820, height: 170 }, box), false, "the lecture's L at 60%: a little wider than the box");
  assert.equal(needsMap({ width: 1600, height: 300 }, box), false, "exactly twice as wide: one scroll finds the rest");
  assert.equal(needsMap({ width: 1700, height: 300 }, box), true, "more than twice as wide");
  assert.equal(needsMap({ width: 700, height: 700 }, box), true, "more than twice as tall");
});
