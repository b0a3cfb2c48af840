// @ts-check
// Train's gradient descent in a Web Worker (issue 21), so the page's thread only paints. A second worker beside
// Graphviz's (js/host/layout-worker.js), not a role of it: a layout (seconds, uninterruptible, under a watchdog that
// terminates its worker) must not wait behind a run of training, nor a run behind a layout. Each graph view that
// trains owns one (js/graph/learn-panel.js), started from the views bundle's URL (js/host/bundle-worker.js) under
// its own name, so the bundle notices it runs as this worker and serves descent.
//
// The protocol: the page posts the tape's replay arrays once per worker ({tape}), then {start: {id, values, params,
// output, h}} for each run and {stop: id} to end it. The worker runs js/core/learn.js's Descent in chunks of about
// CHUNK_MS (one frame), and after each posts {id, steps, values, losses, data, grad}: the steps taken since the run
// started, the leaf values after them, each step's loss, and the replay at those values (data and grad, transferred;
// the next step reuses it, as on the main thread). An op failure ends the run with {id, steps, values, losses, error}.
// Each update is whole: the page takes the last one it got and drops what comes after {stop}, so the step count is
// always the steps applied to the values it holds, and the floats are the main thread's (same code, same order).
// The worker yields between chunks (a MessageChannel: no timer clamp), so {stop} is heard within a chunk.
// Lifetime: a stopped run leaves the worker open IDLE_MS for the next Play, then it is terminated; close() (the view
// went) terminates it at once. When no worker can start or none says {ready} within START_MS (no Worker, a CSP forbidding blob: and data: workers) or it
// dies, `onGone` says so and the view trains on its own thread from then on.

import { Descent } from "../core/learn.js";
import { startBundleWorker, startedAs, workersAvailable } from "./bundle-worker.js";

/** @import { Tape } from "../core/spec.js" */

const NAME = "micrograd-widget-learn";
const CHUNK_MS = 16; // the worker's steps between two updates: about one frame
const IDLE_MS = 10_000; // a worker with no run is terminated after this long
const START_MS = 5000; // a worker not ready by then is given up (the bundle's sources loaded unbundled: no server)

/**
 * One update of a run, as the page receives it.
 * @typedef {object} DescentUpdate
 * @property {number} id the run
 * @property {number} steps steps taken since the run started
 * @property {Float64Array} values the leaf values after them
 * @property {Float64Array} losses the losses of the steps since the last update (the output before each move)
 * @property {Float64Array} [data] every node's data at `values` (absent with `error`)
 * @property {Float64Array} [grad] every node's grad of the output at `values`
 * @property {string} [error] why the run ended (an op failed)
 */

/** True in the learn worker (the bundle started as one). */
export function inLearnWorker() {
  return startedAs(NAME);
}

/**
 * What a worker needs of a tape to replay it (its typed arrays, cloned once per worker).
 * @param {Tape} tape
 */
function replayArrays(tape) {
  const { n, root, leaves, code, a, b, k, replayable, reason } = tape;
  return { n, root, leaves, code, a, b, k, replayable, reason };
}

// ------------------------------------------------------------------ the worker's side

/**
 * The worker's side: answer {tape}, {start} and {stop} (the protocol above), posting with `post`. Returns the message
 * handler; `chunkMs` is how long one chunk of steps runs.
 * @param {(message: object, transfer: Transferable[]) => void} post
 * @param {(next: () => void) => void} yieldThen runs `next` after the messages waiting are handled
 * @param {number} [chunkMs]
 * @returns {(data: any) => void}
 */
export function descentServer(post, yieldThen, chunkMs = CHUNK_MS) {
  /** @type {any} */
  let tape = null;
  /** @type {{id: number, h: number, run: Descent} | null} */
  let current = null;
  let scheduled = false; // one chunk waits at a time, however many runs started
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    yieldThen(chunk);
  };
  const chunk = () => {
    scheduled = false;
    const job = current;
    if (!job) return;
    const { run } = job;
    const start = performance.now();
    run.losses = [];
    let error = "";
    try {
      do run.run(1, job.h);
      while (performance.now() - start < chunkMs);
      if (!run.replayed()) error = "an op failed at these values";
    } catch (err) {
      error = String(/** @type {Error} */ (err).message ?? err);
    }
    const update = { id: job.id, steps: run.steps, values: Float64Array.from(run.values), losses: Float64Array.from(run.losses) };
    if (error) {
      current = null;
      post({ ...update, error }, [update.values.buffer, update.losses.buffer]);
      return;
    }
    const data = Float64Array.from(run.work.data);
    const grad = Float64Array.from(run.work.grad);
    post({ ...update, data, grad }, [update.values.buffer, update.losses.buffer, data.buffer, grad.buffer]);
    schedule();
  };
  return (data) => {
    if (data.tape) tape = data.tape;
    if (data.stop !== undefined && current && current.id === data.stop) current = null;
    if (data.start) {
      const { id, values, params, output, h } = data.start;
      current = { id, h, run: new Descent(tape, values, params, output) };
      schedule();
    }
  };
}

/** Serve descent in this worker (the bundle started as the learn worker). */
function serveDescent() {
  const channel = new MessageChannel();
  /** @type {(() => void) | null} */
  let next = null;
  channel.port1.onmessage = () => {
    const fn = next;
    next = null;
    if (fn) fn();
  };
  const handle = descentServer((message, transfer) => globalThis.postMessage(message, { transfer }), (fn) => {
    next = fn;
    channel.port2.postMessage(0);
  });
  globalThis.onmessage = ({ data }) => handle(data);
  globalThis.postMessage({ ready: true });
}

if (inLearnWorker()) serveDescent();

// ------------------------------------------------------------------ the page's side

/** A view's descent worker: start a run, hear its updates, stop it; closed when idle or by close(). */
export class DescentWorker {
  /**
   * @param {Tape} tape
   * @param {{idleMs?: number}} [options]
   */
  constructor(tape, { idleMs = IDLE_MS } = {}) {
    this.tape = tape;
    this.idleMs = idleMs;
    /** @type {import("./bundle-worker.js").BundleWorker | null} */
    this.worker = null;
    this.failed = !workersAvailable();
    this.runId = 0;
    /** @type {{id: number, values: Float64Array, params: number[], output: number, h: number} | null} the run going,
     * posted again to a worker started afresh */
    this.current = null;
    /** @type {((update: DescentUpdate) => void) | null} */
    this.onUpdate = null;
    /** @type {(() => void) | null} */
    this.onGone = null;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.idleTimer = undefined;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.startTimer = undefined;
  }

  /** Whether a run can go to a worker (none could start: the caller steps on its own thread). */
  get usable() {
    return !this.failed;
  }

  /**
   * Start a run of descent from `values` (leaf values, tape.leaves order) moving `params` by step size `h` on the grads
   * of node `output`: `onUpdate` hears each whole update, `onGone` that the worker died (the run is over; step here).
   * Returns false when no worker can start.
   * @param {{values: Float64Array, params: Int32Array | number[], output: number, h: number}} run
   * @param {(update: DescentUpdate) => void} onUpdate
   * @param {() => void} onGone
   * @returns {boolean}
   */
  start({ values, params, output, h }, onUpdate, onGone) {
    if (this.failed) return false;
    clearTimeout(this.idleTimer);
    this.stop();
    this.onUpdate = onUpdate;
    this.onGone = onGone;
    this.runId += 1;
    this.current = { id: this.runId, values: Float64Array.from(values), params: Array.from(params), output, h };
    if (!this.worker) this.open();
    else this.worker.post({ start: this.current });
    return !this.failed;
  }

  /** End the run going: nothing more is heard of it; the worker closes after idleMs unless a run starts. */
  stop() {
    if (!this.current) return;
    if (this.worker) this.worker.post({ stop: this.current.id });
    this.current = null;
    this.onUpdate = null;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => this.close(), this.idleMs);
  }

  /** Terminate the worker now (the view is gone, or it has been idle). */
  close() {
    clearTimeout(this.idleTimer);
    clearTimeout(this.startTimer);
    this.current = null;
    this.onUpdate = null;
    if (this.worker) this.worker.stop();
    this.worker = null;
  }

  open() {
    clearTimeout(this.startTimer);
    const mine = this.worker = startBundleWorker(NAME, {
      spawned: (w) => {
        w.postMessage({ tape: replayArrays(this.tape) });
        if (this.current) w.postMessage({ start: this.current });
      },
      message: (data) => {
        if (data.ready) {
          clearTimeout(this.startTimer);
          return;
        }
        if (mine !== this.worker || !this.current || data.id !== this.current.id) return; // a stopped run's
        if (this.onUpdate) this.onUpdate(data);
        if (data.error) this.stop(); // the run ended there (the idle timer starts)
      },
      failed: () => {
        if (mine !== this.worker) return;
        clearTimeout(this.startTimer);
        this.worker = null;
        this.failed = true;
        const gone = this.current ? this.onGone : null;
        this.current = null;
        if (gone) gone();
      },
    });
    this.startTimer = setTimeout(() => { if (mine === this.worker) this.giveUp(); }, START_MS);
  }

  /** The worker never said it was ready: stop it; the page steps on its own thread from now on. */
  giveUp() {
    const gone = this.current ? this.onGone : null;
    this.close();
    this.failed = true;
    if (gone) gone();
  }
}
