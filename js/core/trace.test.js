// Path tracing (trace.js) on small tapes worked out by hand: what a node depends on, and the nodes through
// which the output's gradient reaches it.

import { test } from "node:test";
import assert from "node:assert/strict";

import { compileTape } from "./spec.js";
import { inputsTrace, pathToOutput } from "./trace.js";

const OPS = [
  { name: "mul", symbol: "*", arity: 2, builtin: true },
  { name: "add", symbol: "+", arity: 2, builtin: true },
  { name: "tanh", symbol: "tanh", arity: 1, builtin: true },
];
const ROW = { "*": 0, "+": 1, tanh: 2 };

/** A compiled tape from [label, symbol or "", [inputs]] per node, in tape order (inputs first). */
function tapeOf(nodes, scopes = null) {
  const starts = [0];
  const flat = [];
  for (const [, , ins] of nodes) {
    flat.push(...ins);
    starts.push(flat.length);
  }
  const leaves = nodes.flatMap(([, , ins], i) => (ins.length ? [] : [i]));
  return compileTape({
    version: 2, n: nodes.length, root: nodes.length - 1, ops: OPS,
    symbol: nodes.map(([, s]) => s), label: nodes.map(([l]) => l), scope: scopes || nodes.map(() => ""),
    op: Int32Array.from(nodes.map(([, s]) => (s ? ROW[s] : -1))), input_start: Int32Array.from(starts),
    inputs: Int32Array.from(flat), k: Float64Array.from(nodes, () => NaN), leaves: Int32Array.from(leaves),
    leaf_data: Float64Array.from(leaves, () => 1),
  });
}

// The lecture's L = (a*b + c) * f: a0 b1 e2=a*b c3 d4=e+c f5 L6=d*f.
const lecture = () => tapeOf([
  ["a", "", []], ["b", "", []], ["e", "*", [0, 1]], ["c", "", []], ["d", "+", [2, 3]], ["f", "", []], ["L", "*", [4, 5]],
]);

// A diamond with a side branch: x0, u1=tanh(x), v2=x*u, w3, z4=v+w, s5=tanh(u) (not used by z), out6=z*s.
const diamond = () => tapeOf([
  ["x", "", []], ["u", "tanh", [0]], ["v", "*", [0, 1]], ["w", "", []], ["z", "+", [2, 3]], ["s", "tanh", [1]],
  ["out", "*", [4, 5]],
]);

const list = (a) => Array.from(a);

test("inputs: every node the selected one depends on, not itself", () => {
  const t = lecture();
  assert.deepEqual(list(inputsTrace(t, 6)), [0, 1, 2, 3, 4, 5]);
  assert.deepEqual(list(inputsTrace(t, 4)), [0, 1, 2, 3]);
  assert.deepEqual(list(inputsTrace(t, 2)), [0, 1]);
  assert.deepEqual(list(inputsTrace(t, 0)), [], "a leaf depends on nothing");
  const d = diamond();
  assert.deepEqual(list(inputsTrace(d, 4)), [0, 1, 2, 3], "x counted once though reached twice");
  assert.deepEqual(list(inputsTrace(d, 5)), [0, 1]);
});

test("path to output: the nodes the gradient flows through, both ends included", () => {
  const t = lecture();
  assert.deepEqual(list(pathToOutput(t, 0, 6)), [0, 2, 4, 6], "a -> e -> d -> L");
  assert.deepEqual(list(pathToOutput(t, 5, 6)), [5, 6]);
  assert.deepEqual(list(pathToOutput(t, 6, 6)), [6], "the output alone");
  assert.deepEqual(list(pathToOutput(t, 0, 4)), [0, 2, 4], "differentiating d: the path stops there");
  assert.deepEqual(list(pathToOutput(t, 5, 4)), [], "d does not depend on f");
  assert.deepEqual(list(pathToOutput(t, 6, 4)), [], "nor on L, which comes after it");
  const d = diamond();
  assert.deepEqual(list(pathToOutput(d, 0, 6)), [0, 1, 2, 4, 5, 6], "x reaches out through v directly, through u, and via s");
  assert.deepEqual(list(pathToOutput(d, 0, 4)), [0, 1, 2, 4], "for z, s is not on a path (it does not feed z)");
  assert.deepEqual(list(pathToOutput(d, 1, 4)), [1, 2, 4]);
  assert.deepEqual(list(pathToOutput(d, 3, 5)), []);
});

test("a chain of 1,000,000 nodes: no recursion, every node on the path", () => {
  const n = 1_000_000;
  const nodes = new Array(n);
  nodes[0] = ["x", "", []];
  for (let i = 1; i < n; i++) nodes[i] = ["", "tanh", [i - 1]];
  const t = tapeOf(nodes);
  assert.equal(inputsTrace(t, n - 1).length, n - 1);
  const path = pathToOutput(t, 0, n - 1);
  assert.equal(path.length, n);
  assert.equal(path[n - 1], n - 1);
  assert.deepEqual(list(pathToOutput(t, 10, 12)), [10, 11, 12]);
});
