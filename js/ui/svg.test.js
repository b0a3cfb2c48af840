// js/ui/svg.js's text helpers for a large picture's edges and op circles: splitEdges and splitOps take them out of
// Graphviz's SVG (the graph view puts each in as it comes near sight, graph/pending.js), shapeBounds says where each lies.

import { test } from "node:test";
import assert from "node:assert/strict";

import { instance } from "@viz-js/viz";
import { leanSVG } from "../host/graphviz.js";
import { DOT_STYLE } from "../core/shared.js";
import { shapeBounds, splitEdges, splitOps } from "./svg.js";

const EDGE_AB = '<g id="e_a_b" class="edge mgw&#45;edge"><path fill="none" d="M1,-2C3,-4 5,-6 7,-8"/>'
  + '<polygon points="10,-1 .5,-20 9,9 10,-1"/></g>';
const EDGE_BC = '<g id="e_b_c" class="edge mgw&#45;edge"><path fill="none" d="M20,30C21,31 22,32 23,33"/></g>';
const HEAD = '<svg width="10pt"><g id="graph0" class="graph"><polygon points="0,0 9,9"/>'
  + '<g id="open0" class="cluster"><polygon points="1,1 2,2"/></g>';
const NODE = '<g id="a" class="node mgw&#45;value"><polygon points="0,0 1,1"/><text x="1" y="2">data 1</text></g>';
const TAIL = "</g></svg>";

test("splitEdges takes the run of edges out of a picture drawn edges first, each edge whole and in order", () => {
  const svg = HEAD + EDGE_AB + EDGE_BC + NODE + TAIL;
  const { text, edges } = splitEdges(svg);
  assert.deepEqual(edges, [EDGE_AB, EDGE_BC]);
  assert.equal(text, HEAD + NODE + TAIL);
  const lines = HEAD + "\n" + EDGE_AB + "\n" + EDGE_BC + "\n" + NODE + TAIL; // Graphviz's own SVG has line breaks
  assert.deepEqual(splitEdges(lines).edges, [EDGE_AB, EDGE_BC]);
  assert.equal(splitEdges(lines).text, HEAD + "\n" + NODE + TAIL);
});

test("splitEdges leaves whole a picture whose edges are not one flat run before the boxes", () => {
  for (const svg of [
    HEAD + NODE + TAIL, // no edge
    HEAD + EDGE_AB + NODE + EDGE_BC + TAIL, // an edge after a box: drawn in another order
    HEAD + NODE + EDGE_AB + EDGE_BC + TAIL, // boxes first
    HEAD + '<g id="e_x" class="edge"><g id="a_e_x"><a><path d="M0,0"/></a></g></g>' + NODE + TAIL, // an edge with a link
  ]) {
    assert.deepEqual(splitEdges(svg), { text: svg, edges: [] }, svg);
  }
});

test("shapeBounds is the box of every point of an edge's path and arrowhead, Graphviz's .5 included", () => {
  assert.deepEqual(shapeBounds(EDGE_AB), [0.5, -20, 10, 9]);
  assert.deepEqual(shapeBounds(EDGE_BC), [20, 30, 23, 33]);
  assert.deepEqual(shapeBounds('<g id="e" class="edge"><path d="M-1.5e2,3"/></g>'), [-150, 3, -150, 3]);
  assert.equal(shapeBounds('<g id="e" class="edge"></g>'), null);
});

// An op circle as leanSVG leaves it: its tooltip's link around an ellipse and the op's symbol.
const OP_1 = '<g id="n1_op" class="node mgw&#45;op"><g id="a_n1_op"><a xlink:title="+">'
  + '<ellipse fill="#ffffff" stroke="black" cx="40" cy="-18" rx="27" ry="18.5"/>\n'
  + '<text text-anchor="middle" x="40" y="-14.3">+</text></a></g></g>';
const OP_7 = OP_1.replaceAll("n1_op", "n7_op").replace('cx="40"', 'cx="140"');

test("shapeBounds of an op circle is its ellipse's box: centre less and plus the radii", () => {
  assert.deepEqual(shapeBounds(OP_1), [13, -36.5, 67, 0.5]);
  assert.deepEqual(shapeBounds(OP_7), [113, -36.5, 167, 0.5]);
});

test("splitOps takes every op circle out of the boxes, each whole (its link and text) and in order", () => {
  const svg = HEAD + NODE + OP_1 + NODE.replace('id="a"', 'id="b"') + OP_7 + TAIL;
  const { text, ops } = splitOps(svg);
  assert.deepEqual(ops, [OP_1, OP_7]);
  assert.equal(text, HEAD + NODE + NODE.replace('id="a"', 'id="b"') + TAIL);
  assert.deepEqual(splitOps(HEAD + NODE + TAIL), { text: HEAD + NODE + TAIL, ops: [] }, "no op circle: the same text");
  const open = HEAD + NODE + OP_1.slice(0, -8); // its two closing tags missing: not a whole group
  assert.deepEqual(splitOps(open), { text: open, ops: [] });
});

test("Graphviz's own SVG of a picture drawn as the view draws a large one splits into its boxes and every edge", async () => {
  assert.equal(DOT_STYLE.large.outputorder, "edgesfirst", "the view's large pictures are drawn edges first");
  const dot = `digraph micrograd {
    graph [outputorder=edgesfirst rankdir=LR];
    subgraph cluster_open0 { id="open0"; label="layers.0"; fold0 [id="fold0", class="mgw-fold", shape=record, label="x|y"]; }
    n1 [id="n1", class="mgw-value", shape=record, label="{ a | data 2.0000 }", tooltip="a"];
    n1_op [id="n1_op", class="mgw-op", label="+"];
    fold0 -> n1_op [id="e_fold0_n1_op" class="mgw-edge"];
    n1_op -> n1 [id="e_n1_op_n1" class="mgw-edge"];
    fold0 -> n1 [id="e_fold0_n1" class="mgw-edge"];
  }`;
  const viz = await instance();
  const svg = leanSVG(viz.render(dot, { format: "svg", engine: "dot" }).output);
  const { text, edges } = splitEdges(svg);
  assert.deepEqual(edges.map((e) => /id="([^"]*)"/.exec(e)[1]).sort(), ["e_fold0_n1", "e_fold0_n1_op", "e_n1_op_n1"]);
  assert.ok(!text.includes('class="edge'), "an edge left in the picture");
  for (const id of ["fold0", "n1", "n1_op", "open0"]) assert.ok(text.includes(`id="${id}"`), `${id} taken out`);
  for (const edge of edges) {
    const [x0, y0, x1, y1] = shapeBounds(edge);
    const xs = [...edge.matchAll(/(-?[\d.]+),(-?[\d.]+)/g)];
    assert.ok(xs.length >= 3, edge);
    for (const [, x, y] of xs) assert.ok(x0 <= +x && +x <= x1 && y0 <= +y && +y <= y1, `${x},${y} outside ${[x0, y0, x1, y1]}`);
  }
  const apart = splitOps(text);
  assert.deepEqual(apart.ops.map((e) => /id="([^"]*)"/.exec(e)[1]), ["n1_op"]);
  assert.ok(!apart.text.includes("mgw&#45;op"), "an op circle left in the picture");
  for (const id of ["fold0", "n1", "open0"]) assert.ok(apart.text.includes(`id="${id}"`), `${id} taken out`);
  const ellipse = /cx="([^"]*)" cy="([^"]*)" rx="([^"]*)" ry="([^"]*)"/.exec(apart.ops[0]).slice(1).map(Number);
  assert.deepEqual(shapeBounds(apart.ops[0]), [ellipse[0] - ellipse[2], ellipse[1] - ellipse[3], ellipse[0] + ellipse[2],
    ellipse[1] + ellipse[3]], "Graphviz's ellipse, as drawn");
  const smaller = leanSVG(viz.render(dot.replace("outputorder=edgesfirst ", ""), { format: "svg", engine: "dot" }).output);
  assert.deepEqual(splitEdges(smaller), { text: smaller, edges: [] }, "a picture drawn box and edge in turn stays whole");
});
