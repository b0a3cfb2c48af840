// @ts-check
// Pin and compare (issue 21): Pin keeps the numbers as they are, Show change switches the picture to each node's
// change from them (Δdata, Δgrad; js/picture/change.js) and back, Unpin forgets them. A pin is view state, the
// traits `pin` ({} or { leaf_values, output }: enough, on the frozen tape, to replay every pinned data and grad)
// and `show_change`, saved with the widget state, so a saved notebook or exported page reopens pinned. Pinning
// needs the browser's replay (a graph the kernel computes, or nothing replays, has no pin button that works).

import { decodeList, encodeList } from "../core/codec.js";
import { backward, forward } from "../core/tape.js";
import { changeFrom } from "../picture/change.js";
import { h } from "../ui/dom.js";

export class Pin {
  /**
   * `now()` gives the leaf values and output shown ({ leafValues, output }); `changed()` repaints the view.
   * `reason`: why pinning is off ("" when the browser replays this graph).
   */
  constructor(model, tape, now, changed, reason = "") {
    this.model = model;
    this.tape = tape;
    this.now = now;
    this.changed = changed;
    this.data = null; // the pinned numbers (null: nothing pinned)
    this.grad = null;
    this.output = -1;
    this.showing = false;
    this.stepping = false; // the backprop stepper's picture is shown instead (its partial grads)
    this.delta = { data: new Float64Array(tape.n), grad: new Float64Array(tape.n) };
    const button = (action, text, title, act) => {
      const b = h("button", { type: "button", className: "mgw-button", "data-action": action, text });
      b.title = title;
      b.addEventListener("click", act);
      return b;
    };
    this.pinButton = button("pin", "Pin", "Keep the numbers as they are now, to compare later changes with them",
      () => this.pin());
    this.showButton = button("show-change", "Show change",
      "Show each node's change since the pin (\u0394data, \u0394grad) instead of its numbers; press again for the numbers",
      () => this.show(!this.showing));
    this.unpinButton = button("unpin", "Unpin", "Forget the pinned numbers", () => this.unpin());
    this.el = h("span", { className: "mgw-pin-controls", role: "group", "aria-label": "pin and compare" },
      this.pinButton, this.showButton, this.unpinButton);
    if (reason) {
      this.pinButton.disabled = true;
      this.pinButton.title = `Pinning replays the graph in the browser: ${reason}`;
    }
    this.enabled = !reason;
    this.receive();
  }

  /** The traits `pin` and `show_change` as the model has them (from Python, a saved state, another view). */
  receive() {
    const pin = this.enabled ? this.model.get("pin") : null;
    const leaves = pin ? decodeList(pin.leaf_values, this.tape.leaves.length) : null;
    const output = pin ? pin.output : -1;
    if (leaves && Number.isInteger(output) && output >= 0 && output < this.tape.n) this.keep(leaves, output);
    else this.data = this.grad = null;
    this.showing = !!this.data && this.model.get("show_change") === true;
    this.showControls();
  }

  /** Replay the frozen tape for the pinned leaves and output: every pinned data and grad. */
  keep(leafValues, output) {
    this.data = new Float64Array(this.tape.n);
    forward(this.tape, leafValues, this.data); // an op outside its domain pins what Python would not: NaN or inf
    this.grad = backward(this.tape, this.data, output, new Float64Array(this.tape.n));
    this.output = output;
  }

  pin() {
    if (!this.enabled) return;
    const { leafValues, output } = this.now();
    this.keep(leafValues, output);
    this.save({ pin: { leaf_values: encodeList(leafValues), output } });
  }

  show(on) {
    this.showing = !!this.data && on;
    this.save({ show_change: this.showing });
  }

  unpin() {
    this.data = this.grad = null;
    this.showing = false;
    this.save({ pin: {}, show_change: false });
    this.pinButton.focus({ preventScroll: true }); // the focused button is disabled now
  }

  save(traits) {
    for (const [name, value] of Object.entries(traits)) this.model.set(name, value);
    this.model.save_changes();
    this.showControls();
    this.changed();
  }

  /** The backprop stepper is on (or off): its picture wins, the change picture waits. */
  setStepping(on) {
    this.stepping = on;
    this.showControls();
  }

  showControls() {
    const pinned = !!this.data;
    this.unpinButton.disabled = !pinned;
    this.showButton.disabled = !pinned || this.stepping;
    this.showButton.setAttribute("aria-pressed", String(this.showing));
    this.pinButton.textContent = pinned ? "Pin again" : "Pin";
  }

  /** While the picture shows change: each node's Δ from the pin of `data` and `grad` (the live numbers), else null. */
  changes(data, grad) {
    if (!this.showing || this.stepping || !this.data || !this.grad) return null;
    return { data: changeFrom(data, this.data, this.delta.data), grad: changeFrom(grad, this.grad, this.delta.grad) };
  }
}
