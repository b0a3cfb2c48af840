// @ts-check
// The picture: Graphviz-WASM lays out the picture's DOT (js/picture/fold_tree.js) once; the SVG is bound once (element references per
// drawn node, fold box and edge); every frame paints numbers and fills in place, touching only what changed
// (boxes out of the graph box's sight a little later: graph/visible.js);
// its size on screen (fit, zoom, pan) is graph/zoom.js's, its overview map graph/overview.js's.
// Every box is focusable (Tab) and Enter (or a click) picks it. The ids and classes bound here: js/host/svg-contract.md.

import { colorScale, formatNumber, gradColor, legendMarks, legendWords, plural, thousands } from "../picture/format.js";
import { NOT_REACHED, boxFill, pictureScale } from "../picture/dot.js";
import { changeCaption, formatChange } from "../picture/change.js";
import { boxMaxima, boxNumbers } from "./box-numbers.js";
import { h } from "../ui/dom.js";
import { holdLayoutWorker, lastLayoutThread } from "../host/layout-worker.js";
import { boxesById, layoutSource, makeFocusable, parsePicture, splitEdges, textNode } from "../ui/svg.js";
import { EdgeRaster } from "./edge-raster.js";
import { LazyTexts } from "./visible.js";
import { PendingEdges } from "./pending-edges.js";
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
 * display.py layout_refusal refuses it in the kernel). */
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

// A live number "data 6.0000" (or a fold box's "max |grad| 0.5000"): its <text> gets `attr`=key and data-field, and
// holds one Text node, which each frame rewrites whole (caption + number; the number is the text after the last
// space). Chromium lays out a <text> holding one Text node in ~0.6x the time of a caption + <tspan> (all 405
// numbers of the moons loss with layers.1 open rewritten: 15-19.5 -> 9-10.7 ms), and a slider frame lays out every
// number in sight.
function bindNumber(text, attr, key, field) {
  const content = text.textContent;
  text.setAttribute(attr, key);
  text.setAttribute("data-field", field);
  const node = document.createTextNode(content);
  text.replaceChildren(node);
  return { node, caption: content.slice(0, content.lastIndexOf(" ") + 1) };
}

const BOX_FIELDS = [["data ", "data"], ["grad ", "grad"], ["max |grad| ", "max-grad"]];
// What paintFolds last wrote per box: data, grad, max |grad|, fill, and whether its grads were reached (stepping).
const FOLD_SLOTS = 5;

/** The SVG bound once, as named parts; `view` describes what was drawn (graph/folding.js drawPicture); `root`: the graph's
 * scroll box (numbers of boxes out of its sight are written lazily: graph/visible.js); `edgeTexts`: the picture's
 * edges taken out of `svg` (js/ui/svg.js splitEdges), put in as they come near sight (graph/pending-edges.js). */
export class BoundPicture {
  constructor(svg, view, names, root = null, edgeTexts = []) {
    const byId = boxesById(svg);
    const shown = Int32Array.from(view.shown || []);
    const m = shown.length;
    this.svg = svg;
    this.lazy = new LazyTexts(root);
    this.pending = new PendingEdges(edgeTexts, svg.querySelector("g.graph"), (edges, bounds) => {
      for (const g of edges) this.outline.edges.set(g.id, g);
      this.lazy.watchMore(edges, bounds);
    });
    this.lazy.onNear = (near) => this.pending.near(near);
    // the edges at low detail (graph/edge-raster.js), every one of them in the picture first
    this.edges = root ? new EdgeRaster(svg, root, () => this.pending.all()) : null;
    this.palette = view.palette || null;
    this.shown = shown; // the nodes drawn as their own box; index k below is a node's place here
    this.shownSet = new Set(shown);
    // per drawn node: its g, its shape, and its numbers' Text nodes and captions ("data ", "grad ")
    this.boxes = { group: new Array(m), shape: new Array(m), data: new Array(m), grad: new Array(m),
      dataCaption: new Array(m), gradCaption: new Array(m) };
    this.painted = { data: [], grad: [], fill: [], reached: [], legend: [] }; // what was last written
    this.forget();
    this.legend = []; // the Text nodes of the colour legend's five marks (none when it was written in words)
    this.legendGroup = null; // the legend's g, hidden while the DOT's legend no longer fits the numbers
    this.legendText = ""; // the words the DOT's legend was written with ("" when it has marks)
    this.targets = new Map(); // element -> { node } or { fold }: what a click or Enter on it picks
    // What the stepper outlines: boxes and op circles by node, fold boxes by fold index, edges by id (edges.get puts an
    // edge not in the picture yet in: graph/pending-edges.js).
    /** @type {Map<string, Element>} */
    const edgesIn = new Map();
    this.outline = { groupOf: new Map(), opGroupOf: new Map(), foldGroups: [], foldOf: view.fold_of || [],
      edges: { set: (/** @type {string} */ id, /** @type {Element} */ g) => edgesIn.set(id, g),
        get: (/** @type {string} */ id) => edgesIn.get(id) || this.pending.get(id) } };
    for (let k = 0; k < m; k++) this.bindNode(k, byId, names);
    this.bindFolds(view, byId, names.tape);
    for (const g of svg.querySelectorAll("g.edge")) {
      this.outline.edges.set(g.id, g);
      this.lazy.watch(g); // not painted when well out of sight
    }
    if (!root) this.pending.all(); // no sight to wait for
    const legend = byId.get("mgw-legend");
    if (legend) {
      const texts = legend.querySelectorAll("text");
      this.legendGroup = legend;
      if (texts.length === 1) this.legendText = texts[0].textContent;
      for (let k = 1; k < texts.length && k <= 5; k++) this.legend.push(textNode(texts[k]));
    }
    this.lazy.start(); // all culled until the picture is in and looked at (graph/visible.js)
  }

  bindNode(k, byId, names) {
    const i = this.shown[k];
    const g = byId.get(`n${i}`);
    if (!g) throw new Error(`the picture has no box for node ${i} (n${i})`);
    const texts = g.querySelectorAll("text");
    if (texts.length !== 3) throw new Error(`node n${i} should have 3 texts (label, data, grad), it has ${texts.length}`);
    const key = names.keys[i];
    g.setAttribute("data-node", key);
    ({ node: this.boxes.data[k], caption: this.boxes.dataCaption[k] } = bindNumber(texts[1], "data-node", key, "data"));
    ({ node: this.boxes.grad[k], caption: this.boxes.gradCaption[k] } = bindNumber(texts[2], "data-node", key, "grad"));
    this.boxes.shape[k] = g.querySelector("polygon, path");
    this.boxes.group[k] = g;
    this.lazy.watch(g, [this.boxes.data[k], this.boxes.grad[k], this.boxes.shape[k]].filter(Boolean));
    this.outline.groupOf.set(i, g);
    this.targets.set(g, { node: i });
    makeFocusable(g, `${names.describe(i)}: press Enter to inspect`);
    const op = byId.get(`n${i}_op`);
    if (op) {
      this.lazy.watch(op);
      this.targets.set(op, { node: i });
      this.outline.opGroupOf.set(i, op);
    }
  }

  /** Closed fold boxes: targets, their live fields (js/host/svg-contract.md "Live fold box"), and opened boxes (clusters). */
  bindFolds(view, byId, tape) {
    const folds = view.folds || [];
    const b = folds.length;
    this.folds = { list: folds, shape: new Array(b).fill(null), fields: new Array(b), best: new Int32Array(b),
      numbers: b && view.fold_of && view.fold_of.length === tape.n ? boxNumbers(folds, view.fold_of, b) : null };
    folds.forEach((fold, k) => {
      const g = byId.get(fold.id) || null;
      this.outline.foldGroups.push(g);
      this.folds.fields[k] = {};
      if (!g) return;
      if (fold.key) g.setAttribute("data-fold", fold.key);
      this.targets.set(g, { fold });
      this.folds.shape[k] = g.querySelector("polygon, path");
      const texts = g.querySelectorAll("text");
      for (let t = 2; t < texts.length; t++) {
        const content = texts[t].textContent;
        const found = BOX_FIELDS.find(([caption]) => content.startsWith(caption));
        if (found) this.folds.fields[k][found[1]] = bindNumber(texts[t], "data-fold", fold.key || fold.id, found[1]);
      }
      this.lazy.watch(g, [...Object.values(this.folds.fields[k]).map((f) => f.node), this.folds.shape[k]].filter(Boolean));
      const expandable = fold.key ? "; press Enter to inspect, + to open it" : ": press Enter to inspect";
      makeFocusable(g, `${fold.title}, ${plural(fold.count, "node")} folded${expandable}`);
    });
    this.clusters = new Map(); // key -> the cluster's g
    for (const cluster of view.clusters || []) {
      const g = this.svg.querySelector(`g.cluster[id="${cluster.id}"]`);
      if (!g) continue;
      g.setAttribute("data-fold", cluster.key);
      this.clusters.set(cluster.key, g);
      this.targets.set(g, { cluster });
    }
    this.forget();
  }

  /** Forget what was painted, so that the next paint writes every number and fill again. */
  forget() {
    const m = this.shown.length;
    this.painted = { data: new Array(m).fill(""), grad: new Array(m).fill(""), fill: new Array(m).fill(""),
      reached: new Array(m).fill(""), legend: new Array(5).fill(""),
      folds: new Array(this.folds ? this.folds.list.length * FOLD_SLOTS : 0).fill("") };
    // The floats behind the painted texts and fills: a number equal to last frame's (Object.is) is not formatted again.
    this.seen = { valid: false, precision: null, colored: false, log: false, scale: NaN, change: false,
      data: new Float64Array(m), grad: new Float64Array(m) };
  }

  /**
   * Write the numbers and fills of one frame: `data`, `grad` (the stepper's partial grads while stepping,
   * with `reachedAt`/`step` telling which the backward pass has written), `output` (left out of the colour
   * scale: d out / d out = 1), `precision`, `colored`, `log` (the log colour scale). Boxes out of sight are written later (graph/visible.js),
   * except the output's: the number the widget is about is always written in the frame (one box).
   * `change`: the picture of change from the pin (graph/pin.js): `data` and `grad` are each node's Δ, written signed
   * with Δ captions; Δdata fills, on a scale over every node drawn (the output too), the SVG legend hidden (the one
   * under the picture says what the fills mean). Returns the colour scale's full strength (0 when not colouring).
   */
  paint({ data, grad, reachedAt, step, output, precision, colored, log = false, change = false }) {
    if (this.seen.change !== change) this.forget(); // every caption, number and fill is written again
    const { boxes, painted, shown, palette, folds, seen, lazy } = this;
    colored = colored && !!palette;
    const fills = change ? data : grad;
    const counted = change ? -1 : output;
    const format = change ? formatChange : formatNumber;
    if (folds.numbers) boxMaxima(folds.numbers, fills, counted, folds.best, reachedAt, step);
    const scale = colored ? pictureScale(fills, shown, folds.numbers ? folds.best : [], counted, reachedAt, step) : 0;
    const valid = seen.valid && seen.precision === precision && seen.colored === colored && seen.log === log;
    const sameScale = valid && Object.is(scale, seen.scale);
    const colors = colorScale(scale, precision, log);
    for (let k = 0; k < shown.length; k++) {
      const i = shown[k];
      const x = data[i];
      const sameData = valid && Object.is(x, seen.data[k]);
      if (!sameData) {
        seen.data[k] = x;
        const d = format(x, precision);
        const caption = change ? changeCaption(boxes.dataCaption[k]) : boxes.dataCaption[k];
        if (d !== painted.data[k]) lazy.write(boxes.data[k], caption + (painted.data[k] = d), i === output);
      }
      const reached = reachedAt === null ? "" : reachedAt[i] <= step ? "true" : "false";
      const gv = grad[i];
      if (valid && reached === painted.reached[k] && Object.is(gv, seen.grad[k]) && (sameScale || !colored)
        && (sameData || !change)) continue;
      seen.grad[k] = gv;
      if (reached !== painted.reached[k]) {
        painted.reached[k] = reached;
        const text = boxes.grad[k].parentNode;
        if (reached) text.setAttribute("data-reached", reached);
        else text.removeAttribute("data-reached");
        boxes.group[k].classList.toggle("mgw-unreached", reached === "false");
      }
      const g = reached === "false" ? NOT_REACHED : format(gv, precision);
      const caption = change ? changeCaption(boxes.gradCaption[k]) : boxes.gradCaption[k];
      if (g !== painted.grad[k]) lazy.write(boxes.grad[k], caption + (painted.grad[k] = g), i === output);
      if (colored && boxes.shape[k]) {
        const fill = reached === "false" ? palette.zero : gradColor(fills[i], colors, palette);
        if (fill !== painted.fill[k]) lazy.write(boxes.shape[k], (painted.fill[k] = fill), i === output);
      }
    }
    Object.assign(seen, { valid: true, precision, colored, log, scale, change });
    if (folds.numbers) this.paintFolds(data, grad, reachedAt, step, precision, colored, colors, change);
    if (change && this.legendGroup) this.legendGroup.setAttribute("display", "none");
    else if (colored && !sameScale) this.paintLegend(colors);
    lazy.endFrame();
    return scale;
  }

  /** The legend's marks for `colors`; while the numbers call for words the DOT's legend was not written with (or
   * marks where it has words), it is hidden until the next layout writes it again. */
  paintLegend(colors) {
    if (!this.legendGroup) return;
    const words = legendWords(colors);
    const fits = words === null ? this.legend.length === 5 : words === this.legendText;
    if (fits) this.legendGroup.removeAttribute("display");
    else this.legendGroup.setAttribute("display", "none");
    if (!fits || words !== null) return;
    const marks = legendMarks(colors);
    const painted = this.painted.legend;
    for (let k = 0; k < 5; k++) {
      const text = marks[k][1];
      if (text !== painted[k]) this.legend[k].nodeValue = painted[k] = text;
    }
  }

  /** Write every number still pending (out of sight) now, and put in every edge not in yet: before the picture is
   * read whole (exported). */
  flushPending() {
    this.pending.all();
    this.lazy.flush();
    return this.svg;
  }

  /** The picture is replaced: stop watching its boxes. */
  release() {
    this.lazy.release();
    if (this.edges) this.edges.release();
  }

  /**
   * The closed fold boxes' live numbers and fills (their one output's data and grad, or their largest |grad|).
   * While stepping, as the value nodes: a box's one output not reached yet shows "grad ·" (greyed), and a box's
   * largest |grad| counts only the members reached (none yet: "max |grad| ·"); such a box is outlined mgw-unreached.
   * `change`: as paint's, a box's largest |Δdata| ("max |Δdata| ") and fill.
   */
  paintFolds(data, grad, reachedAt, step, precision, colored, colors, change = false) {
    const { folds, palette, lazy } = this;
    const painted = this.painted.folds;
    const { single } = folds.numbers;
    const fills = change ? data : grad;
    const format = change ? formatChange : formatNumber;
    const write = (field, slot, text) => {
      const caption = field && (change ? changeCaption(field.caption) : field.caption);
      if (field && text !== painted[slot]) lazy.write(field.node, caption + (painted[slot] = text));
    };
    const mark = (field, state) => {
      if (!field) return;
      if (state) field.node.parentNode.setAttribute("data-reached", state);
      else field.node.parentNode.removeAttribute("data-reached");
    };
    for (let k = 0; k < folds.list.length; k++) {
      const fields = folds.fields[k];
      const one = single[k];
      const best = folds.best[k];
      const slot = FOLD_SLOTS * k;
      const oneState = reachedAt === null || one < 0 ? "" : reachedAt[one] <= step ? "true" : "false";
      const maxState = reachedAt === null ? "" : best >= 0 ? "true" : "false"; // a member reached: boxMax found one
      if (oneState + maxState !== painted[slot + 4]) {
        painted[slot + 4] = oneState + maxState;
        mark(fields.grad, oneState);
        mark(fields["max-grad"], maxState);
        const g = this.outline.foldGroups[k];
        if (g) g.classList.toggle("mgw-unreached", (one >= 0 ? oneState : maxState) === "false");
      }
      if (one >= 0) {
        write(fields.data, slot, format(data[one], precision));
        write(fields.grad, slot + 1, oneState === "false" ? NOT_REACHED : format(grad[one], precision));
      }
      write(fields["max-grad"], slot + 2, maxState === "false" ? NOT_REACHED
        : formatNumber(best >= 0 ? Math.abs(fills[best]) : 0, precision));
      if (colored && folds.shape[k]) {
        const fill = boxFill(fills, best, colors, palette, reachedAt !== null);
        if (fill !== painted[slot + 3]) lazy.write(folds.shape[k], (painted[slot + 3] = fill));
      }
    }
  }
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
      // The picture goes in without its edges, each put in as it comes near sight (graph/pending-edges.js); one parsed
      // early (graph/folding.js, in idle time) holds them already.
      const apart = typeof source === "string" ? splitEdges(source) : null;
      const svg = apart ? parsePicture(apart.text) : document.adoptNode(/** @type {Element} */ (source));
      clearTimeout(this.busyTimer);
      this.el.removeAttribute("aria-busy");
      this.el.setAttribute("data-layout-thread", lastLayoutThread());
      this.el.toggleAttribute("data-laid-out-early", text !== null); // a prefetch's layout (graph/folding.js)
      const old = this.bound;
      const at = old && place ? this.zoom.placeOf(place.before(old)) : null; // measured as late as can be: after a pan
      if (old) old.release();
      this.bound = new BoundPicture(svg, view, this.names, this.el, apart ? apart.edges : []);
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
    this.bound.lazy.setDetail(low);
    this.bound.lazy.look();
    if (this.bound.edges) this.bound.edges.show(low);
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
