// @ts-check
// The model's events a view listens to, remembered so that the view's cleanup removes every one of them.

/** @import { WidgetModel } from "../host/host.js" */

export class ModelListeners {
  /**
   * @param {WidgetModel} model
   */
  constructor(model) {
    this.model = model;
    /** @type {[string, (...args: any[]) => void][]} */
    this.listeners = [];
  }

  /**
   * `model.on(event, fn)`, undone by `off()`.
   * @param {string} event
   * @param {(...args: any[]) => void} fn
   */
  on(event, fn) {
    this.model.on(event, fn);
    this.listeners.push([event, fn]);
  }

  /** Remove every listener added by `on`. */
  off() {
    for (const [event, fn] of this.listeners) this.model.off(event, fn);
    this.listeners = [];
  }
}
