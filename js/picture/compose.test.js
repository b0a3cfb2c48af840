// js/picture/compose.js against the vectors Python writes (tests/vectors/compose/*.json, generate_compose.py): the
// same DOT asks for the same parts, in the same order, and the same layouts compose into the same DOT, byte for
// byte; and Graphviz (node, @viz-js/viz) draws a composed picture with every node inside its opened box's frame.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { instance } from "@viz-js/viz";
import { composable, compose, leanLayout, withEdges } from "./compose.js";

const VECTORS = fileURLToPath(new URL("../../tests/vectors/", import.meta.url));
const files = readdirSync(`${VECTORS}compose`).filter((f) => f.endsWith(".json")).sort();

/**
 * The DOT a vector composes: its folding vector's, with straight edges when `large` (generate_compose.py forced).
 * @param {{source: [string, number, number], large: boolean}} v
 * @returns {string}
 */
function sourceDot(v) {
  const [folds, k, option] = v.source;
  const dot = JSON.parse(readFileSync(`${VECTORS}folds/${folds}.json`, "utf8")).cases[k].dot[option];
  if (!v.large) return dot;
  const [head, graph, ...rest] = dot.split("\n");
  return [head, `${graph.slice(0, -1)} splines=line]`, ...rest].join("\n");
}

test("there are composition vectors to check", () => {
  assert.ok(files.length >= 4, "expected tests/vectors/compose/*.json; run .venv/bin/python tests/vectors/generate_compose.py");
});

for (const file of files) {
  test(`composition vectors: ${file}`, () => {
    const v = JSON.parse(readFileSync(`${VECTORS}compose/${file}`, "utf8"));
    const dot = sourceDot(v);
    assert.ok(composable(dot), `${file}: the DOT is composable`);
    let k = 0;
    const composed = compose(dot, (part) => {
      assert.equal(part, v.parts[k], `${file}: part ${k}`);
      return v.layouts[k++];
    });
    assert.equal(k, v.parts.length, `${file}: every part asked for`);
    assert.equal(composed.dot, v.composed, `${file}: the composed DOT`);
    assert.equal(composed.edges, v.edges, `${file}: the edges' SVG`);
  });
}

test("a small picture, or a large one with no opened box, is not composed", () => {
  const v = JSON.parse(readFileSync(`${VECTORS}compose/hostile.json`, "utf8"));
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
  const v = JSON.parse(readFileSync(`${VECTORS}compose/moons_nested.json`, "utf8"));
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

const EDGE_SVG = /<g id="(e_\w+)" class="edge[^"]*">[^]*?d="M([-\d.]+),([-\d.]+)C[^"]*?([-\d.]+),([-\d.]+)"[^]*?points="([-\d.]+),([-\d.]+) ([-\d.]+),([-\d.]+) ([-\d.]+),([-\d.]+)/g;

/**
 * Each drawn edge's start, the end of its line (the arrowhead's base) and its arrowhead's three corners, by id.
 * @param {string} svg
 * @returns {Map<string, number[]>}
 */
function edgeEnds(svg) {
  return new Map([...svg.matchAll(EDGE_SVG)].map((m) => [m[1], m.slice(2).map(Number)]));
}

test("the edges drawn here meet the boxes where Graphviz (the browser's) draws its own", async () => {
  // The reference is Graphviz itself: the same pinned picture drawn by nop2 with its edges in (compose.py's test
  // holds the same against Debian's Graphviz).
  const g = await instance();
  const v = JSON.parse(readFileSync(`${VECTORS}compose/moons_nested.json`, "utf8"));
  const dot = sourceDot(v);
  const composed = compose(dot, (part) => leanLayout(g.render(part, { format: "json0", engine: "dot" }).output ?? ""));
  const ours = withEdges(g.render(composed.dot, { format: "svg", engine: "nop2" }).output ?? "", composed.edges);
  const edgeLines = dot.split("\n").filter((line) => /^\t\S+ -> /.test(line));
  const whole = `${composed.dot.slice(0, composed.dot.lastIndexOf("}"))}${edgeLines.join("\n")}\n}\n`;
  const theirs = g.render(whole, { format: "svg", engine: "nop2" }).output ?? "";
  /** @type {Map<string, number[]>} */
  const pinned = new Map([...composed.dot.matchAll(/\t(\w+) \[[^\n]*pos="([-\d.]+),([-\d.]+)!"/g)].map((m) => [m[1], [Number(m[2]), Number(m[3])]]));
  const ellipses = [...ours.matchAll(/<g id="(n\d+_op)" class="node[^"]*">[^]*?<ellipse[^>]*cx="([-\d.]+)" cy="([-\d.]+)"/g)];
  assert.ok(ellipses.length > 100);
  for (const [, node, cx, cy] of ellipses) {
    const [x, y] = /** @type {number[]} */ (pinned.get(node));
    assert.ok(Math.abs(Number(cx) - x) < 0.01 && Math.abs(-Number(cy) - y) < 0.01, `${node} drawn off its pin`);
  }
  const mine = edgeEnds(ours);
  const own = edgeEnds(theirs);
  assert.equal(mine.size, edgeLines.length);
  assert.ok(mine.size > 1000 && own.size === mine.size);
  for (const [edge, [sx, sy, bx, by, ax, ay, tx, ty, cx, cy]] of mine) {
    const o = /** @type {number[]} */ (own.get(edge));
    assert.ok(Math.hypot(sx - o[0], sy - o[1]) <= 1, `${edge} starts at ${sx},${sy}; Graphviz's at ${o[0]},${o[1]}`);
    assert.ok(Math.hypot(tx - o[6], ty - o[7]) <= 1.5, `${edge} ends at ${tx},${ty}; Graphviz's at ${o[6]},${o[7]}`);
    assert.ok(Math.abs(Math.hypot(tx - bx, ty - by) - 7) <= 0.02, `${edge}'s arrowhead is 7 points long (10 x 0.7)`);
    assert.ok(Math.abs(Math.hypot(ax - cx, ay - cy) - 4.9) <= 0.02, `${edge}'s arrowhead is 4.9 points wide`);
  }
});

test("withEdges draws the edges under the boxes, over the opened boxes' frames, and wants a box", () => {
  const svg = '<svg><g id="graph0" class="graph"><g id="open0" class="cluster"></g><g id="n1" class="node mgw&#45;value"></g></g></svg>';
  assert.equal(withEdges(svg, "<g id=\"e_n0_n1\" class=\"edge\"></g>"),
    '<svg><g id="graph0" class="graph"><g id="open0" class="cluster"></g><g id="e_n0_n1" class="edge"></g><g id="n1" class="node mgw&#45;value"></g></g></svg>');
  assert.throws(() => withEdges("<svg></svg>", ""), /drew no box/);
});
