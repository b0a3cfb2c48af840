// @ts-check
// Folding in the browser: the same pictures as micrograd_widget/picture/fold_tree.py, with no kernel.
//
// Python computes, once per tape, a fold hierarchy (fold_tree.py) and sends it as the widget's `folds` trait
// (js/host/folds-contract.md; FoldSpec below); the widget's open set is the trait `opened` (ipywidgets' Widget.open()
// is a method). The empty open set draws exactly the picture fold.py's planner draws; each open key replaces its
// box by its members (nodes and child groups), drawn as a labelled Graphviz cluster. expand and expandAllThatFits
// grow the open set through fold_fit.js's fit loop, as fold_tree.py does through fold_fit.py's. Held to
// tests/vectors/folds/*.json.
//
// API (pure, no DOM; `tape` is js/core/spec.js's compileTape(spec); `open` is an array of keys; order never matters;
// the shapes are the typedefs below):
//   compileFolds(spec, tape) -> FoldTree     decode and check the trait `folds`
//   pictureFor(tape, tree, open) -> Picture  what the open set draws
//   dotFor(tape, tree, open, options) -> string   the DOT, byte-identical to Python's (picture/dot.js writeDot)
//   expand(tree, open, key, budget) -> open'  open `key` (and what it needs above it), then its child groups,
//                                            nearest the output first, while the picture fits the budget
//   expandRefusal(tree, open, key, budget) -> words | null   why expand leaves `key` closed, in the learner's words
//   prepareExpand(tree, open, budget)        work out ahead (the page idle) what any expand from `open` starts with
//   collapse(tree, open, key) -> open'       close `key` and every group inside it
//   expandAllThatFits(tree, open, budget) -> open'   open groups nearest the output first while they fit
//   closedBoxOf(tree, open, node) -> key | null       the outermost closed group holding `node` (null: drawn)
//   keysToReveal(tree, node) -> [key, ...]   the groups holding `node`, outermost first (open them to draw it)
//   unitsFor(tree, open) -> number           how many units (nodes + boxes) the open set draws
//   boxMax(grad, members, out) -> node | null   the member whose |grad| a closed box shows and is coloured by

import { writeDot } from "./dot.js";
import { costLimit, edgeLimit, grow, misfit, unitArray, unitsOfFlags } from "./fold_fit.js";
import { plural, thousands } from "./format.js";
import { FOLD_SPEC_VERSION, LAYOUT_COST_LIMIT } from "../core/shared.js";

/** @import { Palette } from "./format.js" */
/** @import { BinaryBuffer, Tape } from "../core/spec.js" */

// ---------------------------------------------------------------- the hierarchy

// Python builds the tree (child_cap, build_tree and its helpers); JS decodes what it sends (compileFolds; the wire
// format: js/host/folds-contract.md).

/** @typedef {"scope" | "sum" | "terms" | "leaves" | "distance"} FoldKind fold_rules.py's FoldKind */

/**
 * A group of the compiled fold tree.
 * @typedef {object} FoldGroup
 * @property {string} key the scope path for modules, "<kind>:<node id>" otherwise
 * @property {FoldKind} kind
 * @property {string} title
 * @property {string} note
 * @property {number} parent -1 at the top level
 * @property {number} total Σ boxes: the node whose '+' the box stands in for, or -1
 * @property {number} count nodes inside, nested groups included
 * @property {number} nodes nodes directly inside
 * @property {number[]} children child group indexes
 */

/**
 * The compiled fold tree (compileFolds).
 * @typedef {object} FoldTree
 * @property {number} n tape nodes
 * @property {Tape | null} tape null when compiled from a node count (pictureFor sets it)
 * @property {number | null} budget
 * @property {string} message
 * @property {FoldGroup[]} groups
 * @property {Int32Array} groupOf
 * @property {Map<string, number>} byKey group index by key
 * @property {number} top units drawn with nothing open
 */

/**
 * One row of the `folds` trait's groups: [key, kind, title, note, parent, total].
 * @typedef {[string, FoldKind, string, string, number, number]} FoldGroupRow
 */

/**
 * The widget's `folds` trait, version 1 (FoldTree.spec()). Untrusted: compileFolds checks it at runtime.
 * @typedef {object} FoldSpec
 * @property {number} version FOLD_SPEC_VERSION
 * @property {number | null} [budget] the node budget the tree was built for
 * @property {string} [message] the picture's message when nothing is opened
 * @property {FoldGroupRow[]} groups parents before children
 * @property {BinaryBuffer | number[]} group_of Int32 per tape node: its innermost group, -1 for none
 */

/**
 * Decode the `folds` trait (FoldTree.spec()) for `tape` (compileTape's result).
 * @param {FoldSpec} spec untrusted: checked
 * @param {Tape | number} tape
 * @returns {FoldTree}
 */
export function compileFolds(spec, tape) {
  // (A node count in place of the tape works for pictures; expand and expandAllThatFits then need pictureFor first.)
  if (!spec || typeof spec !== "object") throw new TypeError("fold spec: expected an object (FoldTree.spec())");
  if (spec.version !== FOLD_SPEC_VERSION) {
    throw new TypeError(`fold spec: version ${JSON.stringify(spec.version)} is not supported; this view reads version ${FOLD_SPEC_VERSION}`);
  }
  const n = typeof tape === "number" ? tape : tape.n;
  const groupOf = readInt32(spec.group_of, n);
  const rows = Array.isArray(spec.groups) ? spec.groups : [];
  /** @type {FoldGroup[]} */
  const groups = rows.map(([key, kind, title, note, parent, total], g) => {
    if (!(Number.isInteger(parent) && parent >= -1 && parent < g)) throw new TypeError(`fold spec: group ${g} has parent ${parent}`);
    return { key: String(key), kind, title: String(title), note: String(note), parent, total, count: 0, nodes: 0, children: [] };
  });
  /** @type {Map<string, number>} */
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

/**
 * @param {unknown} buffer
 * @param {number} n
 * @returns {Int32Array}
 */
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

// ---------------------------------------------------------------- a picture for an open set

/**
 * A closed box of a picture.
 * @typedef {object} PictureBox
 * @property {string} id "fold<k>"
 * @property {string} key
 * @property {FoldKind} kind
 * @property {string} title
 * @property {string} note
 * @property {number} count
 * @property {number} group
 * @property {number | null} total
 * @property {number[]} members
 * @property {number | null} output its one output node, or null
 */

/**
 * An opened group, drawn as a cluster.
 * @typedef {object} PictureCluster
 * @property {string} id "open<k>"
 * @property {string} key
 * @property {FoldKind} kind
 * @property {string} title
 * @property {string} note what it holds (the fold rules' words)
 * @property {number} count
 * @property {number} group
 * @property {number} parent
 */

/**
 * What an open set draws (pictureFor).
 * @typedef {object} Picture
 * @property {Int32Array} unitOf per node: its own id when drawn, else n + its box's group index
 * @property {string[]} nameOf per node: its DOT name, "n<i>" or "fold<k>" (made when first read)
 * @property {number[]} shown the nodes drawn
 * @property {PictureBox[]} boxes
 * @property {PictureCluster[]} clusters
 * @property {[string, string][]} edges [tail, head] DOT names, each once
 * @property {Map<number, string>} totals Σ box id by the node whose '+' it stands in for
 * @property {string} message
 */

/**
 * Per group: opened, and inside opened groups only.
 * @param {FoldTree} tree
 * @param {Iterable<string>} open
 * @returns {Uint8Array}
 */
function openFlags(tree, open) {
  const keys = new Set(open);
  const flags = new Uint8Array(tree.groups.length);
  tree.groups.forEach((g, k) => { flags[k] = keys.has(g.key) && (g.parent < 0 || flags[g.parent]) ? 1 : 0; });
  return flags;
}

/**
 * What the open set draws (fold_tree.picture and dot.write_dot's boxes, as the view needs them).
 * @param {Tape} tape
 * @param {FoldTree} tree
 * @param {Iterable<string>} open
 * @returns {Picture}
 */
export function pictureFor(tape, tree, open) {
  const { n, groups } = tree;
  if (!tree.tape) tree.tape = tape;
  const flags = openFlags(tree, open);
  const { unit, box } = unitArray(tree, flags);
  /** @type {number[]} */
  const shown = [];
  for (let i = 0; i < n; i++) if (unit[i] === i) shown.push(i);
  /** @type {number[]} */
  const boxGroups = [];
  /** @type {number[]} */
  const clusterGroups = [];
  const boxOf = new Int32Array(groups.length).fill(-1); // group -> its index among the boxes drawn
  for (let g = 0; g < groups.length; g++) {
    if (box[g] === g) boxOf[g] = boxGroups.push(g) - 1;
    if (flags[g]) clusterGroups.push(g);
  }
  const members = boxGroups.map(() => /** @type {number[]} */ ([]));
  for (let i = 0; i < n; i++) if (unit[i] >= n) members[boxOf[unit[i] - n]].push(i);
  const outputs = boxOutputs(tape, unit, n, boxOf, boxGroups.length);
  const boxes = boxGroups.map((g, k) => {
    const G = groups[g];
    return { id: `fold${k}`, key: G.key, kind: G.kind, title: G.title, note: G.note, count: G.count, group: g,
      total: G.total >= 0 ? G.total : null, members: members[k], output: outputs[k] >= 0 ? outputs[k] : null };
  });
  const clusters = clusterGroups.map((g, k) => ({ id: `open${k}`, key: groups[g].key, kind: groups[g].kind,
    title: groups[g].title, note: groups[g].note, count: groups[g].count, group: g, parent: groups[g].parent }));
  const message = clusters.length === 0 ? tree.message
    : `showing ${thousands(shown.length)} of ${plural(n, "node")}; ${plural(boxes.length, "box")} folded, ${thousands(clusters.length)} opened`;
  const name = (/** @type {number} */ u) => (u < n ? `n${u}` : `fold${boxOf[u - n]}`);
  /** @type {Map<number, string>} */
  const totals = new Map();
  for (const b of boxes) if (b.kind === "sum" && b.total !== null && unit[b.total] === b.total) totals.set(b.total, b.id);
  const edges = pictureEdges(tape, tree, shown, boxes, unit, boxOf);
  /** @type {string[] | null} */
  let nameOf = null; // made when asked for (no view needs it): 65,818 strings on the moons loss
  return {
    unitOf: unit, shown, boxes, clusters, edges, totals, message,
    get nameOf() {
      if (nameOf === null) {
        nameOf = new Array(n);
        for (let i = 0; i < n; i++) nameOf[i] = name(unit[i]);
      }
      return nameOf;
    },
  };
}

/**
 * Per drawn box (index k), its one output node (a member used by a unit outside it, or the root: dot.py's _edges),
 * -2 for several, -1 none.
 * @param {Tape} tape
 * @param {Int32Array} unit
 * @param {number} n
 * @param {Int32Array} boxOf
 * @param {number} count
 * @returns {Int32Array}
 */
function boxOutputs(tape, unit, n, boxOf, count) {
  const { inputStart, inputs } = tape;
  const found = new Int32Array(count).fill(-1);
  if (unit[tape.root] >= n) found[boxOf[unit[tape.root] - n]] = tape.root;
  for (let i = 0; i < n; i++) {
    const u = unit[i];
    for (let p = inputStart[i]; p < inputStart[i + 1]; p++) {
      const c = inputs[p];
      const b = unit[c];
      if (b >= n && b !== u) {
        const k = boxOf[b - n];
        if (found[k] === -1) found[k] = c;
        else if (found[k] !== c) found[k] = -2;
      }
    }
  }
  return found;
}

// The edges between drawn units, in the order Python writes them, each once. Ends are numbers until an edge is
// new (units: node i or n + group; op circles: n + groups + i): naming every end of the tape's 131,000 inputs
// as a string cost ~40 ms on the moons loss.
/**
 * @param {Tape} tape
 * @param {FoldTree} tree
 * @param {number[]} shown
 * @param {PictureBox[]} boxes
 * @param {Int32Array} unit
 * @param {Int32Array} boxOf
 * @returns {[string, string][]}
 */
function pictureEdges(tape, tree, shown, boxes, unit, boxOf) {
  const { inputStart, inputs, symbols } = tape;
  const n = tree.n;
  const ops = n + tree.groups.length; // op circle of node i: ops + i
  const width = ops + n;
  const name = (/** @type {number} */ e) => (e < n ? `n${e}` : e < ops ? `fold${boxOf[e - n]}` : `n${e - ops}_op`);
  const seen = new Set();
  /** @type {[string, string][]} */
  const edges = [];
  /** @type {(tail: number, head: number) => void} */
  const add = (tail, head) => {
    const k = tail * width + head;
    if (!seen.has(k)) { seen.add(k); edges.push([name(tail), name(head)]); }
  };
  /** @type {Map<number, number>} */
  const totalUnit = new Map();
  for (const b of boxes) if (b.kind === "sum" && b.total !== null && unit[b.total] === b.total) totalUnit.set(b.total, n + b.group);
  for (const i of shown) {
    const head = totalUnit.get(i) ?? (symbols[i] ? ops + i : i);
    for (let p = inputStart[i]; p < inputStart[i + 1]; p++) {
      const c = unit[inputs[p]];
      if (c !== head) add(c, head);
    }
    if (head !== i) add(head, i);
  }
  for (const b of boxes) {
    const head = n + b.group;
    let last = -1; // the tail just added: runs of inputs from one unit are common
    for (const i of b.members) {
      for (let p = inputStart[i]; p < inputStart[i + 1]; p++) {
        const c = unit[inputs[p]];
        if (c !== head && c !== last) { add(c, head); last = c; }
      }
    }
  }
  return edges;
}

/**
 * @param {FoldTree} tree
 * @param {Uint8Array} flags
 * @returns {string[]}
 */
function canonical(tree, flags) {
  /** @type {string[]} */
  const out = [];
  tree.groups.forEach((g, k) => { if (flags[k]) out.push(g.key); });
  return out;
}

/**
 * @param {FoldTree} tree
 * @param {string} key
 * @returns {number}
 */
function indexOf(tree, key) {
  const g = tree.byKey.get(key);
  if (g === undefined) throw new RangeError(`no fold box has the key ${JSON.stringify(key)}`);
  return g;
}

/**
 * Open `key` (and the groups holding it), then its child groups nearest the output first while the picture
 * stays within `budget` units and the edge limit; the same open set when `key` itself does not fit.
 * @param {FoldTree} tree
 * @param {Iterable<string>} open
 * @param {string} key
 * @param {number} budget
 * @returns {string[]}
 */
export function expand(tree, open, key, budget) {
  const { flags, trial, limits, refused } = tryOpen(tree, open, key, budget);
  if (refused) return canonical(tree, flags);
  grow(tree, trial, tree.groups[indexOf(tree, key)].children, budget, limits);
  return canonical(tree, trial);
}

/**
 * Work out what any `expand(tree, open, ·, budget)` starts with, so that a gesture need not: the cost tables, the
 * opening of every open group and the open set's edge count (fold_fit.js keeps them with the tree). The view runs it
 * when the page is idle after a picture is shown: on the moons loss at node_budget=2000, ~40 ms of the first
 * Expand's keypress. JS only: the kernel plans a picture once per call.
 * @param {FoldTree} tree
 * @param {Iterable<string>} open
 * @param {number} budget
 */
export function prepareExpand(tree, open, budget) {
  const flags = openFlags(tree, open);
  edgeLimit(tree, flags, budget);
  costLimit(tree, flags);
}

/**
 * `open` with `key` and the groups holding it opened (`trial`), the limits of a set grown from `open`, and the limit
 * that trial is past (null: expand opens it).
 * @param {FoldTree} tree
 * @param {Iterable<string>} open
 * @param {string} key
 * @param {number} budget
 */
function tryOpen(tree, open, key, budget) {
  const g = indexOf(tree, key);
  const flags = openFlags(tree, open);
  const limits = { edges: edgeLimit(tree, flags, budget), cost: costLimit(tree, flags) };
  const trial = flags.slice();
  for (let a = g; a >= 0; a = tree.groups[a].parent) trial[a] = 1;
  return { flags, trial, limits, refused: misfit(tree, trial, budget, limits) };
}

/**
 * Why `expand` leaves `key` closed beside `open`, said to a learner (null: it opens). Past the layout cost, raising
 * the node budget does not help: the box's edges reach far back across the picture, which makes it slow to lay out.
 * @param {FoldTree} tree
 * @param {Iterable<string>} open
 * @param {string} key
 * @param {number} budget
 * @returns {string | null}
 */
export function expandRefusal(tree, open, key, budget) {
  const { refused } = tryOpen(tree, open, key, budget);
  if (refused === "cost") {
    return "Opening that box would make the picture too slow to lay out: its edges reach far back across the picture "
      + `(the picture's edges may cross at most ${thousands(LAYOUT_COST_LIMIT)} ranks). Close other boxes first; `
      + "a larger node_budget does not help.";
  }
  if (refused === "edges") {
    return "That box draws too many edges to fit in the node budget beside what is open: collapse a box or raise node_budget.";
  }
  return refused ? "That box does not fit in the node budget beside what is open: collapse a box or raise node_budget." : null;
}

/**
 * Close `key` and every group inside it.
 * @param {FoldTree} tree
 * @param {Iterable<string>} open
 * @param {string} key
 * @returns {string[]}
 */
export function collapse(tree, open, key) {
  const g = indexOf(tree, key);
  const flags = openFlags(tree, open);
  flags[g] = 0;
  return canonical(tree, openFlags(tree, canonical(tree, flags)));
}

/**
 * Open groups breadth first (nearest the output first) while the picture stays within the budget.
 * @param {FoldTree} tree
 * @param {Iterable<string>} open
 * @param {number} budget
 * @returns {string[]}
 */
export function expandAllThatFits(tree, open, budget) {
  const flags = openFlags(tree, open);
  grow(tree, flags, tree.groups.keys(), budget, { edges: edgeLimit(tree, flags, budget), cost: costLimit(tree, flags) });
  return canonical(tree, flags);
}

/**
 * The key of the outermost closed group holding `node`, or null when it is drawn in full.
 * @param {FoldTree} tree
 * @param {Iterable<string>} open
 * @param {number} node
 * @returns {string | null}
 */
export function closedBoxOf(tree, open, node) {
  const flags = openFlags(tree, open);
  let found = -1;
  for (let g = tree.groupOf[node]; g >= 0; g = tree.groups[g].parent) if (!flags[g]) found = g;
  return found < 0 ? null : tree.groups[found].key;
}

/**
 * The keys of the groups holding `node`, outermost first: open them all to draw it.
 * @param {FoldTree} tree
 * @param {number} node
 * @returns {string[]}
 */
export function keysToReveal(tree, node) {
  /** @type {string[]} */
  const keys = [];
  for (let g = tree.groupOf[node]; g >= 0; g = tree.groups[g].parent) keys.push(tree.groups[g].key);
  return keys.reverse();
}

// Python's check_open has no twin: the kernel checks the open set the view sends.

// JS only: the units an open set draws (Python's OpenSetFit keeps its count).
/**
 * How many units (nodes + boxes) the open set draws.
 * @param {FoldTree} tree
 * @param {Iterable<string>} open
 * @returns {number}
 */
export function unitsFor(tree, open) {
  return unitsOfFlags(tree, openFlags(tree, open));
}

// JS only (Python writes the DOT in dot.py's graph_view):
/**
 * How dotFor / writeDot write the DOT.
 * @typedef {object} DotOptions
 * @property {number} [precision] 4
 * @property {string} [rankdir] "LR"
 * @property {boolean} [color] true
 * @property {string} [color_scale] "relative" or "log" (the option's own name, as the shared vectors spell it)
 * @property {number} [output] the tape's root
 * @property {ArrayLike<number>} data every node's data
 * @property {ArrayLike<number>} grad every node's grad
 * @property {Palette} [palette] PALETTE
 * @property {Picture} [picture] pictureFor's result, if already made
 * @property {ArrayLike<number> | null} [reachedAt] the stepper's steps.reachedAt
 * @property {number} [step] the stepper's k
 * @property {boolean} [message] true: the picture's folding sentence as the graph's label (false: left out)
 */

/**
 * The DOT of the open set, byte-identical to dot.py's graph_view(..., open_keys=open).dot for the same tape
 * numbers (DotOptions above; the stepper's reachedAt/step write a grad not reached yet as the picture shows it,
 * picture/dot.js).
 * @param {Tape} tape
 * @param {FoldTree} tree
 * @param {Iterable<string>} open
 * @param {DotOptions} options
 * @returns {string}
 */
export function dotFor(tape, tree, open, options) {
  return writeDot(tape, tree, options.picture ?? pictureFor(tape, tree, open), options);
}
