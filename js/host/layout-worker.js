// @ts-check
// Graphviz in a Web Worker (issue 9): the page stays responsive while a picture is laid out. One module worker
// per page, started from the views bundle's own URL (js/host/bundle-worker.js), so Graphviz's JS is not shipped twice; the bundle notices it runs as this worker (its name) and answers
// layout messages; Graphviz's WebAssembly bytes (js/host/graphviz-wasm.js's provider) are posted to it once.
// When no worker can start (no Worker, a CSP forbidding blob: and data: workers, a bundle without its WebAssembly
// provider) or it dies, layouts run on the main thread from then on, with no error for the user. Prefetches
// (`low`) go after what a view waits for. The worker's stack is smaller than the page's: js/host/graphviz.js lays out
// a picture too deep for it on the main thread. Views hold it (holdLayoutWorker); unheld, it closes when idle.
// A watchdog stops a layout that runs too long (jobMs): Graphviz cannot be interrupted, so the worker is terminated,
// that job fails with what to do, and the jobs queued behind it go to a fresh worker (never to the main thread,
// which a pathological layout would freeze). A layout a view waits for is held at most YIELD_MS by one nobody
// waits for any more (an early layout, or a picture replaced since it was sent): that one is dropped the same way.

import { provideWasm, wasmBytes } from "./graphviz-wasm.js";
import { LAYOUT_TIME_LIMIT_MS } from "../core/shared.js";
import { startBundleWorker, startedAs, workersAvailable } from "./bundle-worker.js";

const NAME = "micrograd-widget-graphviz";
const IDLE_MS = 10_000; // a worker with no view left is closed after this long
// One layout may run this long (the kernel's dot too: picture/layout.py DOT_TIME_LIMIT). Pictures within the node budget lay out in under 3 s here (the moons loss after
// Expand all that fits: ~1.4 s); a 10x slower machine still finishes them. Past a minute the user is better served
// by a message (fold more) than by a page whose every later layout, of every view, waits behind this one.
const JOB_MS = LAYOUT_TIME_LIMIT_MS;
const limits = { idleMs: IDLE_MS, jobMs: JOB_MS };
// A view's layout waits this long at most behind one nobody waits for. An early layout of a large picture can take
// tens of seconds (the moons loss at node_budget=2000: its largest box opened runs past the watchdog), and opening a
// small box meanwhile waited for all of it; a fresh worker costs a compile of Graphviz (~0.1-0.3 s), so a short
// early layout is let finish. Not shorter: a fresh worker's first large layout runs Graphviz before its WebAssembly
// is optimised (opening a neuron beside 1,182 boxes at node_budget=2000 took 4.4-6.6 s with the early layout dropped
// at once, 1.8-2.0 s waiting for it); graph/early-layouts.js lays no large picture out early instead.
const YIELD_MS = 500;

/**
 * What a view sets to say it no longer waits for a layout (graph/picture.js, graph/early-layouts.js).
 * @typedef {{cancelled?: boolean}} LayoutSignal
 */

/**
 * A picture laid out (js/host/graphviz.js layOut): its SVG text and, for a composed picture, its edges apart as numbers
 * (js/picture/edges.js EdgeTable: the page writes an edge's markup only as it comes near sight) and its boxes' tooltips
 * apart (js/picture/tooltips.js: the page gives a box its anchor when the pointer comes over it); null: every edge, or
 * every tooltip, is in the text.
 * @typedef {{svg: string, edges: import("../picture/edges.js").EdgeTable | null,
 *   tips: import("../picture/tooltips.js").Tooltips | null}} LaidOut
 */

/**
 * The page's message to the worker: Graphviz's WebAssembly (once), or a layout to make.
 * @typedef {{wasm: Uint8Array, id?: undefined, dot?: undefined} | {wasm?: undefined, id: number, dot: string}} ToWorker
 */

/**
 * The worker's message to the page: it is ready, or a layout, or why that layout failed.
 * @typedef {{ready: true, id?: undefined, laid?: undefined, error?: undefined}
 *   | {ready?: undefined, id: number, laid: LaidOut, error?: undefined}
 *   | {ready?: undefined, id: number, laid?: undefined, error: {name: string, message: string}}} FromWorker
 */

/**
 * This thread's global scope as the worker's side uses it. The type check knows the page's (lib "dom"), not a
 * worker's: its postMessage without a target origin.
 * @typedef {object} WorkerScope
 * @property {((event: MessageEvent<ToWorker>) => void) | null} onmessage
 * @property {(message: FromWorker) => void} postMessage
 */

// A cast through unknown: typeof globalThis is the page's Window, which a worker's scope is not.
const scope = /** @type {WorkerScope} */ (/** @type {unknown} */ (globalThis));

/**
 * A layout asked for: queued in `waiting`, then `running` (id, limitMs and timer are set when it is sent).
 * @typedef {object} Job
 * @property {string} dot
 * @property {boolean} low a prefetch
 * @property {(laid: LaidOut | null) => void} resolve
 * @property {(err: Error) => void} reject
 * @property {boolean} cancelled its view's LayoutSignal.cancelled, read when it is looked at
 * @property {number} id
 * @property {number} limitMs
 * @property {number} timer the watchdog's
 */

/**
 * The worker's time limits, for hosts and tests: `idleMs`, how long a worker no view holds stays open (default
 * 10 s), and `jobMs`, how long one layout may run in it before the worker is stopped (default 60 s); each read when
 * its timer starts. Returns the limits in force; `layoutWorkerLimits()` only reads them.
 * @param {{idleMs?: number, jobMs?: number}} [wanted]
 * @returns {{idleMs: number, jobMs: number}}
 */
export function layoutWorkerLimits({ idleMs = limits.idleMs, jobMs = limits.jobMs } = {}) {
  /** @type {[string, number][]} */
  const given = [["idleMs", idleMs], ["jobMs", jobMs]];
  for (const [name, ms] of given) {
    if (typeof ms !== "number" || !(ms > 0) || ms === Infinity) throw new RangeError(`${name} must be a positive number of ms, got ${ms}`);
  }
  Object.assign(limits, { idleMs, jobMs });
  return { ...limits };
}

/**
 * True in the layout worker (the bundle started as one).
 * @returns {boolean}
 */
export function inLayoutWorker() {
  return startedAs(NAME);
}

/**
 * The worker's side: answer {id, dot} with {id, laid} or {id, error: {name, message}} using `layout(dot)`.
 * @param {(dot: string) => Promise<LaidOut>} layout
 */
export function serveLayouts(layout) {
  /** @type {Promise<void>} */
  let queue = Promise.resolve();
  /** @type {(wasm: Uint8Array) => void} */
  let gotWasm = () => {};
  /** @type {Promise<Uint8Array>} */
  const wasm = new Promise((resolve) => { gotWasm = resolve; }); // the page may send it after a layout
  provideWasm(() => wasm);
  scope.onmessage = ({ data }) => {
    if (data.wasm) {
      gotWasm(data.wasm);
      return;
    }
    const { id, dot } = data;
    queue = queue.then(async () => {
      try {
        scope.postMessage({ id, laid: await layout(dot) });
      } catch (err) {
        const e = /** @type {{name?: string, message?: string} | null | undefined} */ (err);
        scope.postMessage({ id, error: { name: e?.name ?? "Error", message: String(e?.message ?? err) } });
      }
    });
  };
  scope.postMessage({ ready: true });
}

// The page's side. state: "none" (no worker now: not tried yet, or closed when idle or by the watchdog; the next
// layout starts one), "starting", "ready", "gone" (main thread from now on).
/** @type {import("./bundle-worker.js").BundleWorker | null} */
let worker = null;
/** @type {"none" | "starting" | "ready" | "gone"} */
let state = "none";
let started = false; // a worker has run on this page: one can start again once closed
/** @type {Job | null} */
let running = null; // the job the worker is laying out
/** @type {Job[]} */
const waiting = []; // jobs not sent yet
let nextId = 0;
let users = 0;
let idleTimer = 0;
/** @type {"worker" | "main"} */
let last = "main"; // where the last finished layout ran
/** @type {{job: Job, timer: number} | null} */
let yielding = null; // the running job nobody waits for, due to be dropped for a waiting one: { job, timer }

/**
 * Where the last layout ran: "worker" or "main".
 * @returns {"worker" | "main"}
 */
export function lastLayoutThread() {
  return last;
}

/** Note a layout that ran on the main thread. */
export function ranOnMain() {
  last = "main";
}

/** The thread that lays out from now on: "worker" (started, starting, or closed since and started again by the next
 * layout) or "main" (no worker could start, or none was tried yet: the first layout tries).
 * @returns {"worker" | "main"}
 */
export function layoutThread() {
  return state === "starting" || state === "ready" || (state === "none" && started) ? "worker" : "main";
}

/**
 * A view holds the worker while shown; `release` (returned) lets it go (closed when no view has held it for a while).
 * @returns {() => void}
 */
export function holdLayoutWorker() {
  users += 1;
  clearTimeout(idleTimer);
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    users -= 1;
    if (users === 0) idleTimer = setTimeout(close, limits.idleMs);
  };
}

/** @type {(() => void)[]} */
const unheld = []; // what a thread lets go of when no view has held layouts for limits.idleMs (whenUnheld)

/**
 * Call `forget` each time no view has held layouts for `idleMs` (when the worker, if one runs, is closed): the main
 * thread's own Graphviz and what it keeps (js/host/graphviz.js) go with the last view, as the worker's do.
 * @param {() => void} forget
 */
export function whenUnheld(forget) {
  unheld.push(forget);
}

function close() {
  if (users > 0 || running || waiting.length) return;
  for (const forget of unheld) forget();
  if (!worker) return;
  worker.stop();
  worker = null;
  state = "none";
}

/** Give up on the worker: every job not answered runs on the main thread (each job's `fallback`). */
function gone() {
  if (worker) worker.stop();
  worker = null;
  state = "gone";
  const jobs = running ? [running, ...waiting] : [...waiting];
  if (running) clearTimeout(running.timer);
  running = null;
  waiting.length = 0;
  for (const job of jobs) job.reject(Object.assign(new Error("the layout worker stopped"), { name: "WorkerGone" }));
}

function start() {
  state = "gone";
  if (!workersAvailable()) return;
  let bytes;
  try {
    bytes = wasmBytes(); // throws when this bundle was given no WebAssembly (sources loaded as they are)
  } catch {
    return;
  }
  state = "starting";
  const mine = worker = startBundleWorker(NAME, {
    spawned: (w) => { Promise.resolve(bytes).then((wasm) => mine === worker && w.postMessage({ wasm }), gone); },
    message: (data) => { if (mine === worker) answer(data); }, // not from a worker stopped since (the watchdog)
    failed: () => { if (mine === worker) gone(); },
  });
}

/**
 * A message of the worker: it is ready, or a layout is done.
 * @param {FromWorker} data
 */
function answer(data) {
  if (data.ready) {
    state = "ready";
    started = true;
    pump();
    return;
  }
  const job = running;
  if (!job || job.id !== data.id) return;
  clearTimeout(job.timer);
  running = null;
  last = "worker";
  if (data.error) job.reject(Object.assign(data.error.name === "RangeError" ? new RangeError(data.error.message) : new Error(data.error.message), { name: data.error.name }));
  else job.resolve(/** @type {LaidOut} */ (data.laid));
  pump();
  if (users === 0) {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(close, limits.idleMs);
  }
}

function pump() {
  if (state !== "ready" || running || !worker) return; // a worker is ready: `worker` is it
  for (let k = 0; k < waiting.length; k++) if (waiting[k].cancelled) waiting.splice(k--, 1)[0].resolve(null);
  if (!waiting.length) return;
  const k = Math.max(0, waiting.findIndex((job) => !job.low)); // what a view waits for first, then prefetches
  const job = running = waiting.splice(k, 1)[0];
  job.id = ++nextId;
  job.limitMs = limits.jobMs;
  job.timer = setTimeout(() => tooLong(job), job.limitMs);
  worker.post({ id: job.id, dot: job.dot });
}

/**
 * The watchdog: `job` has run past limits.jobMs. Stop the worker, fail the job, start a fresh one for the rest.
 * @param {Job} job
 */
function tooLong(job) {
  if (job !== running) return;
  stopRunning();
  job.reject(Object.assign(new Error(`Graphviz was stopped after laying out this picture for ${job.limitMs / 1000} s `
    + "(at the default node budget a picture takes a few seconds); draw fewer boxes: close opened boxes, or lower the "
    + "node budget (explore(root, node_budget=100))"), { name: "LayoutTimeout" }));
  startForTheRest();
}

/** Nobody waits for the running job (an early layout, or a picture replaced since it was sent; `signal.cancelled`)
 * while a view waits for one queued behind it.
 * @param {Job} job
 * @returns {boolean}
 */
function needless(job) {
  return job.low || job.cancelled;
}

/** A view's layout was queued: if the running job is needless, it is dropped in YIELD_MS unless it is over by then. */
function yieldSoon() {
  if (!running || !needless(running) || (yielding && yielding.job === running)) return;
  const job = running;
  clearTimeout(yielding?.timer);
  yielding = { job, timer: setTimeout(() => {
    yielding = null;
    if (job !== running || !needless(job) || !waiting.some((w) => !needless(w))) return;
    stopRunning();
    job.resolve(null); // an early layout not made (the view lays it out when asked), or a picture nobody shows
    startForTheRest();
  }, YIELD_MS) };
}

/** Stop the worker and its running job's timers (the job is settled by the caller). */
function stopRunning() {
  if (running) clearTimeout(running.timer);
  if (yielding && yielding.job === running) {
    clearTimeout(yielding.timer);
    yielding = null;
  }
  worker?.stop(); // always one while a job runs
  worker = null;
  state = "none";
  running = null;
}

/** After stopRunning: the jobs queued go to a fresh worker (none is started for nothing). */
function startForTheRest() {
  if (!waiting.length) return; // the next layout starts a worker
  start();
  if (state === "gone") gone(); // no worker after all: they run on the main thread, as when none ever started
}

/**
 * Lay `dot` out in the worker: a Promise of the picture laid out, or null when there is no worker (lay it out here).
 * `low`: a prefetch, sent after every other job; `signal.cancelled` set before it is sent drops it (resolves null),
 * and set after, lets a view's layout queued behind it drop it too (YIELD_MS).
 * @param {string} dot
 * @param {{low?: boolean, signal?: LayoutSignal | null}} [options]
 * @returns {Promise<LaidOut | null> | null}
 */
export function workerLayout(dot, { low = false, signal = null } = {}) {
  if (state === "none") start();
  if (state === "gone") return null;
  return new Promise((resolve, reject) => {
    /** @type {Job} */
    const job = { dot, low, resolve, reject, get cancelled() { return !!signal?.cancelled; }, id: 0, limitMs: 0, timer: 0 };
    waiting.push(job);
    pump();
    if (!low) yieldSoon();
  });
}
