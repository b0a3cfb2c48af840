// The browser replay (tape.js) against the Python side: every shared vector in tests/vectors/ to 1e-12, plus
// hand-checked graphs and the failure cases.

import { test } from "node:test";
import assert from "node:assert/strict";

import { compileTape, decodeNumber } from "./spec.js";
import { backward, forward, replay } from "./tape.js";
import { assertAllClose, close, compile, fromVector, neuronSpec, sharedVectors } from "./tapes.fixture.js";
test("shared vectors: JS replay agrees with Python to 1e-12", async (t) => {
  for (const [file, vec] of sharedVectors()) {
    await t.test(`${file}: ${vec.name}`, () => {
      const tape = compileTape(fromVector(vec.spec));
      if (!tape.replayable) {
        assert.ok(tape.ops.some((r) => !r.builtin) || tape.opaque >= 0,
          `${file}: tape reported not replayable (${tape.reason}) but every op is built in`);
        assert.throws(() => forward(tape, tape.leafData), /cannot replay in the browser/);
        return;
      }
      assert.ok(vec.cases.length > 0, `${file}: no cases`);
      for (const [c, kase] of vec.cases.entries()) {
        const leaves = Float64Array.from(kase.leaf_values, decodeNumber);
        const output = kase.output === null || kase.output === undefined ? tape.root : kase.output;
        const { data, grad } = replay(tape, leaves, output);
        assertAllClose(data, kase.data, `${file} case ${c} data`);
        assertAllClose(grad, kase.grad, `${file} case ${c} grad`);
      }
    });
  }
});

test("the lecture's neuron: data and grads as computed by hand", () => {
  const tape = compile(neuronSpec());
  assert.ok(tape.replayable);
  const { data, grad, failure } = replay(tape, tape.leafData);
  assert.equal(failure, -1);
  assert.ok(close(data[9], Math.SQRT1_2));
  const expected = { 9: 1, 8: 0.5, 7: 0.5, 6: 0.5, 5: 0.5, 2: 0.5, 0: -1.5, 1: 1.0, 3: 0.5, 4: 0.0 };
  for (const [i, g] of Object.entries(expected)) assert.ok(Math.abs(grad[i] - g) < 1e-12, `grad[${i}] = ${grad[i]}`);
});

test("a leaf used twice accumulates its gradient (a + a)", () => {
  const spec = {
    ops: [{ name: "add", symbol: "+", arity: 2, builtin: true }], op: [-1, 0], inputs: [[], [0, 0]],
    k: [null, null], symbol: ["", "+"], label: ["a", "b"], scope: ["", ""], leaves: [0], root: 1, data: [3, 6],
  };
  const { data, grad } = replay(compile(spec), [5]);
  assert.deepEqual([...data], [5, 10]);
  assert.deepEqual([...grad], [2, 1]);
});

test("x ** k uses the constant; d/dx at 0 with k = 0.5 is Infinity", () => {
  const spec = {
    ops: [{ name: "pow", symbol: "**", arity: 1, builtin: true }], op: [-1, 0], inputs: [[], [0]],
    k: [null, 0.5], symbol: ["", "**0.5"], label: ["x", "y"], scope: ["", ""], leaves: [0], root: 1, data: [4, 2],
  };
  const tape = compile(spec);
  let r = replay(tape, [9]);
  assert.deepEqual([...r.data], [9, 3]);
  assert.ok(close(r.grad[0], 0.5 / 3));
  r = replay(tape, [0]);
  assert.equal(r.grad[0], Infinity);
});

test("choosing another output differentiates that node; later nodes get grad 0", () => {
  const tape = compile(neuronSpec());
  const data = new Float64Array(tape.n);
  forward(tape, tape.leafData, data);
  const grad = backward(tape, data, 6);
  assert.equal(grad[6], 1);
  assert.equal(grad[9], 0);
  assert.equal(grad[8], 0);
  assert.equal(grad[0], -3);
  assert.equal(grad[1], 2);
  assert.throws(() => backward(tape, data, 10), /output must be a node id/);
});

test("a domain error (log of a negative number) is reported with the failing node", () => {
  const spec = {
    ops: [{ name: "log", symbol: "log", arity: 1, builtin: true }, { name: "mul", symbol: "*", arity: 2, builtin: true }],
    op: [-1, 0, -1, 1], inputs: [[], [0], [], [1, 2]], k: [null, null, null, null], symbol: ["", "log", "", "*"],
    label: ["x", "lx", "c", "y"], scope: ["", "", "", ""], leaves: [0, 2], root: 3, data: [1, 0, 2, 0],
  };
  const tape = compile(spec);
  assert.equal(replay(tape, [Math.E, 2]).failure, -1);
  const bad = replay(tape, [-1, 2]);
  assert.equal(bad.failure, 1);
  assert.ok(Number.isNaN(bad.data[3]), "later nodes are still computed (NaN propagates)");
});

test("the replay fails where Python's op raises and only there: 0 ** y fails, a float overflow in * does not", () => {
  const spec = {
    ops: [{ name: "powv", symbol: "**", arity: 2, builtin: true }, { name: "mul", symbol: "*", arity: 2, builtin: true }],
    op: [-1, -1, 0, 1], inputs: [[], [], [0, 1], [2, 1]], k: [null, null, null, null], symbol: ["", "", "**", "*"],
    label: ["x", "y", "p", "q"], scope: ["", "", "", ""], leaves: [0, 1], root: 3, data: [2, 3, 8, 24],
  };
  const tape = compile(spec);
  const zero = replay(tape, [0, 2]);
  assert.equal(zero.data[2], 0, "JavaScript's 0 ** 2 is 0, but Python refuses a Value exponent on base 0");
  assert.equal(zero.failure, 2);
  const overflow = replay(tape, [1.00001, 7e7]);
  assert.ok(Number.isFinite(overflow.data[2]) && overflow.data[2] > 1e300);
  assert.equal(overflow.data[3], Infinity, "p * 7e7 overflows to inf in Python too, without an error");
  assert.equal(overflow.failure, -1);
  assert.equal(replay(tape, [2, 5000]).failure, 2, "2 ** 5000 raises OverflowError in Python");
  assert.equal(replay(tape, [NaN, 2]).failure, -1, "Python's nan ** 2 is nan, no error");
});
