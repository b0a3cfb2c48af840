// @ts-check
// The `_esm` of every GraphWidget and TrainingWidget (built to static/loader.js, a few KB). The heavy code,
// both views and Graphviz's WebAssembly, travels once per notebook in one shared assets model; this loader
// finds it, imports the views once per page and calls the right view's render, returning its cleanup.
//
// The assets model, the widget traits that name it and the {"type": "assets"} request and reply are
// js/host/assets-contract.md; the types below say the same in JSDoc.

/** @import { WidgetModel } from "./host.js" */

/**
 * What the views bundle (static/views.js) exports, as the loader keeps it: each view's anywidget `{render}`.
 * @typedef {{views: Record<string, {render: (how: {model: WidgetModel, el: HTMLElement}) => unknown}>, css: string}} LoadedViews
 */

/**
 * The kernel's reply to {"type": "assets"}: with two buffers [code, wasm] and `css`, or an `error` (and, when it
 * is too soon to send them again, `retry_after` seconds) with none.
 * @typedef {object} AssetsReply
 * @property {"assets"} type
 * @property {string} [digest]
 * @property {string} [css]
 * @property {string} [error]
 * @property {number} [retry_after]
 */

const REF = "IPY_MODEL_";
const CACHE = Symbol.for("micrograd-widget.views");
/** The page-wide cache: digest -> the views imported. */
const pageCache = () => /** @type {{[CACHE]?: Map<string, Promise<LoadedViews>>}} */ (globalThis);
const GET_MODEL_MS = 5000;
const ASK_KERNEL_MS = 8000;
const ASK_AGAIN = 2; // times the loader asks again when the kernel says "not yet" (retry_after)
const MAX_RETRY_S = 30;

/**
 * The bytes of a DataView, ArrayBuffer or typed array (null for anything else).
 * @param {unknown} value
 * @returns {Uint8Array<ArrayBuffer> | null}
 */
function bytesOf(value) {
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  // A front end delivers bytes in an ArrayBuffer (never a SharedArrayBuffer, which a Blob cannot take).
  if (ArrayBuffer.isView(value)) return new Uint8Array(/** @type {ArrayBuffer} */ (value.buffer), value.byteOffset, value.byteLength);
  return null;
}

/**
 * @param {Uint8Array<ArrayBuffer>} bytes
 * @returns {Promise<Uint8Array<ArrayBuffer>>}
 */
async function gunzip(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/**
 * @template T
 * @param {Promise<T>} promise
 * @param {number} ms
 * @param {string} what
 * @returns {Promise<T>}
 */
function withTimeout(promise, ms, what) {
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer in ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/**
 * @param {Uint8Array<ArrayBuffer>} code
 * @param {Uint8Array<ArrayBuffer>} wasm
 * @param {string} css
 * @returns {Promise<LoadedViews>}
 */
async function importViews(code, wasm, css) {
  // The URL is kept (not revoked): the bundle starts its layout worker from its own URL (js/host/layout-worker.js).
  const url = URL.createObjectURL(new Blob([await gunzip(code)], { type: "text/javascript" }));
  let mod;
  try {
    mod = await import(/* webpackIgnore: true */ /* @vite-ignore */ url);
  } catch (err) {
    URL.revokeObjectURL(url);
    throw err;
  }
  if (!mod.views || typeof mod.provideWasm !== "function") throw new Error("the assets' code is not micrograd-widget's views bundle");
  let inflated = null;
  mod.provideWasm(() => (inflated ??= gunzip(wasm)));
  return { views: mod.views, css };
}

/**
 * The views (and their CSS) for these assets, imported once per page per digest.
 * @param {unknown} digest
 * @param {Uint8Array<ArrayBuffer> | null} code
 * @param {Uint8Array<ArrayBuffer> | null} wasm
 * @param {unknown} css
 * @returns {Promise<LoadedViews>}
 */
function viewsFor(digest, code, wasm, css) {
  if (typeof digest !== "string" || !digest || !code || !code.length || !wasm || !wasm.length) {
    throw new Error("the assets are empty");
  }
  const cache = (pageCache()[CACHE] ??= new Map());
  let entry = cache.get(digest);
  if (!entry) {
    entry = importViews(code, wasm, typeof css === "string" ? css : "");
    cache.set(digest, entry);
    entry.catch(() => cache.delete(digest));
  }
  return entry;
}

/**
 * @param {WidgetModel} model
 * @returns {Promise<LoadedViews>}
 */
async function fromAssetsModel(model) {
  const ref = model.get("_mgw_assets");
  if (typeof ref !== "string" || !ref.startsWith(REF)) throw new Error("this widget names no assets model");
  const manager = model.widget_manager;
  if (!manager || typeof manager.get_model !== "function") throw new Error("this front end cannot reach other widget models");
  const id = ref.slice(REF.length);
  const assets = await withTimeout(Promise.resolve(manager.get_model(id)), GET_MODEL_MS, "the widget manager");
  if (!assets || typeof assets.get !== "function") throw new Error(`the assets model ${id} is not in this page`);
  return viewsFor(assets.get("digest"), bytesOf(assets.get("code")), bytesOf(assets.get("wasm")), assets.get("css"));
}

/**
 * @param {WidgetModel} model
 * @returns {Promise<LoadedViews>}
 */
function askKernel(model) {
  return new Promise((resolve, reject) => {
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    let asked = 0;
    /** @type {(fn: (value: any) => void, value: unknown) => void} */
    const done = (fn, value) => {
      clearTimeout(timer);
      model.off("msg:custom", onMessage);
      fn(value);
    };
    const ask = () => {
      asked += 1;
      timer = setTimeout(() => done(reject, new Error("no kernel answered")), ASK_KERNEL_MS);
      try {
        model.send({ type: "assets" });
      } catch (err) {
        done(reject, err);
      }
    };
    /** @type {(msg: AssetsReply | null, buffers?: (DataView | ArrayBuffer)[]) => void} */
    const onMessage = (msg, buffers) => {
      if (!msg || msg.type !== "assets") return;
      if (msg.error || !buffers || buffers.length < 2) {
        const cached = typeof msg.digest === "string" ? pageCache()[CACHE]?.get(msg.digest) : undefined;
        const wait = Number(msg.retry_after);
        if (cached) {
          done(resolve, cached);
        } else if (msg.retry_after != null && wait >= 0 && wait <= MAX_RETRY_S && asked <= ASK_AGAIN) {
          clearTimeout(timer);
          timer = setTimeout(ask, wait * 1000);
        } else {
          done(reject, new Error(`the kernel could not send them: ${msg.error || "no buffers"}`));
        }
        return;
      }
      try {
        done(resolve, viewsFor(msg.digest, bytesOf(buffers[0]), bytesOf(buffers[1]), msg.css));
      } catch (err) {
        done(reject, err);
      }
    };
    model.on("msg:custom", onMessage);
    ask();
  });
}

/**
 * @param {string} text
 * @param {"loading" | "load-error"} role
 * @returns {HTMLDivElement}
 */
function message(text, role) {
  const el = document.createElement("div");
  el.className = role === "load-error" ? "mgw-load-error" : "mgw-loading";
  el.setAttribute("data-role", role);
  if (role === "load-error") el.setAttribute("role", "alert");
  el.textContent = text;
  return el;
}

export default {
  /**
   * @param {{model: WidgetModel, el: HTMLElement}} how
   * @returns {Promise<() => unknown>}
   */
  async render({ model, el }) {
    const loading = message("Loading micrograd-widget\u2026", "loading");
    el.append(loading);
    let mod;
    try {
      mod = await fromAssetsModel(model);
    } catch (first) {
      try {
        mod = await askKernel(model);
      } catch (second) {
        loading.remove();
        const error = message(
          `micrograd-widget could not load its views: ${/** @type {Error} */ (first).message}, and ${/** @type {Error} */ (second).message}. ` +
            "Run the cell that made this widget again with a running kernel; to see it in a saved notebook " +
            "without a kernel, save it with its widget state.",
          "load-error",
        );
        el.append(error);
        return () => error.remove();
      }
    }
    loading.remove();
    const kind = model.get("_mgw_view");
    const view = mod.views[kind];
    if (!view) {
      const error = message(`micrograd-widget has no view named ${JSON.stringify(kind)}.`, "load-error");
      el.append(error);
      return () => error.remove();
    }
    const style = document.createElement("style");
    style.setAttribute("data-mgw-css", "");
    style.textContent = mod.css;
    el.prepend(style);
    const cleanup = await view.render({ model, el });
    return () => {
      style.remove();
      if (typeof cleanup === "function") return cleanup();
    };
  },
};
