// Pure parts of export (graph/download.js): the file names and the PNG's size and scale; the downloads themselves
// are tested in Chromium (tests/browser/test_zoom_export.py).

import assert from "node:assert/strict";
import test from "node:test";
import { fileStem, pngScale, pngSize } from "./download.js";

test("export file names come from the output's label", () => {
  assert.equal(fileStem("L"), "L");
  assert.equal(fileStem("loss (train)"), "loss_train");
  assert.equal(fileStem("../../../etc/passwd"), "etc_passwd");
  assert.equal(fileStem("<img src=x>"), "img_src_x");
  assert.equal(fileStem(""), "graph");
  assert.equal(fileStem(null), "graph");
  assert.equal(fileStem("..."), "graph");
  assert.equal(fileStem("Σ"), "graph");
  assert.equal(fileStem("é"), "e");
  assert.equal(fileStem("x".repeat(200)).length, 80);
});

test("PNG size: twice the CSS size, refused past the canvas limits", () => {
  assert.deepEqual(pngSize(400.4, 100.2), { width: 801, height: 200 });
  assert.equal(pngSize(9000, 100), null);
  assert.equal(pngSize(6000, 6000), null, "too many pixels");
  assert.deepEqual(pngSize(4000, 1000), { width: 8000, height: 2000 });
});

test("PNG scale: 2x when it fits, else the largest hundredth that fits, down to 0.5x", () => {
  assert.equal(pngScale(400, 100), 2);
  assert.equal(pngScale(1062, 10908), 1.5, "16,384 / 10,908 = 1.502");
  assert.deepEqual(pngSize(1062, 10908, 1.5), { width: 1593, height: 16362 });
  // docs/architecture.md's moons loss with layers.1 open: 16,384 / 21,816 = 0.751
  assert.equal(pngScale(2124, 21816), 0.75);
  assert.deepEqual(pngSize(2124, 21816, 0.75), { width: 1593, height: 16362 });
  assert.equal(pngScale(32768, 10), 0.5, "exactly the side limit at 0.5x");
  assert.equal(pngScale(32769, 10), null, "too long even at 0.5x");
  assert.equal(pngScale(18000, 18000), null, "too many pixels even at 0.5x");
  // 67.1 Mpx at most: 7,000 x 7,000 px is 49 Mpx at 1x; 1.17x is 7,000 * 1.17 = 8,190 px a side, 67.08 Mpx
  assert.equal(pngScale(7000, 7000), 1.17);
  assert.equal(pngSize(7000, 7000, 1.18), null);
});
