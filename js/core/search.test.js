// Search matching (search.js) on a small tape worked out by hand: labels, full dotted names as the leaf list
// shows them, op symbols and names, "#id", ranking (exact first, tape order within a rank).

import { test } from "node:test";
import assert from "node:assert/strict";

import { compileTape } from "./spec.js";
import { QUOTED_CHARS, RANK, dottedName, findStatus, matchRank, parseQuery, search, searchIndex } from "./search.js";

const OPS = [
  { name: "mul", symbol: "*", arity: 2, builtin: true },
  { name: "add", symbol: "+", arity: 2, builtin: true },
  { name: "tanh", symbol: "tanh", arity: 1, builtin: true },
];
const ROW = { "*": 0, "+": 1, tanh: 2 };

/** A compiled tape from [label, scope, symbol or "", [inputs]] per node, in tape order. */
function tapeOf(nodes) {
  const starts = [0];
  const flat = [];
  for (const [, , , ins] of nodes) {
    flat.push(...ins);
    starts.push(flat.length);
  }
  const leaves = nodes.flatMap(([, , , ins], i) => (ins.length ? [] : [i]));
  return compileTape({
    version: 2, n: nodes.length, root: nodes.length - 1, ops: OPS,
    symbol: nodes.map(([, , s]) => s), label: nodes.map(([l]) => l), scope: nodes.map(([, s]) => s),
    op: Int32Array.from(nodes.map(([, , s]) => (s ? ROW[s] : -1))), input_start: Int32Array.from(starts),
    inputs: Int32Array.from(flat), k: Float64Array.from(nodes, () => NaN), leaves: Int32Array.from(leaves),
    leaf_data: Float64Array.from(leaves, () => 1),
  });
}

// Two neurons' weights (same labels, different scopes), an unlabelled product, a tanh, a labelled output.
const N0 = "layers.0.neurons.3";
const N1 = "layers.1.neurons.0";
const tape = () => tapeOf([
  ["w2", N0, "", []], // 0
  ["x", "", "", []], // 1
  ["", N0, "*", [0, 1]], // 2
  ["w1", N1, "", []], // 3
  ["", N1, "*", [2, 3]], // 4
  ["act", N1, "tanh", [4]], // 5
  ["W2sum", "", "+", [5, 0]], // 6: a label containing "w2", no scope
]);

const found = (typed) => Array.from(search(searchIndex(tape()), typed));

test("dotted names are scope.label as the leaf list shows them, #id when unlabelled", () => {
  const t = tape();
  assert.equal(dottedName(t, 0), "layers.0.neurons.3.w2");
  assert.equal(dottedName(t, 1), "x");
  assert.equal(dottedName(t, 2), "layers.0.neurons.3.#2");
  assert.equal(dottedName(t, 6), "W2sum");
});

test("a label matches exactly first, then as part of a label, in tape order", () => {
  assert.deepEqual(found("w2"), [0, 6], "w2 exact, then W2sum (case-insensitive)");
  assert.deepEqual(found("  W1 "), [3], "trimmed and lowercased");
  assert.deepEqual(found("act"), [5]);
  assert.deepEqual(found("nothing like it"), []);
  assert.deepEqual(found(""), []);
});

test("the full dotted name, or any part of it, finds the node", () => {
  assert.deepEqual(found("layers.0.neurons.3.w2"), [0], "the exact dotted name");
  assert.deepEqual(found("LAYERS.1.NEURONS.0.W1"), [3]);
  assert.deepEqual(found("neurons.3.w2"), [0], "a tail of it");
  assert.deepEqual(found("layers.1.neurons.0"), [3, 4, 5], "a scope: every node made in it");
  assert.deepEqual(found("layers.1.neurons.0.w2"), [], "w2 is not in that neuron");
});

test("op symbols and op names find the nodes made by that op, ranked after exact names", () => {
  assert.deepEqual(found("*"), [2, 4]);
  assert.deepEqual(found("mul"), [2, 4]);
  assert.deepEqual(found("tanh"), [5]);
  assert.deepEqual(found("+"), [6]);
});

test("#id finds exactly that node", () => {
  assert.deepEqual(found("#4"), [4]);
  assert.deepEqual(found("#0"), [0]);
  assert.deepEqual(found("#99"), [], "no such node");
  assert.deepEqual(found("#"), [2, 4], "a bare # is text: the unlabelled nodes' dotted names hold it");
});

test("matchRank is the one rule the leaf filter uses", () => {
  const index = searchIndex(tape());
  const q = parseQuery("w2");
  assert.equal(matchRank(index, 0, q), RANK.exact);
  assert.equal(matchRank(index, 6, q), RANK.label);
  assert.equal(matchRank(index, 3, q), -1);
  assert.equal(matchRank(index, 2, parseQuery("neurons.3")), RANK.name);
  assert.equal(matchRank(index, 4, parseQuery("#4")), RANK.exact);
  assert.equal(matchRank(index, 5, parseQuery("tanh")), RANK.op);
  assert.deepEqual(parseQuery(" #12 "), { text: "#12", id: 12 });
  assert.deepEqual(parseQuery("#1a"), { text: "#1a", id: null });
});

test("the status line quotes what was typed cut to 60 characters, never a pasted 100k whole (issue 24, defect 10)", () => {
  assert.equal(QUOTED_CHARS, 60);
  const pasted = "w".repeat(100_000);
  const said = findStatus(pasted, 0);
  assert.equal(said, `No node matches \u201c${"w".repeat(59)}\u2026\u201d.`);
  assert.equal(findStatus("  tanh  ", 0), "No node matches \u201ctanh\u201d.");
  assert.equal(findStatus("x".repeat(60), 0), `No node matches \u201c${"x".repeat(60)}\u201d.`); // 60 fit whole
  assert.equal(findStatus("a\nb", 0), "No node matches \u201ca \u21b5 b\u201d."); // cleaned as every user string
  assert.equal(findStatus("   ", 0), "");
  assert.equal(findStatus("", 3), "");
  assert.equal(findStatus(pasted, 1), "1 node matches: press Enter to show it.");
  assert.equal(findStatus("w", 12345), "12,345 nodes match: press Enter to show the first.");
});
