// The `_esm` of every GraphWidget and TrainingWidget (built to static/loader.js, a few KB). The heavy code,
// both views and Graphviz's WebAssembly, travels once per notebook in one shared assets model; this loader
// finds it, imports the views once per page and calls the right view's render, returning its cleanup.
//
// THE INTERFACE (micrograd_widget/assets.py writes it; js/host.js, the exported page's host, serves it):
// - A widget model's traits:
//     _mgw_assets  "IPY_MODEL_<id>": the shared assets model (ipywidgets' widget_serialization reference).
//     _mgw_view    "graph" (GraphWidget) or "training" (TrainingWidget): which view to render.
// - The assets model (model name "WidgetModel" of "@jupyter-widgets/base": a plain ipywidgets Widget, no view):
//     code    bytes: gzip of static/views.js, an ES module exporting `views` = { graph, training } (each
//             anywidget's { render }) and `provideWasm(fn)` (fn() -> the WebAssembly bytes or a Promise of them).
//     wasm    bytes: gzip of Graphviz's WebAssembly (static/graphviz.wasm.gz as shipped in the wheel).
//     css     string: both views' CSS (static/views.css); the loader puts it in a <style> at the top of each
//             view's element (so it applies in a shadow root too, as in marimo); widgets' own `_css` is "".
//     digest  string: sha256 (hex) of code + wasm + css, the page-wide cache key.
//   Bytes arrive as whatever the host delivers: DataView, ArrayBuffer or a typed array (all are read).
// - How the loader finds it: `await model.widget_manager.get_model(id)` with id = the reference less
//   "IPY_MODEL_"; a host needs get_model(id) resolving to an object with get(name), nothing more.
// - Once per page: globalThis[Symbol.for("micrograd-widget.views")] maps digest -> Promise of
//   { views, css } (the views module's exports and the CSS), so N widgets (and N loaders: each widget's `_esm` is its own module) import the views once.
// - Fallback when the assets model cannot be reached (an old front end, a model closed by
//   Widget.close_all(), a kernel restart): the loader sends the custom message {type: "assets"}; the kernel
//   (micrograd_widget.assets.answer_request) re-creates the assets model if it was closed, points the widget
//   at it and replies {type: "assets", digest, css} with two buffers [code, wasm] (same encodings). It sends them
//   to a widget at most once every few seconds (assets.ASK_INTERVAL); a request sooner is answered
//   {type: "assets", digest, error, retry_after} with no buffers: the loader takes the views from the page's cache
//   when it holds that digest (another view of the widget got them), else asks again after retry_after seconds.
//   With no kernel to answer, the widget shows an error saying what to do ([data-role="load-error"]).

const REF = "IPY_MODEL_";
const CACHE = Symbol.for("micrograd-widget.views");
const GET_MODEL_MS = 5000;
const ASK_KERNEL_MS = 8000;
const ASK_AGAIN = 2; // times the loader asks again when the kernel says "not yet" (retry_after)
const MAX_RETRY_S = 30;

/** The bytes of a DataView, ArrayBuffer or typed array (null for anything else). */
function bytesOf(value) {
  if (value instanceof ArrayBuffer) return new Uint8Array(value);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  return null;
}

async function gunzip(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function withTimeout(promise, ms, what) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer in ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

async function importViews(code, wasm, css) {
  // The URL is kept (not revoked): the bundle starts its layout worker from its own URL (js/layout-worker.js).
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

/** The views (and their CSS) for these assets, imported once per page per digest. */
function viewsFor(digest, code, wasm, css) {
  if (typeof digest !== "string" || !digest || !code || !code.length || !wasm || !wasm.length) {
    throw new Error("the assets are empty");
  }
  const cache = (globalThis[CACHE] ??= new Map());
  let entry = cache.get(digest);
  if (!entry) {
    entry = importViews(code, wasm, typeof css === "string" ? css : "");
    cache.set(digest, entry);
    entry.catch(() => cache.delete(digest));
  }
  return entry;
}

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

function askKernel(model) {
  return new Promise((resolve, reject) => {
    let timer;
    let asked = 0;
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
    const onMessage = (msg, buffers) => {
      if (!msg || msg.type !== "assets") return;
      if (msg.error || !buffers || buffers.length < 2) {
        const cached = typeof msg.digest === "string" ? globalThis[CACHE]?.get(msg.digest) : undefined;
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

function message(text, role) {
  const el = document.createElement("div");
  el.className = role === "load-error" ? "mgw-load-error" : "mgw-loading";
  el.setAttribute("data-role", role);
  if (role === "load-error") el.setAttribute("role", "alert");
  el.textContent = text;
  return el;
}

export default {
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
          `micrograd-widget could not load its views: ${first.message}, and ${second.message}. ` +
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
