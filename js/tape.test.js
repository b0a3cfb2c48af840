// The browser replay against the Python side: every shared vector in tests/vectors/ to 1e-12, plus
// hand-checked graphs and the failure and "kernel must compute" cases; the backward pass step by step
// (the stepper) and the numerical gradient check.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

import {
  applyStep, backward, backwardSteps, compileTape, decodeNumber, encodeNumber, forward, gradcheckVerdict,
  gradsAfter, initialData, inputsOf, kernelNumbers, NEVER, numericGrad, opOf, readBuffer, replay,
} from "./tape.js";
import { GRADCHECK_DEFAULTS } from "./shared.js";

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

const SIZE = { int32: 4, float64: 8 };

/**
 * Little-endian bytes of `values` as the given `form` takes them: "dataview" (at an odd offset inside a larger
 * buffer, as nothing guarantees alignment), "arraybuffer", "typed" (Int32Array / Float64Array) or "bytes" (Uint8Array).
 */
function buffer(kind, values, form = "dataview") {
  if (form === "typed") return kind === "int32" ? Int32Array.from(values) : Float64Array.from(values);
  const pad = form === "dataview" ? 3 : 0;
  const raw = new ArrayBuffer(pad + values.length * SIZE[kind] + pad);
  const view = new DataView(raw, pad, values.length * SIZE[kind]);
  values.forEach((x, i) => (kind === "int32" ? view.setInt32(i * 4, x, true) : view.setFloat64(i * 8, x, true)));
  if (form === "arraybuffer") return raw;
  if (form === "bytes") return new Uint8Array(raw);
  return view;
}

/** A vector file's spec as a widget manager hands it over: each {"int32"|"float64": [...]} as a binary buffer. */
function fromVector(spec, form = "dataview") {
  const out = {};
  for (const [key, value] of Object.entries(spec)) {
    const kind = value && typeof value === "object" && !Array.isArray(value) ? Object.keys(value)[0] : null;
    out[key] = kind === "int32" || kind === "float64" ? buffer(kind, value[kind].map(decodeNumber), form) : value;
  }
  return out;
}

/** A version 2 spec from the lists a test writes by hand: inputs per node, k (null for none), data per node. */
function v2({ ops, op, inputs, k, symbol, label, scope, leaves, root, data }) {
  const starts = [0];
  const flat = [];
  for (const ins of inputs) {
    flat.push(...ins);
    starts.push(flat.length);
  }
  return {
    version: 2, n: op.length, root, ops, symbol, label, scope,
    op: buffer("int32", op), input_start: buffer("int32", starts), inputs: buffer("int32", flat),
    k: buffer("float64", k.map((x) => (x === null ? NaN : x))), leaves: buffer("int32", leaves),
    leaf_data: buffer("float64", leaves.map((l) => data[l])),
  };
}

const compile = (spec) => compileTape(v2(spec));

test("shared vectors: JS replay agrees with Python to 1e-12", async (t) => {
  const files = vectorFiles();
  if (files.length === 0) {
    assert.fail("tests/vectors/ has no *.json: write them with `.venv/bin/python tests/vectors/generate.py`");
    return;
  }
  for (const file of files) {
    const vec = JSON.parse(readFileSync(join(VECTORS, file), "utf8"));
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
    ops, op, inputs, k: op.map(() => null), symbol: op.map(() => ""), label, scope: op.map(() => ""),
    leaves: [0, 1, 3, 4, 7], root: 9, data,
  };
}

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

test("user-defined ops and hand-built nodes make the tape report that the kernel must compute", () => {
  const custom = {
    ops: [{ name: "cube", symbol: "cube", arity: 1, builtin: false }], op: [-1, 0], inputs: [[], [0]],
    k: [null, null], symbol: ["", "cube"], label: ["x", "y"], scope: ["", ""], leaves: [0], root: 1, data: [2, 8],
  };
  let tape = compile(custom);
  assert.equal(tape.replayable, false);
  assert.match(tape.reason, /cube/);
  assert.deepEqual(tape.unsupported, ["cube"]);
  assert.equal(tape.opaque, -1);
  assert.throws(() => replay(tape, [3]), /kernel computes/);
  const opaque = { ...custom, ops: [], op: [-1, -1] };
  tape = compile(opaque);
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
  assert.throws(() => compileTape({}), /version undefined is not supported; this view reads version 2/);
  const spec = neuronSpec();
  spec.inputs[2] = [0, 5];
  assert.throws(() => compile(spec), /not an earlier node/);
  assert.throws(() => forward(compile(neuronSpec()), [1, 2]), /expected 5 leaf values/);
});

// ------------------------------------------------------------------ the binary spec (version 2)

test("every buffer form a frontend hands over (DataView at any offset, ArrayBuffer, typed arrays, bytes) compiles alike", () => {
  const vec = JSON.parse(readFileSync(join(VECTORS, "mlp.json"), "utf8"));
  const ref = compileTape(fromVector(vec.spec, "dataview"));
  const leaves = Float64Array.from(vec.cases[1].leaf_values, decodeNumber);
  const want = replay(ref, leaves);
  for (const form of ["arraybuffer", "typed", "bytes"]) {
    const tape = compileTape(fromVector(vec.spec, form));
    for (const key of ["row", "inputStart", "inputs", "a", "b", "leaves"]) assert.deepEqual([...tape[key]], [...ref[key]], `${form} ${key}`);
    for (const key of ["k", "leafData"]) assert.ok(tape[key].every((x, i) => Object.is(x, ref[key][i])), `${form} ${key}`);
    const got = replay(tape, leaves);
    assert.ok(got.grad.every((x, i) => Object.is(x, want.grad[i])), `${form}: the same floats`);
  }
});

test("the compiled tape names every node, its inputs and its op, so the view never reads the raw spec", () => {
  const tape = compile(neuronSpec());
  assert.equal(tape.labels[9], "o");
  assert.deepEqual(inputsOf(tape, 6), [2, 5]);
  assert.deepEqual(inputsOf(tape, 0), []);
  assert.deepEqual(opOf(tape, 9), { name: "tanh", symbol: "tanh", arity: 1, builtin: true });
  assert.equal(opOf(tape, 0), null);
  assert.deepEqual([...tape.leafData], [2, -3, 0, 1, 6.881373587019543]);
  assert.deepEqual([...initialData(tape)].slice(0, 4), [2, -3, NaN, 0], "leaves known, the rest left to the replay");
  const spec = v2(neuronSpec());
  spec.label = spec.label.map((x, i) => (i === 3 ? null : x));
  assert.equal(compileTape(spec).labels[3], "", "a missing label reads as none");
  const wide = { ...neuronSpec(), op: [-1, -1, -1, -1, -1, -1, -1, -1, -1, -1], inputs: [[], [], [0, 1], [], [], [3, 4], [0, 1, 3], [], [6, 7], [8]] };
  const three = compile(wide);
  assert.deepEqual(inputsOf(three, 6), [0, 1, 3], "a hand-built node may have more than two inputs");
  assert.equal(three.opaque, 2);
});

test("non-finite numbers travel as IEEE doubles: k and leaf values come back exactly", () => {
  const spec = {
    ops: [{ name: "pow", symbol: "**", arity: 1, builtin: true }], op: [-1, 0], inputs: [[], [0]],
    k: [null, -Infinity], symbol: ["", "**-inf"], label: ["x", "y"], scope: ["", ""], leaves: [0], root: 1, data: [NaN, 0],
  };
  const tape = compile(spec);
  assert.ok(Number.isNaN(tape.k[0]) && tape.k[1] === -Infinity && Number.isNaN(tape.leafData[0]));
  assert.equal(kernelNumbers(buffer("float64", [1.5, Infinity, -0]), 3)[1], Infinity);
  assert.ok(Object.is(kernelNumbers(buffer("float64", [1.5, Infinity, -0]), 3)[2], -0));
  assert.equal(kernelNumbers(new DataView(new ArrayBuffer(0)), 3), null, "empty: the browser replays");
  assert.throws(() => kernelNumbers(buffer("float64", [1, 2]), 3), /must hold 3 float64 numbers/);
});

test("an old or malformed spec is refused with what is wrong", () => {
  const old = { version: 1, ops: [], op: [-1], inputs: [[]], k: [null], symbol: [""], label: ["x"], scope: [""], leaves: [0], root: 0, data: [1], grad: [0] };
  assert.throws(() => compileTape(old), /version 1 is not supported; this view reads version 2.*Run the cell/);
  const bad = (change, pattern) => {
    const spec = v2(neuronSpec());
    change(spec);
    assert.throws(() => compileTape(spec), pattern);
  };
  bad((s) => (s.op = [-1, -1, 0]), /"op" must be a binary buffer of int32 numbers.*a list \(a version 1 spec\?\)/);
  bad((s) => (s.op = buffer("int32", [-1, -1, 0])), /"op" must hold 10 int32 numbers/);
  bad((s) => (s.k = new Uint8Array(7)), /"k" must hold 10 float64 numbers \(8 bytes each\), got 7 bytes/);
  bad((s) => (s.k = Int32Array.from([1])), /"k" must hold 10 float64 numbers/);
  bad((s) => (s.input_start = buffer("int32", [0, 0, 0, 2, 2, 2, 4, 6, 6, 8, 7])), /"input_start" decreases at node 9/);
  bad((s) => (s.leaves = buffer("int32", [0, 2, 3, 4, 7])), /"leaves" must list nodes without inputs.*entry 1 is 2/);
  bad((s) => (s.leaves = buffer("int32", [0, 1])), /"leaf_data" must hold 2 float64 numbers/);
  bad((s) => (s.leaf_data = buffer("float64", [1])), /"leaf_data" must hold 5 float64 numbers/);
  bad((s) => (s.label = ["x"]), /"label" must be a list of 10 strings/);
  bad((s) => (s.n = 0), /"n" must be the number of nodes/);
  bad((s) => (s.root = 10), /"root" must be a node id from 0 to 9/);
  bad((s) => (s.op = buffer("int32", [-1, -1, 0, -1, -1, 0, 1, -1, 1, 7])), /node 9 uses op row 7, but "ops" has 3 rows/);
  bad((s) => (s.op = buffer("int32", [-1, -1, 0, -1, -1, 0, 1, -1, 1, -2])), /node 9 has op row -2/);
  bad((s) => (s.op = buffer("int32", [-1, -1, 0, -1, -1, 0, 1, -1, 2, 2])), /node 8 \(tanh\) has 2 inputs, expected 1/);
  assert.throws(() => readBuffer("AAAA", "int32", "op"), /got string/);
});

// ------------------------------------------------------------------ backward pass step by step

function lectureL() {
  const vec = JSON.parse(readFileSync(join(VECTORS, "lecture_L.json"), "utf8"));
  return compileTape(fromVector(vec.spec));
}

test("shared vectors: after every step the grads equal the full backward pass, step by step the same floats", async (t) => {
  const files = vectorFiles();
  if (files.length === 0) {
    assert.fail("tests/vectors/ has no *.json: write them with `.venv/bin/python tests/vectors/generate.py`");
    return;
  }
  for (const file of files) {
    const vec = JSON.parse(readFileSync(join(VECTORS, file), "utf8"));
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
    ops: [{ name: "log", symbol: "log", arity: 1, builtin: true }], op: [-1, 0], inputs: [[], [0]],
    k: [null, null], symbol: ["", "log"], label: ["x", "y"], scope: ["", ""], leaves: [0], root: 1, data: [0, -Infinity],
  };
  const tape = compile(spec);
  const { numeric, failure } = numericGrad(tape, Float64Array.from([1e-7]), 0, 1, 1e-6);
  assert.ok(Number.isNaN(numeric));
  assert.equal(failure, 1);
});

test("per-node strings arrive as string tables (tape.py's string_table) or as plain lists, read the same", () => {
  const table = (list, form) => {
    const strings = [...new Set(list)];
    return { strings, index: buffer("int32", list.map((s) => strings.indexOf(s)), form) };
  };
  for (const file of vectorFiles()) {
    const vec = JSON.parse(readFileSync(join(VECTORS, file), "utf8"));
    const plain = compileTape(fromVector(vec.spec));
    for (const form of ["dataview", "typed"]) {
      const spec = fromVector(vec.spec);
      for (const key of ["symbol", "label", "scope"]) spec[key] = table(vec.spec[key], form);
      const tabled = compileTape(spec);
      assert.deepEqual([tabled.symbols, tabled.labels, tabled.scopes], [plain.symbols, plain.labels, plain.scopes], file);
    }
  }
  const spec = fromVector(JSON.parse(readFileSync(join(VECTORS, vectorFiles()[0]), "utf8")).spec);
  const n = spec.label.length;
  spec.label = { strings: ["x"], index: buffer("int32", new Array(n).fill(1)) };
  assert.throws(() => compileTape(spec), /"label.index" points past its 1 strings at node 0/);
  spec.label = { strings: ["x"], index: buffer("int32", [0]) };
  assert.throws(() => compileTape(spec), new RegExp(`"label.index" must hold ${n} int32 numbers`));
});
