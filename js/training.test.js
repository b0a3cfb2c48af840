// The training view's pure helpers (training.js; the view itself is tested in Chromium by tests/browser/test_training.py).

import { test } from "node:test";
import assert from "node:assert/strict";

import { neuronNorms } from "./training.js";

test("neuron norms are sqrt(sum(grad^2)) over each box's parameters", () => {
  const units = [{ params: [0, 1] }, { params: [2] }, { params: [3, 4] }];
  const norms = neuronNorms([3, 4, -2, NaN, 1], units);
  assert.deepEqual(Array.from(norms.slice(0, 2)), [5, 2]);
  assert.ok(Number.isNaN(norms[2]));
});
