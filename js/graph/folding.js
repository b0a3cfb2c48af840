// @ts-check
// Opening and closing fold boxes in the live view (issue 9). Python sends the fold hierarchy once (trait `folds`,
// micrograd_widget/picture/fold_tree.py); js/picture/fold_tree.js folds any open set and writes its DOT (drawPicture, also the picture of
// a graph that does not fold), so the view draws every picture with no kernel (exported page, reopened notebook). The open set is the `opened` trait: the view writes it (Python
// then knows what is shown) and redraws when Python (or another view) changes it.
// What a closed box shows live: graph/box-numbers.js.

import * as fold from "../picture/fold_tree.js";
import { EarlyLayouts } from "./early-layouts.js";
import { whenIdle } from "../ui/idle.js";

/** @import { DotOptions, FoldTree, PictureBox, PictureCluster } from "../picture/fold_tree.js" */
/** @import { Palette } from "../picture/format.js" */
/** @import { Tape } from "../core/spec.js" */
/** @import { WidgetModel } from "../host/host.js" */

/**
 * What the view binds a laid-out picture with (graph/bound-picture.js BoundPicture's `view`).
 * @typedef {object} PictureView
 * @property {number[]} shown the nodes drawn
 * @property {PictureBox[]} folds the closed boxes
 * @property {PictureCluster[]} clusters the opened groups
 * @property {Int32Array} fold_of per node: the index in `folds` of its closed box, -1 when it is drawn
 * @property {string} message the picture's folding sentence (the status line's)
 * @property {Palette} [palette]
 */

/** @typedef {{dot: string, view: PictureView}} DrawnPicture drawPicture's */

const PLAN_MEASURE = "micrograd-widget: fold and write DOT"; // Folding.draw's User Timing name
/** @type {[number, number]} */
const PREPARE_IDLE = [1000, 50]; // whenIdle's timeout for prepareSoon, and its timer without idle callbacks

/**
 * The DOT of the open set `open` of the compiled hierarchy `tree` (js/picture/fold_tree.js: a graph that does not fold is a
 * hierarchy with no groups, drawn whole) and the picture description (BoundPicture's `view`: nodes drawn, closed
 * boxes, opened clusters, per node its closed box, the status message, the palette). Each is a User Timing measure
 * PLAN_MEASURE on the page (the browser's profiler shows the main thread's time planning pictures).
 * @param {Tape} tape
 * @param {FoldTree} tree
 * @param {string[]} open
 * @param {DotOptions} options
 * @returns {DrawnPicture}
 */
export function drawPicture(tape, tree, open, options) {
  const start = performance.now();
  const pic = fold.pictureFor(tape, tree, open);
  // not folded twice (~100 ms on the moons loss); the live picture leaves the folding sentence to the status line
  // (widget.js), while the DOT export asks for it (message: true) and so is the picture Python writes
  const dot = fold.dotFor(tape, tree, open, { message: false, ...options, picture: pic });
  const n = tape.n;
  const boxOfGroup = new Int32Array(tree.groups.length).fill(-1); // typed: read once per folded node (65,818)
  pic.boxes.forEach((b, k) => { boxOfGroup[b.group] = k; });
  const foldOf = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    const u = pic.unitOf[i];
    if (u >= n) foldOf[i] = boxOfGroup[u - n];
  }
  performance.measure(PLAN_MEASURE, { start });
  return {
    dot,
    view: {
      shown: pic.shown, folds: pic.boxes, clusters: pic.clusters, fold_of: foldOf, message: pic.message,
      palette: options.palette,
    },
  };
}

/**
 * The open set as a sorted list of unique strings (order never matters to picture/fold_tree.js; equal sets compare equal).
 * @param {unknown} open
 * @returns {string[]}
 */
export function canonicalOpen(open) {
  return Array.isArray(open) ? [...new Set(open.filter((k) => typeof k === "string"))].sort() : [];
}

/**
 * @param {string[]} a
 * @param {string[]} b
 */
export function sameOpen(a, b) {
  return a.length === b.length && a.every((k, j) => k === b[j]);
}

/** The fold state of one view: the hierarchy, the open set, and the pictures drawn for it. */
export class Folding {
  /**
   * A Folding for `model`'s `folds` trait, or null when the graph has no fold box (nothing to open).
   * @param {WidgetModel} model
   * @param {Tape} tape
   * @returns {Folding | null}
   */
  static of(model, tape) {
    const spec = model.get("folds");
    if (!spec || !Array.isArray(spec.groups) || spec.groups.length === 0) return null;
    if (typeof fold.compileFolds !== "function") return null; // a bundle built before js/picture/fold_tree.js had its bodies
    return new Folding(model, tape, fold.compileFolds(spec, tape.n));
  }

  /**
   * @param {WidgetModel} model
   * @param {Tape} tape
   * @param {FoldTree} tree
   */
  constructor(model, tape, tree) {
    this.model = model;
    this.tape = tape;
    this.tree = tree;
    this.open = canonicalOpen(model.get("opened"));
    this.drawn = null; // the open set of the picture shown (graph/drawing.js sets it), where a failed layout goes back to
    this.early = new EarlyLayouts(this); // pictures laid out before they are asked for (graph/early-layouts.js)
    /** @type {(() => void) | null} */
    this.preparing = null; // cancels prepareSoon's idle work, while it waits
  }

  /**
   * Once the page is idle, work out what the next Expand from the open set shown starts with (js/picture/fold_tree.js
   * prepareExpand), which the first Expand's keypress did: on the moons loss at node_budget=2000, ~40 ms of it.
   */
  prepareSoon() {
    if (this.preparing) this.preparing();
    const open = this.open;
    this.preparing = whenIdle(() => {
      this.preparing = null;
      fold.prepareExpand(this.tree, open, this.budget());
    }, ...PREPARE_IDLE);
  }

  /** No more work ahead: the early layouts and prepareSoon's (a new hierarchy, or the view gone). */
  stop() {
    this.early.stop();
    if (this.preparing) this.preparing();
    this.preparing = null;
  }

  /** @returns {number} */
  budget() {
    const b = this.model.get("node_budget");
    return Number.isInteger(b) ? b : this.tree.budget;
  }

  /**
   * drawPicture() of the open set `open` (default: the one shown) with this hierarchy.
   * @param {DotOptions} options
   * @param {string[]} [open]
   * @returns {DrawnPicture}
   */
  draw(options, open = this.open) {
    return drawPicture(this.tape, this.tree, open, options);
  }

  /**
   * What to lay out for the open set: draw()'s { dot, view } and, when it was laid out early
   * (graph/early-layouts.js), `text`, a Promise of its SVG text.
   * @param {DotOptions} options
   * @returns {DrawnPicture & {text?: Promise<string | Element | null>}}
   */
  drawing(options) {
    return this.early.take(this.open, options) ?? this.draw(options);
  }

  /**
   * Adopt Python's (or another view's) open set; true when it differs from the one drawn.
   * @returns {boolean}
   */
  receive() {
    const open = canonicalOpen(this.model.get("opened"));
    if (sameOpen(open, this.open)) return false;
    this.open = open;
    return true;
  }

  /**
   * Make `open` the open set and tell the model; true when it changed.
   * @param {string[]} open
   * @returns {boolean}
   */
  set(open) {
    open = canonicalOpen(open);
    if (sameOpen(open, this.open)) return false;
    this.open = open;
    this.model.set("opened", open);
    this.model.save_changes();
    return true;
  }

  /** @param {string} key */
  isOpen(key) {
    return this.open.includes(key);
  }


  /** @param {string} key */
  expand(key) {
    return this.set(fold.expand(this.tree, this.open, key, this.budget()));
  }

  /** Why `expand(key)` would leave it closed, in the learner's words (null: it opens). @param {string} key */
  expandRefusal(key) {
    return fold.expandRefusal(this.tree, this.open, key, this.budget());
  }

  /** @param {string} key */
  collapse(key) {
    return this.set(fold.collapse(this.tree, this.open, key));
  }

  expandAll() {
    return this.set(fold.expandAllThatFits(this.tree, this.open, this.budget()));
  }

  /**
   * Open what node i needs to be drawn: the boxes holding it. Expanding the innermost one opens the boxes around
   * it without filling them (expanding them one by one, outermost first, would spend the budget on their children
   * nearest the output: a moons layer opened its last neurons and then had no room for neurons.3). Kept within
   * the budget by picture/fold_tree.js's expand; when it does not fit beside what is open, the path to node i alone is shown.
   * @param {number} i
   * @returns {boolean}
   */
  reveal(i) {
    const keys = fold.keysToReveal(this.tree, i);
    if (keys.length === 0 || keys.every((k) => this.isOpen(k))) return false;
    const innermost = keys[keys.length - 1];
    let open = fold.expand(this.tree, this.open, innermost, this.budget());
    if (!keys.every((k) => open.includes(k))) open = fold.expand(this.tree, [], innermost, this.budget());
    if (!keys.every((k) => open.includes(k))) return false;
    return this.set(open);
  }

  /**
   * True when the picked `target` (BoundPicture's { node } or { fold }) is drawn inside the opened group `key`.
   * @param {string} key
   * @param {{node?: number, fold?: PictureBox} | null} target
   * @returns {boolean}
   */
  holds(key, target) {
    const { groups, groupOf } = this.tree;
    let g = !target ? -1 : target.node !== undefined ? groupOf[target.node] : target.fold ? groups[target.fold.group].parent : -1;
    for (; g >= 0; g = groups[g].parent) if (groups[g].key === key) return true;
    return false;
  }

  /**
   * The key of the innermost opened group holding node i (what Collapse closes), or null.
   * @param {number} i
   * @returns {string | null}
   */
  openGroupOfNode(i) {
    return this.innermostOpen(this.tree.groupOf[i]);
  }

  /**
   * The key of the innermost opened group holding group g (a closed box's parent when open), or null.
   * @param {number} g
   * @returns {string | null}
   */
  openGroupOfGroup(g) {
    return g >= 0 ? this.innermostOpen(this.tree.groups[g].parent) : null;
  }

  /**
   * @param {number} g
   * @returns {string | null}
   */
  innermostOpen(g) {
    for (; g >= 0; g = this.tree.groups[g].parent) {
      const key = this.tree.groups[g].key;
      if (this.isOpen(key)) return key;
    }
    return null;
  }
}
