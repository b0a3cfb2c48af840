// Graphviz in a Web Worker (issue 9): the page stays responsive while a picture is laid out. One module worker
// per page, started from the views bundle's own URL (js/loader.js imports the bundle from a Blob URL and keeps
// it), so Graphviz's JS is not shipped twice; the bundle notices it runs as this worker (its name) and answers
// layout messages; Graphviz's WebAssembly bytes (js/graphviz-wasm.js's provider) are posted to it once.
// When no worker can start (no Worker, a CSP forbidding blob: and data: workers, a bundle without its WebAssembly
// provider) or it dies, layouts run on the main thread from then on, with no error for the user. Prefetches
// (`low`) go after what a view waits for. The worker's stack is smaller than the page's: js/graphviz.js lays out
// a picture too deep for it on the main thread. Views hold it (holdLayoutWorker); unheld, it closes when idle.

import { provideWasm, wasmBytes } from "./graphviz-wasm.js";

const NAME = "micrograd-widget-graphviz";
const IDLE_MS = 10_000; // a worker with no view left is closed after this long

/** True in the layout worker (the bundle started as one). */
export function inLayoutWorker() {
  return typeof WorkerGlobalScope !== "undefined" && globalThis.name === NAME;
}

/** The worker's side: answer {id, dot} with {id, svg} or {id, error: {name, message}} using `layout(dot)`. */
export function serveLayouts(layout) {
  let queue = Promise.resolve();
  let gotWasm;
  const wasm = new Promise((resolve) => { gotWasm = resolve; }); // the page may send it after a layout
  provideWasm(() => wasm);
  globalThis.onmessage = ({ data }) => {
    if (data.wasm) {
      gotWasm(data.wasm);
      return;
    }
    queue = queue.then(async () => {
      try {
        globalThis.postMessage({ id: data.id, svg: await layout(data.dot) });
      } catch (err) {
        globalThis.postMessage({ id: data.id, error: { name: err?.name ?? "Error", message: String(err?.message ?? err) } });
      }
    });
  };
  globalThis.postMessage({ ready: true });
}

// The page's side. state: "none" (not tried yet), "starting", "ready", "gone" (main thread from now on).
let worker = null;
let state = "none";
let running = null; // the job the worker is laying out
const waiting = []; // jobs not sent yet: { dot, low, resolve, reject, cancelled }
let nextId = 0;
let users = 0;
let idleTimer = 0;
let last = "main"; // where the last finished layout ran

/** Where the last layout ran: "worker" or "main". */
export function lastLayoutThread() {
  return last;
}

/** Note a layout that ran on the main thread. */
export function ranOnMain() {
  last = "main";
}

/** The thread that lays out from now on: "worker" (started or starting) or "main". */
export function layoutThread() {
  return state === "starting" || state === "ready" ? "worker" : "main";
}

/** A view holds the worker while shown; `release` (returned) lets it go (closed when no view has held it for a while). */
export function holdLayoutWorker() {
  users += 1;
  clearTimeout(idleTimer);
  let held = true;
  return () => {
    if (!held) return;
    held = false;
    users -= 1;
    if (users === 0) idleTimer = setTimeout(close, IDLE_MS);
  };
}

function close() {
  if (users > 0 || running || waiting.length || !worker) return;
  worker.terminate();
  worker = null;
  state = "none";
}

/** Give up on the worker: every job not answered runs on the main thread (each job's `fallback`). */
function gone() {
  if (worker) worker.terminate();
  worker = null;
  state = "gone";
  const jobs = running ? [running, ...waiting] : [...waiting];
  running = null;
  waiting.length = 0;
  for (const job of jobs) job.reject(Object.assign(new Error("the layout worker stopped"), { name: "WorkerGone" }));
}

function start() {
  state = "gone";
  if (typeof Worker !== "function" || typeof WorkerGlobalScope !== "undefined") return;
  let bytes;
  try {
    bytes = wasmBytes(); // throws when this bundle was given no WebAssembly (sources loaded as they are)
  } catch {
    return;
  }
  state = "starting";
  spawn(import.meta.url, bytes, true);
}

// A page opened from file:// may not start a module worker from a Blob URL (Chromium: an error event, no
// message); it may from a data: URL of the same code, the second try.
async function dataURL() {
  const code = await (await fetch(import.meta.url)).text();
  return `data:text/javascript;charset=utf-8,${encodeURIComponent(code)}`;
}

function spawn(url, bytes, firstTry) {
  const retry = () => {
    worker?.terminate();
    worker = null;
    dataURL().then((data) => state === "starting" && spawn(data, bytes, false), gone);
  };
  try {
    worker = new Worker(url, { type: "module", name: NAME });
  } catch {
    if (firstTry) return retry();
    return gone();
  }
  const mine = worker;
  worker.onerror = (event) => {
    event.preventDefault();
    if (mine !== worker) return;
    if (firstTry && state === "starting") retry();
    else gone();
  };
  worker.onmessageerror = gone;
  worker.onmessage = ({ data }) => {
    if (data.ready) {
      state = "ready";
      pump();
      return;
    }
    const job = running;
    if (!job || job.id !== data.id) return;
    running = null;
    last = "worker";
    if (data.error) job.reject(Object.assign(data.error.name === "RangeError" ? new RangeError(data.error.message) : new Error(data.error.message), { name: data.error.name }));
    else job.resolve(data.svg);
    pump();
    if (users === 0) {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(close, IDLE_MS);
    }
  };
  Promise.resolve(bytes).then((wasm) => mine === worker && worker.postMessage({ wasm }), gone);
}

function pump() {
  if (state !== "ready" || running) return;
  for (let k = 0; k < waiting.length; k++) if (waiting[k].cancelled) waiting.splice(k--, 1)[0].resolve(null);
  if (!waiting.length) return;
  const k = Math.max(0, waiting.findIndex((job) => !job.low)); // what a view waits for first, then prefetches
  running = waiting.splice(k, 1)[0];
  running.id = ++nextId;
  worker.postMessage({ id: running.id, dot: running.dot });
}

/**
 * Lay `dot` out in the worker: a Promise of the SVG text, or null when there is no worker (lay it out here).
 * `low`: a prefetch, sent after every other job; `signal.cancelled` set before it is sent drops it (resolves null).
 */
export function workerLayout(dot, { low = false, signal = null } = {}) {
  if (state === "none") start();
  if (state === "gone") return null;
  return new Promise((resolve, reject) => {
    const job = { dot, low, resolve, reject, get cancelled() { return !!signal?.cancelled; } };
    waiting.push(job);
    pump();
  });
}
