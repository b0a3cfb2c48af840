// The one error model of both views: a box (role="alert") that shows every current problem, one per
// source ("input", "replay", "kernel", "curve", ...), until that source clears it; and `fail`, for a view
// that could not start at all.

import { h } from "./dom.js";

export class ErrorBox {
  /** `root` is the view's root element; `className` styles the box; `what` names the view in `fail`. */
  constructor(root, className, what) {
    this.root = root;
    this.what = what;
    this.errors = new Map();
    this.el = h("div", { className, "data-role": "error", role: "alert", hidden: true });
  }

  /** Show `text` as the current problem of `source` (replacing that source's previous one). */
  showError(source, text) {
    this.errors.set(source, text);
    this.sync();
  }

  /** `source`'s problem is gone; the box hides when no other source has one. */
  clearError(source) {
    if (this.errors.delete(source)) this.sync();
  }

  /** The view could not start (or, once shown, lay out a new picture): say why, and mark the root data-state="error". */
  fail(err) {
    const text = err && err.message ? err.message : String(err);
    const started = this.root.getAttribute("data-state") === "ready";
    this.root.setAttribute("data-state", "error");
    if (!this.el.parentNode) this.root.append(this.el);
    this.el.textContent = `The ${this.what} could not ${started ? "draw the new picture" : "start"}: ${text}`;
    this.el.hidden = false;
  }

  sync() {
    this.el.textContent = [...this.errors.values()].join(" ");
    this.el.hidden = this.errors.size === 0;
  }
}
