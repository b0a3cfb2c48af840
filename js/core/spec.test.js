// The spec's decode (spec.js) against what tape.py writes: every buffer form a front end hands over, string
// tables, non-finite numbers, old and malformed specs refused with what is wrong, and the "kernel must compute" cases.

import { test } from "node:test";
import assert from "node:assert/strict";

import {
  compileTape,
  decodeNumber,
  encodeNumber,
  initialData,
  inputsOf,
  kernelNumbers,
  opOf,
  readBuffer,
} from "./spec.js";
import { forward, replay } from "./tape.js";
import { buffer, compile, fromVector, neuronSpec, readVector, v2, vectorFiles } from "./tapes.fixture.js";
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
  const vec = readVector("mlp.json");
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

test("per-node strings arrive as string tables (tape.py's string_table) or as plain lists, read the same", () => {
  const table = (list, form) => {
    const strings = [...new Set(list)];
    return { strings, index: buffer("int32", list.map((s) => strings.indexOf(s)), form) };
  };
  for (const file of vectorFiles()) {
    const vec = readVector(file);
    const plain = compileTape(fromVector(vec.spec));
    for (const form of ["dataview", "typed"]) {
      const spec = fromVector(vec.spec);
      for (const key of ["symbol", "label", "scope"]) spec[key] = table(vec.spec[key], form);
      const tabled = compileTape(spec);
      assert.deepEqual([tabled.symbols, tabled.labels, tabled.scopes], [plain.symbols, plain.labels, plain.scopes], file);
    }
  }
  const spec = fromVector(readVector(vectorFiles()[0]).spec);
  const n = spec.label.length;
  spec.label = { strings: ["x"], index: buffer("int32", new Array(n).fill(1)) };
  assert.throws(() => compileTape(spec), /"label.index" points past its 1 strings at node 0/);
  spec.label = { strings: ["x"], index: buffer("int32", [0]) };
  assert.throws(() => compileTape(spec), new RegExp(`"label.index" must hold ${n} int32 numbers`));
});
