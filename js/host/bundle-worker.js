// @ts-check
// The views bundle started as a module worker of its own page (js/host/layout-worker.js: Graphviz; js/host/learn-worker.js:
// gradient descent). The bundle is imported from a Blob URL (js/host/loader.js, the exported page's host), so the worker
// runs the same code, not a second download; the worker's `name` tells the bundle which job it serves. A page opened
// from file:// may refuse a module worker from a Blob URL (Chromium: an error event, no message); it accepts one from a
// data: URL of the same code, the second try. Whoever starts one owns its lifetime (stop()).

/**
 * What the owner of a bundle worker hears: `spawned(worker)` for each Worker made (post its first messages there: a
 * refused first try loses them), `message(data)` for each message of the live one, `failed()` once when none could
 * start or the started one died.
 * @typedef {object} BundleWorkerHooks
 * @property {(worker: Worker) => void} spawned
 * @property {(data: any) => void} message
 * @property {() => void} failed
 */

/**
 * A started bundle worker: post to it, or stop it (terminated; nothing more is heard from it).
 * @typedef {object} BundleWorker
 * @property {(message: unknown, transfer?: Transferable[]) => void} post
 * @property {() => void} stop
 */

/** True where a page may start a worker (not inside one: a worker does not start the bundle again). */
export function workersAvailable() {
  return typeof Worker === "function" && !("WorkerGlobalScope" in globalThis);
}

/**
 * True in the bundle started as the worker named `name` (the job it serves).
 * @param {string} name
 * @returns {boolean}
 */
export function startedAs(name) {
  return "WorkerGlobalScope" in globalThis && /** @type {{name?: string}} */ (globalThis).name === name;
}

/** The bundle's code as a data: URL (the second try). */
async function dataURL() {
  const code = await (await fetch(import.meta.url)).text();
  return `data:text/javascript;charset=utf-8,${encodeURIComponent(code)}`;
}

/**
 * Start this bundle as a module worker named `name`; `hooks` hears from it (BundleWorkerHooks).
 * @param {string} name
 * @param {BundleWorkerHooks} hooks
 * @returns {BundleWorker}
 */
export function startBundleWorker(name, hooks) {
  /** @type {Worker | null} */
  let worker = null;
  let stopped = false;
  let heard = false; // the worker has answered: an error from now on is its death, not a refused start
  const stop = () => {
    stopped = true;
    if (worker) worker.terminate();
    worker = null;
  };
  const fail = () => {
    if (stopped) return;
    stop();
    hooks.failed();
  };
  /** @param {string} url @param {boolean} firstTry */
  const spawn = (url, firstTry) => {
    const retry = () => {
      if (worker) worker.terminate();
      worker = null;
      dataURL().then((data) => { if (!stopped) spawn(data, false); }, fail);
    };
    /** @type {Worker} */
    let mine;
    try {
      mine = worker = new Worker(url, { type: "module", name });
    } catch {
      if (firstTry) return retry();
      return fail();
    }
    mine.onerror = (event) => {
      event.preventDefault();
      if (mine !== worker) return;
      if (firstTry && !heard) retry();
      else fail();
    };
    mine.onmessageerror = () => { if (mine === worker) fail(); };
    mine.onmessage = ({ data }) => {
      if (mine !== worker) return; // a worker stopped since
      heard = true;
      hooks.message(data);
    };
    hooks.spawned(mine);
  };
  spawn(import.meta.url, true);
  return {
    post: (message, transfer = []) => { if (worker) worker.postMessage(message, transfer); },
    stop,
  };
}
