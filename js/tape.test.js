// The browser replay against the Python side: every shared vector in tests/vectors/ to 1e-12, plus
// hand-checked graphs and the failure and "kernel must compute" cases; the backward pass step by step
// (the stepper) and the numerical gradient check.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

import {
  applyStep, backward, backwardSteps, compileTape, decodeNumber, encodeNumber, forward, GRADCHECK_DEFAULTS, gradcheckVerdict,
  gradsAfter, leafValuesOf, NEVER, numericGrad, replay,
} from "./tape.js";

const VECTORS = fileURLToPath(new URL("../tests/vectors/", import.meta.url));
const TOL = 1e-12;

function close(actual, expected) {
  if (Number.isNaN(expected)) return Number.isNaN(actual);
  if (!Number.isFinite(expected)) return actual === expected;
  return Math.abs(actual - expected) <= TOL * Math.max(1, Math.abs(expected));
}

function assertAllClose(actual, expected, what) {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let i = 0; i < expected.length; i++) {
    const e = decodeNumber(expected[i]);
    assert.ok(close(actual[i], e), `${what}[${i}]: got ${actual[i]}, expected ${e}`);
  }
}

function vectorFiles() {
  let names = [];
  try {
    names = readdirSync(VECTORS).filter((f) => f.endsWith(".json")).sort();
  } catch {
    names = [];
  }
  return names;
}

test("shared vectors: JS replay agrees with Python to 1e-12", async (t) => {
  const files = vectorFiles();
  if (files.length === 0) {
    assert.fail("tests/vectors/ has no *.json: write them with `.venv/bin/python tests/vectors/generate.py`");
    return;
  }
  for (const file of files) {
    const vec = JSON.parse(readFileSync(join(VECTORS, file), "utf8"));
    await t.test(`${file}: ${vec.name}`, () => {
      const tape = compileTape(vec.spec);
      if (!tape.replayable) {
        assert.ok(vec.spec.ops.some((r) => !r.builtin) || vec.spec.op.some((r, i) => r < 0 && vec.spec.inputs[i].length),
          `${file}: tape reported not replayable (${tape.reason}) but every op is built in`);
        assert.throws(() => forward(tape, tape.leaves.map((l) => tape.data[l])), /cannot replay in the browser/);
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

// The lecture's neuron: o = tanh(x1*w1 + x2*w2 + b), node order as Tape.from_value emits it.
function neuronSpec() {
  const ops = [
    { name: "mul", symbol: "*", arity: 2, builtin: true },
    { name: "add", symbol: "+", arity: 2, builtin: true },
    { name: "tanh", symbol: "tanh", arity: 1, builtin: true },
  ];
  //            0 x1  1 w1  2 x1w1 3 x2  4 w2  5 x2w2 6 sum 7 b    8 n   9 o
  const op = [-1, -1, 0, -1, -1, 0, 1, -1, 1, 2];
  const inputs = [[], [], [0, 1], [], [], [3, 4], [2, 5], [], [6, 7], [8]];
  const label = ["x1", "w1", "x1*w1", "x2", "w2", "x2*w2", "x1*w1 + x2*w2", "b", "n", "o"];
  const data = [2.0, -3.0, -6.0, 0.0, 1.0, 0.0, -6.0, 6.881373587019543, 0.8813735870195432, 0.7071067811865476];
  return {
    version: 1, ops, op, inputs, k: op.map(() => null), symbol: op.map(() => ""), label, scope: op.map(() => ""),
    leaves: [0, 1, 3, 4, 7], root: 9, data, grad: op.map(() => 0),
  };
}

test("the lecture's neuron: data and grads as computed by hand", () => {
  const tape = compileTape(neuronSpec());
  assert.ok(tape.replayable);
  const { data, grad, failure } = replay(tape, leafValuesOf(tape, tape.data));
  assert.equal(failure, -1);
  assert.ok(close(data[9], Math.SQRT1_2));
  const expected = { 9: 1, 8: 0.5, 7: 0.5, 6: 0.5, 5: 0.5, 2: 0.5, 0: -1.5, 1: 1.0, 3: 0.5, 4: 0.0 };
  for (const [i, g] of Object.entries(expected)) assert.ok(Math.abs(grad[i] - g) < 1e-12, `grad[${i}] = ${grad[i]}`);
});

test("a leaf used twice accumulates its gradient (a + a)", () => {
  const spec = {
    version: 1, ops: [{ name: "add", symbol: "+", arity: 2, builtin: true }], op: [-1, 0], inputs: [[], [0, 0]],
    k: [null, null], symbol: ["", "+"], label: ["a", "b"], scope: ["", ""], leaves: [0], root: 1, data: [3, 6], grad: [0, 0],
  };
  const { data, grad } = replay(compileTape(spec), [5]);
  assert.deepEqual([...data], [5, 10]);
  assert.deepEqual([...grad], [2, 1]);
});

test("x ** k uses the constant; d/dx at 0 with k = 0.5 is Infinity", () => {
  const spec = {
    version: 1, ops: [{ name: "pow", symbol: "**", arity: 1, builtin: true }], op: [-1, 0], inputs: [[], [0]],
    k: [null, 0.5], symbol: ["", "**0.5"], label: ["x", "y"], scope: ["", ""], leaves: [0], root: 1, data: [4, 2], grad: [0, 0],
  };
  const tape = compileTape(spec);
  let r = replay(tape, [9]);
  assert.deepEqual([...r.data], [9, 3]);
  assert.ok(close(r.grad[0], 0.5 / 3));
  r = replay(tape, [0]);
  assert.equal(r.grad[0], Infinity);
});

test("choosing another output differentiates that node; later nodes get grad 0", () => {
  const tape = compileTape(neuronSpec());
  const data = new Float64Array(tape.n);
  forward(tape, leafValuesOf(tape, tape.data), data);
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
    version: 1, ops: [{ name: "log", symbol: "log", arity: 1, builtin: true }, { name: "mul", symbol: "*", arity: 2, builtin: true }],
    op: [-1, 0, -1, 1], inputs: [[], [0], [], [1, 2]], k: [null, null, null, null], symbol: ["", "log", "", "*"],
    label: ["x", "lx", "c", "y"], scope: ["", "", "", ""], leaves: [0, 2], root: 3, data: [1, 0, 2, 0], grad: [0, 0, 0, 0],
  };
  const tape = compileTape(spec);
  assert.equal(replay(tape, [Math.E, 2]).failure, -1);
  const bad = replay(tape, [-1, 2]);
  assert.equal(bad.failure, 1);
  assert.ok(Number.isNaN(bad.data[3]), "later nodes are still computed (NaN propagates)");
});

test("the replay fails where Python's op raises and only there: 0 ** y fails, a float overflow in * does not", () => {
  const spec = {
    version: 1, ops: [{ name: "powv", symbol: "**", arity: 2, builtin: true }, { name: "mul", symbol: "*", arity: 2, builtin: true }],
    op: [-1, -1, 0, 1], inputs: [[], [], [0, 1], [2, 1]], k: [null, null, null, null], symbol: ["", "", "**", "*"],
    label: ["x", "y", "p", "q"], scope: ["", "", "", ""], leaves: [0, 1], root: 3, data: [2, 3, 8, 24], grad: [0, 0, 0, 0],
  };
  const tape = compileTape(spec);
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

test("user-defined ops and hand-built nodes make the tape report that the kernel must compute", () => {
  const custom = {
    version: 1, ops: [{ name: "cube", symbol: "cube", arity: 1, builtin: false }], op: [-1, 0], inputs: [[], [0]],
    k: [null, null], symbol: ["", "cube"], label: ["x", "y"], scope: ["", ""], leaves: [0], root: 1, data: [2, 8], grad: [0, 0],
  };
  let tape = compileTape(custom);
  assert.equal(tape.replayable, false);
  assert.match(tape.reason, /cube/);
  assert.deepEqual(tape.unsupported, ["cube"]);
  assert.equal(tape.opaque, -1);
  assert.throws(() => replay(tape, [3]), /kernel computes/);
  const opaque = { ...custom, ops: [], op: [-1, -1] };
  tape = compileTape(opaque);
  assert.equal(tape.replayable, false);
  assert.match(tape.reason, /node 1 was built by hand/);
  assert.equal(tape.opaque, 1);
});

test("non-finite numbers round-trip through the spec encoding; bad specs give clear errors", () => {
  for (const x of [NaN, Infinity, -Infinity, 0, -2.5]) {
    const back = decodeNumber(encodeNumber(x));
    assert.ok(Object.is(back, x) || (Number.isNaN(back) && Number.isNaN(x)));
  }
  assert.throws(() => decodeNumber("inf"), /expected a number/);
  assert.throws(() => compileTape({}), /"op" list/);
  const spec = neuronSpec();
  spec.inputs[2] = [0, 5];
  assert.throws(() => compileTape(spec), /not an earlier node/);
  assert.throws(() => forward(compileTape(neuronSpec()), [1, 2]), /expected 5 leaf values/);
});

// ------------------------------------------------------------------ backward pass step by step

function lectureL() {
  const vec = JSON.parse(readFileSync(join(VECTORS, "lecture_L.json"), "utf8"));
  return compileTape(vec.spec);
}

test("shared vectors: after every step the grads equal the full backward pass, step by step the same floats", async (t) => {
  const files = vectorFiles();
  if (files.length === 0) {
    assert.fail("tests/vectors/ has no *.json: write them with `.venv/bin/python tests/vectors/generate.py`");
    return;
  }
  for (const file of files) {
    const vec = JSON.parse(readFileSync(join(VECTORS, file), "utf8"));
    const tape = compileTape(vec.spec);
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
    version: 1, ops: [{ name: "add", symbol: "+", arity: 2, builtin: true }], op: [-1, 0], inputs: [[], [0, 0]],
    k: [null, null], symbol: ["", "+"], label: ["a", "b"], scope: ["", ""], leaves: [0], root: 1, data: [3, 6], grad: [0, 0],
  };
  const tape = compileTape(spec);
  const steps = backwardSteps(tape, tape.data);
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

// ------------------------------------------------------------------ numerical gradient check

test("numeric grads by central differences agree with backprop on the lecture's L; leaf values are restored", () => {
  const tape = lectureL();
  const leaves = Float64Array.from([2, -3, 10, -2]);
  const { grad } = replay(tape, leaves);
  const { eps, rtol, atol } = GRADCHECK_DEFAULTS;
  for (let j = 0; j < leaves.length; j++) {
    const { numeric, failure } = numericGrad(tape, leaves, j, tape.root, eps);
    assert.equal(failure, -1);
    const verdict = gradcheckVerdict(grad[tape.leaves[j]], numeric, rtol, atol);
    assert.ok(verdict.ok, `leaf ${j}: analytic ${grad[tape.leaves[j]]}, numeric ${numeric}`);
    assert.ok(verdict.relError < 1e-6);
  }
  assert.deepEqual([...leaves], [2, -3, 10, -2]);
});

test("the gradcheck verdict follows gradcheck.py: |a - n| <= atol + rtol * |n|, relative to the larger", () => {
  assert.deepEqual(gradcheckVerdict(6, 6), { absError: 0, relError: 0, ok: true });
  assert.deepEqual(gradcheckVerdict(0, 0), { absError: 0, relError: 0, ok: true });
  let v = gradcheckVerdict(2, 3);
  assert.equal(v.absError, 1);
  assert.equal(v.relError, 1 / 3);
  assert.equal(v.ok, false);
  v = gradcheckVerdict(1 + 5e-5, 1); // within rtol = 1e-4
  assert.ok(v.ok);
  v = gradcheckVerdict(1e-7, 0); // within atol = 1e-6
  assert.ok(v.ok);
  assert.equal(v.relError, 1);
  v = gradcheckVerdict(1, NaN);
  assert.ok(Number.isNaN(v.relError));
  assert.equal(v.ok, false);
  assert.equal(gradcheckVerdict(Infinity, Infinity).ok, false);
});

test("a replay that fails while nudging a leaf gives NaN and names the failing node", () => {
  const spec = {
    version: 1, ops: [{ name: "log", symbol: "log", arity: 1, builtin: true }], op: [-1, 0], inputs: [[], [0]],
    k: [null, null], symbol: ["", "log"], label: ["x", "y"], scope: ["", ""], leaves: [0], root: 1, data: [0, -Infinity], grad: [0, 0],
  };
  const tape = compileTape(spec);
  const { numeric, failure } = numericGrad(tape, Float64Array.from([1e-7]), 0, 1, 1e-6);
  assert.ok(Number.isNaN(numeric));
  assert.equal(failure, 1);
});
