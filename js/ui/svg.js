// @ts-check
// The SVG helpers both views share: Graphviz's SVG text parsed and adopted into the page (the only
// markup ever parsed; dot.py escaped every user string in it), its boxes found by id, made focusable.

import { layOut, wholeSVG } from "../host/graphviz.js";

/** @import { LaidOut } from "../host/layout-worker.js" */

export const SVG_NS = "http://www.w3.org/2000/svg";

/**
 * Lay out `dot` with Graphviz-WASM and return the picture as an `<svg>` element of this document, every edge in it;
 * `text`: a Promise of it laid out already (a prefetch, graph/early-layouts.js) or of its text parsed (parseSVG), or
 * null; `signal.cancelled` set: nobody shows this picture any more (the layout worker may drop it: resolves null then).
 * @param {string} dot
 * @param {Promise<LaidOut | Element | null> | null} [text]
 * @param {{cancelled?: boolean} | null} [signal]
 * @returns {Promise<Element | null>}
 */
export async function layoutPicture(dot, text = null, signal = null) {
  const source = await layoutSource(dot, text, signal);
  if (source === null) return null;
  return source instanceof Element ? document.adoptNode(source) : parsePicture(wholeSVG(source));
}

/**
 * What layoutPicture parses: `dot` laid out (now, or `text`'s), or the picture `text` parsed already (an `<svg>` element
 * of another document); null when the layout was dropped (`signal.cancelled`).
 * @param {string} dot
 * @param {Promise<LaidOut | Element | null> | null} [text]
 * @param {{cancelled?: boolean} | null} [signal]
 * @returns {Promise<LaidOut | Element | null>}
 */
export async function layoutSource(dot, text = null, signal = null) {
  const early = await text;
  if (early) return early;
  return layOut(dot, { signal });
}

/**
 * Graphviz's SVG text as an `<svg>` element of this document. Parsed as HTML (an inline `<svg>`, from its start
 * tag: the XML prologue, doctype and comments before it are left out), which reads the same elements, attributes
 * (xlink:title included) and text as the XML parser in about half the time (the moons loss's largest box opened,
 * 530 KB: 43-58 ms against 97-145 ms). DOMParser's document runs no script and loads nothing; its scripts stay
 * unexecutable when adopted here (and Graphviz escaped every label: no markup comes from user text).
 * @param {string} svgText
 * @returns {Element}
 */
export function parsePicture(svgText) {
  return document.adoptNode(parseSVG(svgText));
}

/**
 * parsePicture's `<svg>` element before it is adopted into this document (a picture parsed ahead of use).
 * @param {string} svgText
 * @returns {Element}
 */
export function parseSVG(svgText) {
  const start = svgText.indexOf("<svg");
  const body = start >= 0 ? new DOMParser().parseFromString(svgText.slice(start), "text/html").body : null;
  const svg = body ? body.firstElementChild : null;
  if (!svg || svg.namespaceURI !== SVG_NS || svg.localName !== "svg") {
    throw new Error("Graphviz returned something other than an SVG picture");
  }
  return svg;
}

// An edge's start tag as Graphviz writes it (its id from the DOT, e_<tail>_<head>: js/picture/dot.js), anywhere and
// (sticky) at lastIndex; a box's.
const EDGE = /<g id="[^"]*" class="edge[ "]/;
const EDGE_AT = new RegExp(EDGE.source, "y");
const BOX = /<g id="[^"]*" class="node[ "]/;
const NUMBER = /-?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?/gi; // Graphviz writes 0.5 as .5
const GEOMETRY = /\s(?:d|points)="([^"]*)"/g;

/**
 * Graphviz's SVG text `svgText` with its edges taken out, and each edge's markup in the order drawn: the graph view
 * parses the picture without them and puts each edge in when it comes near sight (graph/pending.js), since the
 * edges are most of a large picture's elements (the moons loss with 1,684 boxes drawn: 6,653 edges, 20,000 of 37,500
 * elements to parse, style and lay out). Only a picture drawn edges first (a large one: DOT_STYLE.large's
 * outputorder=edgesfirst, one run of `<g id=... class="edge ...">` elements, none nested, before the first box) is
 * split; any other (a smaller picture, whose edges and boxes Graphviz draws in turn) comes back whole, no edge apart.
 * @param {string} svgText
 * @returns {{text: string, edges: string[]}}
 */
export function splitEdges(svgText) {
  const whole = { text: svgText, edges: [] };
  const first = svgText.search(EDGE);
  if (first < 0 || BOX.test(svgText.slice(0, first))) return whole; // none, or a box drawn before an edge
  /** @type {string[]} */
  const edges = [];
  let at = first;
  for (;;) {
    const close = svgText.indexOf("</g>", at);
    const nested = svgText.indexOf("<g", at + 2);
    if (close < 0 || (nested >= 0 && nested < close)) return whole; // not the flat <g><path/><polygon/></g> of an edge
    edges.push(svgText.slice(at, close + 4));
    at = close + 4;
    while (at < svgText.length && /\s/.test(svgText[at])) at++;
    EDGE_AT.lastIndex = at;
    if (!EDGE_AT.test(svgText)) break;
  }
  const rest = svgText.slice(at);
  if (EDGE.test(rest)) return whole; // edges after the boxes: not drawn edges first
  return { text: svgText.slice(0, first) + rest, edges };
}

// An op circle's start tag as Graphviz writes it (id n<i>_op: js/picture/dot.js); a `<g` or `</g>` tag; an ellipse's
// centre and radii.
const OP = /<g id="n\d+_op" class="node mgw&#45;op">/g;
const G_TAG = /<g[\s>]|<\/g>/g;
const ELLIPSE = /<ellipse\s[^>]*>/g;
const ELLIPSE_NUMBER = /\s(cx|cy|rx|ry)="([^"]*)"/g;

/**
 * The picture's text (splitEdges' `text`, a large picture's, edges apart) with its op circles taken out, and each op
 * circle's markup in the order drawn: as its edges, the graph view puts each in when it comes near sight
 * (graph/pending.js). They are a fifth of what is left to parse, style and lay out (the moons loss with 1,254 value
 * boxes drawn: 852 op circles, 4,300 of 20,000 elements); none is focusable (a value box is: it stays, for Tab). A
 * text whose op groups are not whole `<g>` elements comes back whole.
 * @param {string} svgText
 * @returns {{text: string, ops: string[]}}
 */
export function splitOps(svgText) {
  /** @type {string[]} */
  const ops = [];
  /** @type {string[]} */
  const kept = [];
  let from = 0;
  for (const found of svgText.matchAll(OP)) {
    const start = /** @type {number} */ (found.index);
    if (start < from) return { text: svgText, ops: [] }; // inside the op before: not Graphviz's flat run of nodes
    let depth = 0, end = -1;
    G_TAG.lastIndex = start;
    for (let tag = G_TAG.exec(svgText); tag; tag = G_TAG.exec(svgText)) {
      depth += tag[0] === "</g>" ? -1 : 1;
      if (depth === 0) {
        end = tag.index + 4;
        break;
      }
    }
    if (end < 0) return { text: svgText, ops: [] };
    kept.push(svgText.slice(from, start));
    ops.push(svgText.slice(start, end));
    from = end;
  }
  if (!ops.length) return { text: svgText, ops };
  kept.push(svgText.slice(from));
  return { text: kept.join(""), ops };
}

/**
 * The bounding box [x0, y0, x1, y1] of the shapes in one group's markup (an edge or op circle of splitEdges' or
 * splitOps'), in the picture's user units, from the numbers of their `d` and `points` and their ellipses' centres
 * and radii (Graphviz's edges are lines and cubic curves, which lie inside their control points: the box may be a
 * little larger than the drawing, never smaller); null when it has none.
 * @param {string} groupText
 * @returns {[number, number, number, number] | null}
 */
export function shapeBounds(groupText) {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  /** @type {(x: number, y: number) => void} */
  const add = (x, y) => {
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
  };
  for (const [, geometry] of groupText.matchAll(GEOMETRY)) {
    const numbers = geometry.match(NUMBER) || [];
    for (let k = 0; k + 1 < numbers.length; k += 2) add(Number(numbers[k]), Number(numbers[k + 1]));
  }
  for (const [tag] of groupText.matchAll(ELLIPSE)) {
    /** @type {Record<string, number>} */
    const e = {};
    for (const [, name, value] of tag.matchAll(ELLIPSE_NUMBER)) e[name] = Number(value);
    if (!(Number.isFinite(e.cx) && Number.isFinite(e.cy) && Number.isFinite(e.rx) && Number.isFinite(e.ry))) continue;
    add(e.cx - e.rx, e.cy - e.ry);
    add(e.cx + e.rx, e.cy + e.ry);
  }
  return x0 <= x1 ? [x0, y0, x1, y1] : null;
}

/**
 * The groups `groupTexts` (splitEdges' or splitOps' markup) as SVG elements of this document, parsed in one go as
 * parseSVG parses a picture (as HTML, inside an `<svg>`).
 * @param {string[]} groupTexts
 * @returns {Element[]}
 */
export function parseGroups(groupTexts) {
  if (!groupTexts.length) return [];
  const svg = parseSVG(`<svg xmlns="${SVG_NS}">${groupTexts.join("")}</svg>`);
  return [...svg.children].map((el) => document.adoptNode(el));
}

/**
 * Every box of the picture (`<g class="node">`) by its id.
 * @param {ParentNode} svg
 * @returns {Map<string, Element>}
 */
export function boxesById(svg) {
  /** @type {Map<string, Element>} */
  const byId = new Map();
  for (const g of svg.querySelectorAll("g.node")) byId.set(g.id, g);
  return byId;
}

/**
 * A box a keyboard user can reach with Tab and press (Enter) like a button. Its accessible name is the text it
 * shows (label, data, grad: live as the numbers change, and what a speech-input user reads on screen), drawn or not;
 * `description` says more (full name, what Enter does).
 * @param {Element} g
 * @param {string} description
 * @param {NodeListOf<Element>} [texts] its <text>s, when the caller holds them already
 */
export function makeFocusable(g, description, texts = g.querySelectorAll("text")) {
  // Graphviz's <title> (the DOT node id, "n4"; the layout's lean SVG has none) would be the box's name and its hover
  // tooltip: drop it.
  for (let first = g.firstElementChild; first && first.localName === "title"; first = g.firstElementChild) first.remove();
  // Its tooltip (full-precision numbers as the kernel drew them, a shortened label in full) stays for the
  // mouse, but is not the name: the name is the text shown, which follows the sliders.
  for (const a of g.getElementsByTagName("a")) a.setAttribute("role", "none");
  g.setAttribute("tabindex", "0");
  g.setAttribute("role", "button");
  g.setAttribute("aria-description", description);
  nameByTexts(g, texts);
}

/**
 * Name box `g` by its texts: aria-labelledby their ids (made from the box's own id). A name taken so reads the texts
 * even while they are not drawn (the graph view leaves them out of the paint out of sight and at low zoom,
 * js/graph/visible.js), as the name from content would not. Call it again when a text comes or goes.
 * @param {Element} g
 * @param {NodeListOf<Element>} [texts] its <text>s, when the caller holds them already
 */
export function nameByTexts(g, texts = g.querySelectorAll("text")) {
  if (!g.id) return; // named from its content
  /** @type {string[]} */
  const ids = [];
  texts.forEach((text, k) => {
    if (!text.id) text.id = `${g.id}-t${k}`;
    ids.push(text.id);
  });
  g.setAttribute("aria-labelledby", ids.join(" "));
}

/**
 * The first text node of `text`, made when it has none (a box's number to change in place).
 * @param {Element} text
 * @returns {ChildNode}
 */
export function textNode(text) {
  if (!text.firstChild) text.append(document.createTextNode(""));
  return /** @type {ChildNode} */ (text.firstChild);
}

/**
 * An SVG element `<tag>` with `attrs` as attributes.
 * @param {string} tag
 * @param {Record<string, unknown>} [attrs]
 * @returns {SVGElement}
 */
export function svgElement(tag, attrs = {}) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  return node;
}
