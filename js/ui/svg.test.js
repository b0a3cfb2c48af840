// js/ui/svg.js's text helpers for a picture's edges: splitEdges takes them out of Graphviz's SVG (the graph view puts
// each in as it comes near sight, graph/pending-edges.js), edgeBounds says where each lies.

import { test } from "node:test";
import assert from "node:assert/strict";

import { instance } from "@viz-js/viz";
import { leanSVG } from "../host/graphviz.js";
import { DOT_STYLE } from "../core/shared.js";
import { edgeBounds, splitEdges } from "./svg.js";

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

test("edgeBounds is the box of every point of an edge's path and arrowhead, Graphviz's .5 included", () => {
  assert.deepEqual(edgeBounds(EDGE_AB), [0.5, -20, 10, 9]);
  assert.deepEqual(edgeBounds(EDGE_BC), [20, 30, 23, 33]);
  assert.deepEqual(edgeBounds('<g id="e" class="edge"><path d="M-1.5e2,3"/></g>'), [-150, 3, -150, 3]);
  assert.equal(edgeBounds('<g id="e" class="edge"></g>'), null);
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
    const [x0, y0, x1, y1] = edgeBounds(edge);
    const xs = [...edge.matchAll(/(-?[\d.]+),(-?[\d.]+)/g)];
    assert.ok(xs.length >= 3, edge);
    for (const [, x, y] of xs) assert.ok(x0 <= +x && +x <= x1 && y0 <= +y && +y <= y1, `${x},${y} outside ${[x0, y0, x1, y1]}`);
  }
  const smaller = leanSVG(viz.render(dot.replace("outputorder=edgesfirst ", ""), { format: "svg", engine: "dot" }).output);
  assert.deepEqual(splitEdges(smaller), { text: smaller, edges: [] }, "a picture drawn box and edge in turn stays whole");
});
