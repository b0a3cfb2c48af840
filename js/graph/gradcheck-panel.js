// @ts-check
// The inspector's numerical gradient check panel: every parameter's analytic grad beside its central-difference
// estimate, relative error and pass/fail, failing rows first, a page at a time. Replayable graphs are checked
// here with js/core/gradcheck.js's maths (two forward replays per leaf, in time slices so the page never
// blocks); graphs with user-defined ops are checked by the kernel (widget.py answers {"type": "gradcheck"}),
// a bounded number of leaves per request.

import { h } from "../ui/dom.js";
import { formatExp, formatNumber, plural, pyRepr, thousands } from "../picture/format.js";
import { encodeList } from "../core/codec.js";
import { gradcheckVerdict, numericGrad } from "../core/gradcheck.js";
import { GRADCHECK_DEFAULTS, MAX_KERNEL_LEAVES } from "../core/shared.js";
import { decodeNumber } from "../core/spec.js";
import { replay } from "../core/tape.js";

export const PAGE_ROWS = 50;
const SLICE_MS = 12; // browser work per slice before yielding to the page
const KERNEL_NODE_BUDGET = 500000; // leaves per kernel request ~ this / nodes (each costs two replays); <= MAX_KERNEL_WORK
const KERNEL_TIMEOUT_MS = 60000;

/** Failing rows first, then the rest, each in leaf order (the order a learner needs to act on). */
export function orderRows(rows) {
  return rows.map((row, n) => [row, n]).sort((x, y) => (x[0].ok - y[0].ok) || x[1] - y[1]).map(([row]) => row);
}

/** How many leaves to send per kernel request for a graph of `n` nodes: at most the kernel's cap (the panel
 * pages through the rest). */
export function kernelChunk(n) {
  return Math.min(MAX_KERNEL_LEAVES, Math.max(1, Math.floor(KERNEL_NODE_BUDGET / Math.max(1, n))));
}

export class GradcheckPanel {
  /**
   * `host` is the view: `tape`, `names` (nodeName(i), keys), `leaves.values` and `leaves.params` (the positions
   * checked: the leaf list's parameters, params.py), `output`, `mode` ("browser" |
   * "kernel"), `send(msg)`, `precision()`; the panel is `el`, shown in the inspector.
   */
  constructor(host) {
    this.host = host;
    this.generation = 0;
    this.rows = null;
    this.page = 0;
    this.timer = null;
    this.kernel = { seq: 0, resolve: null, timer: null };
    this.el = this.build();
  }

  build() {
    const { eps, rtol, atol } = GRADCHECK_DEFAULTS;
    this.title = h("strong", { "data-field": "name" });
    this.close = h("button", { type: "button", className: "mgw-close", "aria-label": "close the gradient check", text: "\u00d7" });
    this.summary = h("div", { className: "mgw-gradcheck-summary", "data-role": "gradcheck-summary", "aria-live": "polite" });
    this.tableBox = h("div", { className: "mgw-gradcheck-scroll" });
    this.pager = h("div", { className: "mgw-pager", hidden: true });
    return h("div", { className: "mgw-gradcheck", "data-role": "gradcheck-panel" },
      h("div", { className: "mgw-inspector-head" }, this.title, this.close),
      h("p", { className: "mgw-note", text: `Central differences (f(x + \u03b5) \u2212 f(x \u2212 \u03b5)) / 2\u03b5 with \u03b5 = ${eps.toExponential()}; `
        + `a leaf passes when |analytic \u2212 numeric| \u2264 ${atol.toExponential()} + ${rtol.toExponential()}\u00b7|numeric| (as micrograd_widget.core.gradcheck).` }),
      this.summary, this.tableBox, this.pager);
  }

  /** Check every parameter (what the leaf list lists first) for the view's current leaf values and output. */
  run() {
    const host = this.host;
    const token = ++this.generation;
    clearTimeout(this.timer);
    this.timer = null;
    this.rows = null;
    this.page = 0;
    this.title.textContent = `Gradient check: d ${host.names.nodeName(host.output)} / d leaf`;
    this.summary.textContent = "Checking\u2026";
    this.summary.classList.remove("mgw-fail");
    if (host.mode === "browser") this.runHere(token);
    else this.runInKernel(token);
  }

  /** Run again `delay` ms after the last call (values change while a slider moves). */
  rerunSoon(delay) {
    clearTimeout(this.timer);
    this.generation += 1;
    this.summary.textContent = "The values changed: checking again\u2026";
    this.timer = setTimeout(() => {
      this.timer = null;
      this.run();
    }, delay);
  }

  runHere(token) {
    const { tape } = this.host;
    const checked = this.host.leaves.params;
    const vals = Float64Array.from(this.host.leaves.values);
    const output = this.host.output;
    const { eps, rtol, atol } = GRADCHECK_DEFAULTS;
    const { data, grad, failure } = replay(tape, vals, output);
    if (failure >= 0) {
      this.fail(`${this.host.names.nodeName(failure)} cannot be computed at these leaf values, so neither can its gradients.`);
      return;
    }
    const scratch = new Float64Array(tape.n);
    const rows = [];
    let j = 0;
    const work = () => {
      if (token !== this.generation) return;
      const start = performance.now();
      while (j < checked.length && performance.now() - start < SLICE_MS) {
        const i = tape.leaves[checked[j]];
        const { numeric, failure: bad } = numericGrad(tape, vals, checked[j], output, eps, scratch);
        const verdict = gradcheckVerdict(grad[i], numeric, rtol, atol);
        rows.push({ node: i, data: data[i], analytic: grad[i], numeric, ...verdict,
          ok: bad < 0 && verdict.ok, note: bad >= 0 ? `f(x\u00b1\u03b5) failed at ${this.host.names.nodeName(bad)}` : "" });
        j += 1;
      }
      if (j < checked.length) {
        this.summary.textContent = `Checking ${thousands(j)} of ${plural(checked.length, "leaf")}\u2026`;
        this.timer = setTimeout(work, 0);
      } else {
        this.timer = null;
        this.show(rows);
      }
    };
    work();
  }

  async runInKernel(token) {
    const host = this.host;
    const leaves = Array.from(host.leaves.params, (j) => host.tape.leaves[j]);
    const chunk = kernelChunk(host.tape.n);
    const leafValues = encodeList(host.leaves.values);
    const rows = [];
    for (let start = 0; start < leaves.length; start += chunk) {
      if (start > 0) this.summary.textContent = `The kernel checked ${thousands(start)} of ${plural(leaves.length, "leaf")}\u2026`;
      const reply = await this.ask({ ...GRADCHECK_DEFAULTS, leaf_values: leafValues, output: host.output, leaves: leaves.slice(start, start + chunk) });
      if (token !== this.generation) return;
      if (!reply) {
        this.fail("No kernel answered: this graph has a user-defined op, so only a running kernel can check its gradients.");
        return;
      }
      if (reply.error) {
        this.fail(`The kernel could not check the gradients: ${reply.error}`);
        return;
      }
      for (const r of reply.rows) {
        rows.push({ node: r.node, data: decodeNumber(r.data), analytic: decodeNumber(r.analytic), numeric: decodeNumber(r.numeric),
          relError: decodeNumber(r.rel_error), ok: r.ok === true, note: String(r.note || "") });
      }
    }
    this.show(rows);
  }

  /** One gradcheck request to the kernel; resolves with its reply, or null after KERNEL_TIMEOUT_MS. */
  ask(fields) {
    const k = this.kernel;
    if (k.resolve) k.resolve(null);
    k.seq += 1;
    clearTimeout(k.timer);
    return new Promise((resolve) => {
      k.resolve = resolve;
      k.timer = setTimeout(() => this.answer(null), KERNEL_TIMEOUT_MS);
      this.host.send({ type: "gradcheck", seq: k.seq, ...fields });
    });
  }

  /** The view received a custom message: a gradcheck reply for the request in flight, or something else. */
  onMessage(msg) {
    if (!msg || msg.type !== "gradcheck" || msg.seq !== this.kernel.seq) return false;
    this.answer(msg);
    return true;
  }

  answer(msg) {
    const k = this.kernel;
    clearTimeout(k.timer);
    const resolve = k.resolve;
    k.resolve = null;
    if (resolve) resolve(msg);
  }

  fail(text) {
    this.rows = null;
    this.summary.textContent = text;
    this.summary.classList.add("mgw-fail");
    this.tableBox.replaceChildren();
    this.pager.hidden = true;
  }

  show(rows) {
    this.rows = orderRows(rows);
    const failed = rows.filter((r) => !r.ok);
    const total = rows.length;
    this.summary.classList.toggle("mgw-fail", failed.length > 0);
    if (total === 0) this.summary.textContent = "No parameters to check: the leaf list lists none (see the line above it).";
    else if (failed.length === 0) this.summary.textContent = total === 1 ? "The leaf passes." : `All ${plural(total, "leaf")} pass.`;
    else {
      const names = failed.slice(0, 5).map((r) => this.host.names.nodeName(r.node)).join(", ");
      this.summary.textContent = `${thousands(failed.length)} of ${plural(total, "leaf")} FAIL: ${names}`
        + `${failed.length > 5 ? ", \u2026" : ""}. A wrong local derivative (e.g. in a user-defined op) shows up here.`;
    }
    this.renderPage();
  }

  renderPage() {
    const rows = this.rows || [];
    const pages = Math.max(1, Math.ceil(rows.length / PAGE_ROWS));
    this.page = Math.max(0, Math.min(this.page, pages - 1));
    const first = this.page * PAGE_ROWS;
    const shown = rows.slice(first, first + PAGE_ROWS);
    const precision = this.host.precision();
    const head = h("tr", {}, ...["leaf", "data", "analytic grad", "numeric grad", "rel. error", "ok"].map((t) => h("th", { scope: "col", text: t })));
    const body = h("tbody", {});
    for (const r of shown) {
      const name = this.host.names.nodeName(r.node);
      const ok = h("td", { "data-field": "ok", className: r.ok ? "mgw-ok" : "mgw-fail", text: r.ok ? "yes" : "NO" });
      if (r.note) ok.title = r.note;
      body.append(h("tr", { "data-leaf": this.host.names.keys[r.node], className: r.ok ? "" : "mgw-fail-row" },
        h("th", { scope: "row", className: "mgw-leaf-name", text: name }),
        h("td", { "data-field": "data", text: formatNumber(r.data, precision) }),
        h("td", { "data-field": "analytic", text: pyRepr(r.analytic) }),
        h("td", { "data-field": "numeric", text: pyRepr(r.numeric) }),
        h("td", { "data-field": "rel-error", text: formatExp(r.relError, 2) }),
        ok));
    }
    this.tableBox.replaceChildren(h("table", { className: "mgw-gradcheck-table", "data-role": "gradcheck-table" }, h("thead", {}, head), body));
    if (pages > 1) {
      const prev = h("button", { type: "button", className: "mgw-button", "data-role": "gradcheck-prev", text: "\u25c0 previous" });
      const next = h("button", { type: "button", className: "mgw-button", "data-role": "gradcheck-next", text: "next \u25b6" });
      prev.setAttribute("aria-disabled", String(this.page === 0));
      next.setAttribute("aria-disabled", String(this.page === pages - 1));
      prev.addEventListener("click", () => this.turn(-1));
      next.addEventListener("click", () => this.turn(1));
      const where = h("span", { className: "mgw-note", text: `rows ${first + 1}\u2013${first + shown.length} of ${rows.length} (failures first)` });
      this.pager.replaceChildren(prev, where, next);
      this.pager.hidden = false;
    } else {
      this.pager.hidden = true;
    }
  }

  turn(delta) {
    const pages = Math.ceil((this.rows || []).length / PAGE_ROWS);
    const page = this.page + delta;
    if (page < 0 || page >= pages) return;
    this.page = page;
    this.renderPage();
  }

  destroy() {
    this.generation += 1;
    clearTimeout(this.timer);
    this.answer(null);
    this.el.remove();
  }
}
