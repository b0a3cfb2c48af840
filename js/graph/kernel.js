// @ts-check
// Kernel requests: a graph with a user-defined op cannot be replayed here, so each frame asks the kernel
// ({"type": "replay"}, answered by micrograd_widget/graph/widget.py). One request in flight at a time; a move
// made meanwhile is sent when the answer comes; no answer within KERNEL_TIMEOUT_MS is said in the error box.

import { encodeList } from "../core/codec.js";
import { kernelNumbers } from "../core/spec.js";

const KERNEL_TIMEOUT_MS = 8000;

export class KernelReplay {
  /**
   * `reason` says why the browser cannot replay; `request()` gives the current `{ leafValues, output }`;
   * `onNumbers(data, grad)` receives an answer; `errors` is the view's ErrorBox, `setStatus(text)` its status line.
   */
  constructor(model, n, reason, { request, onNumbers, errors, setStatus }) {
    this.model = model;
    this.n = n;
    this.reason = reason;
    this.request = request;
    this.onNumbers = onNumbers;
    this.errors = errors;
    this.setStatus = setStatus;
    this.state = { inflight: false, pending: false, seq: 0, timer: null };
  }

  /** Ask for the numbers of the current leaf values (after the request in flight, if there is one). */
  ask() {
    const k = this.state;
    if (k.inflight) {
      k.pending = true;
      return;
    }
    k.inflight = true;
    k.pending = false;
    k.seq += 1;
    this.setStatus("Asking the kernel\u2026");
    const { leafValues, output } = this.request();
    this.model.send({ type: "replay", seq: k.seq, leaf_values: encodeList(leafValues), output });
    clearTimeout(k.timer);
    k.timer = setTimeout(() => {
      if (!k.inflight) return;
      k.inflight = false;
      this.errors.showError("replay", `No kernel answered: ${this.reason}, so the numbers update only with a running kernel.`);
    }, KERNEL_TIMEOUT_MS);
  }

  /** A custom message from the kernel (and its binary buffers): true when it was the answer to the request in
   * flight. The answer's `buffers` names its Float64 buffers, ["data", "grad"]: every node's numbers. */
  onMessage(msg, buffers = []) {
    const k = this.state;
    if (!msg || msg.type !== "replay" || msg.seq !== k.seq) return false;
    k.inflight = false;
    clearTimeout(k.timer);
    if (msg.error) {
      this.errors.showError("replay", msg.error);
    } else {
      let data = null;
      let grad = null;
      try {
        const named = Object.fromEntries((msg.buffers || []).map((name, j) => [name, buffers[j]]));
        data = kernelNumbers(named.data, this.n);
        grad = kernelNumbers(named.grad, this.n);
      } catch (err) {
        this.errors.showError("replay", `The kernel's answer could not be read: ${err.message}`);
      }
      if (data && grad) {
        this.errors.clearError("replay");
        this.setStatus(`${this.reason}.`);
        this.onNumbers(data, grad);
      }
    }
    if (k.pending) this.ask();
    return true;
  }

  destroy() {
    clearTimeout(this.state.timer);
  }
}
