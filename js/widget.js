// The anywidget view: the graph (laid out once by Graphviz-WASM from the kernel's DOT), one slider per
// leaf, reset, output chooser, inspector (with the numerical gradient check, gradcheck.js), and the
// backprop stepper (stepper.js). A slider frame replays the tape in JS (tape.js) and touches only cached
// text nodes and fills; settled leaf values go to the kernel (trait `leaf_values`).
// No user string reaches innerHTML: controls are built with createElement/textContent, and the only
// markup parsed is Graphviz's SVG of the DOT in which micrograd_widget/dot.py escaped every user string.
// Leaves: up to MAX_LEAF_ROWS get a slider row each; a graph with more (an MLP's loss has hundreds) gets a
// filter box and the first MAX_LEAF_ROWS matching rows, leaves drawn in the picture first, so the DOM stays
// small whatever the graph. Hooks: data-leaf / data-node = the node's label if no other node has it, else
// its node id. Every box of the picture is focusable (Tab) and Enter opens it in the inspector. A graph
// wider than its box is fitted to the width unless that would shrink it below MIN_FIT_SCALE.

import { backward, compileTape, decodeNumber, encodeNumber, forward, leafValuesOf } from "./tape.js";
import { layoutSVG } from "./graphviz.js";
import { formatNumber, gradColor, gradScale, pyRepr } from "./format.js";
import { h } from "./dom.js";
import { GradCheck } from "./gradcheck.js";
import { Stepper } from "./stepper.js";

const SETTLE_MS = 150;
const MAX_LEAF_ROWS = 40;
const MAX_OUTPUT_OPTIONS = 300;
const KERNEL_TIMEOUT_MS = 8000;
const NS = "http://www.w3.org/2000/svg";
const MIN_FIT_SCALE = 0.5;
const NOT_REACHED = "\u00b7"; // a grad the stepped backward pass has not written yet

function decodeList(values, n) {
  if (!Array.isArray(values) || values.length !== n) return null;
  return Float64Array.from(values, decodeNumber);
}

function sameValues(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

/** The slider range for a value: [v - |v| - 1, v + |v| + 1] widened to whole numbers. */
export function sliderRange(v) {
  const x = Number.isFinite(v) ? v : 0;
  const a = Math.abs(x);
  return [Math.floor(x - a - 1), Math.ceil(x + a + 1)];
}

/** A round slider step giving about 200 positions over [lo, hi]. */
export function sliderStep(lo, hi) {
  const raw = (hi - lo) / 200;
  if (!(raw > 0) || !Number.isFinite(raw)) return 0.01;
  const p = 10 ** Math.floor(Math.log10(raw));
  const m = raw / p;
  return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
}

/** The picture's natural width in CSS pixels, from the SVG's width attribute ("620pt") or its viewBox. */
export function svgWidthPx(width, viewBox) {
  const m = /^\s*([0-9.]+)\s*(pt|px)?\s*$/.exec(width || "");
  if (m) return Number(m[1]) * (m[2] === "pt" ? 4 / 3 : 1);
  const box = String(viewBox || "").trim().split(/[\s,]+/).map(Number);
  return box.length === 4 && Number.isFinite(box[2]) ? box[2] : 0;
}

/** Whether a picture `natural` px wide is fitted to a box `box` px wide: only when wider, and not below `minScale`. */
export function shouldFit(natural, box, minScale = MIN_FIT_SCALE) {
  return box > 0 && natural > box && box >= natural * minScale;
}

/** Stable names for the test hooks and the UI: the label when no other node has it, else the node id. */
export function nodeKeys(labels) {
  const count = new Map();
  for (const label of labels) if (label) count.set(label, (count.get(label) || 0) + 1);
  return labels.map((label, i) => (label && count.get(label) === 1 ? label : String(i)));
}

class GraphView {
  constructor(model, host) {
    this.model = model;
    this.host = host;
    this.listeners = [];
    this.timers = new Set();
    this.destroyed = false;
    this.settleTimer = null;
    this.dirtySettle = false;
    this.kernel = { inflight: false, pending: false, seq: 0, timer: null };
    this.error = { source: "", text: "" };
    this.bound = null;
    this.rows = new Map();
    this.inspected = null;
    this.layoutGeneration = 0;
    this.stepper = null;
    this.gradcheck = null;
    this.lit = [];
    this.fit = false;
    this.fitChosen = false;
    this.resizeObserver = null;

    this.root = h("div", { className: "mgw-root", "data-state": "loading" });
    host.append(this.root);
    try {
      this.setup();
    } catch (err) {
      this.fail(err);
    }
  }

  // ------------------------------------------------------------------ model plumbing

  on(event, fn) {
    this.model.on(event, fn);
    this.listeners.push([event, fn]);
  }

  get(name) {
    return this.model.get(name);
  }

  setup() {
    const spec = this.get("spec");
    this.tape = compileTape(spec);
    this.spec = spec;
    this.keys = nodeKeys(spec.label);
    const n = this.tape.n;
    const nLeaves = this.tape.leaves.length;
    this.initial = leafValuesOf(this.tape, this.tape.data);
    this.leafVals = decodeList(this.get("leaf_values"), nLeaves) || Float64Array.from(this.initial);
    this.lo = new Float64Array(nLeaves);
    this.hi = new Float64Array(nLeaves);
    for (let j = 0; j < nLeaves; j++) [this.lo[j], this.hi[j]] = sliderRange(this.initial[j]);
    for (let j = 0; j < nLeaves; j++) this.widenRange(j, this.leafVals[j]);
    this.output = this.get("output");
    this.data = decodeList(this.get("data"), n) || Float64Array.from(this.tape.data);
    this.grad = decodeList(this.get("grad"), n) || Float64Array.from(this.tape.grad);
    this.scratch = new Float64Array(n);
    this.mode = this.tape.replayable ? "browser" : this.tape.opaque >= 0 ? "readonly" : "kernel";

    this.buildChrome();
    if (this.mode === "browser") this.recompute();
    this.buildLeaves();
    this.listen();
    this.layout();
  }

  listen() {
    this.on("change:leaf_values", () => this.onLeafValues());
    this.on("change:output", () => this.onOutput());
    this.on("change:data", () => this.onKernelNumbers());
    this.on("change:grad", () => this.onKernelNumbers());
    this.on("change:error", () => this.onKernelError());
    this.on("change:precision", () => this.repaint());
    this.on("change:color", () => {
      this.fillLegend(this.legend);
      this.repaint();
    });
    this.on("change:dot", () => this.layout());
    this.on("msg:custom", (msg) => this.onCustom(msg));
  }

  // ------------------------------------------------------------------ static parts of the view

  buildChrome() {
    const root = this.root;
    this.errorBox = h("div", { className: "mgw-error", "data-role": "error", role: "alert", hidden: true });
    this.outputSelect = h("select", {
      className: "mgw-output", "data-role": "output", "aria-label": "node to differentiate",
      "data-lm-suppress-shortcuts": "true",
    });
    this.outputSelect.addEventListener("change", () => this.chooseOutput(Number(this.outputSelect.value)));
    this.resetButton = h("button", { type: "button", className: "mgw-button", "data-role": "reset", text: "Reset" });
    this.resetButton.title = "Put every leaf back to its starting value";
    this.resetButton.addEventListener("click", () => this.reset());
    this.fitButton = h("button", { type: "button", className: "mgw-button", "data-role": "fit", "aria-pressed": "false", text: "Fit width" });
    this.fitButton.addEventListener("click", () => this.toggleFit());
    this.stepButton = h("button", { type: "button", className: "mgw-button", "data-role": "step-mode", "aria-pressed": "false", text: "Step through backprop" });
    this.stepButton.addEventListener("click", () => this.toggleStepper());
    this.gradcheckButton = h("button", { type: "button", className: "mgw-button", "data-role": "gradcheck", text: "Check gradients" });
    this.gradcheckButton.addEventListener("click", () => this.openGradcheck());
    if (this.mode === "browser") {
      this.stepButton.title = "Run the backward pass one node at a time: see each chain-rule product added to the grads";
      this.gradcheckButton.title = "Compare every leaf's grad with a finite-difference estimate";
    } else {
      this.stepButton.disabled = true;
      this.stepButton.title = `The stepper needs every op's local derivative in the browser: ${this.tape.reason}`;
      this.gradcheckButton.title = "Compare every leaf's grad with a finite-difference estimate (computed by the kernel)";
    }
    if (this.mode === "readonly") {
      this.gradcheckButton.disabled = true;
      this.gradcheckButton.title = `Nothing can replay this graph: ${this.tape.reason}`;
    }
    this.status = h("span", { className: "mgw-status", "data-role": "status" });

    const toolbar = h("div", { className: "mgw-toolbar" },
      h("label", { className: "mgw-field" }, h("span", { text: "Differentiate" }), this.outputSelect),
      this.resetButton, this.fitButton, this.stepButton, this.gradcheckButton, this.status);
    this.stepperSlot = h("div", { className: "mgw-stepper-slot" });
    this.graphBox = h("div", { className: "mgw-graph", "data-role": "graph", "data-lm-suppress-shortcuts": "true" },
      h("div", { className: "mgw-placeholder", text: "Laying out the graph\u2026" }));
    this.graphBox.addEventListener("click", (event) => this.onGraphClick(event));
    this.graphBox.addEventListener("keydown", (event) => this.onGraphKey(event));
    if (typeof ResizeObserver !== "undefined") {
      this.resizeObserver = new ResizeObserver(() => this.autoFit());
      this.resizeObserver.observe(this.graphBox);
    }
    this.leavesBox = h("div", { className: "mgw-leaves", "data-role": "leaves" });
    this.inspector = h("div", { className: "mgw-inspector", "data-role": "inspector", hidden: true });
    this.legend = this.buildLegend();
    root.append(toolbar, this.stepperSlot, this.errorBox, this.graphBox, h("div", { className: "mgw-panels" }, this.leavesBox, this.inspector), this.legend);
    this.fillOutputOptions([]);
    if (this.mode === "readonly") this.showError("readonly", `Sliders are off: ${this.tape.reason}.`);
    if (this.mode === "kernel") this.setStatus(`${this.tape.reason}.`);
  }

  buildLegend() {
    const legend = h("div", { className: "mgw-legend", "data-role": "legend" });
    this.fillLegend(legend);
    return legend;
  }

  fillLegend(legend) {
    const palette = (this.get("view") || {}).palette || {};
    const swatch = (name) => {
      const el = h("span", { className: "mgw-swatch" });
      if (palette[name]) el.style.background = palette[name];
      return el;
    };
    const parts = [h("span", { text: "Each box: label, data (its value), grad (d output / d node). " })];
    if (this.get("color") !== false) {
      parts.push(h("span", { text: "Fill: " }), swatch("negative"), h("span", { text: " grad < 0  " }),
        swatch("zero"), h("span", { text: " 0  " }), swatch("positive"),
        h("span", { text: " grad > 0, stronger for larger |grad|. " }));
    }
    parts.push(h("span", { text: "Click a box (or Tab to it and press Enter) to inspect it; rounded boxes are leaves." }));
    legend.replaceChildren(...parts);
  }

  fillOutputOptions(shown) {
    const select = this.outputSelect;
    select.replaceChildren();
    const ids = new Set([this.tape.root, this.output]);
    const sorted = [...shown].sort((a, b) => b - a);
    for (const i of sorted) {
      if (ids.size >= MAX_OUTPUT_OPTIONS) break;
      ids.add(i);
    }
    for (const i of [...ids].sort((a, b) => b - a)) {
      const option = h("option", { value: i, text: this.describe(i) + (i === this.tape.root ? " (root)" : "") });
      select.append(option);
    }
    select.value = String(this.output);
  }

  describe(i) {
    const label = this.spec.label[i];
    const what = this.spec.symbol[i] || (this.spec.inputs[i].length ? "node" : "leaf");
    return label ? `${label} (#${i})` : `#${i} ${what}`;
  }

  /** A node's short name: its label, else #id. */
  nodeName(i) {
    return this.spec.label[i] || `#${i}`;
  }

  /** How node i is computed from its inputs, e.g. "e + c", "tanh(n)", "x**2". */
  formula(i) {
    const names = this.spec.inputs[i].map((j) => this.nodeName(j));
    const symbol = this.spec.symbol[i] || (this.spec.op[i] >= 0 ? this.spec.ops[this.spec.op[i]].symbol : "?");
    if (names.length === 2) return `${names[0]} ${symbol} ${names[1]}`;
    if (symbol.startsWith("**")) return `${names[0]}${symbol}`;
    return `${symbol}(${names.join(", ")})`;
  }

  precision() {
    return this.get("precision");
  }

  send(msg) {
    this.model.send(msg);
  }

  // ------------------------------------------------------------------ leaf sliders

  buildLeaves() {
    const box = this.leavesBox;
    const nLeaves = this.tape.leaves.length;
    box.replaceChildren(h("div", { className: "mgw-panel-title", text: `Leaves (${nLeaves})` }));
    if (nLeaves > MAX_LEAF_ROWS) {
      this.filter = h("input", {
        type: "search", className: "mgw-filter", "data-role": "leaf-filter", placeholder: "filter leaves by label, scope or #id",
        "aria-label": "filter leaves", "data-lm-suppress-shortcuts": "true",
      });
      this.filter.addEventListener("input", () => this.renderLeafRows());
      this.filterNote = h("div", { className: "mgw-note", "data-role": "leaf-note" });
      box.append(this.filter, this.filterNote);
    }
    this.rowsBox = h("div", { className: "mgw-rows" });
    box.append(this.rowsBox);
    this.renderLeafRows();
  }

  leafOrder() {
    const shown = this.bound ? this.bound.shownSet : null;
    const order = Array.from(this.tape.leaves.keys());
    if (shown) {
      const leaves = this.tape.leaves;
      order.sort((a, b) => (shown.has(leaves[b]) - shown.has(leaves[a])) || a - b);
    }
    return order;
  }

  renderLeafRows() {
    const leaves = this.tape.leaves;
    let order = this.leafOrder();
    const total = order.length;
    if (this.filter) {
      const q = this.filter.value.trim().toLowerCase();
      if (q) {
        const exact = (j) => this.keys[leaves[j]].toLowerCase() === q || `#${leaves[j]}` === q;
        order = order.filter((j) => {
          const i = leaves[j];
          return exact(j) || this.keys[i].toLowerCase().includes(q) || (this.spec.label[i] || "").toLowerCase().includes(q)
            || (this.spec.scope[i] || "").toLowerCase().includes(q);
        });
        order.sort((a, b) => exact(b) - exact(a));
      }
      const matching = order.length;
      order = order.slice(0, MAX_LEAF_ROWS);
      this.filterNote.textContent = matching > order.length
        ? `Showing ${order.length} of ${matching} matching leaves (of ${total}); type to narrow the list.`
        : `${matching} of ${total} leaves match.`;
    }
    this.rows.clear();
    this.rowsBox.replaceChildren(...order.map((j) => this.leafRow(j)));
  }

  leafRow(j) {
    const i = this.tape.leaves[j];
    const key = this.keys[i];
    const label = this.spec.label[i];
    const scope = this.spec.scope[i];
    // A label shared by many leaves (every neuron's "w0") is told apart by the module that made it.
    const name = !label ? `#${i}` : key === label || !scope ? label : `${scope}.${label}`;
    const disabled = this.mode === "readonly";
    const common = { "data-lm-suppress-shortcuts": "true", disabled };
    const range = h("input", { type: "range", "data-leaf": key, "aria-label": `value of ${name}`, ...common });
    const exact = h("input", { type: "number", step: "any", className: "mgw-exact", "data-leaf": key, "aria-label": `exact value of ${name}`, ...common });
    const min = h("input", { type: "number", step: "any", className: "mgw-bound", "data-role": "min", "aria-label": `slider minimum for ${name}`, ...common });
    const max = h("input", { type: "number", step: "any", className: "mgw-bound", "data-role": "max", "aria-label": `slider maximum for ${name}`, ...common });
    const title = h("span", { className: "mgw-leaf-name", text: name });
    title.title = `${scope ? `${scope}.` : ""}${label || ""} (#${i})`;
    const row = h("div", { className: "mgw-leaf", "data-leaf-row": key }, title, min, range, max, exact);
    const entry = { j, range, exact, min, max };
    this.rows.set(j, entry);
    this.syncRow(entry);

    range.addEventListener("input", () => this.setLeaf(j, Number(range.value), "slider"));
    range.addEventListener("change", () => this.settleNow());
    exact.addEventListener("change", () => {
      const v = exact.value.trim() === "" ? NaN : Number(exact.value);
      if (!Number.isFinite(v)) {
        this.showError("input", `${name}: type a finite number (got "${exact.value}").`);
        exact.value = String(this.leafVals[j]);
        return;
      }
      this.widenRange(j, v);
      this.setLeaf(j, v, "exact");
      this.settleNow();
    });
    const bound = (which) => {
      const v = Number(which === "min" ? min.value : max.value);
      const lo = which === "min" ? v : this.lo[j];
      const hi = which === "max" ? v : this.hi[j];
      if ((which === "min" ? min : max).value.trim() === "" || !Number.isFinite(v) || !(lo < hi)) {
        this.showError("input", `${name}: the slider needs a minimum below its maximum (got ${lo} and ${hi}).`);
      } else {
        this.lo[j] = lo;
        this.hi[j] = hi;
        this.clearError("input");
      }
      this.syncRow(entry);
    };
    min.addEventListener("change", () => bound("min"));
    max.addEventListener("change", () => bound("max"));
    return row;
  }

  widenRange(j, v) {
    if (!Number.isFinite(v)) return;
    if (v < this.lo[j]) this.lo[j] = Math.floor(v);
    if (v > this.hi[j]) this.hi[j] = Math.ceil(v);
  }

  syncRow(entry, except = null) {
    const { j, range, exact, min, max } = entry;
    const v = this.leafVals[j];
    range.min = String(this.lo[j]);
    range.max = String(this.hi[j]);
    range.step = String(sliderStep(this.lo[j], this.hi[j]));
    if (except !== "slider") range.value = String(v);
    if (except !== "exact") exact.value = String(v);
    min.value = String(this.lo[j]);
    max.value = String(this.hi[j]);
  }

  setLeaf(j, v, source) {
    if (this.mode === "readonly" || !Number.isFinite(v)) return;
    this.exitStepper();
    this.leafVals[j] = v;
    const entry = this.rows.get(j);
    if (entry) this.syncRow(entry, source);
    this.clearError("input");
    this.update();
    this.scheduleSettle();
  }

  reset() {
    if (this.mode === "readonly") return;
    this.exitStepper();
    this.leafVals.set(this.initial);
    for (const entry of this.rows.values()) this.syncRow(entry);
    this.clearError("input");
    this.update();
    this.settleNow();
  }

  chooseOutput(i) {
    if (!Number.isInteger(i) || i < 0 || i >= this.tape.n || i === this.output) return;
    this.output = i;
    this.outputSelect.value = String(i);
    if (this.mode === "readonly") return;
    this.update();
    this.restartStepper();
    this.model.set("output", i);
    this.model.save_changes();
  }

  // ------------------------------------------------------------------ settling: values go to the kernel

  scheduleSettle() {
    this.dirtySettle = true;
    if (this.settleTimer !== null) clearTimeout(this.settleTimer);
    this.settleTimer = setTimeout(() => this.settleNow(), SETTLE_MS);
  }

  settleNow() {
    if (this.settleTimer !== null) clearTimeout(this.settleTimer);
    this.settleTimer = null;
    if (!this.dirtySettle || this.destroyed) return;
    this.dirtySettle = false;
    const current = decodeList(this.get("leaf_values"), this.leafVals.length);
    if (current && sameValues(current, this.leafVals)) return;
    this.model.set("leaf_values", Array.from(this.leafVals, encodeNumber));
    this.model.save_changes();
  }

  // ------------------------------------------------------------------ changes from the kernel

  onLeafValues() {
    const vals = decodeList(this.get("leaf_values"), this.tape.leaves.length);
    if (!vals || sameValues(vals, this.leafVals)) return;
    this.exitStepper();
    this.leafVals.set(vals);
    for (let j = 0; j < vals.length; j++) this.widenRange(j, vals[j]);
    for (const entry of this.rows.values()) this.syncRow(entry);
    this.update();
  }

  onOutput() {
    const i = this.get("output");
    if (i === this.output) return;
    this.output = i;
    this.outputSelect.value = String(i);
    if (!this.outputSelect.value) this.fillOutputOptions(this.bound ? this.bound.shown : []);
    this.update();
    this.restartStepper();
  }

  onKernelNumbers() {
    if (this.mode === "browser") return;
    const data = decodeList(this.get("data"), this.tape.n);
    const grad = decodeList(this.get("grad"), this.tape.n);
    if (!data || !grad) return;
    this.data = data;
    this.grad = grad;
    this.paint();
  }

  onKernelError() {
    const text = this.get("error");
    if (text) this.showError("kernel", `The kernel refused the change: ${text}`);
    else this.clearError("kernel");
  }

  onCustom(msg) {
    if (this.gradcheck && this.gradcheck.onMessage(msg)) return;
    if (!msg || msg.type !== "replay" || msg.seq !== this.kernel.seq) return;
    this.kernel.inflight = false;
    clearTimeout(this.kernel.timer);
    if (msg.error) {
      this.showError("replay", msg.error);
    } else {
      const data = decodeList(msg.data, this.tape.n);
      const grad = decodeList(msg.grad, this.tape.n);
      if (data && grad) {
        this.data = data;
        this.grad = grad;
        this.clearError("replay");
        this.setStatus(`${this.tape.reason}.`);
        this.paint();
      }
    }
    if (this.kernel.pending) this.askKernel();
  }

  askKernel() {
    const k = this.kernel;
    if (k.inflight) {
      k.pending = true;
      return;
    }
    k.inflight = true;
    k.pending = false;
    k.seq += 1;
    this.setStatus("Asking the kernel\u2026");
    this.model.send({ type: "replay", seq: k.seq, leaf_values: Array.from(this.leafVals, encodeNumber), output: this.output });
    clearTimeout(k.timer);
    k.timer = setTimeout(() => {
      if (!k.inflight || this.destroyed) return;
      k.inflight = false;
      this.showError("replay", `No kernel answered: ${this.tape.reason}, so the numbers update only with a running kernel.`);
    }, KERNEL_TIMEOUT_MS);
  }

  // ------------------------------------------------------------------ one frame

  update() {
    if (this.mode === "browser") this.recompute();
    else if (this.mode === "kernel") this.askKernel();
    if (this.gradcheck) this.gradcheck.rerunSoon(SETTLE_MS);
  }

  recompute() {
    const tape = this.tape;
    const failure = forward(tape, this.leafVals, this.scratch);
    if (failure >= 0) {
      this.showError("replay", this.describeFailure(failure, this.scratch));
      return;
    }
    [this.data, this.scratch] = [this.scratch, this.data];
    backward(tape, this.data, this.output, this.grad);
    this.clearError("replay");
    this.paint();
  }

  describeFailure(i, data) {
    const inputs = this.spec.inputs[i].map((j) => `${this.spec.label[j] || "#" + j} = ${pyRepr(data[j])}`).join(", ");
    const op = this.spec.symbol[i] || this.spec.ops[this.spec.op[i]].name;
    return `${this.describe(i)}: '${op}' cannot be computed for ${inputs} (outside its domain or past the float range; Python's op raises here too); the graph keeps its last valid values until you move back.`;
  }

  paint() {
    const b = this.bound;
    if (b) {
      const precision = this.get("precision");
      const colored = this.get("color") !== false && !!b.palette;
      const { data } = this;
      // Stepping: the partial grads after step k, and which nodes the backward pass has not written yet.
      const st = this.stepper;
      const grad = st ? st.grad : this.grad;
      const reachedAt = st ? st.steps.reachedAt : null;
      const step = st ? st.k : 0;
      // The scale leaves out the differentiated output (d out / d out = 1) and the grads not reached yet.
      let scale = 0;
      if (colored) {
        const out = this.output;
        const counted = (i) => !reachedAt || reachedAt[i] <= step;
        const others = [];
        for (const i of b.shown) if (i !== out && counted(i)) others.push(grad[i]);
        scale = gradScale(others, b.shownSet.has(out) && counted(out) ? grad[out] : null);
      }
      for (let k = 0; k < b.shown.length; k++) {
        const i = b.shown[k];
        const d = formatNumber(data[i], precision);
        if (d !== b.dataText[k]) b.dataNodes[k].nodeValue = b.dataText[k] = d;
        const reached = reachedAt === null ? "" : reachedAt[i] <= step ? "true" : "false";
        if (reached !== b.reached[k]) {
          b.reached[k] = reached;
          const span = b.gradNodes[k].parentNode;
          if (reached) span.setAttribute("data-reached", reached);
          else span.removeAttribute("data-reached");
          b.groups[k].classList.toggle("mgw-unreached", reached === "false");
        }
        const g = reached === "false" ? NOT_REACHED : formatNumber(grad[i], precision);
        if (g !== b.gradText[k]) b.gradNodes[k].nodeValue = b.gradText[k] = g;
        if (colored && b.shapes[k]) {
          const fill = reached === "false" ? b.palette.zero : gradColor(grad[i], scale, b.palette);
          if (fill !== b.fills[k]) b.shapes[k].setAttribute("fill", (b.fills[k] = fill));
        }
      }
      if (colored && b.legendNodes.length === 5) {
        const marks = [-scale, -scale / 4, 0, scale / 4, scale];
        for (let k = 0; k < 5; k++) {
          const text = formatNumber(marks[k], precision);
          if (text !== b.legendText[k]) b.legendNodes[k].nodeValue = b.legendText[k] = text;
        }
      }
    }
    if (this.inspected !== null) this.fillInspector();
  }

  repaint() {
    if (this.bound) {
      this.bound.dataText.fill("");
      this.bound.gradText.fill("");
      this.bound.legendText.fill("");
      this.bound.fills.fill("");
    }
    this.paint();
    if (this.stepper) this.stepper.sync();
    if (this.gradcheck && this.gradcheck.rows) this.gradcheck.renderPage();
  }

  // ------------------------------------------------------------------ the graph: layout once, then bind

  async layout() {
    const generation = ++this.layoutGeneration;
    const dot = this.get("dot");
    const view = this.get("view") || {};
    try {
      const svgText = await layoutSVG(dot);
      if (this.destroyed || generation !== this.layoutGeneration) return;
      const doc = new DOMParser().parseFromString(svgText, "image/svg+xml");
      const svg = doc.documentElement;
      if (svg.nodeName !== "svg") throw new Error("Graphviz returned something other than an SVG picture");
      const node = document.importNode(svg, true);
      this.bind(node, view);
      this.graphBox.replaceChildren(node);
      this.autoFit();
      this.applyFit();
      this.highlight();
      this.fillOutputOptions(this.bound.shown);
      if (this.filter) this.renderLeafRows();
      this.setStatus(view.message ? capitalize(view.message) + "." : this.mode === "kernel" ? `${this.tape.reason}.` : "");
      this.paint();
      this.root.setAttribute("data-state", "ready");
    } catch (err) {
      if (!this.destroyed && generation === this.layoutGeneration) this.fail(err);
    }
  }

  bind(svg, view) {
    const groups = new Map();
    for (const g of svg.querySelectorAll("g.node")) groups.set(g.id, g);
    const shown = Int32Array.from(view.shown || []);
    const m = shown.length;
    const b = {
      svg, shown, shownSet: new Set(shown), palette: view.palette || null,
      dataNodes: new Array(m), gradNodes: new Array(m), shapes: new Array(m), groups: new Array(m),
      dataText: new Array(m).fill(""), gradText: new Array(m).fill(""), fills: new Array(m).fill(""), reached: new Array(m).fill(""),
      legendNodes: [], legendText: new Array(5).fill(""), nodeOf: new Map(), folds: new Map(),
      groupOf: new Map(), opGroupOf: new Map(), foldGroups: [], foldOf: view.fold_of || [], edges: new Map(),
    };
    const focusable = (g, label) => {
      g.setAttribute("tabindex", "0");
      g.setAttribute("role", "button");
      g.setAttribute("aria-label", label);
    };
    for (let k = 0; k < m; k++) {
      const i = shown[k];
      const g = groups.get(`n${i}`);
      if (!g) throw new Error(`the picture has no box for node ${i} (n${i})`);
      const texts = g.querySelectorAll("text");
      if (texts.length !== 3) throw new Error(`node n${i} should have 3 texts (label, data, grad), it has ${texts.length}`);
      const key = this.keys[i];
      g.setAttribute("data-node", key);
      b.dataNodes[k] = splitNumber(texts[1], key, "data");
      b.gradNodes[k] = splitNumber(texts[2], key, "grad");
      b.shapes[k] = g.querySelector("polygon, path");
      b.groups[k] = g;
      b.groupOf.set(i, g);
      b.nodeOf.set(g, i);
      focusable(g, `${this.describe(i)}: press Enter to inspect`);
      const op = groups.get(`n${i}_op`);
      if (op) {
        b.nodeOf.set(op, i);
        b.opGroupOf.set(i, op);
      }
    }
    for (const fold of view.folds || []) {
      const g = groups.get(fold.id);
      b.foldGroups.push(g || null);
      if (g) {
        b.folds.set(g, fold);
        focusable(g, `${fold.title}, ${fold.count} nodes folded: press Enter to inspect`);
      }
    }
    for (const g of svg.querySelectorAll("g.edge")) b.edges.set(g.id, g);
    const legend = groups.get("mgw-legend");
    if (legend) {
      const texts = legend.querySelectorAll("text");
      for (let k = 1; k < texts.length && k <= 5; k++) {
        if (!texts[k].firstChild) texts[k].append(document.createTextNode(""));
        b.legendNodes.push(texts[k].firstChild);
      }
    }
    this.bound = b;
  }

  toggleFit() {
    this.fitChosen = true;
    this.fit = !this.fit;
    this.applyFit();
  }

  /** Fit a picture wider than its box to the width (until the user chooses with the Fit button). */
  autoFit() {
    if (this.fitChosen || !this.bound || this.destroyed) return;
    const svg = this.bound.svg;
    const fit = shouldFit(svgWidthPx(svg.getAttribute("width"), svg.getAttribute("viewBox")), this.graphBox.clientWidth);
    if (fit !== this.fit) {
      this.fit = fit;
      this.applyFit();
    }
  }

  applyFit() {
    this.fitButton.setAttribute("aria-pressed", String(!!this.fit));
    this.root.classList.toggle("mgw-fit", !!this.fit);
  }

  // ------------------------------------------------------------------ inspector

  onGraphClick(event) {
    if (!this.bound) return;
    let el = event.target;
    while (el && el !== this.graphBox) {
      if (this.bound.nodeOf.has(el)) {
        this.inspect(this.bound.nodeOf.get(el));
        return;
      }
      if (this.bound.folds.has(el)) {
        this.inspectFold(this.bound.folds.get(el));
        return;
      }
      el = el.parentNode;
    }
  }

  onGraphKey(event) {
    if ((event.key !== "Enter" && event.key !== " ") || !this.bound) return;
    const el = event.target;
    if (this.bound.nodeOf.has(el)) this.inspect(this.bound.nodeOf.get(el));
    else if (this.bound.folds.has(el)) this.inspectFold(this.bound.folds.get(el));
    else return;
    event.preventDefault();
  }

  inspect(i) {
    this.dropGradcheck();
    this.inspected = i;
    const spec = this.spec;
    const close = h("button", { type: "button", className: "mgw-close", "aria-label": "close the inspector", text: "\u00d7" });
    close.addEventListener("click", () => this.closeInspector());
    const op = spec.op[i] >= 0 ? spec.ops[spec.op[i]] : null;
    const opText = spec.inputs[i].length === 0 ? "leaf (no op)" : op ? `${spec.symbol[i]} (${op.name}${op.builtin ? "" : ", user-defined"})` : `${spec.symbol[i] || "?"} (built by hand)`;
    const inputs = h("span", { className: "mgw-inputs" });
    if (spec.inputs[i].length === 0) inputs.append("none");
    spec.inputs[i].forEach((j, n) => {
      const link = h("button", { type: "button", className: "mgw-link", "data-input": j, text: this.describe(j) });
      link.addEventListener("click", () => this.inspect(j));
      if (n) inputs.append(", ");
      inputs.append(link);
    });
    this.inspectorData = h("span", { "data-field": "data" });
    this.inspectorGrad = h("span", { "data-field": "grad" });
    this.inspectorOf = h("span", { className: "mgw-note", "data-role": "grad-of" });
    const rows = [
      ["op", h("span", { "data-field": "op", text: opText })],
      ["inputs", inputs],
      ["data", this.inspectorData],
      ["grad", this.inspectorGrad],
      ["", this.inspectorOf],
    ];
    if (spec.scope[i]) rows.push(["scope", h("span", { "data-field": "scope", text: spec.scope[i] })]);
    const list = h("dl", {});
    for (const [name, value] of rows) list.append(h("dt", { text: name }), h("dd", {}, value));
    const actions = h("div", { className: "mgw-actions" });
    if (i !== this.output) {
      const diff = h("button", { type: "button", className: "mgw-button", "data-role": "make-output", text: "Differentiate this node" });
      diff.addEventListener("click", () => {
        this.chooseOutput(i);
        this.inspect(i);
      });
      actions.append(diff);
    }
    this.inspector.replaceChildren(
      h("div", { className: "mgw-inspector-head" }, h("strong", { "data-field": "name", text: this.describe(i) }), close),
      list, actions);
    this.inspector.setAttribute("data-node", this.keys[i]);
    this.inspector.hidden = false;
    this.fillInspector();
  }

  fillInspector() {
    const i = this.inspected;
    if (i === null || !this.inspectorData) return;
    this.inspectorData.textContent = pyRepr(this.data[i]);
    const st = this.stepper;
    if (st && st.steps.reachedAt[i] > st.k) this.inspectorGrad.textContent = "not reached yet";
    else this.inspectorGrad.textContent = pyRepr((st ? st.grad : this.grad)[i]);
    this.inspectorOf.textContent = `d ${this.describe(this.output)} / d ${this.describe(i)}`
      + (st ? ` after step ${st.k} of ${st.count} of the backward pass` : "");
  }

  inspectFold(fold) {
    this.dropGradcheck();
    this.inspected = null;
    this.inspectorData = null;
    const close = h("button", { type: "button", className: "mgw-close", "aria-label": "close the inspector", text: "\u00d7" });
    close.addEventListener("click", () => this.closeInspector());
    const what = fold.note || (fold.kind === "scope" ? `the nodes made inside module ${fold.title}` : "the nodes farthest from the output");
    this.inspector.replaceChildren(
      h("div", { className: "mgw-inspector-head" }, h("strong", { "data-field": "name", text: fold.title }), close),
      h("p", { text: `${fold.count.toLocaleString("en-US")} nodes folded: ${what}. Raise node_budget to draw more of them.` }));
    this.inspector.removeAttribute("data-node");
    this.inspector.hidden = false;
  }

  closeInspector() {
    this.dropGradcheck();
    this.inspected = null;
    this.inspectorData = null;
    this.inspector.hidden = true;
    this.inspector.replaceChildren();
  }

  // ------------------------------------------------------------------ numerical gradient check (in the inspector)

  openGradcheck() {
    if (this.mode === "readonly") return;
    this.closeInspector();
    const check = new GradCheck(this);
    check.close.addEventListener("click", () => this.closeInspector());
    this.gradcheck = check;
    this.inspector.replaceChildren(check.el);
    this.inspector.removeAttribute("data-node");
    this.inspector.hidden = false;
    check.run();
  }

  dropGradcheck() {
    if (!this.gradcheck) return;
    this.gradcheck.destroy();
    this.gradcheck = null;
  }

  // ------------------------------------------------------------------ backprop stepper

  toggleStepper() {
    if (this.stepper) this.exitStepper(true);
    else this.enterStepper();
  }

  enterStepper(focus = true) {
    if (this.mode !== "browser" || this.stepper) return;
    const stepper = new Stepper(this.tape, this.data, this.output, {
      onChange: () => this.showStep(),
      onExit: () => this.exitStepper(true),
      describe: (st) => this.describeStep(st),
    });
    this.stepper = stepper;
    this.stepperSlot.replaceChildren(stepper.el);
    this.stepButton.setAttribute("aria-pressed", "true");
    this.showStep();
    if (focus) stepper.el.focus({ preventScroll: true });
  }

  /** Leave the stepper: every grad complete again. */
  exitStepper(refocus = false) {
    if (!this.stepper) return;
    const hadFocus = this.stepper.el.contains(document.activeElement);
    this.stepper.destroy();
    this.stepper = null;
    this.stepButton.setAttribute("aria-pressed", "false");
    this.highlight();
    this.paint();
    if (refocus || hadFocus) this.stepButton.focus({ preventScroll: true });
  }

  /** Start the stepper again from step 0 (the output or the data changed under it). */
  restartStepper() {
    if (!this.stepper) return;
    const focus = this.stepper.el.contains(document.activeElement);
    this.stepper.destroy();
    this.stepper = null;
    this.enterStepper(focus);
  }

  showStep() {
    this.highlight();
    this.paint();
  }

  /** Outline the node whose local derivative fired at the current step (its fold box when folded), its op
   * and the inputs that received a contribution, with the edges between them. */
  highlight() {
    for (const [el, cls] of this.lit) el.classList.remove(cls);
    this.lit = [];
    const st = this.stepper;
    const b = this.bound;
    if (!st || !b || st.k === 0) return;
    const steps = st.steps;
    const s = st.k - 1;
    const i = steps.node[s];
    const mark = (el, cls) => {
      if (!el) return;
      el.classList.add(cls);
      this.lit.push([el, cls]);
    };
    const boxName = (j) => {
      if (b.groupOf.has(j)) return `n${j}`;
      const f = b.foldOf[j];
      return f >= 0 && b.foldGroups[f] ? b.foldGroups[f].id : "";
    };
    const boxOf = (j) => b.groupOf.get(j) || (b.foldOf[j] >= 0 ? b.foldGroups[b.foldOf[j]] : null);
    mark(boxOf(i), "mgw-step-current");
    const op = b.opGroupOf.get(i);
    mark(op, "mgw-step-op");
    const head = op ? `n${i}_op` : boxName(i);
    if (op) mark(b.edges.get(`e_${head}_n${i}`), "mgw-step-edge");
    for (const j of [steps.inputA[s], steps.inputB[s]]) {
      if (j < 0) continue;
      mark(boxOf(j), "mgw-step-target");
      const tail = boxName(j);
      if (tail && tail !== head) mark(b.edges.get(`e_${tail}_${head}`), "mgw-step-edge");
    }
  }

  /** The stepper's detail lines: what fired and each chain-rule product added to an input's grad. */
  describeStep(st) {
    const steps = st.steps;
    const precision = this.get("precision");
    const fmt = (x) => formatNumber(x, precision);
    const out = this.nodeName(steps.output);
    if (st.count === 0) return [`${out} is a leaf: its grad is 1 and there is nothing to propagate.`];
    if (st.k === 0) {
      return [`Start: ${out}.grad = 1 (d${out}/d${out}); every other grad is empty (\u00b7).`,
        `Step forward: ${this.nodeName(steps.node[0])} fires first, then each node in reverse topological order, `
        + "once every node that uses it has added its part."];
    }
    const s = st.k - 1;
    const i = steps.node[s];
    const name = this.nodeName(i);
    const g = steps.upstream[s];
    const lines = [`Step ${st.k} of ${st.count}: ${name} = ${this.formula(i)}. `
      + `Each input's grad += ${name}.grad \u00d7 \u2202${name}/\u2202input:`];
    for (const [j, local] of [[steps.inputA[s], steps.localA[s]], [steps.inputB[s], steps.localB[s]]]) {
      if (j < 0) continue;
      const input = this.nodeName(j);
      lines.push(`${name}: ${fmt(g)} \u00d7 ${fmt(local)} = ${fmt(local * g)} \u2192 ${input} (${input}.grad now ${fmt(st.grad[j])})`);
    }
    if (st.k === st.count) lines.push(`Done: every grad d${out}/d(node) is complete, as backward() leaves it.`);
    return lines;
  }

  // ------------------------------------------------------------------ messages

  setStatus(text) {
    this.status.textContent = text;
  }

  showError(source, text) {
    this.error = { source, text };
    this.errorBox.textContent = text;
    this.errorBox.hidden = false;
  }

  clearError(source) {
    if (this.error.source !== source) return;
    this.error = { source: "", text: "" };
    this.errorBox.textContent = "";
    this.errorBox.hidden = true;
  }

  fail(err) {
    const text = err && err.message ? err.message : String(err);
    this.root.setAttribute("data-state", "error");
    let box = this.root.querySelector('[data-role="error"]');
    if (!box) {
      box = h("div", { className: "mgw-error", "data-role": "error", role: "alert" });
      this.root.append(box);
    }
    box.textContent = `The widget could not start: ${text}`;
    box.hidden = false;
  }

  destroy() {
    this.settleNow();
    this.destroyed = true;
    if (this.stepper) this.stepper.destroy();
    this.stepper = null;
    this.dropGradcheck();
    if (this.resizeObserver) this.resizeObserver.disconnect();
    clearTimeout(this.settleTimer);
    clearTimeout(this.kernel.timer);
    for (const [event, fn] of this.listeners) this.model.off(event, fn);
    this.listeners = [];
    this.bound = null;
    this.root.remove();
  }
}

function capitalize(text) {
  return text ? text[0].toUpperCase() + text.slice(1) : text;
}

// "data 6.0000" -> "data " + <tspan data-node data-field>6.0000</tspan>; returns the number's Text node.
function splitNumber(text, key, field) {
  const content = text.textContent;
  const cut = content.indexOf(" ");
  const caption = cut >= 0 ? content.slice(0, cut + 1) : "";
  const number = cut >= 0 ? content.slice(cut + 1) : content;
  const span = document.createElementNS(NS, "tspan");
  span.setAttribute("data-node", key);
  span.setAttribute("data-field", field);
  const node = document.createTextNode(number);
  span.append(node);
  text.replaceChildren(caption, span);
  return node;
}

export default {
  render({ model, el }) {
    const view = new GraphView(model, el);
    return () => view.destroy();
  },
};
