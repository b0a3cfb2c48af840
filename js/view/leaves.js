// @ts-check
// The leaves panel: one slider row per leaf (range, exact number, editable slider bounds), the values the
// view replays from, and settling: a moved value goes to the kernel (trait `leaf_values`) once it rests for
// SETTLE_MS, or at once when the slider is released. Up to MAX_LEAF_ROWS rows; a graph with more (an
// MLP's loss has hundreds) gets a filter box (matching as the search box does: label, full dotted name such as
// layers.1.neurons.0.w1, op or #id; js/search.js) and the first MAX_LEAF_ROWS matching rows, leaves drawn in
// the picture first, so the DOM stays small whatever the graph.

import { h } from "../dom.js";
import { decodeList, encodeList, sameValues } from "../codec.js";
import { plural, thousands } from "../format.js";
import { indexOf, matchRank, parseQuery } from "../search.js";
import { cleanText } from "../text.js";
import { MAX_NAME_CHARS } from "./names.js";

export const SETTLE_MS = 150;
const MAX_LEAF_ROWS = 40;

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

export class Leaves {
  /**
   * `model` holds the settled values; `tape`, `names` and `readonly` describe the graph; `errors` is the
   * view's ErrorBox; `onChange()` is called after the values changed (the view replays and paints).
   */
  constructor(model, tape, names, readonly, errors, onChange) {
    this.model = model;
    this.tape = tape;
    this.names = names;
    this.readonly = readonly;
    this.errors = errors;
    this.onChange = onChange;
    const n = tape.leaves.length;
    this.initial = Float64Array.from(tape.leafData);
    this.values = decodeList(model.get("leaf_values"), n) || Float64Array.from(this.initial);
    this.range = { lo: new Float64Array(n), hi: new Float64Array(n) };
    for (let j = 0; j < n; j++) [this.range.lo[j], this.range.hi[j]] = sliderRange(this.initial[j]);
    for (let j = 0; j < n; j++) this.widenRange(j, this.values[j]);
    this.settle = { timer: null, dirty: false, destroyed: false };
    this.rows = new Map(); // leaf index j -> its row's inputs
    this.shown = null; // the nodes drawn in the picture, listed first
    this.filter = null;
    this.el = h("div", { className: "mgw-leaves", "data-role": "leaves" });
    this.build();
  }

  build() {
    const n = this.tape.leaves.length;
    this.el.replaceChildren(h("div", { className: "mgw-panel-title", text: `Leaves (${n})` }));
    if (n > MAX_LEAF_ROWS) {
      this.filter = h("input", {
        type: "search", className: "mgw-filter", "data-role": "leaf-filter",
        placeholder: "filter leaves: label, layers.0.neurons.3.w2 or #id", "aria-label": "filter leaves by label, full dotted name or #id", "data-lm-suppress-shortcuts": "true",
      });
      this.filter.addEventListener("input", () => this.renderRows());
      this.filterNote = h("div", { className: "mgw-note", "data-role": "leaf-note" });
      this.el.append(this.filter, this.filterNote);
    }
    this.rowsBox = h("div", { className: "mgw-rows" });
    this.el.append(this.rowsBox);
    this.renderRows();
  }

  /** The picture now shows these nodes: with a filter, list their leaves first. */
  showFirst(shownSet) {
    this.shown = shownSet;
    if (this.filter) this.renderRows();
  }

  order() {
    const order = Array.from(this.tape.leaves.keys());
    const shown = this.shown;
    if (shown) {
      const leaves = this.tape.leaves;
      order.sort((a, b) => (shown.has(leaves[b]) - shown.has(leaves[a])) || a - b);
    }
    return order;
  }

  renderRows() {
    const leaves = this.tape.leaves;
    let order = this.order();
    const total = order.length;
    if (this.filter) {
      const query = parseQuery(this.filter.value);
      if (query.text) {
        // The search box's matching (search.js): label, dotted name, op or #id; best rank first, stable within one.
        const index = indexOf(this.tape);
        const rank = new Map();
        for (const j of order) {
          const r = matchRank(index, leaves[j], query);
          if (r >= 0) rank.set(j, r);
        }
        order = order.filter((j) => rank.has(j));
        order.sort((a, b) => rank.get(a) - rank.get(b));
      }
      const matching = order.length;
      order = order.slice(0, MAX_LEAF_ROWS);
      this.filterNote.textContent = matching > order.length
        ? `Showing ${thousands(order.length)} of ${plural(matching, "matching leaf")} (of ${thousands(total)}); type to narrow the list.`
        : `${thousands(matching)} of ${plural(total, "leaf")} match.`;
    }
    this.rows.clear();
    this.rowsBox.replaceChildren(...order.map((j) => this.row(j)));
  }

  row(j) {
    const i = this.tape.leaves[j];
    const key = this.names.keys[i];
    const label = this.tape.labels[i];
    const scope = this.tape.scopes[i];
    // A label shared by many leaves (every neuron's "w0") is told apart by the module that made it.
    const name = cleanText(!label ? `#${i}` : key === label || !scope ? label : `${scope}.${label}`, MAX_NAME_CHARS);
    const common = { "data-lm-suppress-shortcuts": "true", disabled: this.readonly };
    const number = (props) => h("input", { type: "number", step: "any", ...props, ...common });
    const range = h("input", { type: "range", "data-leaf": key, "aria-label": `value of ${name}`, ...common });
    const exact = number({ className: "mgw-exact", "data-leaf": key, "aria-label": `exact value of ${name}` });
    const min = number({ className: "mgw-bound", "data-role": "min", "aria-label": `slider minimum for ${name}` });
    const max = number({ className: "mgw-bound", "data-role": "max", "aria-label": `slider maximum for ${name}` });
    const title = h("span", { className: "mgw-leaf-name", text: name });
    title.title = cleanText(`${scope ? `${scope}.` : ""}${label || ""} (#${i})`, 300);
    const row = h("div", { className: "mgw-leaf", "data-leaf-row": key }, title, min, range, max, exact);
    const entry = { j, range, exact, min, max };
    this.rows.set(j, entry);
    this.syncRow(entry);

    range.addEventListener("input", () => this.set(j, Number(range.value), "slider"));
    range.addEventListener("change", () => this.settleNow());
    exact.addEventListener("change", () => {
      const v = exact.value.trim() === "" ? NaN : Number(exact.value);
      if (!Number.isFinite(v)) {
        this.errors.showError("input", `${name}: type a finite number (got "${exact.value}").`);
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
        this.errors.showError("input", `${name}: the slider needs a minimum below its maximum (got ${lo} and ${hi}).`);
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
    const { j, range, exact, min, max } = entry;
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
    put(min, "value", lo);
    put(max, "value", hi);
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

  /** Every leaf back to its starting value, sent to the kernel at once. */
  reset() {
    if (this.readonly) return;
    this.values.set(this.initial);
    for (const entry of this.rows.values()) this.syncRow(entry);
    this.errors.clearError("input");
    this.onChange();
    this.settleNow();
  }

  /** The kernel set `leaf_values` (another view, or Python code). */
  receive() {
    const vals = decodeList(this.model.get("leaf_values"), this.values.length);
    if (!vals || sameValues(vals, this.values)) return;
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
    this.model.set("leaf_values", encodeList(this.values));
    this.model.save_changes();
  }

  /** Send what is still unsent, then stop. */
  destroy() {
    this.settleNow();
    this.settle.destroyed = true;
  }
}
