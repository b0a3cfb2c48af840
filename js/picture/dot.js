// @ts-check
// The DOT of a folded picture in the browser, byte-identical to micrograd_widget/picture/dot.py's write_dot, with the
// text helpers it needs (text.py's escape, dot.py's quote; js/picture/text.js's cleanText is text.py's clean_text) and the rule for what a closed box
// shows (dot.py's box_max). js/picture/fold_tree.js decides what the picture holds (pictureFor) and re-exports all of this;
// its dotFor is writeDot of pictureFor. Held to tests/vectors/folds/*.json by js/picture/fold_tree.test.js.
//
//   writeDot(tape, tree, picture, options) -> string   picture: pictureFor's result; options as picture/fold_tree.js's dotFor
//
// One addition has no Python counterpart, because only the browser steps through the backward pass (js/core/stepper.js):
// `reachedAt` + `step` (the stepper's) write a grad the stepped pass has not reached yet as the picture paints it
// (graph/picture.js): "grad ·", white, dashed, class mgw-unreached; a closed box's numbers leave those nodes out the
// same way (its one output not reached: "grad ·"; its largest |grad| among the members reached, "·" while none is).
// `message: false` leaves the folding sentence out of the picture: the live view says it once, in its status line.
// Without them the DOT is dot.py's, byte for byte.
//   cleanText(text, maxChars), escape(text, "record" | "dot"), unescapeDot(text), quote(text, htmlLabel), thousands(n)
//   (format.js's)
//   boxMax(grad, members, out, reachedAt, step) -> node | null   the member whose |grad| a closed box shows and is coloured by
//   pictureScale(grad, shown, best, out, reachedAt, step) -> scale  the colour scale of a picture (the DOT's and the live one's)
//   boxFill(grad, big, scale, palette, stepping) -> colour   a closed box's fill (the DOT's and the live picture's)

import { colorScale, formatNumber, gradColor, gradScale, legendMarks, legendWords, plural, pyRepr, scaleTitle, thousands } from "./format.js";
import { DOT_STYLE, FAR_RANKS_LIMIT, FOLD_COLOR, LARGE_PICTURE_EDGES, LEGEND_TABLE, MAX_LABEL_CHARS, MAX_SYMBOL_CHARS, MAX_TOOLTIP_CHARS, PALETTE } from "../core/shared.js";
import { farRanks } from "./far_ranks.js";
import { cleanText } from "./text.js";

/** @import { ColorScale, Palette } from "./format.js" */
/** @import { Tape } from "../core/spec.js" */
/** @import { DotOptions, FoldTree, Picture, PictureBox } from "./fold_tree.js" */

export { cleanText, thousands };
/** What a grad the stepped backward pass has not reached yet shows (graph/picture.js paints the same mark). */
export const NOT_REACHED = "\u00b7";

// ---------------------------------------------------------------- text: text.py's escape (cleanText: js/picture/text.js)

/** @type {Readonly<Record<string, string>>} */
const RECORD = { "\\": "\\\\", '"': '\\"', "&": "&amp;", "{": "\\{", "}": "\\}", "|": "\\|", "<": "\\<", ">": "\\>" };
/** @type {Readonly<Record<string, string>>} */
const DOT = { "\\": "\\\\", '"': '\\"', "&": "&amp;" };
// Whether a cleaned text holds anything a table escapes (a character of its keys): most do not, and are written as
// they are.
/** @type {(table: Readonly<Record<string, string>>) => RegExp} */
const escapedBy = (table) => new RegExp(`[${Object.keys(table).map((ch) => `\\${ch}`).join("")}]`);
const RECORD_ESCAPED = escapedBy(RECORD);
const DOT_ESCAPED = escapedBy(DOT);

/**
 * dot.py's escape for the DOT targets: "record" (one field of a record label) or "dot" (any other string).
 * @param {unknown} text
 * @param {"record" | "dot"} [target]
 * @returns {string}
 */
export function escape(text, target = "record") {
  const table = target === "record" ? RECORD : target === "dot" ? DOT : null;
  if (table === null) throw new RangeError(`escape(target) must be 'record' or 'dot', got ${JSON.stringify(target)}`);
  const clean = cleanText(text);
  if (!(table === RECORD ? RECORD_ESCAPED : DOT_ESCAPED).test(clean)) return clean;
  let out = "";
  for (const ch of clean) out += table[ch] ?? ch;
  return out;
}

/**
 * The text a DOT string that escape(_, "dot") wrote reads as: `\\` and `\"` as the character, `\n` (how a tooltip's lines
 * are joined) as a line break, `&amp;` as `&`; any other backslash stays. Graphviz reads a tooltip so too, except that
 * it also expands `\N`, `\G`, `\L` and `\E` left after a label's own backslash (a label `x\N` shows as `xn5`): this
 * reads what was written (js/picture/tooltips.js).
 * @param {string} text
 * @returns {string}
 */
export function unescapeDot(text) {
  if (!text.includes("\\") && !text.includes("&")) return text;
  return text.replace(/\\([^])|&amp;/g, (all, ch) => ch === undefined ? "&" : ch === "n" ? "\n" : ch === "\\" || ch === '"' ? ch : all);
}

const ID = /^([a-zA-Z_][a-zA-Z0-9_]*|-?(\.[0-9]+|[0-9]+(\.[0-9]*)?))$/;
const KEYWORDS = new Set(["node", "edge", "graph", "digraph", "subgraph", "strict"]);

/**
 * dot.py's quote: bare when an ID or a number (and no keyword), an HTML label as it is, else in quotes.
 * @param {string} text
 * @param {boolean} [htmlLabel]
 * @returns {string}
 */
export function quote(text, htmlLabel = false) {
  if (htmlLabel || (ID.test(text) && !KEYWORDS.has(text.toLowerCase()))) return text;
  return `"${text}"`;
}

/**
 * @param {Record<string, string>} attrs
 * @returns {string}
 */
function attrList(attrs) {
  return Object.keys(attrs).sort().map((k) => `${quote(k)}=${quote(attrs[k])}`).join(" ");
}

/**
 * @param {string} name
 * @param {string | null} label
 * @param {Record<string, string>} attrs
 * @param {string} indent
 * @param {boolean} [htmlLabel]
 * @returns {string}
 */
function nodeLine(name, label, attrs, indent, htmlLabel = false) {
  const parts = label === null ? [] : [`label=${quote(label, htmlLabel)}`];
  const rest = attrList(attrs);
  if (rest) parts.push(rest);
  return `${indent}${quote(name)} [${parts.join(" ")}]\n`;
}

// ---------------------------------------------------------------- what a closed box shows

/**
 * The member of a fold box with the largest |grad|, `out` (the differentiated output) left out, or null: what a
 * closed box's "max |grad|" and colour show (dot.py's box_max). A NaN grad is the largest (as Math.max says), then an
 * infinite one, then the largest finite |grad|; the first in tape order wins a tie. While stepping (`reachedAt`,
 * `step`: the stepper's), a member the backward pass has not reached yet is left out too: null while none is.
 * @param {ArrayLike<number>} grad
 * @param {Iterable<number>} members
 * @param {number} out
 * @param {ArrayLike<number> | null} [reachedAt]
 * @param {number} [step]
 * @returns {number | null}
 */
export function boxMax(grad, members, out, reachedAt = null, step = 0) {
  let best = null;
  let bestAbs = -1;
  for (const i of members) {
    if (i === out || notReached(reachedAt, step, i)) continue;
    const a = Math.abs(grad[i]);
    if (a > bestAbs || (Number.isNaN(a) && !Number.isNaN(bestAbs))) { best = i; bestAbs = a; } // NaN: beaten by none
  }
  return best;
}

/**
 * Whether node `i`'s grad is not reached yet by the stepped backward pass (`reachedAt`, `step`: the stepper's; null
 * while not stepping): the one rule by which the DOT, the live picture, its tooltips and the inspector say so.
 * @param {ArrayLike<number> | null} reachedAt
 * @param {number} step
 * @param {number} i
 * @returns {boolean}
 */
export function notReached(reachedAt, step, i) {
  return reachedAt !== null && reachedAt[i] > step;
}

/**
 * The colour scale of a picture (dot.py's _scale_of): gradScale over the drawn nodes `shown` and the closed boxes'
 * largest-|grad| members `best` (boxMax's, null or -1 for none), the differentiated output `out` left out (counted
 * only as gradScale's fallback, when drawn), and while stepping the nodes not reached yet.
 * @param {ArrayLike<number>} grad
 * @param {Iterable<number>} shown
 * @param {Iterable<number | null>} best
 * @param {number} out
 * @param {ArrayLike<number> | null} [reachedAt]
 * @param {number} [step]
 * @returns {number}
 */
export function pictureScale(grad, shown, best, out, reachedAt = null, step = 0) {
  /** @type {number[]} */
  const grads = [];
  let outputDrawn = false;
  for (const i of shown) {
    if (notReached(reachedAt, step, i)) continue;
    if (i === out) outputDrawn = true;
    else grads.push(grad[i]);
  }
  for (const m of best) if (m !== null && m >= 0) grads.push(grad[m]);
  return gradScale(grads, outputDrawn ? grad[out] : null);
}

/**
 * A closed box's fill (dot.py's _fold_line): its largest-|grad| member `big`'s colour on `scale` (gradColor: grey for
 * NaN or inf); FOLD_COLOR when colouring is off (`scale` null) or no member is counted (`big` null or -1), except while
 * `stepping`, where a box none of whose members is reached yet is white, as an unreached node. The DOT (writeDot) and
 * the live picture (graph/picture.js) both fill boxes with it.
 * @param {ArrayLike<number>} grad
 * @param {number | null} big
 * @param {ColorScale | null} scale
 * @param {Palette} palette
 * @param {boolean} [stepping]
 * @returns {string}
 */
export function boxFill(grad, big, scale, palette, stepping = false) {
  if (scale === null) return FOLD_COLOR;
  if (big !== null && big >= 0) return gradColor(grad[big], scale, palette);
  return stepping ? palette.zero : FOLD_COLOR;
}

// ---------------------------------------------------------------- DOT (dot.py's write_dot)

/**
 * @param {string[]} fields
 * @param {string} rankdir
 * @param {boolean} across
 * @returns {string}
 */
function record(fields, rankdir, across) {
  const body = fields.join(" | ");
  return rankdir === "LR" && !across ? "{ " + body + " }" : body;
}

/**
 * @param {Tape} tape
 * @param {number} i
 * @param {number} output
 * @param {ArrayLike<number>} data
 * @param {ArrayLike<number>} grad
 * @param {ColorScale | null} scale
 * @param {number} precision
 * @param {string} rankdir
 * @param {boolean} across
 * @param {Palette} palette
 * @param {boolean} unreached
 * @returns {string}
 */
function valueLine(tape, i, output, data, grad, scale, precision, rankdir, across, palette, unreached) {
  const end = across && rankdir === "LR" ? "\\l" : "";
  const leaf = tape.inputStart[i + 1] === tape.inputStart[i];
  const isOutput = i === output; // the differentiated output: bold, class mgw-output-node
  const names = DOT_STYLE.classes;
  /** @type {Record<string, string>} */
  const attrs = { id: `n${i}`, class: names.value + (leaf ? " " + names.leaf : "") + (isOutput ? " " + names.output : "")
    + (unreached ? " mgw-unreached" : "") };
  const text = cleanText(tape.labels[i], MAX_TOOLTIP_CHARS);
  const label = record([escape(cleanText(text, MAX_LABEL_CHARS)), `data ${formatNumber(data[i], precision)}${end}`,
    `grad ${unreached ? NOT_REACHED : formatNumber(grad[i], precision)}${end}`], rankdir, across);
  const symbol = tape.symbols[i];
  const tip = [escape(text || "(no label)", "dot"),
    `node n${i}` + (symbol ? `, op ${escape(symbol, "dot")}` : leaf ? ", leaf" : ""),
    `data = ${pyRepr(data[i])}`, unreached ? "grad not reached yet" : `grad = ${pyRepr(grad[i])}`];
  if (tape.scopes[i]) tip.push("scope " + escape(cleanText(tape.scopes[i], MAX_TOOLTIP_CHARS), "dot"));
  attrs.tooltip = tip.join("\\n");
  if (leaf) Object.assign(attrs, DOT_STYLE.leaf);
  if (isOutput) Object.assign(attrs, DOT_STYLE.output);
  if (unreached) attrs.style = (attrs.style ?? DOT_STYLE.node.style) + ",dashed";
  if (scale !== null) attrs.fillcolor = unreached ? palette.zero : gradColor(grad[i], scale, palette);
  return nodeLine(`n${i}`, label, attrs, "\t");
}

/**
 * dot.py's _legend: which scale is in force and its swatches, or the grads in words when swatches would show nothing.
 * @param {ColorScale} scale
 * @param {Palette} palette
 * @returns {string}
 */
function legend(scale, palette) {
  const words = legendWords(scale);
  if (words !== null) return `<${LEGEND_TABLE}<TR><TD>${words}</TD></TR></TABLE>>`;
  const cells = legendMarks(scale).map(([v, text]) => `<TD BGCOLOR="${gradColor(v, scale, palette)}">${text}</TD>`).join("");
  return `<${LEGEND_TABLE}<TR><TD>${scaleTitle(scale)}</TD>${cells}</TR></TABLE>>`;
}

/**
 * `map`'s entry for `key`, which writeDot made before asking.
 * @template K, V
 * @param {Map<K, V>} map
 * @param {K} key
 * @returns {V}
 */
function entry(map, key) {
  const value = map.get(key);
  if (value === undefined) throw new Error(`writeDot: no entry for ${String(key)}`);
  return value;
}

/**
 * What a picture of more than LARGE_PICTURE_EDGES `edges`, or whose edges cross more than FAR_RANKS_LIMIT ranks beyond
 * the next (`far`: farRanks of its DOT edges, each one rank), adds to its graph attributes (dot.py large_layout, which
 * says why): DOT_STYLE.large and an nslimit of 8 x (LARGE_PICTURE_EDGES / (edges + far))^2 in hundredths, at least
 * 0.18, which keeps dot's x-coordinate pass near the work NSLIMIT has on LARGE_PICTURE_EDGES short edges.
 * @param {number} edges
 * @param {number} far
 * @returns {Record<string, string>}
 */
export function largeLayout(edges, far) {
  if (edges <= LARGE_PICTURE_EDGES && far <= FAR_RANKS_LIMIT) return {};
  const work = edges + far;
  const hundredths = Math.max(18, Math.floor(800 * LARGE_PICTURE_EDGES * LARGE_PICTURE_EDGES / (work * work)));
  return { ...DOT_STYLE.large, nslimit: `${Math.floor(hundredths / 100)}.${String(hundredths % 100).padStart(2, "0")}` };
}

/**
 * The far ranks of a picture's DOT `edges` ([tail, head] names, each once), every DOT node (op ellipses included)
 * one rank past what it takes: largeLayout's `far`, as dot.py _graph_attrs counts it.
 * @param {readonly (readonly [string, string])[]} edges
 * @returns {number}
 */
function dotFarRanks(edges) {
  /** @type {Map<string, number>} */
  const ids = new Map();
  const id = (/** @type {string} */ name) => {
    let k = ids.get(name);
    if (k === undefined) { k = ids.size; ids.set(name, k); }
    return k;
  };
  return farRanks(edges.map(([tail, head]) => /** @type {const} */ ([id(tail), id(head)])), 0);
}

/**
 * The DOT of `pic` (pictureFor's result for an open set), byte-identical to dot.py's write_dot for the same
 * tape numbers. options: { precision = 4, rankdir = "LR", color = true, color_scale = "relative", output = tape.root, data, grad
 * (Float64Arrays, every node's numbers), palette = PALETTE, reachedAt = null, step = 0 }. While stepping,
 * `grad` holds the stepper's partial grads and `reachedAt`/`step` its steps.reachedAt and k: a node with
 * reachedAt[i] > step is written as not reached yet (NOT_REACHED, left out of the colour scale and of the closed
 * boxes' largest |grad|, as the picture). `message = true`: false leaves the folding sentence (the graph's label) out.
 * @param {Tape} tape
 * @param {FoldTree} tree
 * @param {Picture} pic
 * @param {DotOptions} options
 * @returns {string}
 */
export function writeDot(tape, tree, pic, options) {
  const { precision = 4, rankdir = "LR", color = true, palette = PALETTE, data, grad, reachedAt = null, step = 0,
    color_scale: kind = "relative", message = true } = options;
  const output = options.output ?? tape.root;
  /** @type {(i: number) => boolean} */
  const unreached = (i) => notReached(reachedAt, step, i);
  const { groups } = tree;
  const folded = pic.boxes.length > 0;
  const biggest = pic.boxes.map((b) => boxMax(grad, b.members, output, reachedAt, step)); // each box's colour and max
  const scale = color ? colorScale(pictureScale(grad, pic.shown, biggest, output, reachedAt, step), precision, kind === "log")
    : null;
  const graphAttrs = { ...DOT_STYLE.graph, rankdir, ...(folded ? DOT_STYLE.folded : {}), ...largeLayout(pic.edges.length, dotFarRanks(pic.edges)) };
  const lines = ["digraph micrograd {\n", `\tgraph [${attrList(graphAttrs)}]\n`, `\tnode [${attrList(DOT_STYLE.node)}]\n`,
    `\tedge [${attrList(DOT_STYLE.edge)}]\n`];
  if (message && pic.message) lines.push(`\tlabel=${quote(escape(pic.message, "dot"))} ${attrList(DOT_STYLE.message)}\n`);
  /** @type {Map<number, string[]>} */
  const held = new Map([[-1, []]]);
  /** @type {Map<number, number[]>} */
  const children = new Map([[-1, []]]);
  for (const c of pic.clusters) { held.set(c.group, []); children.set(c.group, []); }
  /** @type {Map<string, string[]>} */
  const opLabels = new Map();
  for (const i of pic.shown) {
    const where = tree.groupOf[i] >= 0 ? tree.groupOf[i] : -1;
    entry(held, where).push(valueLine(tape, i, output, data, grad, scale, precision, rankdir, folded, palette, unreached(i)));
    const symbol = tape.symbols[i];
    if (symbol && !pic.totals.has(i)) {
      if (!opLabels.has(symbol)) {
        opLabels.set(symbol, [escape(cleanText(symbol, MAX_SYMBOL_CHARS), "dot"), escape(cleanText(symbol, MAX_TOOLTIP_CHARS), "dot")]);
      }
      const [label, tip] = entry(opLabels, symbol);
      entry(held, where).push(nodeLine(`n${i}_op`, label, { ...DOT_STYLE.op, id: `n${i}_op`, tooltip: tip }, "\t"));
    }
  }
  const end = rankdir === "LR" ? "\\l" : "";
  pic.boxes.forEach((b, k) => {
    // While stepping, as the picture paints a box: its one output not reached yet is "grad ·", and its largest |grad|
    // is among the members reached ("max |grad| ·" while none is); such a box is white and class mgw-unreached.
    const big = biggest[k];
    const away = b.output !== null ? unreached(b.output) : reachedAt !== null && big === null;
    const numbers = b.output !== null
      ? [`data ${formatNumber(data[b.output], precision)}`, `grad ${away ? NOT_REACHED : formatNumber(grad[b.output], precision)}`]
      : [`max |grad| ${away ? NOT_REACHED : formatNumber(big !== null ? Math.abs(grad[big]) : 0, precision)}`];
    const label = record([escape(cleanText(b.title, MAX_LABEL_CHARS)), plural(b.count, "node"),
      ...numbers.map((x) => escape(x) + end)], rankdir, true);
    const tip = b.note || `${b.title}: ${plural(b.count, "node")} folded`;
    const fill = boxFill(grad, big, scale, palette, reachedAt !== null);
    entry(held, groups[b.group].parent).push(nodeLine(b.id, label, { ...DOT_STYLE.fold,
      class: DOT_STYLE.fold.class + (away ? " mgw-unreached" : ""), fillcolor: fill, id: b.id,
      tooltip: escape(cleanText(tip, MAX_TOOLTIP_CHARS), "dot") }, "\t"));
  });
  /** @type {Map<number, string>} */
  const clusterId = new Map();
  for (const c of pic.clusters) { entry(children, c.parent).push(c.group); clusterId.set(c.group, c.id); }
  /** @type {(container: number, indent: string) => void} */
  const emit = (container, indent) => {
    for (const s of entry(held, container)) lines.push(indent + s);
    for (const g of entry(children, container)) {
      const G = groups[g];
      const attrs = { ...DOT_STYLE.cluster, id: entry(clusterId, g), label: escape(cleanText(G.title, MAX_LABEL_CHARS), "dot"),
        tooltip: escape(cleanText(`${G.title}: ${plural(G.count, "node")}, opened`, MAX_TOOLTIP_CHARS), "dot") };
      lines.push(`${indent}\tsubgraph cluster_${entry(clusterId, g)} {\n`, `${indent}\t\tgraph [${attrList(attrs)}]\n`);
      emit(g, indent + "\t");
      lines.push(`${indent}\t}\n`);
    }
  };
  emit(-1, "");
  for (const [tail, head] of pic.edges) lines.push(`\t${tail} -> ${head} [id=e_${tail}_${head}]\n`);
  if (scale !== null && pic.shown.length > 0) {
    lines.push(nodeLine(DOT_STYLE.legend.id, legend(scale, palette), DOT_STYLE.legend, "\t", true));
  }
  lines.push("}\n");
  return lines.join("");
}
