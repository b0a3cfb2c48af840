// @ts-check
// A composed picture's edges (js/picture/compose.js), the twin of micrograd_widget/picture/edges.py: each drawn here
// as Graphviz draws a straight edge, not by Graphviz's nop2, which spent half its time on the moons loss opened at
// node_budget=2000 clipping its 6,653 edges at their boxes by bisection and writing their SVG. In hundredths of a
// point, with the same arithmetic in Python and JS (IEEE doubles, rounded half up), so both write the same bytes:
// tests/vectors/compose/*.json hold them, and js/picture/edges.test.js holds them to Graphviz's own drawing.
// Here the edges are placed as numbers first (an EdgeTable: what the layout worker hands the page) and written as
// markup only when wanted: the page writes an edge as it comes near sight (graph/pending.js), never all 6,653 at once.
//
//   edgeTable(n) -> EdgeTable                        room for n edges
//   placeEdge(table, k, id, tail, head, from, to)    edge k's points, from its two drawn nodes
//   edgeMarkup(buf, table, k, lean)                  edge k's SVG, in pieces, into buf (lean: as leanSVG leaves it)
//   edgesSVG(table, lean) -> string                  every edge's SVG, in order
//   edgeBounds(table) -> Float64Array                each edge's bounding box [x0, y0, x1, y1], in points
//   withEdges(svg, edges) -> string                  nop2's SVG of the composed DOT with the edges drawn in
//   xmlAttribute(text) -> string                     text as Graphviz escapes it in SVG

import { DOT_STYLE } from "../core/shared.js";

// A drawn box's start tag in Graphviz's SVG: the composed picture's edges go before the first (edges first).
const BOX = /<g id="[^"]*" class="node[ "]/;
// An arrowhead's length (Graphviz's 10 points times the edges' arrowsize), in hundredths of a point, and its
// half-width per unit of length (Graphviz's "normal" arrow).
const ARROW = Math.floor(1000 * Number(DOT_STYLE.edge.arrowsize) + 0.5);
const ARROW_HALF_WIDTH = 0.35;
// How far short of the head's outline the arrowhead's tip stops, in hundredths of a point, as Graphviz's does: its
// 1-point stroke reaches past the sharp tip by half the stroke over the sine of the tip's half-angle (~1.51 points).
const MITER = Math.floor(50 * Math.sqrt(1 + ARROW_HALF_WIDTH * ARROW_HALF_WIDTH) / ARROW_HALF_WIDTH + 0.5);

/**
 * A drawn node of the composed picture, as its edges see it: centre and half-sizes in hundredths of a point, and
 * whether its outline is an ellipse (an op) or a rectangle (a record: Graphviz clips edges at a record's box).
 * @typedef {{x: number, y: number, hw: number, hh: number, round: boolean}} Drawn
 */

/**
 * The fraction of (dx, dy), from a node's centre, at which that ray leaves its outline.
 * @param {Drawn} node
 * @param {number} dx
 * @param {number} dy
 * @returns {number}
 */
function outline(node, dx, dy) {
  if (node.round) {
    const p = dx / node.hw;
    const q = dy / node.hh;
    return 1 / Math.sqrt(p * p + q * q);
  }
  const ax = Math.abs(dx);
  const ay = Math.abs(dy);
  return ax * node.hh >= ay * node.hw ? node.hw / ax : node.hh / ay; // through a side, or the top or bottom
}

/**
 * A composed picture's edges as numbers: each edge's DOT id, tail and head, and in `at` its POINTS points (the line's
 * start, its two control points and its end, then the arrowhead's three corners), 2 numbers each, in the SVG's
 * coordinates (y down) in hundredths of a point, rounded as the SVG writes them. Plain data: the layout worker posts
 * it to the page (structured clone), ~0.4 MB for the moons loss's 6,653 edges against 2.2 MB of their markup.
 * @typedef {{ids: string[], tails: string[], heads: string[], at: Int32Array}} EdgeTable
 */

/** The points an edge of an EdgeTable has. */
export const POINTS = 7;
const NUMBERS = 2 * POINTS;

/**
 * An EdgeTable with room for `n` edges (placeEdge fills each).
 * @param {number} n
 * @returns {EdgeTable}
 */
export function edgeTable(n) {
  return { ids: new Array(n), tails: new Array(n), heads: new Array(n), at: new Int32Array(NUMBERS * n) };
}

/**
 * Place edge `k` of `table` as Graphviz draws a straight edge: from where the line between the two centres leaves the
 * tail's outline to an arrowhead whose stroked tip touches the head's.
 * @param {EdgeTable} table
 * @param {number} k
 * @param {string} id
 * @param {string} tail
 * @param {string} head
 * @param {Drawn} from
 * @param {Drawn} to
 * @returns {void}
 */
export function placeEdge(table, k, id, tail, head, from, to) {
  const dx = to.x - from.x;
  const dy = to.y - from.y;
  const length = Math.sqrt(dx * dx + dy * dy);
  const s = length > 0 ? outline(from, dx, dy) : 0;
  const e = length > 0 ? 1 - outline(to, dx, dy) - MITER / length : 0;
  const gap = (e - s) * length;
  const a = gap > ARROW ? ARROW : gap > 0 ? gap : 0; // a short edge's arrowhead is as long as the edge
  const ux = length > 0 ? dx / length : 0;
  const uy = length > 0 ? dy / length : 0;
  const sx = from.x + s * dx;
  const sy = from.y + s * dy;
  const tx = from.x + e * dx;
  const ty = from.y + e * dy;
  const bx = tx - ux * a;
  const by = ty - uy * a;
  const vx = -uy * a * ARROW_HALF_WIDTH;
  const vy = ux * a * ARROW_HALF_WIDTH;
  table.ids[k] = id;
  table.tails[k] = tail;
  table.heads[k] = head;
  const at = table.at;
  let j = NUMBERS * k;
  /** @type {(x: number, y: number) => void} */
  const put = (x, y) => {
    at[j++] = Math.floor(x + 0.5);
    at[j++] = -Math.floor(y + 0.5); // the picture's y is up, the SVG's down
  };
  put(sx, sy);
  put(sx + (bx - sx) / 3, sy + (by - sy) / 3);
  put(sx + 2 * (bx - sx) / 3, sy + 2 * (by - sy) / 3);
  put(bx, by);
  put(bx + vx, by + vy);
  put(tx, ty);
  put(bx - vx, by - vy);
}

/**
 * A coordinate in hundredths of a point as Graphviz's SVG writes one: "12.5", "-3", "0.07".
 * @param {number} n
 * @returns {string}
 */
function svgNumber(n) {
  const m = n < 0 ? -n : n;
  const cents = m % 100;
  const whole = (m - cents) / 100;
  const sign = n < 0 ? "-" : "";
  if (cents === 0) return whole === 0 ? "0" : `${sign}${whole}`;
  return `${sign}${whole}.${cents % 10 === 0 ? cents / 10 : cents < 10 ? `0${cents}` : cents}`;
}

// Graphviz's SVG escapes (its xml.c) in an attribute value or a text, as these pictures need them: cleaned text
// (js/picture/text.js) whose lines are joined by line breaks, and the DOT ids and classes.
/** @type {Readonly<Record<string, string>>} */
const XML = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;", "-": "&#45;", "\n": "&#10;", "\r": "&#13;" };
const XML_ESCAPED = /[&<>"'\-\n\r]/g;

/**
 * `text` as Graphviz writes it in SVG (an edge's class and title here, a box's tooltip in js/picture/tooltips.js).
 * @param {string} text
 * @returns {string}
 */
export function xmlAttribute(text) {
  return text.replace(XML_ESCAPED, (ch) => XML[ch]);
}

// An edge's markup around its numbers, put in a buffer piece by piece and joined per edge (compose of the moons loss
// opened at node_budget=2000, medians of 15: 63 ms; one template string per edge 73; one join of every piece 97): as
// Graphviz writes it, and as leanSVG (js/host/graphviz.js) leaves it (no title, no line breaks), the page's.
const CLASS = `" class="edge ${xmlAttribute(DOT_STYLE.edge.class)}">`;
const TO = xmlAttribute("->"); // between a title's tail and head
const PATH = `<path fill="none" stroke="${DOT_STYLE.edge.color}" d="M`;
const HEAD = `"/>\n<polygon fill="${DOT_STYLE.edge.color}" stroke="${DOT_STYLE.edge.color}" points="`;
const FULL = { open: `${CLASS}\n<title>`, path: `</title>\n${PATH}`, head: HEAD, end: "\"/>\n</g>\n" };
const LEAN = { open: CLASS, path: PATH, head: HEAD.replace("\n", ""), end: "\"/></g>" };

/**
 * Put edge `k` of `table` in `buf` as Graphviz's SVG (its group, title, line and arrowhead), or `lean`, as leanSVG
 * leaves it.
 * @param {string[]} buf
 * @param {EdgeTable} table
 * @param {number} k
 * @param {boolean} lean
 * @returns {void}
 */
export function edgeMarkup(buf, table, k, lean) {
  const at = table.at;
  const j = NUMBERS * k;
  const text = lean ? LEAN : FULL;
  buf.push("<g id=\"", table.ids[k], text.open);
  if (!lean) buf.push(table.tails[k], TO, table.heads[k]);
  buf.push(text.path, svgNumber(at[j]), ",", svgNumber(at[j + 1]), "C");
  for (let p = j + 2; p < j + 8; p += 2) buf.push(svgNumber(at[p]), ",", svgNumber(at[p + 1]), p < j + 6 ? " " : "");
  buf.push(text.head);
  for (let p = j + 8; p < j + 14; p += 2) buf.push(svgNumber(at[p]), ",", svgNumber(at[p + 1]), " ");
  buf.push(svgNumber(at[j + 8]), ",", svgNumber(at[j + 9]), text.end); // the polygon closed at its first corner
}

/**
 * Every edge of `table` as SVG, in order (`lean`: as leanSVG leaves them).
 * @param {EdgeTable} table
 * @param {boolean} [lean]
 * @returns {string}
 */
export function edgesSVG(table, lean = false) {
  /** @type {string[]} */
  const edges = [];
  /** @type {string[]} */
  const one = []; // one edge's pieces
  for (let k = 0; k < table.ids.length; k++) {
    one.length = 0;
    edgeMarkup(one, table, k, lean);
    edges.push(one.join(""));
  }
  return edges.join("");
}

/**
 * Each edge's bounding box in the SVG's user units (points), 4 numbers [x0, y0, x1, y1] per edge: its line and
 * arrowhead lie inside their points.
 * @param {EdgeTable} table
 * @returns {Float64Array}
 */
export function edgeBounds(table) {
  const at = table.at;
  const n = table.ids.length;
  const bounds = new Float64Array(4 * n);
  for (let k = 0; k < n; k++) {
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
    for (let p = NUMBERS * k; p < NUMBERS * (k + 1); p += 2) {
      const x = at[p], y = at[p + 1];
      if (x < x0) x0 = x;
      if (x > x1) x1 = x;
      if (y < y0) y0 = y;
      if (y > y1) y1 = y;
    }
    bounds[4 * k] = x0 / 100;
    bounds[4 * k + 1] = y0 / 100;
    bounds[4 * k + 2] = x1 / 100;
    bounds[4 * k + 3] = y1 / 100;
  }
  return bounds;
}

/**
 * nop2's SVG of a composed DOT (compose's `dot`) with its `edges` drawn in, before the first box, as Graphviz draws a
 * large picture (edges first: the boxes over their ends).
 * @param {string} svg
 * @param {string} edges
 * @returns {string}
 */
export function withEdges(svg, edges) {
  const first = svg.search(BOX);
  if (first < 0) throw new Error("compose: Graphviz drew no box to draw the edges under");
  return svg.slice(0, first) + edges + svg.slice(first);
}

