// @ts-check
// The bound picture: a laid-out SVG bound once (element references per drawn node, fold box and edge), whose every
// frame paints numbers and fills in place, touching only what changed (boxes out of the graph box's sight a little
// later: graph/visible.js; a large picture's edges and op circles put in as they come near sight: graph/pending.js).
// graph/picture.js lays the picture out and binds it here. The ids and classes bound: js/host/svg-contract.md.

import { colorScale, formatNumber, gradColor, legendMarks, legendWords, plural, pyRepr } from "../picture/format.js";
import { NOT_REACHED, boxFill, notReached, pictureScale } from "../picture/dot.js";
import { changeCaption, formatChange } from "../picture/change.js";
import { boxMaxima, boxNumbers } from "./box-numbers.js";
import { boxesById, makeFocusable, svgElement, textNode } from "../ui/svg.js";
import { EdgeRaster } from "./edge-raster.js";
import { LazyTexts } from "./visible.js";
import { PendingGroups, textGroups } from "./pending.js";

// A live number "data 6.0000" (or a fold box's "max |grad| 0.5000"): its <text> gets `attr`=key and data-field, and
// holds one Text node, which each frame rewrites whole (caption + number; the number is the text after the last
// space). Chromium lays out a <text> holding one Text node in ~0.6x the time of a caption + <tspan> (all 405
// numbers of the moons loss with layers.1 open rewritten: 15-19.5 -> 9-10.7 ms), and a slider frame lays out every
// number in sight.
function bindNumber(text, attr, key, field) {
  const content = text.textContent;
  text.setAttribute(attr, key);
  text.setAttribute("data-field", field);
  let node = text.firstChild;
  if (!node || node.nodeType !== 3 || node !== text.lastChild) { // as parsed: one Text node (else made so)
    node = document.createTextNode(content);
    text.replaceChildren(node);
  }
  return { node, caption: content.slice(0, content.lastIndexOf(" ") + 1) };
}

const XLINK = "http://www.w3.org/1999/xlink";

/** Node i's data-reached word while stepping: "true", "false" (notReached), or "" while not stepping. */
function reachedWord(reachedAt, step, i) {
  return reachedAt === null ? "" : notReached(reachedAt, step, i) ? "false" : "true";
}

const BOX_FIELDS = [["data ", "data"], ["grad ", "grad"], ["max |grad| ", "max-grad"]];
// What paintFolds last wrote per box: data, grad, max |grad|, fill, and whether its grads were reached (stepping).
const FOLD_SLOTS = 5;

/** The SVG bound once, as named parts; `view` describes what was drawn (graph/folding.js drawPicture); `root`: the graph's
 * scroll box (numbers of boxes out of its sight are written lazily: graph/visible.js); `edgesOut` and `opsOut`: the
 * picture's edges and op circles not in `svg` (a composed picture's edges as numbers; js/ui/svg.js splitEdges,
 * splitOps), put in as they come near sight (graph/pending.js); `tipsOut`: the boxes' tooltips not in `svg` (a composed
 * picture's: js/picture/tooltips.js), each given its box as the pointer comes over it, all before an export. */
export class BoundPicture {
  constructor(svg, view, names, root = null, edgesOut = textGroups([]), opsOut = textGroups([]), tipsOut = null) {
    /** @type {Map<string, string> | null} */
    this.tipsOut = tipsOut && tipsOut.ids.length ? new Map(tipsOut.ids.map((id, k) => [id, tipsOut.titles[k]])) : null;
    const byId = boxesById(svg);
    const shown = Int32Array.from(view.shown || []);
    const m = shown.length;
    this.svg = svg;
    this.lazy = new LazyTexts(root);
    /** @type {Map<string, Element>} */
    this.edgesIn = new Map(); // the edges in the picture, by id
    const graph = svg.querySelector("g.graph");
    this.pendingEdges = new PendingGroups(edgesOut, graph, (edges, bounds) => {
      for (const g of edges) this.edgesIn.set(g.id, g);
      this.lazy.watchMore(edges, bounds);
    }, { first: true });
    /** @type {Map<number, Element>} */
    this.opsIn = new Map(); // the op circles in the picture, by node
    this.pendingOps = new PendingGroups(opsOut, graph, (ops, bounds) => {
      for (const g of ops) {
        const i = Number(g.id.slice(1, -3)); // n<i>_op
        this.opsIn.set(i, g);
        this.targets.set(g, { node: i });
      }
      this.lazy.watchMore(ops, bounds);
    });
    this.lazy.onNear = (near, sight) => {
      this.pendingEdges.near(near, sight);
      this.pendingOps.near(near, sight);
    };
    // the edges at low detail (graph/edge-raster.js), every one of them in the picture first
    this.edges = root ? new EdgeRaster(svg, root, () => this.pendingEdges.all()) : null;
    this.palette = view.palette || null;
    this.shown = shown; // the nodes drawn as their own box; index k below is a node's place here
    this.shownSet = new Set(shown);
    // per drawn node: its g, its shape, and its numbers' Text nodes and captions ("data ", "grad ")
    this.boxes = { group: new Array(m), shape: new Array(m), data: new Array(m), grad: new Array(m),
      dataCaption: new Array(m), gradCaption: new Array(m) };
    this.painted = { data: [], grad: [], fill: [], reached: [], legend: [] }; // what was last written
    this.forget();
    this.tips = null; // the numbers the hover tooltips give (paint's `values`)
    this.legend = []; // the Text nodes of the colour legend's five marks (none when it was written in words)
    this.legendGroup = null; // the legend's g, hidden while the DOT's legend no longer fits the numbers
    this.legendText = ""; // the words the DOT's legend was written with ("" when it has marks)
    this.targets = new Map(); // element -> { node } or { fold }: what a click or Enter on it picks
    // What the stepper and a traced path outline: boxes and op circles by node, fold boxes by fold index, edges by id
    // (opGroupOf's and edges' get put one not in the picture yet in, bring many in one parse: graph/pending.js).
    this.outline = { groupOf: new Map(), foldGroups: [], foldOf: view.fold_of || [],
      opGroupOf: {
        get: (/** @type {number} */ i) => this.opsIn.get(i) || this.pendingOps.get(`n${i}_op`),
        has: (/** @type {number} */ i) => this.opsIn.has(i) || this.pendingOps.has(`n${i}_op`),
        bring: (/** @type {number[]} */ is) => this.pendingOps.bring(is.map((i) => `n${i}_op`)),
      },
      edges: {
        get: (/** @type {string} */ id) => this.edgesIn.get(id) || this.pendingEdges.get(id),
        bring: (/** @type {string[]} */ ids) => this.pendingEdges.bring(ids),
      } };
    for (let k = 0; k < m; k++) this.bindNode(k, byId, names);
    this.bindFolds(view, byId, names.tape);
    for (const g of svg.querySelectorAll("g.edge")) {
      this.edgesIn.set(g.id, g);
      this.lazy.watch(g); // not painted when well out of sight
    }
    if (!root) { // no sight to wait for
      this.pendingEdges.all();
      this.pendingOps.all();
    }
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
    makeFocusable(g, `${names.describe(i)}: press Enter to inspect`, texts);
    const op = byId.get(`n${i}_op`);
    if (op) {
      this.lazy.watch(op);
      this.targets.set(op, { node: i });
      this.opsIn.set(i, op);
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
      makeFocusable(g, `${fold.title}, ${plural(fold.count, "node")} folded${expandable}`, texts);
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
   * `values`: each node's data and grad now (the stepper's partial grads while stepping), which the hover tooltips
   * give in full (writeTooltip); `data` and `grad` when left out.
   */
  paint({ data, grad, reachedAt, step, output, precision, colored, log = false, change = false, values = null }) {
    this.tips = { data: values ? values.data : data, grad: values ? values.grad : grad, reachedAt, step };
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
      const reached = reachedWord(reachedAt, step, i);
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

  /** Write every number still pending (out of sight) now, every hover tooltip, and put in every edge and op circle
   * not in yet: before the picture is read whole (exported). */
  flushPending() {
    this.pendingEdges.all();
    this.pendingOps.all();
    if (this.tipsOut) for (const g of this.svg.querySelectorAll("g.node")) this.anchorTip(g);
    this.lazy.flush();
    for (let k = 0; k < this.shown.length; k++) this.writeTooltip(this.boxes.group[k], this.shown[k]);
    return this.svg;
  }

  /** The pointer is over `target`: when it is in a value box, its hover tooltip is made current (writeTooltip). */
  hovered(target) {
    const g = target && target.closest ? target.closest("g.node") : null;
    if (g) this.anchorTip(g);
    const picked = g ? this.targets.get(g) : null;
    if (picked && picked.node !== undefined && this.outline.groupOf.get(picked.node) === g) {
      this.writeTooltip(g, picked.node);
    }
  }

  /**
   * Box `g`, laid out without its tooltip (`tipsOut`), gets it as Graphviz draws one: what it drew wrapped in
   * `<g id="a_<id>"><a xlink:title="...">` (js/host/svg-contract.md); the page's own marks in it (graph/deltas.js)
   * stay after.
   * @param {Element} g
   */
  anchorTip(g) {
    const title = this.tipsOut ? this.tipsOut.get(g.id) : undefined;
    if (title === undefined) return;
    /** @type {Map<string, string>} */ (this.tipsOut).delete(g.id);
    const a = svgElement("a", { role: "none" });
    a.setAttributeNS(XLINK, "xlink:title", title);
    a.append(...[...g.childNodes].filter((child) => !(child instanceof Element && child.classList.contains("mgw-delta"))));
    const anchor = svgElement("g", { id: `a_${g.id}` });
    anchor.append(a);
    g.prepend(anchor);
  }

  /**
   * Value box `g`'s hover tooltip (Graphviz's <a xlink:title>, lines: label, node, data, grad, scope) with node i's
   * numbers of the last paint, in full as Python's DOT writes them (picture/dot.js valueLine: repr, or "grad not
   * reached yet" while stepping, by paint's rule): the layout wrote those of its own DOT, which a slider's move leaves
   * behind. The browser reads the title when it shows the tooltip, so it is written as the pointer comes over the box,
   * and before an export.
   */
  writeTooltip(g, i) {
    const a = g ? g.querySelector("a") : null;
    const tips = this.tips;
    if (!a || !tips) return;
    const lines = (a.getAttributeNS(XLINK, "title") || "").split("\n");
    if (lines.length < 4 || !lines[2].startsWith("data = ") || !lines[3].startsWith("grad ")) return;
    const unreached = notReached(tips.reachedAt, tips.step, i);
    lines[2] = `data = ${pyRepr(tips.data[i])}`;
    lines[3] = unreached ? "grad not reached yet" : `grad = ${pyRepr(tips.grad[i])}`;
    a.setAttributeNS(XLINK, "xlink:title", lines.join("\n"));
  }

  /** The picture is replaced: stop watching its boxes. */
  release() {
    this.pendingEdges.stopSoon();
    this.pendingOps.stopSoon();
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
      const oneState = one < 0 ? "" : reachedWord(reachedAt, step, one);
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
