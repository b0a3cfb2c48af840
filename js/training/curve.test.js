// The loss curve's pure helpers (curve.js): ticks, the y domain, the path and its labels (the curve itself is
// tested in Chromium by tests/browser/test_training.py).

import { test } from "node:test";
import assert from "node:assert/strict";

import { curvePath, drawable, logTicks, lossDomain, niceTicks, shortNumber } from "./curve.js";

test("nice ticks are round, evenly spaced and inside the range", () => {
  assert.deepEqual(niceTicks(0, 10), [0, 2, 4, 6, 8, 10]);
  assert.deepEqual(niceTicks(0.31, 0.92), [0.4, 0.6, 0.8]);
  assert.deepEqual(niceTicks(3, 3), [3]);
  assert.deepEqual(niceTicks(5, 1), []);
  assert.deepEqual(niceTicks(0, 3, 5, 1), [0, 1, 2, 3], "a minimum step of 1 keeps step ticks whole");
  assert.deepEqual(niceTicks(-2.3, 0.4, 5, 1), [-2, -1, 0], "log-scale decades");
  for (const [lo, hi] of [[0.001, 0.0013], [-5e6, 7e6], [1, 999]]) {
    const ticks = niceTicks(lo, hi);
    assert.ok(ticks.length >= 2 && ticks.length <= 7, `${ticks.length} ticks on [${lo}, ${hi}]`);
    for (const t of ticks) assert.ok(t >= lo - 1e-12 && t <= hi + 1e-12, `${t} in [${lo}, ${hi}]`);
  }
});

test("log ticks are decades over a wide range, round numbers within one decade", () => {
  assert.deepEqual(logTicks(-2.3, 1.2), [-2, -1, 0, 1]);
  const within = logTicks(Math.log10(0.31), Math.log10(0.92)).map((v) => shortNumber(10 ** v));
  assert.deepEqual(within, ["0.4", "0.6", "0.8"]);
});

test("the y domain covers the drawable losses only, padded", () => {
  assert.deepEqual(lossDomain([1, 2, NaN, 3], false), [0.9, 3.1]);
  assert.equal(lossDomain([NaN, Infinity], false), null);
  assert.deepEqual(lossDomain([2, 2], false), [1.8, 2.2]);
  assert.deepEqual(lossDomain([0, 0], false), [-1, 1]);
  const [lo, hi] = lossDomain([0.01, 100, 0, -1], true);
  assert.ok(Math.abs(lo - -2.2) < 1e-12 && Math.abs(hi - 2.2) < 1e-12, `log domain [${lo}, ${hi}]`);
  assert.equal(drawable(0, true), false);
  assert.equal(drawable(0, false), true);
});

test("the curve breaks at every loss it cannot draw and lists those steps", () => {
  const id = (x) => x;
  const { d, bad, drawn } = curvePath([0, 1, 2, 3, 4], [1, 2, NaN, 4, 5], id, id, false);
  assert.equal(d, "M0.0 1.0L1.0 2.0M3.0 4.0L4.0 5.0");
  assert.deepEqual(bad, [2]);
  assert.equal(drawn, 4);
  const log = curvePath([0, 1, 2], [10, -1, 1000], id, id, true);
  assert.equal(log.d, "M0.0 1.0M2.0 3.0");
  assert.deepEqual(log.bad, [1]);
});

test("tick labels are short", () => {
  assert.equal(shortNumber(0), "0");
  assert.equal(shortNumber(0.123456), "0.1235");
  assert.equal(shortNumber(1234567), "1.2e6");
  assert.equal(shortNumber(0.00012), "1.2e-4");
  assert.equal(shortNumber(-20), "-20");
});
