// @ts-check
// A composed picture's box tooltips apart from what nop2 draws, and back into its SVG text. Graphviz wraps every box
// that has a tooltip in `<g id="a_<id>"><a xlink:title="...">`: on the moons loss opened at node_budget=2000, 2,548
// anchors and their groups (a quarter of the 19,900 elements the page parses and styles) and 270 KB of SVG, for a title
// the browser reads only when the pointer rests on a box. So js/host/graphviz.js lays a composed picture out without
// them and hands them to the page beside it (LaidOut.tips), which gives a box its anchor as the pointer comes over it
// and before the picture is read whole (js/graph/bound-picture.js). An opened box's frame (a cluster) keeps its own.
//
//   tooltipsApart(dot) -> {dot, tips: Tooltips}      the node lines' tooltips taken out (id and text, in DOT order)
//   withTooltips(svg, tips) -> string                the anchors written back, as Graphviz writes them

import { unescapeDot } from "./dot.js";
import { xmlAttribute } from "./edges.js";

/**
 * Boxes' tooltips apart from the picture: box (node) `ids[k]`'s tooltip is `titles[k]`, as the page shows it.
 * @typedef {{ids: string[], titles: string[]}} Tooltips
 */

// A node line's start (its name, quoted or not) up to its tooltip, and the tooltip, quoted or not (js/picture/dot.js
// writes each node on one line; a quoted value holds no bare `"`, so ` tooltip=` outside quotes starts the attribute).
const NODE_TIP = /^(\t+("(?:[^"\\]|\\.)*"|[^\s"]+) \[[^\n]*?) tooltip=("(?:[^"\\]|\\.)*"|[^\s"\]]+)/gm;
const KEYWORDS = new Set(["graph", "node", "edge"]);

/**
 * `dot` (a composed picture's: js/picture/compose.js) without its boxes' tooltips, and those tooltips. A box whose id is
 * not its DOT name (dot.js names each box by its id) keeps its tooltip.
 * @param {string} dot
 * @returns {{dot: string, tips: Tooltips}}
 */
export function tooltipsApart(dot) {
  /** @type {Tooltips} */
  const tips = { ids: [], titles: [] };
  const drawn = dot.replace(NODE_TIP, (all, head, name, tip) => {
    if (KEYWORDS.has(name) || !`${head} `.includes(` id=${name} `)) return all;
    tips.ids.push(name.startsWith('"') ? unescapeDot(name.slice(1, -1)) : name);
    tips.titles.push(tip.startsWith('"') ? unescapeDot(tip.slice(1, -1)) : tip);
    return head;
  });
  return { dot: drawn, tips };
}

// A box's group with what Graphviz drew in it: no group inside once its anchor is left out.
const BOX = /(<g id="([^"]*)" class="node[^"]*">)([^]*?)<\/g>/g;

/**
 * `svg` (tooltipsApart's DOT drawn, as leanSVG leaves it) with each box of `tips` wrapped in its tooltip's anchor, as
 * Graphviz draws the DOT with them (byte for byte; js/host/graphviz.test.js).
 * @param {string} svg
 * @param {Tooltips | null} tips
 * @returns {string}
 */
export function withTooltips(svg, tips) {
  if (!tips || !tips.ids.length) return svg;
  const titles = new Map(tips.ids.map((id, k) => [xmlAttribute(id), tips.titles[k]]));
  return svg.replace(BOX, (all, start, id, inner) => {
    const title = titles.get(id);
    if (title === undefined) return all;
    // A box drawn text first (a plaintext node) starts with the line breaks around its <title>, which leanSVG keeps
    // before a text: inside the anchor, Graphviz's, one.
    return `${start}<g id="a_${id}"><a xlink:title="${xmlAttribute(title)}">${inner.replace(/^\n\n+/, "\n")}</a></g></g>`;
  });
}
