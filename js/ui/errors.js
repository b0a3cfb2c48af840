// @ts-check
// The one error model of both views: a box (role="alert") that shows every current problem, one per
// source ("input", "replay", "kernel", "curve", ...), until that source clears it; `showFailure`, for a step that
// failed while the view goes on (a new picture that could not be laid out: the root is data-state="error" until
// `clearFailure`); and `fail`, for a view that could not start at all (data-state="error" for good).

import { h } from "./dom.js";

/**
 * The words of an error (its message, or the thrown value itself).
 * @param {any} err anything thrown: an Error, or a value
 * @returns {string}
 */
export function errorText(err) {
  return err && err.message ? err.message : String(err);
}

export class ErrorBox {
  /**
   * `root` is the view's root element; `className` styles the box; `what` names the view in `fail`.
   * @param {HTMLElement} root
   * @param {string} className
   * @param {string} what
   */
  constructor(root, className, what) {
    this.root = root;
    this.what = what;
    /** @type {Map<string, string>} */
    this.errors = new Map();
    /** @type {Set<string>} */
    this.failures = new Set(); // the sources whose problem makes the root data-state="error"
    this.el = h("div", { className, "data-role": "error", role: "alert", hidden: true });
  }

  /**
   * Show `text` as the current problem of `source` (replacing that source's previous one).
   * @param {string} source
   * @param {string} text
   */
  showError(source, text) {
    this.errors.set(source, text);
    this.sync();
  }

  /**
   * `source`'s problem is gone; the box hides when no other source has one.
   * @param {string} source
   */
  clearError(source) {
    if (this.errors.delete(source)) this.sync();
  }

  /**
   * True while `source` has a problem shown.
   * @param {string} source
   * @returns {boolean}
   */
  has(source) {
    return this.errors.has(source);
  }

  /**
   * `source` failed (the view goes on, e.g. with its last picture): show `text` as its problem and mark the root
   * data-state="error" until clearFailure(source).
   * @param {string} source
   * @param {string} text
   */
  showFailure(source, text) {
    this.failures.add(source);
    this.root.setAttribute("data-state", "error");
    if (!this.el.parentNode) this.root.append(this.el);
    this.showError(source, text);
  }

  /**
   * `source`'s failure is over: its text goes, and the root is data-state="ready" again when no failure is left.
   * @param {string} source
   */
  clearFailure(source) {
    if (!this.failures.delete(source)) return;
    this.clearError(source);
    if (this.failures.size === 0) this.root.setAttribute("data-state", "ready");
  }

  /**
   * The view could not start: say why, and mark the root data-state="error" (for good: nothing clears it).
   * @param {unknown} err
   */
  fail(err) {
    this.showFailure("start", `The ${this.what} could not start: ${errorText(err)}`);
  }

  sync() {
    this.el.textContent = [...this.errors.values()].join(" ");
    this.el.hidden = this.errors.size === 0;
  }
}
