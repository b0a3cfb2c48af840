// @ts-check
// The training view (micrograd_widget/training/widget.py): the loss curve and the model's gradients while the
// user's loop runs in the kernel. The curve is one SVG whose elements are made once and changed in place;
// the model is laid out once by Graphviz-WASM from the kernel's DOT, then each push from the kernel only
// changes cached text nodes, fills and data-grad attributes. No user string reaches innerHTML.
// Hooks: .mgw-training[data-state], [data-role="loss-curve"][data-points], [data-role="step"],
// [data-role="loss"][data-value], [data-role="status"], [data-neuron="<unit id>"][data-grad],
// [data-role="inspector"] [data-param][data-field][data-value]. Numbers show at `precision`, exact in data-value.
// The curve's pure helpers (ticks, domain, path) are in curve.js.

import { h } from "../ui/dom.js";
import { decodeList } from "../core/codec.js";
import { ErrorBox } from "../ui/errors.js";
import { ModelListeners } from "../ui/listen.js";
import { boxesById, layoutPicture, makeFocusable, svgElement as s, textNode } from "../ui/svg.js";
import { swatch } from "../ui/swatch.js";
import { decodeNumber } from "../core/spec.js";
import { colorScale, formatNumber, gradColor, gradScale, plural, pyRepr } from "../picture/format.js";

import { TICKS, curvePath, drawable, logTicks, lossDomain, niceTicks, shortNumber } from "./curve.js";

const WIDTH = 640;
const HEIGHT = 220;
const PLOT = { left: 64, right: WIDTH - 14, top: 10, bottom: HEIGHT - 30 };
const MAX_INSPECTOR_ROWS = 200;

// ------------------------------------------------------------------ pure helpers (node-tested)

/** Per box, sqrt(sum(grad^2)) over its parameters in order: micrograd_widget.training.widget.neuron_norms. */
export function neuronNorms(grads, units) {
  const out = new Float64Array(units.length);
  for (let k = 0; k < units.length; k++) {
    let total = 0;
    for (const i of units[k].params) total += grads[i] * grads[i];
    out[k] = Math.sqrt(total);
  }
  return out;
}

/** The header's status: waiting, training, or finished after how many steps (the kernel marks the end: finish(),
 * a `with` block, or the end of the cell that ran the loop). */
export function statusText(finished, count) {
  if (!count) return "waiting for w.log(loss)";
  return finished ? `finished after ${plural(count, "step")}` : "training\u2026";
}

/** `x` shown at `precision` decimals (the widget's option), its exact repr in data-value and the tooltip; "–" for none. */
function showNumber(el, x, precision) {
  if (x === null) {
    el.textContent = "\u2013";
    el.removeAttribute("data-value");
    el.removeAttribute("title");
    return;
  }
  const exact = pyRepr(x);
  el.textContent = formatNumber(x, precision);
  el.setAttribute("data-value", exact);
  el.title = exact;
}

// ------------------------------------------------------------------ the view

class TrainingView {
  constructor(model, host) {
    this.model = model;
    this.events = new ModelListeners(model);
    this.destroyed = false;
    this.queued = false;
    this.bound = null;
    this.inspected = null;
    this.root = h("div", { className: "mgw-training", "data-state": "loading" });
    this.errors = new ErrorBox(this.root, "mgw-t-error", "training view");
    host.append(this.root);
    try {
      this.structure = model.get("structure") || {};
      this.units = Array.isArray(this.structure.units) ? this.structure.units : [];
      this.palette = this.structure.palette || null;
      this.build();
      this.listen();
      this.render();
      this.layout();
    } catch (err) {
      this.errors.fail(err);
    }
  }

  listen() {
    for (const name of ["curve", "grad", "data", "precision", "finished"]) this.events.on(`change:${name}`, () => this.schedule());
    this.events.on("change:log_scale", () => {
      this.logBox.checked = !!this.model.get("log_scale");
      this.schedule();
    });
  }

  /** Coalesce the change events of one kernel message (curve, grad, data arrive together) into one render. */
  schedule() {
    if (this.queued || this.destroyed) return;
    this.queued = true;
    queueMicrotask(() => {
      this.queued = false;
      if (!this.destroyed) this.render();
    });
  }

  // ------------------------------------------------------------------ static parts

  build() {
    this.stepText = h("span", { className: "mgw-t-value", "data-role": "step", text: "\u2013" });
    this.lossText = h("span", { className: "mgw-t-value", "data-role": "loss", text: "\u2013" });
    this.status = h("span", { className: "mgw-t-status", "data-role": "status" });
    this.logBox = h("input", { type: "checkbox", "data-role": "log-scale", "data-lm-suppress-shortcuts": "true" });
    this.logBox.checked = !!this.model.get("log_scale");
    this.logBox.addEventListener("change", () => {
      this.model.set("log_scale", this.logBox.checked);
      this.model.save_changes();
      this.render();
    });
    const header = h("div", { className: "mgw-t-header" },
      h("span", {}, h("span", { className: "mgw-t-caption", text: "step " }), this.stepText),
      h("span", {}, h("span", { className: "mgw-t-caption", text: "loss " }), this.lossText),
      this.status,
      h("label", { className: "mgw-t-toggle" }, this.logBox, h("span", { text: "log scale" })));
    this.note = h("div", { className: "mgw-t-note", "data-role": "nonfinite", hidden: true });
    this.buildCurve();
    this.graphBox = h("div", { className: "mgw-t-graph", "data-role": "model-graph" },
      h("div", { className: "mgw-t-placeholder", text: "Laying out the model\u2026" }));
    this.graphBox.addEventListener("click", (event) => this.onGraphEvent(event));
    this.graphBox.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") this.onGraphEvent(event);
    });
    this.inspector = h("div", { className: "mgw-t-inspector", "data-role": "inspector", hidden: true });
    this.scaleText = h("span", { "data-role": "grad-scale", text: "0" });
    const palette = this.palette || {};
    const legend = h("div", { className: "mgw-t-legend", "data-role": "legend" },
      h("span", { text: "One box per neuron, by layer. Number and fill: the norm of the neuron's parameter grads, \u221a\u03a3 grad\u00b2 (" }),
      swatch("mgw-t-swatch", palette.zero), h("span", { text: " 0 to " }), swatch("mgw-t-swatch", palette.positive), h("span", { text: " " }), this.scaleText,
      h("span", { text: ", the largest). Click a box for each grad." }));
    const message = this.structure.message ? h("div", { className: "mgw-t-note", text: this.structure.message }) : null;
    this.root.append(...[header, this.errors.el, this.curveBox, this.note, message,
      h("div", { className: "mgw-t-panels" }, this.graphBox, this.inspector), legend].filter(Boolean));
  }

  buildCurve() {
    const svg = s("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: "mgw-t-curve", "data-role": "loss-curve",
      "data-points": 0, role: "img", "aria-label": "loss per step" });
    const frame = s("rect", { x: PLOT.left, y: PLOT.top, width: PLOT.right - PLOT.left, height: PLOT.bottom - PLOT.top,
      class: "mgw-t-frame" });
    svg.append(frame);
    const axis = (cls) => {
      const ticks = [];
      for (let k = 0; k < 8; k++) {
        const line = s("line", { class: "mgw-t-grid" });
        const text = s("text", { class: `mgw-t-tick ${cls}` });
        text.append(document.createTextNode(""));
        svg.append(line, text);
        ticks.push({ line, text, label: "" });
      }
      return ticks;
    };
    this.yTicks = axis("mgw-t-ytick");
    this.xTicks = axis("mgw-t-xtick");
    this.badPath = s("path", { class: "mgw-t-bad", "data-role": "nonfinite-marks", d: "" });
    this.linePath = s("path", { class: "mgw-t-line", "data-role": "loss-line", d: "" });
    this.current = s("circle", { class: "mgw-t-current", r: 3, cx: -10, cy: -10 });
    this.empty = s("text", { class: "mgw-t-empty", x: (PLOT.left + PLOT.right) / 2, y: (PLOT.top + PLOT.bottom) / 2 });
    this.empty.append(document.createTextNode("waiting for the first w.log(loss)"));
    const xLabel = s("text", { class: "mgw-t-axis-label", x: PLOT.right, y: HEIGHT - 2 });
    xLabel.append(document.createTextNode("step"));
    svg.append(this.badPath, this.linePath, this.current, this.empty, xLabel);
    this.curveSvg = svg;
    this.curveBox = h("div", { className: "mgw-t-curve-box" }, svg);
  }

  // ------------------------------------------------------------------ every push

  render() {
    this.renderCurve();
    this.renderGrads();
  }

  renderCurve() {
    const curve = this.model.get("curve") || {};
    const steps = Array.isArray(curve.steps) ? curve.steps : [];
    const losses = decodeList(curve.losses, steps.length);
    if (!losses) {
      this.errors.showError("curve", "The kernel sent a loss curve this view cannot read (steps and losses differ in length).");
      return;
    }
    this.errors.clearError("curve");
    const logScale = !!this.model.get("log_scale");
    const count = Number.isInteger(curve.count) ? curve.count : steps.length;
    this.curveSvg.setAttribute("data-points", String(count));
    this.curveSvg.setAttribute("data-drawn", String(steps.length));
    this.stepText.textContent = curve.step === null || curve.step === undefined ? "\u2013" : String(curve.step);
    const last = curve.loss === null || curve.loss === undefined ? null : decodeNumber(curve.loss);
    showNumber(this.lossText, last, this.model.get("precision"));
    this.lossText.classList.toggle("mgw-t-badvalue", last !== null && !Number.isFinite(last));
    const finished = !!this.model.get("finished");
    this.status.textContent = statusText(finished, count);
    this.root.setAttribute("data-finished", String(finished));

    const yDomain = lossDomain(losses, logScale);
    const x0 = steps.length ? steps[0] : 0;
    const x1 = steps.length ? steps[steps.length - 1] : 1;
    const sx = (step) => (x1 === x0 ? (PLOT.left + PLOT.right) / 2 : PLOT.left + ((step - x0) / (x1 - x0)) * (PLOT.right - PLOT.left));
    const [y0, y1] = yDomain || [0, 1];
    const sy = (v) => PLOT.bottom - ((v - y0) / (y1 - y0)) * (PLOT.bottom - PLOT.top);
    const { d, bad } = curvePath(steps, losses, sx, sy, logScale);
    if (this.linePath.getAttribute("d") !== d) this.linePath.setAttribute("d", d);
    const marks = new Set(bad.map((step) => Math.round(sx(step))));
    this.badPath.setAttribute("d", [...marks].map((x) => `M${x} ${PLOT.top}V${PLOT.bottom}`).join(""));
    this.empty.style.display = count ? "none" : "";

    const lastStep = steps.length ? steps[steps.length - 1] : null;
    const lastLoss = losses.length ? losses[losses.length - 1] : NaN;
    if (lastStep !== null && drawable(lastLoss, logScale)) {
      this.current.setAttribute("cx", sx(lastStep).toFixed(1));
      this.current.setAttribute("cy", sy(logScale ? Math.log10(lastLoss) : lastLoss).toFixed(1));
    } else {
      this.current.setAttribute("cx", "-10");
      this.current.setAttribute("cy", "-10");
    }

    let yValues = [];
    if (yDomain) yValues = logScale ? logTicks(y0, y1) : niceTicks(y0, y1, TICKS);
    this.placeTicks(this.yTicks, yValues, (v) => {
      const y = sy(v);
      return { line: [PLOT.left, y, PLOT.right, y], text: [PLOT.left - 6, y + 4], label: shortNumber(logScale ? 10 ** v : v) };
    });
    const xValues = steps.length ? niceTicks(x0, x1, TICKS, 1) : [];
    this.placeTicks(this.xTicks, xValues, (v) => {
      const x = sx(v);
      return { line: [x, PLOT.bottom, x, PLOT.bottom + 4], text: [x, PLOT.bottom + 16], label: String(v) };
    });

    const nonfinite = Number.isInteger(curve.nonfinite) ? curve.nonfinite : 0;
    const hidden = logScale ? bad.length - losses.filter((x) => !Number.isFinite(x)).length : 0;
    const notes = [];
    if (nonfinite) notes.push(`${plural(nonfinite, "step")} had a non-finite loss (nan or inf), marked in red where the line breaks.`);
    if (hidden > 0) notes.push("Losses \u2264 0 cannot be drawn on a log scale: the line breaks there.");
    this.note.textContent = notes.join(" ");
    this.note.hidden = notes.length === 0;
  }

  placeTicks(ticks, values, place) {
    for (let k = 0; k < ticks.length; k++) {
      const t = ticks[k];
      const v = values[k];
      if (v === undefined) {
        t.line.setAttribute("visibility", "hidden");
        t.text.setAttribute("visibility", "hidden");
        continue;
      }
      const { line, text, label } = place(v);
      t.line.setAttribute("x1", line[0].toFixed(1));
      t.line.setAttribute("y1", line[1].toFixed(1));
      t.line.setAttribute("x2", line[2].toFixed(1));
      t.line.setAttribute("y2", line[3].toFixed(1));
      t.text.setAttribute("x", text[0].toFixed(1));
      t.text.setAttribute("y", text[1].toFixed(1));
      if (label !== t.label) t.text.firstChild.nodeValue = t.label = label;
      t.line.removeAttribute("visibility");
      t.text.removeAttribute("visibility");
    }
  }

  renderGrads() {
    const n = this.structure.nparams;
    const grads = decodeList(this.model.get("grad"), n);
    const data = decodeList(this.model.get("data"), n);
    if (!grads || !data) {
      this.errors.showError("grads", `The kernel sent grads for a different number of parameters than the model has (${n}).`);
      return;
    }
    this.errors.clearError("grads");
    this.grads = grads;
    this.data = data;
    const b = this.bound;
    if (b) {
      const norms = neuronNorms(grads, this.units);
      const precision = this.model.get("precision");
      const scale = gradScale(norms);
      const colors = colorScale(scale, precision); // a norm shown as 0 is white
      for (let k = 0; k < this.units.length; k++) {
        const text = formatNumber(norms[k], precision);
        if (text !== b.text[k]) b.numbers[k].nodeValue = b.text[k] = text;
        const exact = pyRepr(norms[k]);
        if (exact !== b.exact[k]) b.groups[k].setAttribute("data-grad", (b.exact[k] = exact));
        if (this.palette && b.shapes[k]) {
          const fill = gradColor(norms[k], colors, this.palette);
          if (fill !== b.fills[k]) b.shapes[k].setAttribute("fill", (b.fills[k] = fill));
        }
      }
      this.scaleText.textContent = formatNumber(scale, precision);
    }
    if (this.inspected !== null) this.fillInspector();
  }

  // ------------------------------------------------------------------ the model: laid out once

  async layout() {
    try {
      const svg = await layoutPicture(this.model.get("dot"));
      if (this.destroyed) return;
      this.bind(svg);
      this.graphBox.replaceChildren(svg);
      this.renderGrads();
      this.root.setAttribute("data-state", "ready");
    } catch (err) {
      if (!this.destroyed) this.errors.fail(err);
    }
  }

  bind(svg) {
    const byId = boxesById(svg);
    const m = this.units.length;
    const b = { groups: new Array(m), numbers: new Array(m), shapes: new Array(m), text: new Array(m).fill(""),
      exact: new Array(m).fill(""), fills: new Array(m).fill(""), unitOf: new Map() };
    for (let k = 0; k < m; k++) {
      const g = byId.get(`u${k}`);
      if (!g) throw new Error(`the model picture has no box for ${this.units[k].id} (u${k})`);
      const texts = g.querySelectorAll("text");
      if (texts.length !== 2) throw new Error(`box u${k} should have 2 texts (name, number), it has ${texts.length}`);
      g.setAttribute("data-neuron", this.units[k].id);
      makeFocusable(g, `${this.units[k].id}: show each parameter's grad`);
      b.groups[k] = g;
      b.numbers[k] = textNode(texts[1]);
      b.shapes[k] = g.querySelector("polygon, path");
      b.unitOf.set(g, k);
    }
    this.bound = b;
  }

  onGraphEvent(event) {
    if (!this.bound) return;
    for (let el = event.target; el && el !== this.graphBox; el = el.parentNode) {
      if (this.bound.unitOf.has(el)) {
        if (event.type === "keydown") event.preventDefault();
        this.inspect(this.bound.unitOf.get(el));
        return;
      }
    }
  }

  // ------------------------------------------------------------------ inspector: one box's parameters

  inspect(k) {
    this.inspected = k;
    const unit = this.units[k];
    const close = h("button", { type: "button", className: "mgw-t-close", "aria-label": "close the inspector", text: "\u00d7" });
    close.addEventListener("click", () => this.closeInspector());
    const table = h("table", { className: "mgw-t-params" },
      h("thead", {}, h("tr", {}, h("th", { text: "parameter" }), h("th", { text: "data" }), h("th", { text: "grad" }))));
    const body = h("tbody");
    this.rows = [];
    const shown = unit.params.slice(0, MAX_INSPECTOR_ROWS);
    shown.forEach((i, r) => {
      const name = unit.names[r] || `p${i}`;
      const mark = swatch("mgw-t-swatch");
      const dataCell = h("td", { "data-field": "data" });
      const gradCell = h("td", { "data-field": "grad" });
      body.append(h("tr", { "data-param": name }, h("td", {}, mark, h("span", { text: ` ${name}` })), dataCell, gradCell));
      this.rows.push({ i, swatch: mark, dataCell, gradCell });
    });
    table.append(body);
    const more = unit.params.length > shown.length
      ? h("div", { className: "mgw-t-note", text: `Showing ${shown.length} of ${unit.params.length} parameters.` }) : null;
    this.inspector.replaceChildren(
      h("div", { className: "mgw-t-inspector-head" }, h("strong", { "data-field": "name", text: unit.id }), close),
      ...[h("div", { className: "mgw-t-note", "data-field": "norm" }), table, more].filter(Boolean));
    this.normText = this.inspector.querySelector('[data-field="norm"]');
    this.inspector.setAttribute("data-unit", unit.id);
    this.inspector.hidden = false;
    this.fillInspector();
  }

  fillInspector() {
    const k = this.inspected;
    if (k === null || !this.grads) return;
    // Each grad is shown at the view's precision: a grad shown as 0 there is white.
    const precision = this.model.get("precision");
    const scale = colorScale(gradScale(this.rows.map((row) => this.grads[row.i])), precision);
    for (const row of this.rows) {
      const g = this.grads[row.i];
      showNumber(row.dataCell, this.data[row.i], precision);
      showNumber(row.gradCell, g, precision);
      if (this.palette) row.swatch.style.background = gradColor(g, scale, this.palette);
    }
    const norm = neuronNorms(this.grads, [this.units[k]])[0];
    this.normText.textContent = `norm of the grads ${formatNumber(norm, precision)}; swatch: each grad (blue < 0, orange > 0).`;
    this.normText.setAttribute("data-value", pyRepr(norm));
  }

  closeInspector() {
    this.inspected = null;
    this.inspector.hidden = true;
    this.inspector.replaceChildren();
    this.inspector.removeAttribute("data-unit");
  }

  destroy() {
    this.destroyed = true;
    this.events.off();
    this.bound = null;
    this.root.remove();
  }
}

export default {
  render({ model, el }) {
    const view = new TrainingView(model, el);
    return () => view.destroy();
  },
};
