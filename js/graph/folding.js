// @ts-check
// Opening and closing fold boxes in the live view (issue 9). Python sends the fold hierarchy once (trait `folds`,
// micrograd_widget/picture/fold_tree.py); js/picture/fold_tree.js folds any open set and writes its DOT (drawPicture, also the picture of
// a graph that does not fold), so the view draws every picture with no kernel (exported page, reopened notebook). The open set is the `opened` trait: the view writes it (Python
// then knows what is shown) and redraws when Python (or another view) changes it.
// What a closed box shows live: graph/box-numbers.js.

import * as fold from "../picture/fold_tree.js";
import { layoutSVG, warmUp } from "../host/graphviz.js";
import { layoutThread } from "../host/layout-worker.js";
import { parseSVG } from "../ui/svg.js";
import { whenIdle } from "../ui/idle.js";

/** @import { DotOptions, FoldTree, PictureBox, PictureCluster } from "../picture/fold_tree.js" */
/** @import { Palette } from "../picture/format.js" */
/** @import { Tape } from "../core/spec.js" */
/** @import { WidgetModel } from "../host/host.js" */
/** @import { LayoutSignal } from "../host/layout-worker.js" */

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

/**
 * A picture laid out before it was asked for (prefetch): `text`, a Promise of its SVG text (null: not laid out);
 * `parsed`, that text parsed when the page was idle.
 * @typedef {{id: string, drawn: DrawnPicture, text: Promise<string | null>, signal: LayoutSignal,
 *   parsed: Element | null, used: boolean}} EarlyLayout
 */

const PREFETCHED = 2; // layouts laid out early and kept (each ~0.5 MB of SVG text on the moons loss)
// A big graph's largest closed box is the likeliest to be opened first and the slowest to lay out (the moons loss's:
// ~0.25 s of Graphviz the first time on a page, ~0.15 s once its WebAssembly has warmed up). Once the widget is in
// view and the page idle, its opened picture is laid out early in the background (worker only), which warms
// Graphviz up for whatever box is opened first. Smaller graphs open fast enough without it.
export const SPECULATE_NODES = 10_000;
// The largest box is laid out early only when its DOT is shorter than this: Graphviz takes ~1.2 us per character
// on the moons loss (0.8 s for the 670,000 of 1,583 boxes at node_budget=2000), and a layout in the worker cannot be
// interrupted cheaply (js/host/layout-worker.js YIELD_MS), so a large guess held whatever box was opened instead for
// up to 0.5 s. The default budget's largest box: 54,000 characters; at node_budget=1000 and more: 436,000 and more.
export const SPECULATE_DOT_CHARS = 250_000;
/** @type {[number, number]} */
const SPECULATE_IDLE = [2000, 1000]; // whenIdle's timeout, and its timer where the browser has no idle callbacks
const PLAN_MEASURE = "micrograd-widget: fold and write DOT"; // Folding.draw's User Timing name

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
function sameOpen(a, b) {
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
    /** @type {EarlyLayout[]} */
    this.early = []; // pictures laid out before they were asked for
    this.soon = null; // the prefetch scheduled by prefetchSoon: { key, at, timer }
    this.stopLikeliest = null; // cancels prefetchLikeliest's wait
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
   * What to lay out for the open set: draw()'s { dot, view } and, when it was laid out early (prefetch), `text`,
   * a Promise of its SVG text. That DOT's numbers may be older than `options`' (a slider moved since): its boxes
   * were sized for those, as after any slider move (the key below holds all else that shapes the layout), and the
   * view paints today's numbers and fills over them once bound.
   * @param {DotOptions} options
   * @returns {DrawnPicture & {text?: Promise<string | Element | null>}}
   */
  drawing(options) {
    const hit = this.early.find((e) => e.id === layoutKey(this.open, options));
    if (!hit) return this.draw(options);
    const parsed = hit.parsed; // used once (binding changes it); the text stays for another use
    hit.parsed = null;
    hit.used = true; // drawn: no idle parse of it any more (~40 ms on the moons loss, between two slider frames)
    return { ...hit.drawn, text: parsed ? Promise.resolve(parsed) : hit.text.then((svg) => svg ?? layoutSVG(hit.drawn.dot)) };
  }

  /**
   * Lay out, in the layout worker at low priority, the picture that expanding `key` would draw (the inspector
   * shows its Expand button): Expand then binds it without waiting for Graphviz. Returns a Promise of the SVG
   * text (null if the worker stopped before), or null when expanding draws nothing new.
   * `maxChars`: not when its DOT is that long or longer (then "large", and nothing is laid out).
   * @param {string} key
   * @param {DotOptions} options
   * @param {number} [maxChars]
   * @returns {Promise<string | null> | null | "large"}
   */
  prefetch(key, options, maxChars = Infinity) {
    if (layoutThread() !== "worker") return null; // never laid out early on the main thread
    const open = canonicalOpen(fold.expand(this.tree, this.open, key, this.budget()));
    const id = layoutKey(open, options);
    const known = this.early.find((e) => e.id === id);
    if (sameOpen(open, this.open) || known) return known ? known.text : null;
    const drawn = this.draw(options, open);
    if (drawn.dot.length >= maxChars) return "large";
    const signal = { cancelled: false };
    const text = layoutSVG(drawn.dot, { low: true, signal }).catch((err) => {
      this.early = this.early.filter((e) => e.text !== text); // a fresh layout says what went wrong
      throw err;
    });
    const entry = { id, drawn, text, signal, parsed: null, used: false };
    // Parsed too when the page is idle (the moons loss's largest box: ~25-45 ms less after the click).
    text.then((svg) => svg && whenIdle(() => {
      try {
        if (this.early.includes(entry) && !entry.used) entry.parsed = parseSVG(svg);
      } catch { /* not a picture: parsePicture says so when it is used */ }
    }, 1000, 0), () => {});
    this.early.unshift(entry);
    for (const dropped of this.early.splice(PREFETCHED)) dropped.signal.cancelled = true;
    return text;
  }

  /**
   * prefetch() `key` after `delay` ms (debounced: the latest box wins; a sooner one for the same box is kept), with
   * the drawing options `options()` gives then; `ready(key)` once it is laid out.
   * @param {string} key
   * @param {number} delay
   * @param {() => DotOptions} options
   * @param {(key: string) => void} ready
   */
  prefetchSoon(key, delay, options, ready) {
    const due = performance.now() + delay;
    if (this.soon && this.soon.key === key && this.soon.at <= due) return; // sooner already
    clearTimeout(this.soon?.timer);
    const timer = setTimeout(() => {
      this.soon = null;
      if (!this.isOpen(key)) announce(this.prefetch(key, options()), key, ready);
    }, delay);
    this.soon = { key, at: due, timer };
  }

  /** Once `el` is in view and the page idle, prefetch() the largest of the closed boxes `folds` (BoundPicture's
   * list) that opens (on a big graph: SPECULATE_NODES), unless its picture is large (SPECULATE_DOT_CHARS: then
   * nothing is guessed, Graphviz is warmed up); `options`, `ready` as prefetchSoon's. Opening a box only adds lines to
   * the DOT: from `shownChars` (the picture shown's) >= SPECULATE_DOT_CHARS none is planned (~0.2 s to learn it).
   * @param {Element} el
   * @param {PictureBox[]} folds
   * @param {() => DotOptions} options
   * @param {(key: string) => void} ready
   * @param {number} [shownChars]
   */
  prefetchLikeliest(el, folds, options, ready, shownChars = 0) {
    const boxes = folds.filter((f) => f.key).sort((a, b) => b.count - a.count);
    if (!boxes.length || typeof IntersectionObserver !== "function") return;
    const observer = new IntersectionObserver((entries) => {
      if (!entries.some((e) => e.isIntersecting)) return;
      observer.disconnect();
      const cancelIdle = whenIdle(() => {
        if (layoutThread() !== "worker") return;
        if (shownChars >= SPECULATE_DOT_CHARS) {
          warmUp()?.catch(() => {});
          return;
        }
        for (const box of boxes) { // prefetch() is null for a box that draws nothing new (open, or does not fit)
          const early = this.prefetch(box.key, options(), SPECULATE_DOT_CHARS);
          if (early === "large") { // no guess (the next boxes, each planned ~0.1 s, draw as much): Graphviz warmed up
            warmUp()?.catch(() => {});
            return undefined;
          }
          if (early) return announce(early, box.key, ready);
        }
        return undefined;
      }, ...SPECULATE_IDLE);
      this.stopLikeliest = cancelIdle;
    });
    observer.observe(el);
    this.stopLikeliest = () => observer.disconnect();
  }

  /** The view is going: drop the early layouts still scheduled. */
  stopEarly() {
    clearTimeout(this.soon?.timer);
    this.soon = null;
    if (this.stopLikeliest) this.stopLikeliest();
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

/**
 * `ready(key)` once `early` (prefetch()'s Promise of SVG text, or null / "large": none) brings a picture.
 * @param {Promise<string | null> | null | "large"} early
 * @param {string} key
 * @param {(key: string) => void} ready
 */
function announce(early, key, ready) {
  if (early instanceof Promise) early.then((svg) => svg && ready(key), () => {});
}

/**
 * What shapes the layout of `open` drawn with `options` (everything but the numbers in its labels).
 * @param {string[]} open
 * @param {DotOptions} options
 * @returns {string}
 */
function layoutKey(open, { precision, rankdir, color, color_scale: kind, output, palette }) {
  return JSON.stringify([open, precision, rankdir, color, kind, output, palette ?? null]);
}
