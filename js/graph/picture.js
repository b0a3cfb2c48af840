// @ts-check
// The picture: Graphviz-WASM lays out the picture's DOT (js/picture/fold_tree.js) once; the SVG is bound once
// (graph/bound-picture.js), which paints every frame's numbers and fills in place;
// its size on screen (fit, zoom, pan) is graph/zoom.js's, its overview map graph/overview.js's.
// Every box is focusable (Tab) and Enter (or a click) picks it. The ids and classes bound: js/host/svg-contract.md.

import { plural, thousands } from "../picture/format.js";
import { h } from "../ui/dom.js";
import { holdLayoutWorker, lastLayoutThread } from "../host/layout-worker.js";
import { layoutSource, parsePicture, splitEdges, splitOps } from "../ui/svg.js";
import { tableGroups, textGroups } from "./pending.js";
import { BoundPicture } from "./bound-picture.js";
import { wholeFarRanks } from "../picture/far_ranks.js";
import { REFUSED_FAR_RANKS } from "../core/shared.js";
import { Overview } from "./overview.js";
import { Zoom } from "./zoom.js";

// Graphviz's dot layout recurses on the graph's depth: compiled to WebAssembly it overflows the browser's stack
// ("Maximum call stack size exceeded", measured: a chain of 7,500 drawn nodes fails, 5,000 lays out in ~3 s).
// A picture with more boxes than this (only Python can ask for one: node_budget=None) is refused before layout.
export const MAX_LAYOUT_BOXES = 5000;
// The old picture is marked busy (aria-busy, dimmed) only when a layout takes longer than this: marking it at
// once made the page restyle, lay out and paint the old picture while the worker ran (on the moons loss with its
// largest box open, ~50 ms of main-thread layout and paint per Collapse all, for a picture about to go).
const BUSY_MS = 150;
// A fold box pressed (pointerdown) or keeping the focus this long is likely opened next (click then Expand,
// double-click, +): the view lays its opened picture out early. Tabbing past boxes (focus held briefly) starts nothing.
const FOCUS_INTENT_MS = 300;

/** Why a picture of `view` is not laid out in the browser, or "" when it is small enough: too many boxes, or, drawn
 * whole (node_budget=None), edges reaching so far back across `tape` that Graphviz would run for minutes (as
 * picture/layout.py layout_refusal refuses it in the kernel). */
export function layoutRefusal(view, tape = null) {
  const boxes = (view.shown || []).length + (view.folds || []).length;
  if (boxes > MAX_LAYOUT_BOXES) {
    return `the picture has ${plural(boxes, "box")} and the browser lays out at most `
      + `${thousands(MAX_LAYOUT_BOXES)} (Graphviz's layout recurses on the graph's depth and would `
      + "overflow the browser's stack); draw fewer with a node budget (explore(root, node_budget=250)) or save the "
      + "full picture from Python with save_svg";
  }
  const far = tape && !(view.folds || []).length && boxes === tape.n ? wholeFarRanks(tape) : 0;
  if (far <= REFUSED_FAR_RANKS) return "";
  return `the graph's edges reach far back (they cross ${thousands(far)} ranks beyond the next, over the `
    + `${thousands(REFUSED_FAR_RANKS)} that Graphviz lays out in seconds), so its layout would run for minutes; draw `
    + "it with a node budget (explore(root, node_budget=250)), which folds what reaches far back";
}

/** The graph box: lays out, binds, fits, and tells `onPick({ node } | { fold })` which box was picked. */
export class Picture {
  constructor(root, names, onPick) {
    this.root = root;
    this.names = names;
    this.onPick = onPick;
    this.bound = null;
    this.generation = 0;
    this.signal = { cancelled: false }; // the running layout's (replace())
    this.dot = ""; // the DOT the picture shown was laid out from (its numbers go stale; export-dot writes a fresh one)
    this.el = h("div", { className: "mgw-graph", "data-role": "graph", "data-lm-suppress-shortcuts": "true" },
      h("div", { className: "mgw-placeholder", text: "Laying out the graph\u2026" }));
    this.el.addEventListener("click", (event) => this.pick(event.target));
    // Double-click (or + on a focused box) opens a fold box; - closes the opened box around a node or box.
    this.el.addEventListener("dblclick", (event) => this.pick(event.target, "expand"));
    this.el.addEventListener("pointerdown", (event) => this.pick(event.target, "intent"));
    this.el.addEventListener("pointerover", (event) => { if (this.bound) this.bound.hovered(event.target); });
    this.el.addEventListener("focusin", (event) => {
      clearTimeout(this.intentTimer);
      this.intentTimer = setTimeout(() => this.pick(event.target, "intent"), FOCUS_INTENT_MS);
    });
    this.el.addEventListener("focusout", () => clearTimeout(this.intentTimer));
    this.el.addEventListener("keydown", (event) => {
      if (!this.bound || !this.bound.targets.has(event.target) || event.ctrlKey || event.metaKey || event.altKey) return;
      const action = { Enter: "inspect", " ": "inspect", "+": "expand", "=": "expand", "-": "collapse" }[event.key];
      if (!action) return;
      this.pick(event.target, action);
      event.preventDefault();
    });
    this.zoom = new Zoom(this.el);
    this.overview = new Overview(this.el); // the map of a picture that does not fit
    this.zoom.changed = () => {
      this.overview.update();
      this.look(); // zoomed or resized
    };
    this.frame = h("div", { className: "mgw-graph-frame" }, this.el, this.overview.el); // what the view places
    this.releaseWorker = holdLayoutWorker(); // one Graphviz worker per page, closed when no picture is left
  }

  /** Lay out `dot` (or take `text`, a Promise of its SVG text laid out early) and bind it; resolves true when
   * this picture is now shown (false: a newer layout won). `place` keeps the learner's place (graph/zoom.js settle):
   * `before(bound)` and `after(bound)` give the element that stands for what matters in the old and new picture
   * (e.g. a closed box, then its opened cluster); the new one goes where the old one was on screen, moved the least
   * to lie in sight; when the old one was out of sight, the new one is brought in sight only if `reveal`. */
  async layout(dot, view, text = null, place = null) {
    const generation = this.replace();
    const signal = this.signal;
    clearTimeout(this.busyTimer); // the old picture stays until the new one is ready
    this.busyTimer = setTimeout(() => this.el.setAttribute("aria-busy", "true"), BUSY_MS);
    try {
      const refused = layoutRefusal(view, this.names.tape);
      if (refused) throw new Error(refused);
      const source = await layoutSource(dot, text, signal).catch((err) => {
        if (err instanceof RangeError) throw new Error(`Graphviz ran out of stack laying out this picture (${err.message}); draw fewer boxes with a smaller node budget`);
        throw err;
      });
      if (generation !== this.generation || source === null) return false;
      // A large picture (composed, its edges apart as numbers, or drawn edges first) goes in without its edges and op
      // circles, each put in as it comes near sight (graph/pending.js); one parsed early (graph/early-layouts.js, in
      // idle time) holds them already.
      const laid = source instanceof Element ? null : source;
      const apart = laid && !laid.edges ? splitEdges(laid.svg) : null;
      const body = laid === null ? null : apart ? apart.text : laid.svg; // the text to parse, edges apart
      const edges = laid?.edges ? tableGroups(laid.edges) : apart?.edges.length ? textGroups(apart.edges) : null;
      const ops = body !== null && edges ? splitOps(body) : null;
      const svg = body !== null ? parsePicture(ops ? ops.text : body) : document.adoptNode(/** @type {Element} */ (source));
      clearTimeout(this.busyTimer);
      this.el.removeAttribute("aria-busy");
      this.el.setAttribute("data-layout-thread", lastLayoutThread());
      this.el.toggleAttribute("data-laid-out-early", text !== null); // a prefetch's layout (graph/early-layouts.js)
      const old = this.bound;
      const at = old && place ? this.zoom.placeOf(place.before(old)) : null; // measured as late as can be: after a pan
      if (old) old.release();
      this.bound = new BoundPicture(svg, view, this.names, this.el, edges ?? textGroups([]), textGroups(ops ? ops.ops : []),
        laid ? laid.tips : null);
      this.dot = dot;
      // Sized before it goes in (the box measured with the old picture): sizing it after made the browser lay
      // the new SVG out twice, once to measure the box and once at its new size (~60 ms on 530 KB of SVG).
      this.zoom.show(svg);
      this.el.replaceChildren(svg);
      if (place && (at || place.reveal)) this.settle(place.after(this.bound), at);
      this.look();
    } catch (err) {
      if (generation !== this.generation) return false;
      clearTimeout(this.busyTimer);
      this.el.removeAttribute("aria-busy");
      throw err;
    }
    return true;
  }

  /** Put `el` (a box, or an opened box's cluster) in sight where `at` says (graph/zoom.js settle). An opened box can be
   * many screens long (a neuron of the moons loss at node_budget=2000: 55,000 px at 60%), and the part settled on, where
   * the closed box was, may hold no box at all, only edges passing by: then the box inside it nearest to the middle of
   * the view is brought to the middle of it. */
  settle(el, at) {
    this.zoom.settle(el, at);
    if (!el || !el.classList.contains("cluster") || !this.bound) return;
    const c = el.getBoundingClientRect();
    const v = this.zoom.visibleRect();
    const mid = { x: (v.left + v.right) / 2, y: (v.top + v.bottom) / 2 };
    let nearest = null, distance = Infinity;
    for (const g of [...this.bound.outline.groupOf.values(), ...this.bound.outline.foldGroups]) {
      if (!g) continue;
      const r = g.getBoundingClientRect();
      if (r.left < c.left || r.right > c.right || r.top < c.top || r.bottom > c.bottom) continue; // not inside el
      if (r.right > v.left && r.left < v.right && r.bottom > v.top && r.top < v.bottom) return; // one is in sight
      const d = Math.hypot((r.left + r.right) / 2 - mid.x, (r.top + r.bottom) / 2 - mid.y);
      if (d < distance) [nearest, distance] = [g, d];
    }
    if (nearest) this.zoom.settle(nearest, { x: (v.right - v.left) / 2, y: (v.bottom - v.top) / 2 });
  }

  /** What is in sight changed (a new picture, a zoom, a resize): the bound picture paints what is near it and draws
   * text at the zoom's level of detail (graph/visible.js), its edges as a raster at low detail (graph/edge-raster.js;
   * after the look, which measures the edges the raster stops rendering), before the frame is painted. */
  look() {
    if (!this.bound) return;
    const low = this.el.getAttribute("data-detail") === "low";
    const raster = this.bound.edges ? this.bound.edges.measure(low) : null; // read before anything changes
    this.bound.lazy.setDetail(low);
    this.bound.lazy.look();
    if (this.bound.edges) this.bound.edges.show(raster);
  }

  /** The picture shown is the one wanted after all: a layout still running (of another picture) is dropped when it
   * ends, and the picture is no longer marked busy. */
  keep() {
    this.replace();
    clearTimeout(this.busyTimer);
    this.el.removeAttribute("aria-busy");
  }

  /** Tell `onPick(picked, action)` what was picked ({ node } | { fold } | { cluster }); action: "inspect"
   * (a click, Enter), "expand" (double-click, +) or "collapse" (-). */
  pick(target, action = "inspect") {
    if (action !== "intent") clearTimeout(this.intentTimer); // done: the box kept the focus for this, not to open it
    if (!this.bound) return;
    for (let el = target; el && el !== this.el; el = el.parentNode) {
      const picked = this.bound.targets.get(el);
      if (picked) {
        this.onPick(picked, action);
        return;
      }
    }
  }

  /** A newer layout (or none) replaces the one running: its worker job is dropped if the worker needs to (the
   * signal, js/host/layout-worker.js). Returns the new generation. */
  replace() {
    this.signal.cancelled = true;
    this.signal = { cancelled: false };
    return ++this.generation;
  }

  destroy() {
    this.replace();
    clearTimeout(this.busyTimer);
    clearTimeout(this.intentTimer);
    this.zoom.destroy();
    this.overview.destroy();
    if (this.bound) this.bound.release();
    this.bound = null;
    this.releaseWorker();
  }
}
