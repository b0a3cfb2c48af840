// @ts-check
// Where the views bundle's Graphviz gets its WebAssembly: js/build.mjs rewrites @viz-js/viz's
// findWasmBinary() to call wasmBytes() instead of decoding its own inlined copy, and js/host/loader.js provides
// the bytes (from the shared assets model, micrograd_widget/host/assets.py) before any view lays out a graph.

/** @type {(() => Uint8Array | Promise<Uint8Array>) | null} */
let source = null;

/**
 * Give Graphviz its WebAssembly: `fn()` returns the module's bytes (a Uint8Array, or a Promise of one).
 * @param {() => Uint8Array | Promise<Uint8Array>} fn
 */
export function provideWasm(fn) {
  source = fn;
}

/**
 * The WebAssembly bytes for @viz-js/viz (called once per page, when Graphviz is first instantiated).
 * @returns {Uint8Array | Promise<Uint8Array>}
 */
export function wasmBytes() {
  if (source === null) {
    throw new Error("Graphviz's WebAssembly was not provided: load the views through micrograd-widget's loader (js/host/loader.js)");
  }
  return source();
}
