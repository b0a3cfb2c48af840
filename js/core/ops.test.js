// js/core/ops.js is generated from micrograd_widget/core/ops.py by the build: a stale committed copy is caught, every row is
// held to PyTorch at NaN and +-inf, and the replay loops (every row's expressions inlined in one switch) to the rows'
// own functions called node by node (the replay they replaced): the same floats (Object.is, NaN and -0 included) and
// the same first failing node, on every shared vector and on seeded random graphs that use every op, edge values
// included.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { OPS, OPS_BY_NAME, localGradInto } from "./ops.js";
import { compileTape, decodeNumber } from "./spec.js";
import { backwardSteps } from "./stepper.js";
import { backward, forward } from "./tape.js";

const JS = dirname(fileURLToPath(import.meta.url));
const ROOT = dirname(dirname(JS));

test("js/core/ops.js is what `python -m micrograd_widget.core.ops` prints (run `npm --prefix js run build`)", () => {
  const venv = join(ROOT, ".venv", "bin", "python");
  const python = process.env.PYTHON || (existsSync(venv) ? venv : "python3");
  const expected = execFileSync(python, ["-m", "micrograd_widget.core.ops"], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  assert.equal(readFileSync(join(JS, "ops.js"), "utf8"), expected);
});

test("every row has forward(a, b, k) and localGrad with one partial per input", () => {
  assert.ok(OPS.length > 0);
  for (const op of OPS) {
    assert.equal(OPS_BY_NAME[op.name], op);
    const out = op.forward(0.5, 0.25, 2);
    assert.equal(op.localGrad(0.5, 0.25, 2, out).length, op.arity, op.name);
  }
});

test("every row at NaN and +-inf inputs: PyTorch's value and slope, and the domain Python has (tests/vectors/ops/nonfinite.json)", () => {
  const num = (x) => (typeof x === "number" ? x : { NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity }[x]);
  const file = fileURLToPath(new URL("../../tests/vectors/ops/nonfinite.json", import.meta.url));
  const { points } = JSON.parse(readFileSync(file, "utf8"));
  assert.ok(points.length > 100, "run .venv/bin/python tests/vectors/generate_nonfinite.py");
  const into = [0, 0];
  for (const [name, ra, rb, rk, domain, rout, rgrads] of points) {
    const op = OPS_BY_NAME[name];
    // The replay passes 0 for a unary op's missing input and NaN for a missing constant (js/core/tape.js).
    const [a, b, k] = [num(ra), rb === null ? 0 : num(rb), rk === null ? NaN : num(rk)];
    const out = op.forward(a, b, k);
    const where = `${name}(${ra}, ${rb}, ${rk})`;
    assert.equal(op.domain(a, b, k, out), domain, `domain of ${where}`);
    if (!domain) continue;
    assert.ok(Object.is(out, num(rout)), `${where} = ${out}, PyTorch ${rout}`);
    const grads = rgrads.map(num);
    assert.deepEqual(op.localGrad(a, b, k, out), grads, `slope of ${where}`); // deepEqual: -0 is not 0, NaN is NaN
    localGradInto(op.id, a, b, k, out, into);
    assert.deepEqual(into.slice(0, op.arity), grads, `the replay's switch: slope of ${where}`);
  }
});

// ------------------------------------------------------------------ the replay loops

const VECTORS = fileURLToPath(new URL("../../tests/vectors/", import.meta.url));

/** The reference: each node's row functions from the op table, called one by one in the Python replay's order. */
function reference(spec, leafValues, output) {
  const { n, leaves } = spec;
  const op = spec.op, start = spec.input_start, inputs = spec.inputs, k = spec.k;
  const rowOf = spec.ops.map((r) => OPS.find((o) => o.name === r.name));
  const data = new Float64Array(n);
  leaves.forEach((l, j) => (data[l] = leafValues[j]));
  let failure = -1;
  for (let i = 0; i < n; i++) {
    if (op[i] < 0) continue;
    const row = rowOf[op[i]];
    const x = data[inputs[start[i]]];
    const y = row.arity === 2 ? data[inputs[start[i] + 1]] : 0;
    data[i] = row.forward(x, y, k[i]);
    if (failure < 0 && !row.domain(x, y, k[i], data[i])) failure = i;
  }
  const grad = new Float64Array(n);
  const locals = [];
  grad[output] = 1;
  for (let i = output; i >= 0; i--) {
    if (op[i] < 0) continue;
    const row = rowOf[op[i]];
    const ai = inputs[start[i]];
    const bi = row.arity === 2 ? inputs[start[i] + 1] : -1;
    const local = row.localGrad(data[ai], bi < 0 ? 0 : data[bi], k[i], data[i]);
    locals.push([i, local[0], bi < 0 ? NaN : local[1]]);
    grad[ai] += local[0] * grad[i];
    if (bi >= 0) grad[bi] += local[1] * grad[i];
  }
  return { data, grad, failure, locals };
}

function assertSame(actual, expected, what) {
  assert.equal(actual.length, expected.length, `${what}: length`);
  for (let i = 0; i < expected.length; i++) {
    if (!Object.is(actual[i], expected[i])) assert.fail(`${what}[${i}]: got ${actual[i]}, the row functions give ${expected[i]}`);
  }
}

/** Replay with the loops and with the reference; every float, the failure and each backward step's partials agree. */
function check(spec, leafValues, output, what) {
  const tape = compileTape(spec);
  assert.ok(tape.replayable, `${what}: ${tape.reason}`);
  const want = reference(spec, leafValues, output);
  const data = new Float64Array(tape.n);
  assert.equal(forward(tape, leafValues, data), want.failure, `${what}: first failing node`);
  assertSame(data, want.data, `${what} data`);
  assertSame(backward(tape, data, output), want.grad, `${what} grad`);
  const steps = backwardSteps(tape, data, output);
  const needed = want.locals.filter(([i]) => steps.reachedAt[i] !== 0x7fffffff);
  assert.equal(steps.count, needed.length, `${what}: steps`);
  needed.forEach(([i, la, lb], s) => {
    assert.equal(steps.node[s], i, `${what}: step ${s}`);
    assertSame([steps.localA[s], steps.localB[s]], [la, lb], `${what} step ${s} partials`);
  });
  return want.failure;
}

/** A vector file's spec with its {"int32"|"float64": [...]} buffers as typed arrays (compileTape takes them as they are). */
function typed(spec) {
  const out = {};
  for (const [key, value] of Object.entries(spec)) {
    if (value && value.int32) out[key] = Int32Array.from(value.int32);
    else if (value && value.float64) out[key] = Float64Array.from(value.float64, decodeNumber);
    else out[key] = value;
  }
  return out;
}

test("shared vectors: the switch loops give the row functions' floats on every case", () => {
  const files = readdirSync(VECTORS).filter((f) => f.endsWith(".json")).sort();
  assert.ok(files.length > 0, "tests/vectors/ has no *.json: run `.venv/bin/python tests/vectors/generate.py`");
  const seen = new Set();
  for (const file of files) {
    const vec = JSON.parse(readFileSync(join(VECTORS, file), "utf8"));
    const spec = typed(vec.spec);
    if (!spec.ops.every((r) => r.builtin)) continue;
    spec.ops.forEach((r) => seen.add(r.name));
    for (const [c, kase] of vec.cases.entries()) {
      check(spec, Float64Array.from(kase.leaf_values, decodeNumber), kase.output ?? spec.root, `${file} case ${c}`);
    }
  }
  assert.deepEqual([...seen].sort(), OPS.map((o) => o.name).sort(), "the vectors use every row");
});

function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const EDGES = [0, -0, 1, -1, 0.5, -2.5, 3, 1e-300, 1e300, -1e300, 700, 800, -800, Infinity, -Infinity, NaN];
const EXPONENTS = [2, 3, 0, -1, -2, 0.5, -0.5, 1.5, 1000, -1000];

/** A random graph in node order over every row: `leafCount` leaves, then `ops` op nodes on earlier nodes. */
function randomSpec(random, leafCount, opCount) {
  const n = leafCount + opCount;
  const op = new Int32Array(n).fill(-1), k = new Float64Array(n).fill(NaN), starts = [0], flat = [];
  for (let i = 0; i < n; i++) {
    if (i >= leafCount) {
      const row = OPS[Math.floor(random() * OPS.length)];
      op[i] = row.id;
      for (let p = 0; p < row.arity; p++) flat.push(Math.floor(random() * i));
      if (row.name === "pow") k[i] = EXPONENTS[Math.floor(random() * EXPONENTS.length)];
    }
    starts.push(flat.length);
  }
  const leaves = Int32Array.from({ length: leafCount }, (_, j) => j);
  const strings = Array(n).fill("");
  return {
    version: 2, n, root: n - 1, ops: OPS.map((o) => ({ name: o.name, symbol: o.symbol, arity: o.arity, builtin: true })),
    op, input_start: Int32Array.from(starts), inputs: Int32Array.from(flat), k, leaves, leaf_data: new Float64Array(leafCount),
    symbol: strings, label: strings, scope: strings,
  };
}

test("random graphs over every op, edge values included: the same floats and the same first failing node", () => {
  const random = rng(9);
  let failed = 0;
  for (let g = 0; g < 300; g++) {
    const spec = randomSpec(random, 2 + Math.floor(random() * 4), 1 + Math.floor(random() * 40));
    for (let c = 0; c < 4; c++) {
      const leaves = Float64Array.from(spec.leaves, () => (random() < 0.3 ? EDGES[Math.floor(random() * EDGES.length)] : (random() - 0.5) * 6));
      const output = c === 3 ? Math.floor(random() * spec.n) : spec.root;
      if (check(spec, leaves, output, `graph ${g} case ${c}`) >= 0) failed += 1;
    }
  }
  assert.ok(failed > 50 && failed < 1100, `both failing and clean replays are exercised (${failed} of 1200 failed)`);
});
