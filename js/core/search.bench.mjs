// How long one search keystroke takes (search.js) over a tape spec written by benchmarks/bench_search.py:
// node js/core/search.bench.mjs <spec.json>. Prints the index build time and, per typed prefix, the median and
// max of 20 runs of `search` (what the search box does on each keystroke). No DOM, no timing asserts.

import { Buffer } from "node:buffer";
import { readFileSync } from "node:fs";
import { performance } from "node:perf_hooks";
import process from "node:process";

import { compileTape } from "./spec.js";
import { search, searchIndex } from "./search.js";

const BUFFERS = ["op", "input_start", "inputs", "k", "leaves", "leaf_data"];
const TABLES = ["symbol", "label", "scope"]; // string tables: { strings, index (base64 of an Int32 buffer) }

function load(path) {
  const spec = JSON.parse(readFileSync(path, "utf8"));
  for (const key of BUFFERS) spec[key] = new Uint8Array(Buffer.from(spec[key], "base64"));
  for (const key of TABLES) {
    const table = spec[key];
    if (table && typeof table.index === "string") table.index = new Uint8Array(Buffer.from(table.index, "base64"));
  }
  return compileTape(spec);
}

const [path, ...typed] = process.argv.slice(2);
if (!path) throw new Error("usage: node js/core/search.bench.mjs <spec.json> [typed text ...]");
const tape = load(path);
let t0 = performance.now();
const index = searchIndex(tape);
const buildMs = performance.now() - t0;
const words = typed.length ? typed : ["layers.1.neurons.0.w1", "p123", "relu", "#65000", "zzz"];
const rows = [];
for (const word of words) {
  for (let k = 1; k <= word.length; k++) {
    const prefix = word.slice(0, k);
    const times = [];
    let hits = 0;
    for (let r = 0; r < 20; r++) {
      t0 = performance.now();
      hits = search(index, prefix).length;
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    rows.push({ prefix, hits, median: times[10], max: times[19] });
  }
}
const worst = rows.reduce((a, b) => (b.median > a.median ? b : a));
const all = rows.map((r) => r.median).sort((a, b) => a - b);
console.log(JSON.stringify({
  nodes: tape.n, index_ms: +buildMs.toFixed(1), keystrokes: rows.length,
  median_ms: +all[Math.floor(all.length / 2)].toFixed(2), worst: { ...worst, median: +worst.median.toFixed(2), max: +worst.max.toFixed(2) },
}));
