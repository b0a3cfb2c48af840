// @ts-check
// Finding nodes by what the learner types, pure (no DOM): the search box (graph/search.js) and the leaf filter
// (graph/leaves.js) share this one matching function. A node is found by its label, by its full dotted name as
// the leaf list shows it (scope + "." + label, e.g. "layers.0.neurons.3.w2", or any part of it), by its op
// symbol or op name ("tanh", "*", "mul"), or by "#id". The index holds every node's strings lowercased once,
// so a keystroke is one pass of `includes` over the graph (65,818 nodes: a few ms; see search.bench.mjs).

import { plural } from "../picture/format.js";
import { cleanText } from "../picture/text.js";

/** How much of what was typed the status line quotes (a 100,000-character paste is cut to this, with "…"). */
export const QUOTED_CHARS = 60;

/** @import { Tape } from "./spec.js" */

/**
 * A tape's lowercased strings per node (searchIndex).
 * @typedef {{n: number, names: string[], labels: string[], symbols: string[], opNames: string[]}} SearchIndex
 */

/**
 * A parsed query: `text` trimmed and lowercased, `id` the node id of "#12" or null.
 * @typedef {{text: string, id: number | null}} Query
 */

/** Ranks of a match, best first: exact name or id, exact op, label contains, dotted name contains. */
export const RANK = { exact: 0, op: 1, label: 2, name: 3 };
const RANKS = 4;

/**
 * A node's full dotted name as the leaf list shows it: "scope.label", or the label, or "#id" when unlabelled.
 * @param {Tape} tape
 * @param {number} i
 * @returns {string}
 */
export function dottedName(tape, i) {
  const label = tape.labels[i];
  const scope = tape.scopes[i];
  if (!label) return scope ? `${scope}.#${i}` : `#${i}`;
  return scope ? `${scope}.${label}` : label;
}

/**
 * The lowercased strings of every node of a compiled tape (spec.js): `names` (dotted names), `labels`,
 * `symbols` (op symbols) and `opNames` ("" for leaves and nodes built by hand).
 * @param {Tape} tape
 * @returns {SearchIndex}
 */
export function searchIndex(tape) {
  const n = tape.n;
  const names = new Array(n);
  const labels = new Array(n);
  const symbols = new Array(n);
  const opNames = new Array(n);
  const lowerOp = tape.ops.map((op) => op.name.toLowerCase());
  for (let i = 0; i < n; i++) {
    const label = tape.labels[i];
    const scope = tape.scopes[i];
    labels[i] = label.toLowerCase();
    names[i] = label ? (scope ? `${scope}.${label}` : label).toLowerCase() : scope ? `${scope.toLowerCase()}.#${i}` : `#${i}`;
    symbols[i] = tape.symbols[i].toLowerCase();
    opNames[i] = tape.row[i] >= 0 ? lowerOp[tape.row[i]] : "";
  }
  return { n, names, labels, symbols, opNames };
}

/** @type {WeakMap<Tape, SearchIndex>} */
const INDEXES = new WeakMap();

/**
 * The search index of a compiled tape, built once and shared (the search box and the leaf filter).
 * @param {Tape} tape
 * @returns {SearchIndex}
 */
export function indexOf(tape) {
  let index = INDEXES.get(tape);
  if (!index) INDEXES.set(tape, (index = searchIndex(tape)));
  return index;
}

/**
 * What was typed, ready to match: `text` trimmed and lowercased, `id` the node id of "#12" (else null).
 * @param {unknown} typed
 * @returns {Query}
 */
export function parseQuery(typed) {
  const text = String(typed ?? "").trim().toLowerCase();
  const m = /^#(\d+)$/.exec(text);
  return { text, id: m ? Number(m[1]) : null };
}

/**
 * How well node i matches `query` (from parseQuery): a RANK value, or -1 for no match.
 * @param {SearchIndex} index
 * @param {number} i
 * @param {Query} query
 * @returns {number}
 */
export function matchRank(index, i, query) {
  const q = query.text;
  if (!q) return -1;
  if (query.id !== null) return i === query.id ? RANK.exact : -1;
  const label = index.labels[i];
  const name = index.names[i];
  if (label && (label === q || name === q)) return RANK.exact;
  if (index.symbols[i] === q || index.opNames[i] === q) return RANK.op;
  if (label.includes(q)) return RANK.label;
  if (name.includes(q)) return RANK.name;
  return -1;
}

/**
 * Every node matching `typed` (a string or a parseQuery result), best rank first and in tape order within a
 * rank, as an Int32Array of node ids.
 * @param {SearchIndex} index
 * @param {string | Query} typed
 * @returns {Int32Array}
 */
export function search(index, typed) {
  const query = typeof typed === "string" ? parseQuery(typed) : typed;
  if (!query.text) return new Int32Array(0);
  if (query.id !== null) return query.id < index.n ? Int32Array.of(query.id) : new Int32Array(0);
  const buckets = Array.from({ length: RANKS }, () => /** @type {number[]} */ ([]));
  for (let i = 0; i < index.n; i++) {
    const r = matchRank(index, i, query);
    if (r >= 0) buckets[r].push(i);
  }
  const out = new Int32Array(buckets.reduce((s, b) => s + b.length, 0));
  let at = 0;
  for (const b of buckets) {
    out.set(b, at);
    at += b.length;
  }
  return out;
}

/** The search box's status line for what was typed and its `n` matches: empty for an empty box; the query
 * quoted only when nothing matches, cleaned and cut to QUOTED_CHARS (as any user string the view shows).
 * @param {string | null | undefined} typed
 * @param {number} n
 * @returns {string}
 */
export function findStatus(typed, n) {
  const text = String(typed ?? "").trim();
  if (!text) return "";
  if (n === 0) return `No node matches \u201c${cleanText(text, QUOTED_CHARS)}\u201d.`;
  return `${plural(n, "node")} ${n === 1 ? "matches" : "match"}: press Enter to show ${n === 1 ? "it" : "the first"}.`;
}
