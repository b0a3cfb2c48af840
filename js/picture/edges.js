// @ts-check
// A composed picture's edges (js/picture/compose.js), the twin of micrograd_widget/picture/edges.py: each drawn here
// as Graphviz draws a straight edge, not by Graphviz's nop2, which spent half its time on the moons loss opened at
// node_budget=2000 clipping its 6,653 edges at their boxes by bisection and writing their SVG. In hundredths of a
// point, with the same arithmetic in Python and JS (IEEE doubles, rounded half up), so both write the same bytes:
// tests/vectors/compose/*.json hold them, and js/picture/edges.test.js holds them to Graphviz's own drawing.
//
//   drawEdge(buf, id, tail, head, from, to)          one edge's SVG, in pieces, into buf
//   withEdges(svg, edges) -> string                  nop2's SVG of the composed DOT with the edges drawn in

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

/**
 * Put a point of the picture (hundredths of a point, y up) in `buf` in the SVG's coordinates (y down), rounded half
 * up.
 * @param {string[]} buf
 * @param {number} x
 * @param {number} y
 * @returns {void}
 */
function svgPoint(buf, x, y) {
  buf.push(svgNumber(Math.floor(x + 0.5)), ",", svgNumber(-Math.floor(y + 0.5)));
}

// An edge's markup around its numbers, put in a buffer piece by piece and joined per edge (compose of the moons loss
// opened at node_budget=2000, medians of 15: 63 ms; one template string per edge 73; one join of every piece 97).
const EDGE_CLASS = `" class="edge ${DOT_STYLE.edge.class.replaceAll("-", "&#45;")}">\n<title>`;
const EDGE_PATH = `</title>\n<path fill="none" stroke="${DOT_STYLE.edge.color}" d="M`;
const EDGE_HEAD = `"/>\n<polygon fill="${DOT_STYLE.edge.color}" stroke="${DOT_STYLE.edge.color}" points="`;
const EDGE_END = "\"/>\n</g>\n";

/**
 * Put one edge's SVG in `buf`, as Graphviz draws a straight edge (its group, title, line and arrowhead): from where
 * the line between the two centres leaves the tail's outline to an arrowhead whose stroked tip touches the head's.
 * @param {string[]} buf
 * @param {string} id
 * @param {string} tail
 * @param {string} head
 * @param {Drawn} from
 * @param {Drawn} to
 * @returns {void}
 */
export function drawEdge(buf, id, tail, head, from, to) {
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
  buf.push("<g id=\"", id, EDGE_CLASS, tail, "&#45;&gt;", head, EDGE_PATH);
  svgPoint(buf, sx, sy);
  buf.push("C");
  svgPoint(buf, sx + (bx - sx) / 3, sy + (by - sy) / 3);
  buf.push(" ");
  svgPoint(buf, sx + 2 * (bx - sx) / 3, sy + 2 * (by - sy) / 3);
  buf.push(" ");
  svgPoint(buf, bx, by);
  buf.push(EDGE_HEAD);
  svgPoint(buf, bx + vx, by + vy);
  buf.push(" ");
  svgPoint(buf, tx, ty);
  buf.push(" ");
  svgPoint(buf, bx - vx, by - vy);
  buf.push(" ");
  svgPoint(buf, bx + vx, by + vy);
  buf.push(EDGE_END);
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

