// The views bundle (static/views.js): both views and the hook that gives Graphviz its WebAssembly. It
// travels once per notebook inside the shared assets model (micrograd_widget/assets.py); each widget's own
// `_esm` is js/loader.js, which imports this module once per page and calls the right view's render.

import graph from "./widget.js";
import training from "./training.js";

export { provideWasm } from "./graphviz-wasm.js";

/** The views by the name a widget carries in its `_mgw_view` trait. */
export const views = { graph, training };
