// @ts-check
// DOT -> SVG in the browser with Graphviz compiled to WebAssembly (@viz-js/viz): the widget's one
// layout path. It runs in the page's layout worker when one can start (js/host/layout-worker.js), else here; the
// WASM module is instantiated once per thread and shared by every view.

import { instance } from "@viz-js/viz";
import { inLayoutWorker, ranOnMain, serveLayouts, whenUnheld, workerLayout } from "./layout-worker.js";
import { LOST_EDGE, NSLIMIT } from "../core/shared.js";
import { composable, compose, leanLayout } from "../picture/compose.js";
import { edgesSVG, withEdges } from "../picture/edges.js";
import { tooltipsApart, withTooltips } from "../picture/tooltips.js";

/** @import { Viz } from "@viz-js/viz" */
/** @import { LaidOut, LayoutSignal } from "./layout-worker.js" */

/** @type {Promise<Viz> | null} */
let viz = null;

/**
 * The shared Graphviz instance (the first call compiles the WASM module; later calls are free).
 * @returns {Promise<Viz>}
 */
export function graphviz() {
  if (viz === null) {
    viz = instance().catch((err) => {
      viz = null;
      throw err;
    });
  }
  return viz;
}

// Network simplex (dot's x-coordinate pass) gets at most NSLIMIT (picture/layout.py's) iterations per node (a -G default; a
// DOT's own nslimit wins). Every picture measured lays out byte-identically with it (the lecture's graphs folded, opened and
// in full, the moons loss folded and with its largest box open); the moons loss after Expand all that fits
// (5 dense clusters, 888 edges) took ~11 s without it and ~1.4 s with it (node, @viz-js/viz). A picture of more than
// 1,000 edges, or whose edges cross more than 3,000 ranks beyond the next (that one: 7,804), carries a smaller nslimit
// of its own, with mclimit and newrank (js/picture/dot.js largeLayout), so its newrank retry below never runs.

// dot's default ranking is recursive on clusters (opened boxes) and can put an edge's head on its tail's rank; a
// flat edge touching a record is then dropped ("lost fold3 fold1 edge", the moons loss after Expand all that fits:
// reported as an error, yet the status is "success" with the edge missing). One global ranking (newrank) has no
// such edge but lays out large opened pictures 1.5-4x slower: the retry for that error (LOST_EDGE), as the kernel's
// render_svg.

/**
 * Lay out `dot` and return the SVG document text, every edge in it (layOut's, whole); throws as layOut.
 * @param {string} dot
 * @param {{low?: boolean, signal?: LayoutSignal | null}} [options]
 * @returns {Promise<string | null>}
 */
export async function layoutSVG(dot, options = {}) {
  const laid = await layOut(dot, options);
  return laid && wholeSVG(laid);
}

/**
 * Lay out `dot`: its SVG text, and a composed picture's edges apart as numbers (LaidOut); throws an Error with
 * Graphviz's messages on failure (a RangeError when its recursion overflowed the stack). In the layout worker when
 * there is one; `low`: a prefetch (worker only: null when there is no worker), laid out after what a view waits for.
 * @param {string} dot
 * @param {{low?: boolean, signal?: LayoutSignal | null}} [options]
 * @returns {Promise<LaidOut | null>}
 */
export async function layOut(dot, { low = false, signal = null } = {}) {
  const inWorker = workerLayout(dot, { low, signal });
  if (inWorker !== null) {
    try {
      return await inWorker;
    } catch (err) {
      // WorkerGone: the worker could not start or died (this thread from now on). RangeError: a worker's stack is
      // ~3x smaller than the page's (Chromium: a plain chain of ~7,700 nodes overflows there, ~22,500 here), so a
      // picture too deep for the worker is laid out here, as before the worker.
      if (!(err instanceof Error) || (err.name !== "WorkerGone" && err.name !== "RangeError")) throw err;
    }
  }
  if (low) return null;
  ranOnMain();
  return layOutHere(dot);
}

/**
 * A picture laid out as one SVG text: a composed picture's boxes' tooltips and edges written in (as leanSVG leaves
 * Graphviz's), the edges before its first box.
 * @param {LaidOut} laid
 * @returns {string}
 */
export function wholeSVG(laid) {
  const svg = withTooltips(laid.svg, laid.tips);
  return laid.edges ? withEdges(svg, edgesSVG(laid.edges, true)) : svg;
}

/**
 * A picture like the widget's (record boxes of three fields, op ellipses, one cluster, edges across ranks), of
 * `width` boxes on each of `ranks` ranks: what warmUp() lays out.
 * @param {number} ranks
 * @param {number} width
 * @returns {string}
 */
export function warmUpDot(ranks, width) {
  const lines = ["digraph warm {", "\tgraph [rankdir=LR ranksep=0.25 nodesep=0.2]", "\tnode [shape=record style=filled]"];
  for (let r = 0; r < ranks; r++) {
    if (r === 1) lines.push("\tsubgraph cluster_warm {");
    for (let k = 0; k < width; k++) {
      lines.push(`\tv${r}_${k} [label="{ w${k} | data ${r}.${k} | grad -${k}.${r} }"]`, `\to${r}_${k} [label="*" shape=ellipse]`);
      if (r > 0) lines.push(`\tv${r - 1}_${k} -> o${r}_${k}`, `\tv${r - 1}_${(k * 7 + 3) % width} -> o${r}_${k}`);
      lines.push(`\to${r}_${k} -> v${r}_${k}`);
    }
    if (r === Math.floor(ranks / 2)) lines.push("\t}");
  }
  lines.push("}");
  return lines.join("\n");
}

/**
 * Lay out, early and at low priority in the layout worker, a small picture (~0.1 s of Graphviz) that nobody shows:
 * a worker's first large layout runs before its WebAssembly is optimised (the moons loss at node_budget=2000, 1,684
 * boxes: 1.07-1.17 s cold, 0.86 s warm, 0.90 s after this). For pages whose first large layout is a user's gesture
 * (graph/early-layouts.js: no large picture is guessed early).
 * @returns {Promise<LaidOut | null> | null}
 */
export function warmUp() {
  return workerLayout(warmUpDot(12, 25), { low: true });
}

/**
 * Lay out `dot` on this thread (the main thread's fallback, and the worker's own work): whole by dot, or, a large
 * opened picture (js/picture/compose.js composable), box by box, each box's part cached (layPart), its boxes drawn by
 * nop2 and its edges placed by js/picture/edges.js and handed over as numbers (nop2 spent ~210 of its ~400 ms on the
 * moons loss opened at node_budget=2000 drawing the 6,653 edges; writing their markup here took another ~40, and the
 * page parses only those that come near sight), and its boxes' tooltips handed over apart (js/picture/tooltips.js).
 * @param {string} dot
 * @returns {Promise<LaidOut>}
 */
export async function layOutHere(dot) {
  const g = await graphviz();
  if (composable(dot)) {
    const composed = compose(dot, (part) => layPart(g, part));
    const { dot: drawn, tips } = tooltipsApart(composed.dot);
    return { svg: leanSVG(checked(g.render(drawn, { format: "svg", engine: "nop2" }))), edges: composed.edges, tips };
  }
  let result = g.render(dot, { format: "svg", engine: "dot", graphAttributes: { nslimit: NSLIMIT } });
  if (result.errors.some((e) => LOST_EDGE.test(e.message))) {
    result = g.render(dot, { format: "svg", engine: "dot", graphAttributes: { nslimit: NSLIMIT, newrank: true } });
  }
  return { svg: leanSVG(checked(result)), edges: null, tips: null };
}

/**
 * layOutHere's picture as one SVG text (wholeSVG).
 * @param {string} dot
 * @returns {Promise<string>}
 */
export async function layoutHere(dot) {
  return wholeSVG(await layOutHere(dot));
}

/**
 * Graphviz's output, or an Error with its messages when it failed.
 * @param {import("@viz-js/viz").RenderResult} result
 * @returns {string}
 */
function checked(result) {
  if (result.status !== "success") {
    const messages = result.errors.map((e) => e.message.trim()).filter(Boolean).join("; ");
    throw new Error(`Graphviz could not lay out the graph: ${messages || "unknown error"}`);
  }
  return /** @type {string} */ (result.output);
}

// The parts of pictures laid out box by box (js/picture/compose.js), by their DOT: opening a box lays out only that
// box, the boxes it opens and the containers around it; every other part is here. Each entry is a part's DOT and its
// lean layout; the oldest go past PART_CACHE_CHARS (the moons loss at node_budget=2000 after Expand all: ~0.7 MB of parts).
/** @type {Map<string, string>} */
const parts = new Map();
const PART_CACHE_CHARS = 4_000_000;
let partChars = 0;

/**
 * One part's lean layout (leanLayout of Graphviz's json0), from the cache or laid out by dot with NSLIMIT.
 * @param {import("@viz-js/viz").Viz} g
 * @param {string} part
 * @returns {string}
 */
export function layPart(g, part) {
  const known = parts.get(part);
  if (known !== undefined) {
    parts.delete(part);
    parts.set(part, known); // the most recently used last
    return known;
  }
  const lean = leanLayout(checked(g.render(part, { format: "json0", engine: "dot", graphAttributes: { nslimit: NSLIMIT } })));
  parts.set(part, lean);
  partChars += part.length + lean.length;
  for (const [key, value] of parts) {
    if (partChars <= PART_CACHE_CHARS) break;
    parts.delete(key);
    partChars -= key.length + value.length;
  }
  return lean;
}

/**
 * Graphviz's SVG text without what the page never shows: the XML prologue and doctype, comments, every `<title>`
 * (the DOT ids, "n4" or "n3->n5_op": a box's would be its accessible name, an edge's its hover text) and the line
 * breaks between tags, but the one before each `<text>` (a box's content then reads "label data 2.0000 grad 1.0000",
 * word by word as its accessible name: axe's label-content-name-mismatch). The moons loss with 1,684 boxes drawn:
 * 4.2 MB, 46,000 elements, 66,000 line breaks (whitespace Text nodes); 14% of the text, 8,700 elements and 60,000
 * Text nodes fewer for the page to parse, style and keep. And every text's white-space rule and font, said once on
 * the graph's `<g>` instead (~6,000 texts there: 440 KB, 18,000 attributes fewer; the page's task that takes the picture
 * spent ~20 ms less parsing it and ~25 ms less styling it, medians of 6 traced pages). Every coordinate, other attribute
 * and text shown stays as Graphviz wrote it.
 * @param {string} svg
 * @returns {string}
 */
export function leanSVG(svg) {
  const start = svg.indexOf("<svg");
  const whole = start > 0 ? svg.slice(start) : svg;
  const first = TEXT_STYLE.exec(whole);
  const graph = GRAPH_TAG.exec(whole);
  if (!first || !graph || graph.index > first.index) return whole.replace(UNSHOWN, "").replace(BREAKS, "><");
  // The first text's white-space rule and font, said once on the graph's <g> (SVG's xml:space, font-family and
  // font-size inherit to every text under it) and left off every text that says the same (attribute values and text
  // are escaped, no `"` in them: these attributes are found in tags only); a text in another font keeps its own.
  const font = first[1];
  const said = new RegExp(`${UNSHOWN.source}| xml:space="preserve"|${font.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`, "g");
  const lean = whole.replace(said, "").replace(BREAKS, "><");
  const at = lean.search(GRAPH_TAG) + graph[0].length;
  return `${lean.slice(0, at)} xml:space="preserve"${font}${lean.slice(at)}`;
}

const UNSHOWN = /<!--[^]*?-->|<title>[^<]*<\/title>/g;
const BREAKS = />\n+(?!<text)</g;
// What Graphviz writes on every <text>: its white space kept, and the graph's font (fontname, fontsize).
const TEXT_STYLE = /<text xml:space="preserve" [^>]*?( font-family="[^"]*" font-size="[^"]*")/;
const GRAPH_TAG = /<g id="[^"]*" class="graph"/;

/** Let go of this thread's Graphviz (its WebAssembly memory grows to the largest picture laid out and never shrinks:
 * ~50 MB after the moons loss at node_budget=2000: node, 122 MB of RSS, 74 once dropped) and the parts it keeps. */
function forgetGraphviz() {
  viz = null;
  parts.clear();
  partChars = 0;
}

// The worker is closed with everything in it when no view holds it; on the main thread (no worker could start) the
// same moment lets go of what the fallback's layouts left (js/host/layout-worker.js whenUnheld).
if (inLayoutWorker()) serveLayouts(layOutHere);
else whenUnheld(forgetGraphviz);
