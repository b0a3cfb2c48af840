// @ts-check
// The SVG helpers both views share: Graphviz's SVG text parsed and adopted into the page (the only
// markup ever parsed; dot.py escaped every user string in it), its boxes found by id, made focusable.

import { layoutSVG } from "../host/graphviz.js";

export const SVG_NS = "http://www.w3.org/2000/svg";

/**
 * Lay out `dot` with Graphviz-WASM and return the picture as an `<svg>` element of this document; `text`: a
 * Promise of its SVG text laid out already (a prefetch, graph/folding.js) or of that text parsed (parseSVG), or null;
 * `signal.cancelled` set: nobody shows this picture any more (the layout worker may drop it: resolves null then).
 * @param {string} dot
 * @param {Promise<string | Element | null> | null} [text]
 * @param {{cancelled?: boolean} | null} [signal]
 * @returns {Promise<Element | null>}
 */
export async function layoutPicture(dot, text = null, signal = null) {
  const early = await text;
  if (early && typeof early !== "string") return document.adoptNode(early);
  const svg = /** @type {string | null} */ (early) ?? await layoutSVG(dot, { signal });
  return svg === null ? null : parsePicture(svg);
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
 */
export function makeFocusable(g, description) {
  // Graphviz's <title> (the DOT node id, "n4") would be the box's name and its hover tooltip: drop it.
  for (const title of g.querySelectorAll(":scope > title")) title.remove();
  // Its tooltip (full-precision numbers as the kernel drew them, a shortened label in full) stays for the
  // mouse, but is not the name: the name is the text shown, which follows the sliders.
  for (const a of g.querySelectorAll("a")) a.setAttribute("role", "none");
  g.setAttribute("tabindex", "0");
  g.setAttribute("role", "button");
  g.setAttribute("aria-description", description);
  nameByTexts(g);
}

/**
 * Name box `g` by its texts: aria-labelledby their ids (made from the box's own id). A name taken so reads the texts
 * even while they are not drawn (the graph view leaves them out of the paint out of sight and at low zoom,
 * js/graph/visible.js), as the name from content would not. Call it again when a text comes or goes.
 * @param {Element} g
 */
export function nameByTexts(g) {
  if (!g.id) return; // named from its content
  /** @type {string[]} */
  const ids = [];
  g.querySelectorAll("text").forEach((text, k) => {
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
