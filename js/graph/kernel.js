// @ts-check
// Kernel requests: a graph with a user-defined op cannot be replayed here, so each frame asks the kernel
// ({"type": "replay"}), and the learning controls ask it for steps ({"type": "learn"}); both are answered by
// micrograd_widget/graph/requests.py. One request in flight at a time; a move made meanwhile is sent when the
// answer comes; no answer within KERNEL_TIMEOUT_MS is said in the error box.

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
    this.learned = null; // the learn request in flight: its answer's callback
  }

  /**
   * `steps` steps of `p += sign * stepSize * grad` from the current leaf values, run by the kernel; false (nothing
   * sent) while another request is in flight. `onLearned` gets `{steps, leafValues, data, grad, losses}`, or null
   * when the kernel refused or did not answer (said in the error box).
   * @param {number} steps
   * @param {number} stepSize
   * @param {number} sign
   * @param {(answer: {steps: number, leafValues: Float64Array, data: Float64Array, grad: Float64Array, losses: Float64Array} | null) => void} onLearned
   */
  learn(steps, stepSize, sign, onLearned) {
    const k = this.state;
    if (k.inflight) return false;
    k.inflight = true;
    k.seq += 1;
    this.learned = onLearned;
    const { leafValues, output } = this.request();
    this.model.send({ type: "learn", seq: k.seq, leaf_values: encodeList(leafValues), output, step_size: stepSize, steps, sign });
    this.arm();
    return true;
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
    this.arm();
  }

  /** No answer within KERNEL_TIMEOUT_MS: said in the error box (a learn request's caller hears null). */
  arm() {
    const k = this.state;
    clearTimeout(k.timer);
    k.timer = setTimeout(() => {
      if (!k.inflight) return;
      k.inflight = false;
      this.errors.showError("replay", `No kernel answered: ${this.reason}, so the numbers update only with a running kernel.`);
      this.finishLearn(null);
    }, KERNEL_TIMEOUT_MS);
  }

  /** The learn request's callback, once. */
  finishLearn(answer) {
    const done = this.learned;
    this.learned = null;
    if (done) done(answer);
  }

  /** A custom message from the kernel (and its binary buffers): true when it was the answer to the request in
   * flight. The answer's `buffers` names its Float64 buffers, ["data", "grad"]: every node's numbers. */
  onMessage(msg, buffers = []) {
    const k = this.state;
    if (!msg || (msg.type !== "replay" && msg.type !== "learn") || msg.seq !== k.seq) return false;
    k.inflight = false;
    clearTimeout(k.timer);
    const learn = msg.type === "learn";
    /** @type {Record<string, Float64Array | null> | null} */
    let read = null;
    if (msg.error) {
      this.errors.showError(learn ? "learn" : "replay", msg.error);
    } else {
      try {
        const named = Object.fromEntries((msg.buffers || []).map((name, j) => [name, buffers[j]]));
        read = { data: kernelNumbers(named.data, this.n), grad: kernelNumbers(named.grad, this.n) };
        if (learn) {
          read.leafValues = kernelNumbers(named.leaf_values, this.request().leafValues.length);
          read.losses = kernelNumbers(named.losses, Number(msg.steps));
        }
      } catch (err) {
        this.errors.showError("replay", `The kernel's answer could not be read: ${err.message}`);
        read = null;
      }
    }
    const ok = read && read.data && read.grad && (!learn || (read.leafValues && read.losses));
    if (ok) {
      this.errors.clearError("replay");
      this.setStatus(`${this.reason}.`);
    }
    if (learn) {
      this.finishLearn(ok ? { steps: Number(msg.steps), leafValues: read.leafValues, data: read.data, grad: read.grad, losses: read.losses } : null);
    } else if (ok) {
      this.onNumbers(read.data, read.grad);
    }
    if (k.pending) this.ask();
    return true;
  }

  destroy() {
    clearTimeout(this.state.timer);
    this.learned = null;
  }
}
