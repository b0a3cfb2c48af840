// The training view's pure helpers (training.js; the view itself is tested in Chromium by tests/browser/test_training.py).

import { test } from "node:test";
import assert from "node:assert/strict";

import { neuronNorms, statusText } from "./widget.js";

test("neuron norms are sqrt(sum(grad^2)) over each box's parameters", () => {
  const units = [{ params: [0, 1] }, { params: [2] }, { params: [3, 4] }];
  const norms = neuronNorms([3, 4, -2, NaN, 1], units);
  assert.deepEqual(Array.from(norms.slice(0, 2)), [5, 2]);
  assert.ok(Number.isNaN(norms[2]));
});

test("the status says when the loop finished and after how many steps", () => {
  assert.equal(statusText(false, 0), "waiting for w.log(loss)");
  assert.equal(statusText(false, 3), "training\u2026");
  assert.equal(statusText(true, 1), "finished after 1 step");
  assert.equal(statusText(true, 40), "finished after 40 steps");
  assert.equal(statusText(true, 12000), "finished after 12,000 steps");
});
