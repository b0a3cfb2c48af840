// @ts-check
// A large opened picture laid out box by box, the twin of micrograd_widget/picture/compose.py (whose docstring says
// why and how): each opened box's contents laid out on their own (a part), composed into one DOT whose nodes are
// pinned (`pos`) and whose opened boxes are framed (`bb`, `lp`), for Graphviz's nop2 engine to draw, and its edges
// (js/picture/edges.js places each; Python's compose writes their SVG, edgesSVG here). The parts asked for, the
// composed DOT and the edges' SVG are byte-identical to Python's for the same layouts: tests/vectors/compose/*.json,
// held by js/picture/compose.test.js.
// js/host/graphviz.js layoutHere composes what `composable` says, caching each part.
//
//   composable(dot) -> boolean                      a large picture (straight edges) with an opened box
//   compose(dot, lay) -> {dot, edges: EdgeTable}     lay(part DOT) -> Graphviz's json0 text (or leanLayout's)
//   leanLayout(json0) -> string                      only what compose reads: what a cache keeps

import { edgeTable, placeEdge } from "./edges.js";

/** @import { Drawn, EdgeTable } from "./edges.js" */

/** Points between an opened box's frame and its contents (dot's own cluster margin). */
export const PAD = 8;

const CLUSTER = /^\t+subgraph (cluster_\S+) \{$/;
const EDGE = /^\t(\S+) -> (\S+) \[/;
const NODE = /^\t+(\S+) \[/;
const LABEL = /(?:^| )(label=(?:"(?:[^"\\]|\\.)*"|\S+))/;
// A large picture's cuts in dot's work (dot.js largeLayout), sized for the whole picture: a part is laid out with
// dot's defaults and the layout path's NSLIMIT instead; and its straight edges, which a part's layout need not route
// (compose draws them): the same places, 20-40% sooner (the moons loss's neuron at node_budget=2000: 81 -> 63 ms).
const WHOLE_ONLY = / (?:mclimit|nslimit)=\S+/g;
const ROUTED = " splines=line";
const UNROUTED = " splines=none";
// A node's attributes that do not move it, left out of its part: its colour and tooltip change with the picture's
// colour scale and numbers (opening a box rescales every fill), its id with the boxes before it.
const UNMOVING = / (?:class|fillcolor|id|tooltip)=(?:"(?:[^"\\]|\\.)*"|[^\s\]]+)/g;
const SHAPE = / shape=(\S+?)[\s\]]/;
const EDGE_ID = / \[id=(\w+)\]$/;
// A DOT id the edges' SVG writes as it is (js/picture/dot.js names nodes n<i>, n<i>_op and fold<k>).
const PLAIN = /^\w+$/;

/**
 * One container of the picture: its top level (`name` "") or an opened box (a cluster).
 * @typedef {{name: string, parent: number, line: number, nodes: [number, string][], children: number[],
 *   edges: Map<string, [string, string]>}} Box
 */

/**
 * Whether `dot` (a picture's DOT, dot.js writeDot's) is laid out box by box: a large picture (straight edges,
 * DOT_STYLE.large) with an opened box.
 * @param {string} dot
 * @returns {boolean}
 */
export function composable(dot) {
  const head = dot.slice(0, dot.indexOf("\n", dot.indexOf("\n") + 1));
  return head.includes("splines=line") && dot.includes("\tsubgraph cluster_");
}

/**
 * @param {string} name
 * @param {number} parent
 * @param {number} line
 * @returns {Box}
 */
function box(name, parent, line) {
  return { name, parent, line, nodes: [], children: [], edges: new Map() };
}

/**
 * Container `b` and those around it, innermost first.
 * @param {Box[]} boxes
 * @param {number} b
 * @returns {number[]}
 */
function chain(boxes, b) {
  const out = [b];
  while (boxes[out[out.length - 1]].parent >= 0) out.push(boxes[out[out.length - 1]].parent);
  return out;
}

/**
 * What stands for `node` (in the containers `within`) in container `common`'s layout: itself, or the opened box
 * holding it there.
 * @param {number[]} within
 * @param {number} common
 * @param {string} node
 * @param {Box[]} boxes
 * @returns {string}
 */
function rep(within, common, node, boxes) {
  const i = within.indexOf(common);
  return i === 0 ? node : boxes[within[i - 1]].name;
}

/**
 * The containers of a DOT's lines (the top level first, each before its opened boxes), and every edge line as
 * [line, tail, head], in DOT order.
 * @param {string[]} lines
 * @returns {{boxes: Box[], edgeLines: [number, string, string][]}}
 */
function parse(lines) {
  const boxes = [box("", -1, -1)];
  /** @type {[number, string, string][]} */
  const edgeLines = [];
  /** @type {Map<string, number>} */
  const where = new Map();
  const stack = [0];
  lines.forEach((line, k) => {
    if (k < 4 || line === "}" || line === "" || line.startsWith("\tlabel=")) return;
    const top = stack[stack.length - 1];
    const m = CLUSTER.exec(line);
    if (m) {
      boxes.push(box(m[1], top, k + 1));
      boxes[top].children.push(boxes.length - 1);
      stack.push(boxes.length - 1);
      return;
    }
    if (line.trim() === "}") { stack.pop(); return; }
    const e = EDGE.exec(line);
    if (e) {
      const [tail, head] = [e[1], e[2]];
      edgeLines.push([k, tail, head]);
      const a = chain(boxes, /** @type {number} */ (where.get(tail)));
      const b = chain(boxes, /** @type {number} */ (where.get(head)));
      const common = /** @type {number} */ (a.find((c) => b.includes(c))); // the innermost container holding both
      const ends = /** @type {[string, string]} */ ([rep(a, common, tail, boxes), rep(b, common, head, boxes)]);
      const key = `${ends[0]} ${ends[1]}`;
      if (ends[0] !== ends[1] && !boxes[common].edges.has(key)) boxes[common].edges.set(key, ends);
      return;
    }
    const n = k !== boxes[top].line ? NODE.exec(line) : null;
    if (n) {
      where.set(n[1], top);
      boxes[top].nodes.push([k, n[1]]);
    }
  });
  return { boxes, edgeLines };
}

/**
 * A Graphviz coordinate ("52.394") in hundredths of a point, rounded half up alike in Python and JS.
 * @param {string} text
 * @returns {number}
 */
function hundredths(text) {
  return Math.floor(Number(text) * 100 + 0.5);
}

/**
 * Integer `n` in units of 10**-places as a decimal (1234 -> "12.34").
 * @param {number} n
 * @param {number} [places]
 * @returns {string}
 */
function decimal(n, places = 2) {
  const sign = n < 0 ? "-" : "";
  const m = Math.abs(n);
  const unit = 10 ** places;
  return `${sign}${Math.floor(m / unit)}.${String(m % unit).padStart(places, "0")}`;
}

/**
 * @param {number} x
 * @param {number} y
 * @returns {string}
 */
function point(x, y) {
  return `${decimal(x)},${decimal(y)}`;
}

/**
 * The DOT laying out container `b` alone (compose.py _part): the picture's defaults, the message (the top level)
 * or the box's label, its own nodes, each opened box in it as a rectangle of its composed size, its own edges; its
 * nodes named by their place in it (v0, v1; the opened boxes c0, c1), not by their ids, which opening a box
 * renumbers: a part that did not change is the same text, and is laid out once.
 * @param {string[]} lines
 * @param {Box[]} boxes
 * @param {number} b
 * @param {Map<number, [number, number]>} sizes
 * @returns {string}
 */
function part(lines, boxes, b, sizes) {
  const it = boxes[b];
  const out = [lines[0], lines[1].replace(WHOLE_ONLY, "").replace(ROUTED, UNROUTED), lines[2], lines[3]];
  if (b === 0) {
    if (lines[4]?.startsWith("\tlabel=")) out.push(lines[4]);
  } else {
    const attrs = lines[it.line].trim();
    const label = LABEL.exec(attrs.slice("graph [".length, -1));
    if (label) out.push(`\t${label[1]} labelloc=t`);
  }
  /** @type {Map<string, string>} */
  const local = new Map();
  it.nodes.forEach(([k, name], j) => {
    local.set(name, `v${j}`);
    const line = lines[k];
    out.push(`\tv${j} [` + line.slice(line.indexOf(" [") + 2).replace(UNMOVING, ""));
  });
  it.children.forEach((c, j) => {
    const [w, h] = /** @type {[number, number]} */ (sizes.get(c));
    local.set(boxes[c].name, `c${j}`);
    out.push(`\tc${j} [fixedsize=true height=${decimal(Math.floor((h * 100 + 71) / 72), 4)} label="" `
      + `shape=box width=${decimal(Math.floor((w * 100 + 71) / 72), 4)}]`);
  });
  for (const [tail, head] of it.edges.values()) out.push(`\t${local.get(tail)} -> ${local.get(head)}`);
  out.push("}");
  return out.join("\n") + "\n";
}

/**
 * Graphviz's json0 output of a part with only what `compose` reads (the bounding box, the label's position, each
 * node's name, centre and size): what a cache keeps and the vectors hold (compose.py lean_layout).
 * @param {string} text
 * @returns {string}
 */
export function leanLayout(text) {
  const doc = JSON.parse(text);
  /** @type {{bb: string, lp?: string, objects: {name: string, pos: string, width?: string, height?: string}[]}} */
  const lean = { bb: doc.bb, objects: [] };
  if ("lp" in doc) lean.lp = doc.lp;
  for (const o of doc.objects ?? []) {
    if ("pos" in o) lean.objects.push({ name: o.name, pos: o.pos, ...("width" in o ? { width: o.width, height: o.height } : {}) });
  }
  return JSON.stringify(lean);
}

/**
 * @typedef {{bb: number[], lp: number[] | null, pos: Map<string, number[]>, size: Map<string, number[]>}} Layout
 */

/**
 * The bounding box, label position, node centres and node sizes of Graphviz's json0 output (or leanLayout's), in
 * hundredths of a point.
 * @param {string} text
 * @returns {Layout}
 */
function read(text) {
  const doc = JSON.parse(text);
  const bb = String(doc.bb).split(",").map(hundredths);
  const lp = "lp" in doc ? String(doc.lp).split(",").map(hundredths) : null;
  /** @type {Map<string, number[]>} */
  const pos = new Map();
  /** @type {Map<string, number[]>} */
  const size = new Map();
  for (const o of doc.objects ?? []) {
    if (!("pos" in o)) continue;
    pos.set(o.name, String(o.pos).split(",").map(hundredths));
    if ("width" in o) size.set(o.name, [inches(o.width), inches(o.height)]);
  }
  return { bb, lp, pos, size };
}

/**
 * A Graphviz size in inches ("1.1143") in hundredths of a point, rounded half up alike in Python and JS.
 * @param {string} text
 * @returns {number}
 */
function inches(text) {
  return Math.floor(Number(text) * 7200 + 0.5);
}

/**
 * `dot` (composable) with every node pinned and every opened box framed where the box-by-box layout puts them, for
 * Graphviz's nop2 engine to draw (`dot`, its edges left out), and those edges placed (`edges`: js/picture/edges.js
 * edgesSVG writes them, as Python's compose does), each a straight arrow from box to box as a large picture's edges
 * are. `lay(part)` lays out one part's DOT and returns Graphviz's json0 text (or leanLayout's); the parts are asked
 * for innermost first, each once.
 * @param {string} dot
 * @param {(part: string) => string} lay
 * @returns {{dot: string, edges: EdgeTable}}
 */
export function compose(dot, lay) {
  const lines = dot.split("\n");
  const { boxes, edgeLines } = parse(lines);
  /** @type {Layout[]} */
  const layouts = [];
  /** @type {Map<number, [number, number]>} */
  const sizes = new Map();
  for (let b = boxes.length - 1; b >= 0; b--) { // every opened box before the container around it
    const got = layouts[b] = read(lay(part(lines, boxes, b, sizes)));
    const [x0, y0, x1, y1] = got.bb;
    sizes.set(b, [x1 - x0 + 200 * PAD, y1 - y0 + 200 * PAD]);
  }
  /** @type {(string | null)[]} */
  const out = lines.slice();
  const fallback = SHAPE.exec(lines[2]);
  /** @type {Map<string, Drawn>} */
  const drawn = new Map();
  /** @type {Map<number, [number, number]>} */
  const at = new Map([[0, [-layouts[0].bb[0], -layouts[0].bb[1]]]]); // each container's offset
  boxes.forEach((it, b) => { // the top level first, each opened box after its container
    const [ox, oy] = /** @type {[number, number]} */ (at.get(b));
    const got = layouts[b];
    for (const [j, [k, name]] of it.nodes.entries()) {
      const p = got.pos.get(`v${j}`);
      if (p === undefined) throw new Error(`compose: Graphviz did not place ${name}`);
      out[k] = `${lines[k].slice(0, -1)} pos="${point(ox + p[0], oy + p[1])}!"]`;
      const wh = got.size.get(`v${j}`);
      if (wh === undefined) throw new Error(`compose: Graphviz did not size ${name}`);
      const [w, h] = wh;
      const shape = SHAPE.exec(lines[k]) ?? fallback;
      drawn.set(name, { x: ox + p[0], y: oy + p[1], hw: w / 2, hh: h / 2, round: shape !== null && shape[1] === "ellipse" });
    }
    for (const [j, c] of it.children.entries()) {
      const p = got.pos.get(`c${j}`);
      if (p === undefined) throw new Error(`compose: Graphviz did not place ${boxes[c].name}`);
      const [w, h] = /** @type {[number, number]} */ (sizes.get(c));
      const left = ox + p[0] - Math.floor(w / 2);
      const bottom = oy + p[1] - Math.floor(h / 2);
      const inner = layouts[c];
      const offset = /** @type {[number, number]} */ ([left + 100 * PAD - inner.bb[0], bottom + 100 * PAD - inner.bb[1]]);
      at.set(c, offset);
      let frame = `bb="${point(left, bottom)},${point(left + w, bottom + h)}"`;
      if (inner.lp !== null) frame += ` lp="${point(offset[0] + inner.lp[0], offset[1] + inner.lp[1])}"`;
      out[boxes[c].line] = `${lines[boxes[c].line].slice(0, -1)} ${frame}]`;
    }
  });
  const edges = edgeTable(edgeLines.length);
  edgeLines.forEach(([k, tail, head], e) => {
    const id = EDGE_ID.exec(lines[k]);
    if (id === null || !PLAIN.test(tail) || !PLAIN.test(head)) throw new Error(`compose: an edge not as dot.js writes one: ${lines[k]}`);
    placeEdge(edges, e, id[1], tail, head, /** @type {Drawn} */ (drawn.get(tail)), /** @type {Drawn} */ (drawn.get(head)));
    out[k] = null;
  });
  const [x0, y0, x1, y1] = layouts[0].bb;
  out[1] = `${lines[1].slice(0, -1)} bb="${point(0, 0)},${point(x1 - x0, y1 - y0)}" notranslate=true]`;
  const root = layouts[0].lp;
  if (lines[4]?.startsWith("\tlabel=") && root !== null) out[4] = `${lines[4]} lp="${point(root[0] - x0, root[1] - y0)}"`;
  return { dot: out.filter((line) => line !== null).join("\n"), edges };
}
