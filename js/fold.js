// Folding in the browser: the same pictures as micrograd_widget/fold_tree.py, with no kernel.
//
// Python computes, once per tape, a fold hierarchy (fold_tree.py) and sends it as the widget's `folds` trait:
//   { version: 1, budget, message,                 // budget: the node budget the tree was built for
//     groups: [[key, kind, title, note, parent, total], ...],   // parents before children; parent -1 = top level
//     group_of: Int32 little-endian buffer (one per tape node: its innermost group, -1 = none) }
// kind is "scope" | "sum" | "terms" | "leaves" | "distance"; key is the scope path for modules, "<kind>:<node id>"
// otherwise (stable across runs); total (Σ boxes) is the node whose '+' the box stands in for, or -1.
// The empty open set draws exactly the picture fold.py's planner draws; each open key replaces its box by its
// members (nodes and child groups), drawn as a labelled Graphviz cluster. Held to tests/vectors/fold_*.json.
//
// API (pure, no DOM; `tape` is js/tape.js's compileTape(spec); `open` is an array of keys; order never matters):
//   compileFolds(spec, tape) -> tree         decode the trait `folds` (the widget's open set is the trait `opened`:
//                                            ipywidgets' Widget.open() is a method): groups with key/kind/title/note/parent/total/count,
//                                            children, groupOf (Int32Array), byKey (Map key -> group index)
//   pictureFor(tape, tree, open) -> { unitOf (Int32Array: node id, or n + group index), nameOf (DOT name per
//                                     node: "n<i>" or "fold<k>"), shown, boxes: [{ id: "fold<k>", key, kind, title, note,
//                                     count, group, total, members, output (its one output node, or null) }], clusters: [{ id: "open<k>", key, kind, title,
//                                     count, group, parent }], edges: [[tail, head], ...], totals, message }
//   dotFor(tape, tree, open, options) -> string   the DOT, byte-identical to Python's
//                                            (options: { precision, rankdir, color, output, data, grad, palette })
//   expand(tree, open, key, budget) -> open'  open `key` (and what it needs above it), then its child groups,
//                                            nearest the output first, while the picture fits the budget
//   collapse(tree, open, key) -> open'       close `key` and every group inside it
//   expandAllThatFits(tree, open, budget) -> open'   open groups nearest the output first while they fit
//   closedBoxOf(tree, open, node) -> key | null       the outermost closed group holding `node` (null: drawn)
//   keysToReveal(tree, node) -> [key, ...]   the groups holding `node`, outermost first (open them to draw it)
//   unitsFor(tree, open) -> number           how many units (nodes + boxes) the open set draws
//   boxMax(grad, members, out) -> node | null   the member whose |grad| a closed box shows and is coloured by

import { formatNumber, gradColor, gradScale, pyRepr } from "./format.js";

export const FOLD_SPEC_VERSION = 1;
export const EDGES_PER_BOX = 3;
export const MAX_LABEL_CHARS = 40;
export const MAX_TOOLTIP_CHARS = 300;
export const MAX_SYMBOL_CHARS = 24;
/** dot.py's colours: NEGATIVE_COLOR, POSITIVE_COLOR, ZERO_COLOR, NONFINITE_COLOR. */
export const PALETTE = { negative: "#5b9bd5", positive: "#f0913a", zero: "#ffffff", nonfinite: "#bdbdbd" };
const FOLD_COLOR = "#eeeeee";

// ---------------------------------------------------------------- text: dot.py's clean_text and escape

// eslint-disable-next-line no-control-regex -- vertical tab and form feed are newlines here, as in dot.py
const NEWLINES = /\r\n|[\r\n\u2028\u2029\x0b\x0c\x85]/gu;
// eslint-disable-next-line no-control-regex -- C0/C1 controls are exactly what this removes
const UNPRINTABLE = /[\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]/gu;
const SPACES = /[ \t]+/g;
const RECORD = { "\\": "\\\\", '"': '\\"', "&": "&amp;", "{": "\\{", "}": "\\}", "|": "\\|", "<": "\\<", ">": "\\>" };
const DOT = { "\\": "\\\\", '"': '\\"', "&": "&amp;" };

/** dot.py's clean_text: newlines as '↵', unprintable characters as U+FFFD, runs of spaces as one, trimmed,
 * cut to `maxChars` code points with '…'. */
export function cleanText(text, maxChars = null) {
  if (text === "") return "";
  let s = String(text).replace(NEWLINES, " \u21b5 ").replace(UNPRINTABLE, "\ufffd").replace(SPACES, " ");
  s = s.replace(/^ +| +$/g, "");
  if (maxChars !== null) {
    const points = Array.from(s);
    if (points.length > maxChars) s = points.slice(0, Math.max(maxChars - 1, 0)).join("").replace(/ +$/, "") + "\u2026";
  }
  return s;
}

/** dot.py's escape for the DOT targets: "record" (one field of a record label) or "dot" (any other string). */
export function escape(text, target = "record") {
  const table = target === "record" ? RECORD : target === "dot" ? DOT : null;
  if (table === null) throw new RangeError(`escape(target) must be 'record' or 'dot', got ${JSON.stringify(target)}`);
  let out = "";
  for (const ch of cleanText(text)) out += table[ch] ?? ch;
  return out;
}

/** `n` with thousands separators, as Python's f"{n:,}". */
export function thousands(n) {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

const ID = /^([a-zA-Z_][a-zA-Z0-9_]*|-?(\.[0-9]+|[0-9]+(\.[0-9]*)?))$/;
const KEYWORDS = new Set(["node", "edge", "graph", "digraph", "subgraph", "strict"]);

/** dot.py's quote: bare when an ID or a number (and no keyword), an HTML label as it is, else in quotes. */
export function quote(text, htmlLabel = false) {
  if (htmlLabel || (ID.test(text) && !KEYWORDS.has(text.toLowerCase()))) return text;
  return `"${text}"`;
}

function attrList(attrs) {
  return Object.keys(attrs).sort().map((k) => `${quote(k)}=${quote(attrs[k])}`).join(" ");
}

function nodeLine(name, label, attrs, indent, htmlLabel = false) {
  const parts = label === null ? [] : [`label=${quote(label, htmlLabel)}`];
  const rest = attrList(attrs);
  if (rest) parts.push(rest);
  return `${indent}${quote(name)} [${parts.join(" ")}]\n`;
}

// ---------------------------------------------------------------- the hierarchy

/** Decode the `folds` trait (FoldTree.spec()) for `tape` (compileTape's result). */
export function compileFolds(spec, tape) {
  // (A node count in place of the tape works for pictures; expand and expandAllThatFits then need pictureFor first.)
  if (!spec || typeof spec !== "object") throw new TypeError("fold spec: expected an object (FoldTree.spec())");
  if (spec.version !== FOLD_SPEC_VERSION) {
    throw new TypeError(`fold spec: version ${JSON.stringify(spec.version)} is not supported; this view reads version ${FOLD_SPEC_VERSION}`);
  }
  const n = typeof tape === "number" ? tape : tape.n;
  const groupOf = readInt32(spec.group_of, n);
  const rows = Array.isArray(spec.groups) ? spec.groups : [];
  const groups = rows.map(([key, kind, title, note, parent, total], g) => {
    if (!(Number.isInteger(parent) && parent >= -1 && parent < g)) throw new TypeError(`fold spec: group ${g} has parent ${parent}`);
    return { key: String(key), kind, title: String(title), note: String(note), parent, total, count: 0, nodes: 0, children: [] };
  });
  const byKey = new Map();
  groups.forEach((g, k) => byKey.set(g.key, k));
  for (let g = 0; g < groups.length; g++) if (groups[g].parent >= 0) groups[groups[g].parent].children.push(g);
  for (let i = 0; i < n; i++) {
    const g = groupOf[i];
    if (g >= groups.length || g < -1) throw new TypeError(`fold spec: node ${i} is in group ${g}, which does not exist`);
    if (g >= 0) groups[g].nodes += 1;
  }
  for (const g of groups) g.count = g.nodes;
  for (let g = groups.length - 1; g >= 0; g--) if (groups[g].parent >= 0) groups[groups[g].parent].count += groups[g].count;
  let top = 0;
  for (let i = 0; i < n; i++) if (groupOf[i] < 0) top++;
  for (const g of groups) if (g.parent < 0) top++;
  return { n, tape: typeof tape === "number" ? null : tape, budget: spec.budget ?? null, message: String(spec.message ?? ""), groups, groupOf, byKey, top };
}

function readInt32(buffer, n) {
  let out;
  if (buffer instanceof Int32Array) out = buffer;
  else if (Array.isArray(buffer)) out = Int32Array.from(buffer);
  else {
    let view;
    if (buffer instanceof DataView) view = buffer;
    else if (buffer instanceof ArrayBuffer) view = new DataView(buffer);
    else if (ArrayBuffer.isView(buffer)) view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
    else throw new TypeError('fold spec: "group_of" must be a binary buffer of int32 numbers');
    out = new Int32Array(view.byteLength / 4);
    for (let i = 0; i < out.length; i++) out[i] = view.getInt32(i * 4, true);
  }
  if (out.length !== n) throw new TypeError(`fold spec: "group_of" must hold ${n} numbers, got ${out.length}`);
  return out;
}

/** Per group: opened, and inside opened groups only. */
function openFlags(tree, open) {
  const keys = new Set(open);
  const flags = new Uint8Array(tree.groups.length);
  tree.groups.forEach((g, k) => { flags[k] = keys.has(g.key) && (g.parent < 0 || flags[g.parent]) ? 1 : 0; });
  return flags;
}

function canonical(tree, flags) {
  const out = [];
  tree.groups.forEach((g, k) => { if (flags[k]) out.push(g.key); });
  return out;
}

function unitsOfFlags(tree, flags) {
  let units = tree.top;
  tree.groups.forEach((g, k) => { if (flags[k]) units += g.children.length + g.nodes - 1; });
  return units;
}

/** How many units (nodes + boxes) the open set draws. */
export function unitsFor(tree, open) {
  return unitsOfFlags(tree, openFlags(tree, open));
}

function unitArray(tree, flags) {
  const { n, groups, groupOf } = tree;
  const box = new Int32Array(groups.length);
  for (let g = 0; g < groups.length; g++) {
    const above = groups[g].parent >= 0 ? box[groups[g].parent] : -1;
    box[g] = above >= 0 ? above : flags[g] ? -1 : g;
  }
  const unit = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const g = groupOf[i];
    unit[i] = g < 0 || box[g] < 0 ? i : n + box[g];
  }
  return { unit, box };
}

/** What the open set draws (fold_tree.picture and dot.write_dot's boxes, as the view needs them). */
export function pictureFor(tape, tree, open) {
  const { n, groups } = tree;
  if (!tree.tape) tree.tape = tape;
  const flags = openFlags(tree, open);
  const { unit, box } = unitArray(tree, flags);
  const shown = [];
  for (let i = 0; i < n; i++) if (unit[i] === i) shown.push(i);
  const boxGroups = [];
  const clusterGroups = [];
  for (let g = 0; g < groups.length; g++) {
    if (box[g] === g) boxGroups.push(g);
    if (flags[g]) clusterGroups.push(g);
  }
  const boxIndex = new Map(boxGroups.map((g, k) => [g, k]));
  const members = boxGroups.map(() => []);
  for (let i = 0; i < n; i++) if (unit[i] >= n) members[boxIndex.get(unit[i] - n)].push(i);
  const outputs = boxOutputs(tape, unit, n);
  const boxes = boxGroups.map((g, k) => {
    const G = groups[g];
    const output = outputs.get(n + g);
    return { id: `fold${k}`, key: G.key, kind: G.kind, title: G.title, note: G.note, count: G.count, group: g,
      total: G.total >= 0 ? G.total : null, members: members[k], output: output === undefined ? null : output };
  });
  const clusters = clusterGroups.map((g, k) => ({ id: `open${k}`, key: groups[g].key, kind: groups[g].kind,
    title: groups[g].title, count: groups[g].count, group: g, parent: groups[g].parent }));
  const message = clusters.length === 0 ? tree.message
    : `showing ${thousands(shown.length)} of ${thousands(n)} nodes; ${thousands(boxes.length)} ${boxes.length === 1 ? "box" : "boxes"} folded, ${thousands(clusters.length)} opened`;
  const name = (u) => (u < n ? `n${u}` : `fold${boxIndex.get(u - n)}`);
  const totals = new Map();
  for (const b of boxes) if (b.kind === "sum" && b.total !== null && unit[b.total] === b.total) totals.set(b.total, b.id);
  const edges = pictureEdges(tape, shown, boxes, unit, name, totals);
  const nameOf = new Array(n);
  for (let i = 0; i < n; i++) nameOf[i] = name(unit[i]);
  return { unitOf: unit, nameOf, shown, boxes, clusters, edges, totals, message };
}

/** Per drawn box (its unit), its one output node (a member used by a unit outside it), or null for several. */
function boxOutputs(tape, unit, n) {
  const { inputStart, inputs } = tape;
  const found = new Map();
  for (let i = 0; i < n; i++) {
    const u = unit[i];
    for (let p = inputStart[i]; p < inputStart[i + 1]; p++) {
      const c = inputs[p];
      const b = unit[c];
      if (b >= n && b !== u) {
        if (!found.has(b)) found.set(b, c);
        else if (found.get(b) !== c) found.set(b, null);
      }
    }
  }
  return found;
}

/**
 * The member of a fold box with the largest |grad| (a non-finite grad counts as largest; the first in tape order
 * wins a tie), `out` (the differentiated output) left out, or null: what a closed box's colour and its
 * "max |grad|" show (dot.py's box_max).
 */
export function boxMax(grad, members, out) {
  let best = null;
  let bestAbs = -1;
  for (const i of members) {
    if (i === out) continue;
    const g = grad[i];
    const a = Number.isFinite(g) ? Math.abs(g) : Infinity;
    if (a > bestAbs) { best = i; bestAbs = a; }
  }
  return best;
}

function pictureEdges(tape, shown, boxes, unit, name, totals) {
  const { inputStart, inputs, symbols } = tape;
  const seen = new Set();
  const edges = [];
  const add = (tail, head) => {
    const k = `${tail} ${head}`;
    if (!seen.has(k)) { seen.add(k); edges.push([tail, head]); }
  };
  for (const i of shown) {
    const own = name(unit[i]);
    const head = totals.get(i) || (symbols[i] ? `n${i}_op` : own);
    for (let p = inputStart[i]; p < inputStart[i + 1]; p++) {
      const c = name(unit[inputs[p]]);
      if (c !== head) add(c, head);
    }
    if (head !== own) add(head, own);
  }
  for (const b of boxes) {
    for (const i of b.members) {
      for (let p = inputStart[i]; p < inputStart[i + 1]; p++) {
        const c = name(unit[inputs[p]]);
        if (c !== b.id) add(c, b.id);
      }
    }
  }
  return edges;
}

function edgeCount(tree, unit) {
  if (!tree.tape) throw new TypeError("fold tree: expand needs the tape: compileFolds(spec, tape)");
  const { inputStart, inputs } = tree.tape;
  const width = tree.n + tree.groups.length;
  const pairs = new Set();
  for (let i = 0; i < tree.n; i++) {
    const u = unit[i];
    for (let p = inputStart[i]; p < inputStart[i + 1]; p++) {
      const c = unit[inputs[p]];
      if (c !== u) pairs.add(c * width + u);
    }
  }
  return pairs.size;
}

function fits(tree, flags, budget, limit) {
  if (unitsOfFlags(tree, flags) > budget) return false;
  return edgeCount(tree, unitArray(tree, flags).unit) <= limit;
}

function edgeLimit(tree, flags, budget) {
  return Math.max(EDGES_PER_BOX * budget, edgeCount(tree, unitArray(tree, flags).unit));
}

function indexOf(tree, key) {
  const g = tree.byKey.get(key);
  if (g === undefined) throw new RangeError(`no fold box has the key ${JSON.stringify(key)}`);
  return g;
}

/** Open `key` (and the groups holding it), then its child groups nearest the output first while the picture
 * stays within `budget` units and the edge limit; the same open set when `key` itself does not fit. */
export function expand(tree, open, key, budget) {
  const g = indexOf(tree, key);
  const flags = openFlags(tree, open);
  const limit = edgeLimit(tree, flags, budget);
  const trial = flags.slice();
  for (let a = g; a >= 0; a = tree.groups[a].parent) trial[a] = 1;
  if (!fits(tree, trial, budget, limit)) return canonical(tree, flags);
  for (const c of tree.groups[g].children) {
    trial[c] = 1;
    if (!fits(tree, trial, budget, limit)) trial[c] = 0;
  }
  return canonical(tree, trial);
}

/** Close `key` and every group inside it. */
export function collapse(tree, open, key) {
  const g = indexOf(tree, key);
  const flags = openFlags(tree, open);
  flags[g] = 0;
  return canonical(tree, openFlags(tree, canonical(tree, flags)));
}

/** Open groups breadth first (nearest the output first) while the picture stays within the budget. */
export function expandAllThatFits(tree, open, budget) {
  const flags = openFlags(tree, open);
  const limit = edgeLimit(tree, flags, budget);
  tree.groups.forEach((G, g) => {
    if (flags[g] || (G.parent >= 0 && !flags[G.parent])) return;
    flags[g] = 1;
    if (!fits(tree, flags, budget, limit)) flags[g] = 0;
  });
  return canonical(tree, flags);
}

/** The key of the outermost closed group holding `node`, or null when it is drawn in full. */
export function closedBoxOf(tree, open, node) {
  const flags = openFlags(tree, open);
  let found = -1;
  for (let g = tree.groupOf[node]; g >= 0; g = tree.groups[g].parent) if (!flags[g]) found = g;
  return found < 0 ? null : tree.groups[found].key;
}

/** The keys of the groups holding `node`, outermost first: open them all to draw it. */
export function keysToReveal(tree, node) {
  const keys = [];
  for (let g = tree.groupOf[node]; g >= 0; g = tree.groups[g].parent) keys.push(tree.groups[g].key);
  return keys.reverse();
}

// ---------------------------------------------------------------- DOT (dot.py's write_dot)

function record(fields, rankdir, across) {
  const body = fields.join(" | ");
  return rankdir === "LR" && !across ? "{ " + body + " }" : body;
}

function valueLine(tape, i, data, grad, scale, precision, rankdir, across, palette) {
  const end = across && rankdir === "LR" ? "\\l" : "";
  const leaf = tape.inputStart[i + 1] === tape.inputStart[i];
  const root = i === tape.root;
  const attrs = { id: `n${i}`, class: "mgw-value" + (leaf ? " mgw-leaf" : "") + (root ? " mgw-root" : "") };
  const text = cleanText(tape.labels[i], MAX_TOOLTIP_CHARS);
  const label = record([escape(cleanText(text, MAX_LABEL_CHARS)), `data ${formatNumber(data[i], precision)}${end}`,
    `grad ${formatNumber(grad[i], precision)}${end}`], rankdir, across);
  const symbol = tape.symbols[i];
  const tip = [escape(text || "(no label)", "dot"),
    `node n${i}` + (symbol ? `, op ${escape(symbol, "dot")}` : leaf ? ", leaf" : ""),
    `data = ${pyRepr(data[i])}`, `grad = ${pyRepr(grad[i])}`];
  if (tape.scopes[i]) tip.push("scope " + escape(cleanText(tape.scopes[i], MAX_TOOLTIP_CHARS), "dot"));
  attrs.tooltip = tip.join("\\n");
  if (leaf) attrs.shape = "Mrecord";
  if (root) { attrs.style = "filled,bold"; attrs.penwidth = "2.5"; }
  if (scale !== null) attrs.fillcolor = gradColor(grad[i], scale, palette);
  return nodeLine(`n${i}`, label, attrs, "\t");
}

function legend(scale, precision, palette) {
  const cells = [0 - scale, 0 - scale / 4, 0, scale / 4, scale]
    .map((v) => `<TD BGCOLOR="${gradColor(v, scale, palette)}">${formatNumber(v, precision)}</TD>`).join("");
  return '<<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="3">' + `<TR><TD>grad</TD>${cells}</TR></TABLE>>`;
}

/**
 * The DOT of the open set, byte-identical to dot.py's graph_view(..., open_keys=open).dot for the same tape
 * numbers. options: { precision = 4, rankdir = "LR", color = true, output = tape.root, data, grad (Float64Arrays,
 * every node's numbers), palette = PALETTE, picture (pictureFor's result, if already made) }.
 */
export function dotFor(tape, tree, open, options = {}) {
  const { precision = 4, rankdir = "LR", color = true, palette = PALETTE, data, grad } = options;
  const output = options.output ?? tape.root;
  const pic = options.picture ?? pictureFor(tape, tree, open);
  const { groups } = tree;
  const folded = pic.boxes.length > 0;
  let scale = null;
  if (color) {
    const own = [];
    let outputShown = false;
    for (const i of pic.shown) {
      if (i === output) outputShown = true;
      else own.push(grad[i]);
    }
    for (const b of pic.boxes) {
      const m = boxMax(grad, b.members, output);
      if (m !== null) own.push(grad[m]);
    }
    scale = gradScale(own, outputShown ? grad[output] : null);
  }
  const graphAttrs = { bgcolor: "white", fontname: "Helvetica", fontsize: "11", rankdir };
  if (folded) { graphAttrs.ranksep = "0.25"; graphAttrs.nodesep = "0.2"; }
  const lines = ["digraph micrograd {\n", `\tgraph [${attrList(graphAttrs)}]\n`,
    `\tnode [fillcolor="${PALETTE.zero}" fontname=Helvetica fontsize=11 shape=record style=filled]\n`,
    '\tedge [arrowsize=0.7 class="mgw-edge" color="#555555"]\n'];
  if (pic.message) lines.push(`\tlabel=${quote(escape(pic.message, "dot"))} labeljust=l labelloc=t\n`);
  const held = new Map([[-1, []]]);
  const children = new Map([[-1, []]]);
  for (const c of pic.clusters) { held.set(c.group, []); children.set(c.group, []); }
  const opLabels = new Map();
  for (const i of pic.shown) {
    const where = tree.groupOf[i] >= 0 ? tree.groupOf[i] : -1;
    held.get(where).push(valueLine(tape, i, data, grad, scale, precision, rankdir, folded, palette));
    const symbol = tape.symbols[i];
    if (symbol && !pic.totals.has(i)) {
      if (!opLabels.has(symbol)) {
        opLabels.set(symbol, [escape(cleanText(symbol, MAX_SYMBOL_CHARS), "dot"), escape(cleanText(symbol, MAX_TOOLTIP_CHARS), "dot")]);
      }
      const [label, tip] = opLabels.get(symbol);
      held.get(where).push(nodeLine(`n${i}_op`, label, { class: "mgw-op", id: `n${i}_op`, margin: "0.02", shape: "ellipse", tooltip: tip }, "\t"));
    }
  }
  const end = rankdir === "LR" ? "\\l" : "";
  for (const b of pic.boxes) {
    const big = boxMax(grad, b.members, output);
    const numbers = b.output !== null
      ? [`data ${formatNumber(data[b.output], precision)}`, `grad ${formatNumber(grad[b.output], precision)}`]
      : [`max |grad| ${formatNumber(big !== null ? Math.abs(grad[big]) : 0, precision)}`];
    const label = record([escape(cleanText(b.title, MAX_LABEL_CHARS)), `${thousands(b.count)} nodes`,
      ...numbers.map((x) => escape(x) + end)], rankdir, true);
    const tip = b.note || `${b.title}: ${thousands(b.count)} nodes folded`;
    const fill = scale !== null && big !== null ? gradColor(grad[big], scale, palette) : FOLD_COLOR;
    held.get(groups[b.group].parent).push(nodeLine(b.id, label, { class: "mgw-fold", fillcolor: fill, id: b.id, shape: "record",
      style: "filled,dashed", tooltip: escape(cleanText(tip, MAX_TOOLTIP_CHARS), "dot") }, "\t"));
  }
  const clusterId = new Map();
  for (const c of pic.clusters) { children.get(c.parent).push(c.group); clusterId.set(c.group, c.id); }
  const emit = (container, indent) => {
    for (const s of held.get(container)) lines.push(indent + s);
    for (const g of children.get(container)) {
      const G = groups[g];
      const attrs = { class: "mgw-cluster", color: "#999999", fontcolor: "#555555", id: clusterId.get(g),
        label: escape(cleanText(G.title, MAX_LABEL_CHARS), "dot"), style: "dashed",
        tooltip: escape(cleanText(`${G.title}: ${thousands(G.count)} nodes, opened`, MAX_TOOLTIP_CHARS), "dot") };
      lines.push(`${indent}\tsubgraph cluster_${clusterId.get(g)} {\n`, `${indent}\t\tgraph [${attrList(attrs)}]\n`);
      emit(g, indent + "\t");
      lines.push(`${indent}\t}\n`);
    }
  };
  emit(-1, "");
  for (const [tail, head] of pic.edges) lines.push(`\t${tail} -> ${head} [id=e_${tail}_${head}]\n`);
  if (scale !== null && pic.shown.length > 0) {
    lines.push(nodeLine("mgw-legend", legend(scale, precision, palette), { class: "mgw-legend", id: "mgw-legend", shape: "plaintext",
      tooltip: "node colour = grad: blue negative, white zero, orange positive" }, "\t", true));
  }
  lines.push("}\n");
  return lines.join("");
}
