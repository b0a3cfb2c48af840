// @ts-check
// The views bundle (static/views.js): both views and the hook that gives Graphviz its WebAssembly. It
// travels once per notebook inside the shared assets model (micrograd_widget/host/assets.py); each widget's own
// `_esm` is js/host/loader.js, which imports this module once per page and calls the right view's render.

import graph from "../graph/widget.js";
import training from "../training/widget.js";

export { provideWasm } from "./graphviz-wasm.js";

/** The views by the name a widget carries in its `_mgw_view` trait. */
export const views = { graph, training };

// Graphviz's layout, for tests and hosts that lay out a DOT themselves: in the page's layout worker when one
// starts (lastLayoutThread() says where the last one ran), or on this thread (layoutHere); layoutWorkerLimits sets
// how long an unheld worker stays open and how long one layout may run in it.
export { layoutHere, layoutSVG } from "./graphviz.js";
export { lastLayoutThread, layoutWorkerLimits } from "./layout-worker.js";
