// The backward pass step by step (stepper.js's backwardSteps) against the full backward pass and by hand. The
// stepper panel's helpers are tested in js/graph/stepper-panel.test.js.

import { test } from "node:test";
import assert from "node:assert/strict";

import { compileTape, decodeNumber } from "./spec.js";
import { applyStep, backwardSteps, gradsAfter, NEVER } from "./stepper.js";
import { backward, forward, replay } from "./tape.js";
import { assertAllClose, compile, fromVector, lectureL, sharedVectors } from "./tapes.fixture.js";

test("shared vectors: after every step the grads equal the full backward pass, step by step the same floats", async (t) => {
  for (const [file, vec] of sharedVectors()) {
    const tape = compileTape(fromVector(vec.spec));
    if (!tape.replayable) continue;
    await t.test(file, () => {
      for (const [c, kase] of vec.cases.entries()) {
        const leaves = Float64Array.from(kase.leaf_values, decodeNumber);
        const output = kase.output === null || kase.output === undefined ? tape.root : kase.output;
        const data = new Float64Array(tape.n);
        forward(tape, leaves, data);
        const steps = backwardSteps(tape, data, output);
        assertAllClose(gradsAfter(steps, steps.count), kase.grad, `${file} case ${c} grads after all ${steps.count} steps`);
        assertAllClose(steps.grad, kase.grad, `${file} case ${c} steps.grad`);
        // Stepping one at a time gives exactly the floats of recomputing from the start.
        const running = gradsAfter(steps, 0);
        for (let s = 0; s < steps.count; s++) {
          applyStep(steps, s, running);
          const fresh = gradsAfter(steps, s + 1);
          for (let i = 0; i < tape.n; i++) assert.ok(Object.is(running[i], fresh[i]), `${file} case ${c}: step ${s + 1} node ${i}`);
        }
        // Steps run in reverse node order, and a node fires only after everything using it has fired.
        for (let s = 1; s < steps.count; s++) assert.ok(steps.node[s] < steps.node[s - 1]);
        for (let s = 0; s < steps.count; s++) {
          assert.ok(steps.reachedAt[steps.node[s]] <= s, `${file}: node ${steps.node[s]} fires before it has a grad`);
        }
      }
    });
  }
});

test("the lecture's L = (a*b + c) * f: partial grads after each step, as computed by hand", () => {
  const tape = lectureL();
  //            a  b  e  c  d  f  L
  const id = { a: 0, b: 1, e: 2, c: 3, d: 4, f: 5, L: 6 };
  const data = new Float64Array(tape.n);
  forward(tape, [2, -3, 10, -2], data);
  const steps = backwardSteps(tape, data);
  assert.equal(steps.count, 3);
  assert.deepEqual([...steps.node], [id.L, id.d, id.e]);
  assert.deepEqual([...steps.upstream], [1, -2, -2]);
  assert.deepEqual([...steps.localA], [-2, 1, -3]); // dL/dd = f, dd/de = 1, de/da = b
  assert.deepEqual([...steps.localB], [4, 1, 2]); //   dL/df = d, dd/dc = 1, de/db = a
  const expected = [
    { L: 1 },
    { L: 1, d: -2, f: 4 },
    { L: 1, d: -2, f: 4, e: -2, c: -2 },
    { L: 1, d: -2, f: 4, e: -2, c: -2, a: 6, b: -4 },
  ];
  for (let k = 0; k <= 3; k++) {
    const grad = gradsAfter(steps, k);
    for (const [name, i] of Object.entries(id)) {
      const reached = steps.reachedAt[i] <= k;
      assert.equal(reached, name in expected[k], `after ${k} steps, ${name} reached?`);
      assert.equal(grad[i], expected[k][name] ?? 0, `after ${k} steps, grad of ${name}`);
    }
  }
  assert.throws(() => gradsAfter(steps, 4), /step must be an integer from 0 to 3/);
});

test("a leaf used twice gets both contributions in one step (a + a)", () => {
  const spec = {
    ops: [{ name: "add", symbol: "+", arity: 2, builtin: true }], op: [-1, 0], inputs: [[], [0, 0]],
    k: [null, null], symbol: ["", "+"], label: ["a", "b"], scope: ["", ""], leaves: [0], root: 1, data: [3, 6],
  };
  const tape = compile(spec);
  const steps = backwardSteps(tape, replay(tape, tape.leafData).data);
  assert.equal(steps.count, 1);
  assert.deepEqual([...gradsAfter(steps, 1)], [2, 1]);
  assert.equal(steps.reachedAt[0], 1);
});

test("stepping from another output visits only what it depends on; a leaf output has no steps", () => {
  const tape = lectureL();
  const data = new Float64Array(tape.n);
  forward(tape, [2, -3, 10, -2], data);
  const fromD = backwardSteps(tape, data, 4);
  assert.deepEqual([...fromD.node], [4, 2]);
  assert.equal(fromD.reachedAt[5], NEVER, "f is not an input of d");
  assert.equal(fromD.reachedAt[6], NEVER, "L comes after d");
  assert.deepEqual([...gradsAfter(fromD, 2)], [...backward(tape, data, 4)]);
  const fromLeaf = backwardSteps(tape, data, 0);
  assert.equal(fromLeaf.count, 0);
  assert.deepEqual([...gradsAfter(fromLeaf, 0)], [1, 0, 0, 0, 0, 0, 0]);
  assert.throws(() => backwardSteps(tape, data, 7), /output must be a node id/);
});
