// The tapes the spec, replay, stepper and gradcheck tests share: the shared vectors of tests/vectors/ (written
// by tests/vectors/generate.py from the Python side) as a widget manager hands them over, hand-written specs,
// and a float comparison to 1e-12.

import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

import { compileTape, decodeNumber } from "./spec.js";

const VECTORS = fileURLToPath(new URL("../../tests/vectors/", import.meta.url));
const TOL = 1e-12;

export function close(actual, expected) {
  if (Number.isNaN(expected)) return Number.isNaN(actual);
  if (!Number.isFinite(expected)) return actual === expected;
  return Math.abs(actual - expected) <= TOL * Math.max(1, Math.abs(expected));
}

export function assertAllClose(actual, expected, what) {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let i = 0; i < expected.length; i++) {
    const e = decodeNumber(expected[i]);
    assert.ok(close(actual[i], e), `${what}[${i}]: got ${actual[i]}, expected ${e}`);
  }
}

export function vectorFiles() {
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
export function buffer(kind, values, form = "dataview") {
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
export function fromVector(spec, form = "dataview") {
  const out = {};
  for (const [key, value] of Object.entries(spec)) {
    const kind = value && typeof value === "object" && !Array.isArray(value) ? Object.keys(value)[0] : null;
    out[key] = kind === "int32" || kind === "float64" ? buffer(kind, value[kind].map(decodeNumber), form) : value;
  }
  return out;
}

/** A version 2 spec from the lists a test writes by hand: inputs per node, k (null for none), data per node. */
export function v2({ ops, op, inputs, k, symbol, label, scope, leaves, root, data }) {
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

export const compile = (spec) => compileTape(v2(spec));

// The lecture's neuron: o = tanh(x1*w1 + x2*w2 + b), node order as Tape.from_value emits it.
export function neuronSpec() {
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

/** A shared vector file (tests/vectors/`file`) as its JSON. */
export function readVector(file) {
  return JSON.parse(readFileSync(join(VECTORS, file), "utf8"));
}

/** Every shared vector as [file name, its JSON], in name order; fails when there is none (a missing reference
 * fails). */
export function sharedVectors() {
  const files = vectorFiles();
  if (files.length === 0) assert.fail("tests/vectors/ has no *.json: write them with `.venv/bin/python tests/vectors/generate.py`");
  return files.map((file) => [file, readVector(file)]);
}

/** The lecture's L = (a*b + c) * f, compiled from its shared vector. */
export function lectureL() {
  return compileTape(fromVector(readVector("lecture_L.json").spec));
}
