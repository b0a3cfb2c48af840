// @ts-check
// The leaves panel: the parameters first (trait `leaf_roles`, micrograd_widget/core/params.py: nn's weights and biases,
// else the labelled leaves), grouped by module, the rule in force stated above them; the inputs and constants after,
// collapsed with their count and named by the op they feed ("constant 2.0 (from 2.0 * n)"). Each row: the name,
// the slider, the value (whole) and, behind a small button, the slider's range. Settling: a moved value goes to the
// kernel (trait `leaf_values`) once it rests for SETTLE_MS, or at once when the slider is released. Up to
// MAX_LEAF_ROWS rows a list; a graph with more leaves (an MLP's loss has hundreds) gets a filter box (matching as the
// search box does: label, full dotted name such as layers.1.neurons.0.w1, op or #id; js/core/search.js), leaves drawn
// in the picture first, so the DOM stays small whatever the graph.

import { h } from "../ui/dom.js";
import { decodeList, encodeList, sameValues } from "../core/codec.js";
import { plural, pyRepr, thousands } from "../picture/format.js";
import { indexOf, matchRank, parseQuery } from "../core/search.js";
import { inputsOf, readBuffer } from "../core/spec.js";
import { cleanText } from "../picture/text.js";
import { MAX_NAME_CHARS } from "./names.js";
import { afterFrame } from "../ui/idle.js";

export const SETTLE_MS = 150;
const MAX_LEAF_ROWS = 64; // the lecture MLP's 41 parameters listed whole; more need the filter
const MAX_UNANSWERED = 8; // writes of leaf values kept until the kernel's front end sends them back (receive),
const ECHO_MS = 10_000; // for at most this long (marimo's came back within a write-back or two, ~1-2 s)
const NATURAL = new Intl.Collator("en", { numeric: true });

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

/**
 * The parameters among `n` leaves from the `leaf_roles` trait (params.py LeafRoles.trait()): a flag per leaf
 * position and the line stating the rule; a state without it (a page saved by an older release) lists every leaf
 * as a parameter.
 * @param {unknown} raw
 * @param {number} n
 * @returns {{isParam: Uint8Array, text: string}}
 */
export function readRoles(raw, n) {
  const isParam = new Uint8Array(n);
  const roles = /** @type {{params?: unknown, text?: unknown} | null | undefined} */ (raw);
  if (!roles || roles.params === undefined) return { isParam: isParam.fill(1), text: "" };
  for (const j of readBuffer(roles.params, "int32", "leaf_roles.params")) if (j >= 0 && j < n) isParam[j] = 1;
  return { isParam, text: typeof roles.text === "string" ? roles.text : "" };
}

/** Leaf i's formula in the node that first uses it, its own place written as `own` ("2.0 * n", "… + 0.0"). */
function useOf(tape, names, users, i, own) {
  const user = users[i];
  if (user < 0) return "";
  const operand = (j) => (j === i ? own : tape.labels[j] ? names.nodeName(j) : "\u2026");
  const ins = inputsOf(tape, user).map(operand);
  const symbol = tape.symbols[user] || (tape.row[user] >= 0 ? tape.ops[tape.row[user]].symbol : "?");
  if (ins.length === 2) return `${ins[0]} ${symbol} ${ins[1]}`;
  if (symbol.startsWith("**")) return `${ins[0]}${symbol}`;
  return `${symbol}(${ins.join(", ")})`;
}

export class Leaves {
  /**
   * `model` holds the settled values and the leaf roles; `tape`, `names` and `readonly` describe the graph;
   * `errors` is the view's ErrorBox; `onChange()` is called after the values changed (the view replays and paints).
   */
  constructor(model, tape, names, readonly, errors, onChange) {
    this.model = model;
    this.tape = tape;
    this.names = names;
    this.readonly = readonly;
    this.errors = errors;
    this.onChange = onChange;
    const n = tape.leaves.length;
    const roles = readRoles(model.get("leaf_roles"), n);
    this.isParam = roles.isParam;
    this.ruleText = roles.text;
    /** The parameters' positions in `tape.leaves`, increasing: what the gradient check checks. */
    this.params = Int32Array.from(Array.from(this.isParam.keys()).filter((j) => this.isParam[j]));
    this.users = null; // per node, the first node using it (made when a constant's row is first shown)
    this.initial = Float64Array.from(tape.leafData);
    this.values = decodeList(model.get("leaf_values"), n) || Float64Array.from(this.initial);
    this.range = { lo: new Float64Array(n), hi: new Float64Array(n) };
    for (let j = 0; j < n; j++) [this.range.lo[j], this.range.hi[j]] = sliderRange(this.initial[j]);
    for (let j = 0; j < n; j++) this.widenRange(j, this.values[j]);
    this.settle = { timer: null, dirty: false, destroyed: false };
    /** @type {{values: Float64Array, at: number}[]} */
    this.sent = []; // the values this view sent the kernel and when, oldest first, until they come back (receive())
    this.rows = new Map(); // leaf index j -> its row's inputs
    this.shown = null; // the nodes drawn in the picture, listed first
    /** @type {(() => void) | null} */
    this.cancelRows = null; // cancels the frame, then the task, that lists a new picture's leaves first (showFirst)
    this.filter = null;
    this.el = h("div", { className: "mgw-leaves", "data-role": "leaves" });
    this.build();
  }

  build() {
    const n = this.tape.leaves.length;
    const count = this.params.length;
    this.el.replaceChildren(h("div", { className: "mgw-panel-title", text: `Parameters (${count.toLocaleString("en-US")})` }));
    if (this.ruleText) this.el.append(h("div", { className: "mgw-note", "data-role": "leaf-rule", text: this.ruleText }));
    if (n > MAX_LEAF_ROWS) {
      this.filter = h("input", {
        type: "search", className: "mgw-filter", "data-role": "leaf-filter",
        placeholder: "filter leaves: label, layers.0.neurons.3.w2 or #id", "aria-label": "filter leaves by label, full dotted name or #id", "data-lm-suppress-shortcuts": "true",
      });
      this.filter.addEventListener("input", () => this.renderRows());
      this.filterNote = h("div", { className: "mgw-note", "data-role": "leaf-note" });
      this.el.append(this.filter, this.filterNote);
    }
    this.rowsBox = h("div", { className: "mgw-rows", "data-role": "param-rows" });
    this.el.append(this.rowsBox);
    this.constantsCount = h("span", {});
    this.constants = h("details", { className: "mgw-constants", "data-role": "leaf-constants", hidden: count === n },
      h("summary", {}, "Inputs and constants ", this.constantsCount));
    this.constantsBox = h("div", { className: "mgw-rows", "data-role": "constant-rows" });
    this.constants.append(this.constantsBox);
    this.constants.addEventListener("toggle", () => this.renderRows());
    this.el.append(this.constants);
    this.renderRows();
  }

  /** The picture now shows these nodes: with a filter, list their leaves first. A later picture's list is written once
   * that picture is painted (after its frame): its rows (up to MAX_LEAF_ROWS sliders) cost the gesture ~20 ms of
   * script and their own style and layout in the frame that shows the picture (the moons loss at node_budget=2000). */
  showFirst(shownSet) {
    const first = this.shown === null;
    this.shown = shownSet;
    if (!this.filter) return;
    if (first) this.renderRows();
    else if (!this.cancelRows) this.cancelRows = afterFrame(() => this.renderRows());
  }

  /** Leaf positions of one kind (parameters or not): those drawn in the picture first when there is a filter, then
   * parameters by module and name in the model's order (layers.0.neurons.0 before layers.0.neurons.1, w0 before b). */
  order(params) {
    const order = Array.from(this.tape.leaves.keys()).filter((j) => Boolean(this.isParam[j]) === params);
    const { leaves, scopes, labels } = this.tape;
    const shown = this.shown;
    const isBias = (j) => Number(labels[leaves[j]] === "b");
    // Modules in order, within one by name; leaves made outside any module first, in the order they were built.
    const byModule = (a, b) => (!scopes[leaves[a]] && !scopes[leaves[b]] ? 0
      : NATURAL.compare(scopes[leaves[a]], scopes[leaves[b]]) || isBias(a) - isBias(b)
        || NATURAL.compare(labels[leaves[a]], labels[leaves[b]]));
    const drawn = (j) => Number(shown ? shown.has(leaves[j]) : false);
    order.sort((a, b) => drawn(b) - drawn(a) || (params ? byModule(a, b) : 0) || a - b);
    return order;
  }

  /** `order` narrowed to the filter's matches (best rank first, stable within one), or as it is without a filter. */
  matching(order) {
    const query = this.filter ? parseQuery(this.filter.value) : null;
    if (!query || !query.text) return order;
    const leaves = this.tape.leaves;
    const index = indexOf(this.tape);
    const rank = new Map();
    for (const j of order) {
      const r = matchRank(index, leaves[j], query);
      if (r >= 0) rank.set(j, r);
    }
    return order.filter((j) => rank.has(j)).sort((a, b) => rank.get(a) - rank.get(b));
  }

  renderRows() {
    if (this.cancelRows) this.cancelRows(); // a later picture's list waiting for its frame: written now (or it is this)
    this.cancelRows = null;
    const params = this.matching(this.order(true));
    const others = this.matching(this.order(false));
    const total = this.tape.leaves.length;
    const listed = params.slice(0, MAX_LEAF_ROWS);
    if (this.filter) {
      // Counted in parameters when the list has inputs and constants besides (listed, collapsed, below).
      const all = this.params.length === total;
      const [matching, of, noun] = all ? [params.length, total, "leaf"] : [params.length, this.params.length, "parameter"];
      this.filterNote.textContent = params.length > listed.length
        ? `Showing ${thousands(listed.length)} of ${plural(matching, `matching ${noun}`)} (of ${thousands(of)}); type to narrow the list.`
        : `${thousands(matching)} of ${plural(of, noun)} match.`;
    }
    this.constantsCount.textContent = `(${plural(others.length, "leaf")}${this.filter && this.filter.value.trim() ? " matching" : ""})`;
    this.rows.clear();
    this.rowsBox.replaceChildren(...this.rowsOf(listed, true));
    this.constantsBox.replaceChildren(...(this.constants.open ? this.rowsOf(others.slice(0, MAX_LEAF_ROWS), false) : []));
  }

  /** The rows of leaf positions `order`: a column header, then parameters under a heading per module. */
  rowsOf(order, params) {
    if (!order.length) return [];
    const head = h("div", { className: "mgw-leaf-row mgw-leaf-head", "aria-hidden": "true" },
      h("span", { text: params ? "parameter" : "input or constant" }), h("span", { text: "slide to change" }),
      h("span", { text: "value" }), h("span", { text: "range" }));
    const out = [head];
    let scope = null;
    for (const j of order) {
      const here = this.tape.scopes[this.tape.leaves[j]];
      if (params && here && here !== scope) {
        out.push(h("div", { className: "mgw-leaf-group", "data-role": "leaf-group", text: cleanText(here, 120) }));
      }
      scope = here;
      out.push(this.row(j, params && Boolean(here)));
    }
    return out;
  }

  /** How leaf j is named in its row (`grouped`: under its module's heading) and in its boxes' labels. */
  naming(j, grouped) {
    const i = this.tape.leaves[j];
    const key = this.names.keys[i];
    const label = this.tape.labels[i];
    const scope = this.tape.scopes[i];
    // A label shared by many leaves (every neuron's "w0") is told apart by the module that made it.
    const full = cleanText(!label ? `#${i}` : key === label || !scope ? label : `${scope}.${label}`, MAX_NAME_CHARS);
    if (this.isParam[j]) return { shown: grouped && label ? cleanText(label, MAX_NAME_CHARS) : full, full };
    if (label) return { shown: `input ${full}`, full };
    if (!this.users) {
      const tape = this.tape;
      this.users = new Int32Array(tape.n).fill(-1);
      for (let u = tape.n - 1; u >= 0; u--) for (const k of inputsOf(tape, u)) this.users[k] = u;
    }
    const number = pyRepr(this.initial[j]);
    const use = useOf(this.tape, this.names, this.users, i, number);
    return { shown: cleanText(`constant ${number}${use ? ` (from ${use})` : ""}`, MAX_NAME_CHARS * 2), full: `constant #${i}` };
  }

  row(j, grouped) {
    const i = this.tape.leaves[j];
    const key = this.names.keys[i];
    const { shown, full } = this.naming(j, grouped);
    const common = { "data-lm-suppress-shortcuts": "true", disabled: this.readonly };
    const number = (props) => h("input", { type: "number", step: "any", ...props, ...common });
    const range = h("input", { type: "range", "data-leaf": key, "aria-label": `value of ${full}`, title: `slide to change ${full}`, ...common });
    const exact = number({ className: "mgw-exact", "data-leaf": key, "aria-label": `exact value of ${full}`, title: `the value of ${full}: type a number and press Enter` });
    const min = number({ className: "mgw-bound", "data-role": "min", "aria-label": `slider minimum for ${full}` });
    const max = number({ className: "mgw-bound", "data-role": "max", "aria-label": `slider maximum for ${full}` });
    const title = h("span", { className: "mgw-leaf-name", text: shown });
    const scope = this.tape.scopes[i];
    title.title = cleanText(`${shown === full ? "" : `${shown}: `}${scope ? `${scope}.` : ""}${this.tape.labels[i] || ""} (#${i})`, 300);
    const editor = h("div", { className: "mgw-leaf-range", "data-role": "range-editor", hidden: true },
      h("label", {}, "slider from ", min), h("label", {}, " to ", max));
    const toggle = h("button", { type: "button", className: "mgw-button mgw-range-toggle", "data-role": "range-toggle",
      "aria-expanded": "false", title: `edit the slider's range for ${full}` });
    const row = h("div", { className: "mgw-leaf-row", "data-leaf-row": key }, title, range, exact, toggle, editor);
    const entry = { j, range, exact, min, max, toggle, full };
    this.rows.set(j, entry);
    this.syncRow(entry);

    toggle.addEventListener("click", () => {
      editor.hidden = !editor.hidden;
      toggle.setAttribute("aria-expanded", String(!editor.hidden));
    });
    range.addEventListener("input", () => this.set(j, Number(range.value), "slider"));
    range.addEventListener("change", () => this.settleNow());
    exact.addEventListener("change", () => {
      const v = exact.value.trim() === "" ? NaN : Number(exact.value);
      if (!Number.isFinite(v)) {
        this.errors.showError("input", `${full}: type a finite number (got "${exact.value}").`);
        exact.value = String(this.values[j]);
        return;
      }
      this.widenRange(j, v);
      this.set(j, v, "exact");
      this.settleNow();
    });
    const bound = (which) => {
      const input = which === "min" ? min : max;
      const v = Number(input.value);
      const lo = which === "min" ? v : this.range.lo[j];
      const hi = which === "max" ? v : this.range.hi[j];
      if (input.value.trim() === "" || !Number.isFinite(v) || !(lo < hi)) {
        this.errors.showError("input", `${full}: the slider needs a minimum below its maximum (got ${lo} and ${hi}).`);
      } else {
        this.range.lo[j] = lo;
        this.range.hi[j] = hi;
        this.errors.clearError("input");
      }
      this.syncRow(entry);
    };
    min.addEventListener("change", () => bound("min"));
    max.addEventListener("change", () => bound("max"));
    return row;
  }

  widenRange(j, v) {
    if (!Number.isFinite(v)) return;
    if (v < this.range.lo[j]) this.range.lo[j] = Math.floor(v);
    if (v > this.range.hi[j]) this.range.hi[j] = Math.ceil(v);
  }

  /** Show leaf j's value and range in its row (but not in the input `except` the user is moving). */
  syncRow(entry, except = null) {
    const { j, range, exact, min, max, toggle, full } = entry;
    const v = String(this.values[j]);
    const lo = String(this.range.lo[j]);
    const hi = String(this.range.hi[j]);
    // Only what changed is written: a slider frame writes one number (setting an input to the text it holds still
    // costs the browser a style and layout pass).
    const put = (input, key, text) => { if (input[key] !== text) input[key] = text; };
    put(range, "min", lo);
    put(range, "max", hi);
    put(range, "step", String(sliderStep(this.range.lo[j], this.range.hi[j])));
    if (except !== "slider") put(range, "value", v);
    if (except !== "exact") put(exact, "value", v);
    // Wide enough for the whole number (17 digits, sign and exponent): a value is never cut.
    put(exact.style, "minWidth", `${Math.max(8, exact.value.length + 3)}ch`);
    put(min, "value", lo);
    put(max, "value", hi);
    put(toggle, "textContent", `${lo}\u2026${hi}`);
    put(toggle, "ariaLabel", `${lo}\u2026${hi}: edit the slider range of ${full}`); // the visible text first
  }

  /** The user set leaf j to `v` with the input `source` ("slider" | "exact"). */
  set(j, v, source) {
    if (this.readonly || !Number.isFinite(v)) return;
    this.values[j] = v;
    const entry = this.rows.get(j);
    if (entry) this.syncRow(entry, source);
    this.errors.clearError("input");
    this.onChange();
    this.scheduleSettle();
  }

  /** The learning controls moved the parameters in `values` (graph/learn-panel.js): show them and mark them unsent;
   * the view replays itself. */
  moved() {
    for (const j of this.params) this.widenRange(j, this.values[j]);
    for (const entry of this.rows.values()) this.syncRow(entry);
    this.settle.dirty = true;
  }

  /** Every leaf back to its starting value, sent to the kernel at once. */
  reset() {
    if (this.readonly) return;
    this.values.set(this.initial);
    for (const entry of this.rows.values()) this.syncRow(entry);
    this.errors.clearError("input");
    this.onChange();
    this.settle.dirty = true; // settled moves before it were sent: the starting values must be sent too
    this.settleNow();
  }

  /** The kernel set `leaf_values` (another view, or Python code). Values this view sent (within ECHO_MS), coming back
   * with no error, are its own writes echoed (marimo's front end sets each again once the kernel has it, a
   * write-back or two later): while training moved on they are older than the view's, and taking them paused the
   * run and put its parameters back. A refusal (the kernel's `error` set) always puts its values back. */
  receive() {
    const vals = decodeList(this.model.get("leaf_values"), this.values.length);
    if (!vals || sameValues(vals, this.values)) return; // nothing new (this view's own set, heard at once, too)
    const now = performance.now();
    const recent = this.sent.filter((s) => now - s.at <= ECHO_MS);
    const echoed = this.model.get("error") ? -1 : recent.findIndex((s) => sameValues(vals, s.values));
    this.sent = echoed >= 0 ? recent.slice(echoed + 1) : [];
    if (echoed >= 0) return;
    this.values.set(vals);
    for (let j = 0; j < vals.length; j++) this.widenRange(j, vals[j]);
    for (const entry of this.rows.values()) this.syncRow(entry);
    this.onChange();
  }

  scheduleSettle() {
    const settle = this.settle;
    settle.dirty = true;
    if (settle.timer !== null) clearTimeout(settle.timer);
    settle.timer = setTimeout(() => this.settleNow(), SETTLE_MS);
  }

  /** Send the values to the kernel now if they moved since the last time. */
  settleNow() {
    const settle = this.settle;
    if (settle.timer !== null) clearTimeout(settle.timer);
    settle.timer = null;
    if (!settle.dirty || settle.destroyed) return;
    settle.dirty = false;
    const current = decodeList(this.model.get("leaf_values"), this.values.length);
    if (current && sameValues(current, this.values)) return;
    const sent = { values: Float64Array.from(this.values), at: performance.now() };
    this.sent = [...this.sent.slice(-(MAX_UNANSWERED - 1)), sent];
    this.model.set("leaf_values", encodeList(this.values));
    this.model.save_changes();
  }

  /** Send what is still unsent, then stop. */
  destroy() {
    this.settleNow();
    this.settle.destroyed = true;
    if (this.cancelRows) this.cancelRows();
  }
}
