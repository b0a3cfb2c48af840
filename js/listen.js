// The model's events a view listens to, remembered so that the view's cleanup removes every one of them.

export class ModelListeners {
  constructor(model) {
    this.model = model;
    this.listeners = [];
  }

  /** `model.on(event, fn)`, undone by `off()`. */
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
