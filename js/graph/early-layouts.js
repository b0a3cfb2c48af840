// @ts-check
// Pictures laid out before they are asked for (the layout worker only, at low priority): the picture that expanding a
// box would draw, once the inspector shows its Expand button or a box has kept the focus a moment (prefetchSoon), and
// on a big graph the largest closed box's (prefetchLikeliest). graph/folding.js's Folding holds one (its `early`),
// and its drawing() takes a picture from it (take) instead of laying it out again.

import * as fold from "../picture/fold_tree.js";
import { layOut, warmUp } from "../host/graphviz.js";
import { layoutThread } from "../host/layout-worker.js";
import { parseSVG } from "../ui/svg.js";
import { whenIdle } from "../ui/idle.js";
import { canonicalOpen, sameOpen } from "./folding.js";

/** @import { DotOptions, PictureBox } from "../picture/fold_tree.js" */
/** @import { LaidOut, LayoutSignal } from "../host/layout-worker.js" */
/** @import { DrawnPicture, Folding } from "./folding.js" */

/**
 * A picture laid out before it was asked for (prefetch): `text`, a Promise of it laid out (null: not laid out);
 * `parsed`, its SVG text parsed when the page was idle.
 * @typedef {{id: string, drawn: DrawnPicture, text: Promise<LaidOut | null>, signal: LayoutSignal,
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

/** The early layouts of one view's Folding. */
export class EarlyLayouts {
  /** @param {Folding} folding */
  constructor(folding) {
    this.folding = folding;
    /** @type {EarlyLayout[]} */
    this.list = []; // pictures laid out before they were asked for, the newest first
    this.soon = null; // the prefetch scheduled by prefetchSoon: { key, at, timer }
    this.stopLikeliest = null; // cancels prefetchLikeliest's wait
  }

  /**
   * The picture of the open set `open` with `options` when it was laid out early: its { dot, view } and `text`, a
   * Promise of it laid out (or of the element parsed from it while the page was idle); else null. That DOT's numbers
   * may be older than `options`' (a slider moved since): its boxes were sized for those, as after any slider move
   * (layoutKey holds all else that shapes the layout), and the view paints today's numbers and fills over them.
   * @param {string[]} open
   * @param {DotOptions} options
   * @returns {(DrawnPicture & {text: Promise<LaidOut | Element | null>}) | null}
   */
  take(open, options) {
    const hit = this.list.find((e) => e.id === layoutKey(open, options));
    if (!hit) return null;
    const parsed = hit.parsed; // used once (binding changes it); the text stays for another use
    hit.parsed = null;
    hit.used = true; // drawn: no idle parse of it any more (~40 ms on the moons loss, between two slider frames)
    return { ...hit.drawn, text: parsed ? Promise.resolve(parsed) : hit.text.then((laid) => laid ?? layOut(hit.drawn.dot)) };
  }

  /**
   * Lay out, in the layout worker at low priority, the picture that expanding `key` would draw (the inspector
   * shows its Expand button): Expand then binds it without waiting for Graphviz. Returns a Promise of it laid out
   * (null if the worker stopped before), or null when expanding draws nothing new.
   * `maxChars`: not when its DOT is that long or longer (then "large", and nothing is laid out).
   * @param {string} key
   * @param {DotOptions} options
   * @param {number} [maxChars]
   * @returns {Promise<LaidOut | null> | null | "large"}
   */
  prefetch(key, options, maxChars = Infinity) {
    const f = this.folding;
    if (layoutThread() !== "worker") return null; // never laid out early on the main thread
    const open = canonicalOpen(fold.expand(f.tree, f.open, key, f.budget()));
    const id = layoutKey(open, options);
    const known = this.list.find((e) => e.id === id);
    if (sameOpen(open, f.open) || known) return known ? known.text : null;
    const drawn = f.draw(options, open);
    if (drawn.dot.length >= maxChars) return "large";
    const signal = { cancelled: false };
    const text = layOut(drawn.dot, { low: true, signal }).catch((err) => {
      this.list = this.list.filter((e) => e.text !== text); // a fresh layout says what went wrong
      throw err;
    });
    const entry = { id, drawn, text, signal, parsed: null, used: false };
    // Parsed too when the page is idle (the moons loss's largest box: ~25-45 ms less after the click); not a composed
    // picture, whose edges the view puts in only as they come near sight (graph/pending.js).
    text.then((laid) => laid && !laid.edges && whenIdle(() => {
      try {
        if (this.list.includes(entry) && !entry.used) entry.parsed = parseSVG(laid.svg);
      } catch { /* not a picture: parsePicture says so when it is used */ }
    }, 1000, 0), () => {});
    this.list.unshift(entry);
    for (const dropped of this.list.splice(PREFETCHED)) dropped.signal.cancelled = true;
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
      if (!this.folding.isOpen(key)) announce(this.prefetch(key, options()), key, ready);
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

  /** The view is going (or its hierarchy changed): drop the early layouts still scheduled. */
  stop() {
    clearTimeout(this.soon?.timer);
    this.soon = null;
    if (this.stopLikeliest) this.stopLikeliest();
  }
}

/**
 * `ready(key)` once `early` (prefetch()'s Promise of a layout, or null / "large": none) brings a picture.
 * @param {Promise<LaidOut | null> | null | "large"} early
 * @param {string} key
 * @param {(key: string) => void} ready
 */
function announce(early, key, ready) {
  if (early instanceof Promise) early.then((laid) => laid && ready(key), () => {});
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
