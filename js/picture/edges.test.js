// js/picture/edges.js: a composed picture's edges, worked out by hand for one edge, and against Graphviz's own drawing
// of the same pinned picture (the browser's @viz-js/viz); micrograd_widget/picture/edges.py is held to the same by
// tests/test_edges.py, and both twins to the same bytes by the compose vectors (js/picture/compose.test.js).

import { test } from "node:test";
import assert from "node:assert/strict";

import { instance } from "@viz-js/viz";
import { compose, leanLayout } from "./compose.js";
import { POINTS, edgeBounds, edgeMarkup, edgeTable, edgesSVG, placeEdge, withEdges } from "./edges.js";
import { composeVector, sourceDot } from "./compose.fixture.js";

test("an edge from a record to an ellipse on its right, worked out by hand", () => {
  // The record: centre (0, 0), 80 x 60 points; the ellipse: centre (200, 0), 54 x 36 (hundredths below).
  const table = edgeTable(1);
  placeEdge(table, 0, "e_a_b", "a", "b", { x: 0, y: 0, hw: 4000, hh: 3000, round: false }, { x: 20000, y: 0, hw: 2700, hh: 1800, round: true });
  // The line leaves the record at x = 40; the tip stops 1.51 short of the ellipse (200 - 27 - 1.51 = 171.49), the
  // arrowhead's base 7 before it (164.49), its corners 2.45 either side; the curve's handles at a third and two
  // thirds of 40 -> 164.49 (81.5, 122.99, rounded half up); the first corner is the base plus (-u.y, u.x) x 2.45
  // with u = (1, 0): y + 2.45, SVG -2.45.
  assert.equal(edgesSVG(table), '<g id="e_a_b" class="edge mgw&#45;edge">\n<title>a&#45;&gt;b</title>\n'
    + '<path fill="none" stroke="#555555" d="M40,0C81.5,0 122.99,0 164.49,0"/>\n'
    + '<polygon fill="#555555" stroke="#555555" points="164.49,-2.45 171.49,0 164.49,2.45 164.49,-2.45"/>\n</g>\n');
  // The page's (lean) markup: no title, no line breaks; its bounds: the line and the arrowhead's corners.
  assert.equal(edgesSVG(table, true), '<g id="e_a_b" class="edge mgw&#45;edge">'
    + '<path fill="none" stroke="#555555" d="M40,0C81.5,0 122.99,0 164.49,0"/>'
    + '<polygon fill="#555555" stroke="#555555" points="164.49,-2.45 171.49,0 164.49,2.45 164.49,-2.45"/></g>');
  assert.deepEqual([...edgeBounds(table)], [40, -2.45, 171.49, 2.45]);
});

test("an edge straight down between records leaves and meets them at their tops and bottoms (SVG y is down)", () => {
  const table = edgeTable(1);
  placeEdge(table, 0, "e_a_b", "a", "b", { x: 0, y: 10000, hw: 4000, hh: 2000, round: false }, { x: 0, y: 0, hw: 3000, hh: 1000, round: false });
  /** @type {string[]} */
  const buf = [];
  edgeMarkup(buf, table, 0, false);
  const d = / d="([^"]*)"/.exec(buf.join(""))?.[1];
  const points = /points="([^"]*)"/.exec(buf.join(""))?.[1];
  // From y = 100 - 20 = 80 (SVG -80) down to the tip at 0 + 10 + 1.51 = 11.51 (SVG -11.51), its base at 18.51; the
  // first corner is the base plus (-u.y, u.x) x 2.45 with u = (0, -1) going down: x + 2.45.
  assert.equal(d, "M0,-80C0,-59.5 0,-39.01 0,-18.51");
  assert.equal(points, "2.45,-18.51 0,-11.51 -2.45,-18.51 2.45,-18.51");
  assert.deepEqual([...edgeBounds(table)], [-2.45, -80, 2.45, -11.51]);
  assert.equal(table.at.length, 2 * POINTS);
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
  const v = composeVector("moons_nested");
  const dot = sourceDot(v);
  const composed = compose(dot, (part) => leanLayout(g.render(part, { format: "json0", engine: "dot" }).output ?? ""));
  const ours = withEdges(g.render(composed.dot, { format: "svg", engine: "nop2" }).output ?? "", edgesSVG(composed.edges));
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
