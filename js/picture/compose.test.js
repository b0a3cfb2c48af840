// js/picture/compose.js against the vectors Python writes (tests/vectors/compose/*.json, generate_compose.py): the
// same DOT asks for the same parts, in the same order, and the same layouts compose into the same DOT, byte for
// byte; and Graphviz (node, @viz-js/viz) draws a composed picture with every node inside its opened box's frame.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";

import { instance } from "@viz-js/viz";
import { composable, compose, leanLayout } from "./compose.js";
import { edgesSVG } from "./edges.js";
import { VECTORS, composeVector, sourceDot } from "./compose.fixture.js";

const files = readdirSync(`${VECTORS}compose`).filter((f) => f.endsWith(".json")).sort();

test("there are composition vectors to check", () => {
  assert.ok(files.length >= 4, "expected tests/vectors/compose/*.json; run .venv/bin/python tests/vectors/generate_compose.py");
});

for (const file of files) {
  test(`composition vectors: ${file}`, () => {
    const v = composeVector(file.slice(0, -".json".length));
    const dot = sourceDot(v);
    assert.ok(composable(dot), `${file}: the DOT is composable`);
    let k = 0;
    const composed = compose(dot, (part) => {
      assert.equal(part, v.parts[k], `${file}: part ${k}`);
      return v.layouts[k++];
    });
    assert.equal(k, v.parts.length, `${file}: every part asked for`);
    assert.equal(composed.dot, v.composed, `${file}: the composed DOT`);
    assert.equal(edgesSVG(composed.edges), v.edges, `${file}: the edges' SVG`);
  });
}

test("a small picture, or a large one with no opened box, is not composed", () => {
  const v = composeVector("hostile");
  assert.equal(composable(sourceDot({ ...v, large: false })), false);
  assert.equal(composable("digraph micrograd {\n\tgraph [splines=line]\n\tnode []\n\tedge []\n\ta -> b [id=e_a_b]\n}\n"), false);
});

/**
 * Every rectangle Graphviz's json0 gives a drawn node and an opened box, in points.
 * @param {any} doc
 * @returns {{nodes: Map<string, number[]>, frames: Map<string, number[]>}}
 */
function geometry(doc) {
  const nodes = new Map();
  const frames = new Map();
  for (const o of doc.objects ?? []) {
    if (o.bb) frames.set(o.name, o.bb.split(",").map(Number));
    else if (o.pos) {
      const [x, y] = o.pos.split(",").map(Number);
      const w = Number(o.width) * 36;
      const h = Number(o.height) * 36;
      nodes.set(o.name, [x - w, y - h, x + w, y + h]);
    }
  }
  return { nodes, frames };
}

test("Graphviz draws a composed picture with each node in its own box's frame and no two nodes overlapping", async () => {
  const g = await instance();
  const v = composeVector("moons_nested");
  const dot = sourceDot(v);
  const composed = compose(dot, (part) => leanLayout(g.render(part, { format: "json0", engine: "dot" }).output ?? ""));
  const drawn = g.render(composed.dot, { format: "json0", engine: "nop2" });
  assert.equal(drawn.status, "success");
  const doc = JSON.parse(drawn.output ?? "");
  const { nodes, frames } = geometry(doc);
  // Which frame each node belongs to, from the DOT's nesting (an independent reading of the input).
  /** @type {Map<string, string[]>} */
  const within = new Map();
  const stack = [];
  for (const line of dot.split("\n")) {
    const m = /^\t+subgraph (cluster_\S+) \{$/.exec(line);
    if (m) { stack.push(m[1]); continue; }
    if (/^\t+\}$/.test(line)) { stack.pop(); continue; }
    const n = /^\t+(n\d+(?:_op)?|fold\d+) \[/.exec(line);
    if (n) within.set(n[1], stack.slice());
  }
  assert.ok(within.size > 200 && frames.size === 23, `${within.size} nodes, ${frames.size} frames`);
  const inside = (/** @type {number[]} */ a, /** @type {number[]} */ b) => a[0] >= b[0] - 0.5 && a[1] >= b[1] - 0.5 && a[2] <= b[2] + 0.5 && a[3] <= b[3] + 0.5;
  for (const [name, around] of within) {
    const r = nodes.get(name);
    assert.ok(r, `${name} is drawn`);
    for (const c of around) assert.ok(inside(r, /** @type {number[]} */ (frames.get(c))), `${name} inside ${c}`);
  }
  const list = [...nodes.entries()];
  for (let i = 0; i < list.length; i++) {
    for (let j = i + 1; j < list.length; j++) {
      const [a, b] = [list[i][1], list[j][1]];
      const overlap = Math.min(a[2], b[2]) - Math.max(a[0], b[0]) > 1 && Math.min(a[3], b[3]) - Math.max(a[1], b[1]) > 1;
      assert.ok(!overlap, `${list[i][0]} and ${list[j][0]} overlap`);
    }
  }
});

