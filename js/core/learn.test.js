// learn.js: the lecture's nudge (worked out by hand), parameters only, the step size's words, Descent against a
// loop written here. Exactness against Python on the lecture's MLP and the moons loss: tests/test_learn.py.
import { test } from "node:test";
import assert from "node:assert/strict";

import { Descent, readStepSize, step } from "./learn.js";
import { backward, forward } from "./tape.js";
import { compile, lectureL, neuronSpec } from "./tapes.fixture.js";

const labelsOf = (tape) => Array.from(tape.leaves, (i) => tape.labels[i]);

test("one step up at 0.01 is the lecture's nudge: L = -7.286496", () => {
  const tape = lectureL();
  const values = Float64Array.from(tape.leafData);
  const all = Int32Array.from(values.keys());
  assert.equal(step(tape, values, all, +1, 0.01), -8);
  const moved = Object.fromEntries(labelsOf(tape).map((l, j) => [l, values[j]]));
  for (const [l, x] of Object.entries({ a: 2.06, b: -3.04, c: 9.98, f: -1.96 })) assert.ok(Math.abs(moved[l] - x) < 1e-15, l);
  const data = new Float64Array(tape.n);
  forward(tape, values, data);
  assert.ok(Math.abs(data[tape.root] - -7.286496) < 1e-12, String(data[tape.root]));
  assert.ok(Math.abs(data[tape.root] - -8 - 0.713504) < 1e-12); // the Δ a step shows on L, by hand
});

test("a step moves only the parameters it is given", () => {
  const tape = lectureL();
  const values = Float64Array.from(tape.leafData);
  const a = labelsOf(tape).indexOf("a");
  step(tape, values, [a], -1, 0.5);
  assert.deepEqual(Array.from(values), Array.from(tape.leafData, (x, j) => (j === a ? 2 - 0.5 * 6 : x))); // dL/da = b*f = 6
});

test("the step size: finite positive numbers, the rest refused in words", () => {
  assert.deepEqual(readStepSize(" 0.05 "), { h: 0.05, error: "" });
  for (const bad of ["0", "-1", "NaN", "Infinity", "", "abc", "1e400"]) {
    const { h, error } = readStepSize(bad);
    assert.ok(Number.isNaN(h), bad);
    assert.match(error, /finite positive number/);
  }
  assert.ok(readStepSize("x".repeat(500)).error.length < 120, "the refusal is cut to a sane length");
});

test("Descent's N steps equal a replay-then-update loop written here; the losses are the replays' outputs", () => {
  const tape = compile(neuronSpec());
  const params = Int32Array.from([1, 3, 4]); // w1, w2, b
  const run = new Descent(tape, tape.leafData, params);
  run.run(7, 0.1);
  const values = Float64Array.from(tape.leafData);
  const data = new Float64Array(tape.n);
  const grad = new Float64Array(tape.n);
  const losses = [];
  for (let s = 0; s < 7; s++) {
    forward(tape, values, data);
    backward(tape, data, tape.root, grad);
    losses.push(data[tape.root]);
    for (const j of params) values[j] -= 0.1 * grad[tape.leaves[j]];
  }
  assert.deepEqual(Array.from(run.values), Array.from(values));
  assert.deepEqual(run.losses, losses);
  assert.equal(run.steps, 7);
  assert.equal(run.values[0], tape.leafData[0], "the input x1 stays");
  forward(tape, run.values, data);
  assert.ok(data[tape.root] < losses[0], "descent lowers the neuron's output");
});
