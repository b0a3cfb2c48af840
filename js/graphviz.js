// DOT -> SVG in the browser with Graphviz compiled to WebAssembly (@viz-js/viz): the widget's one
// layout path. The WASM module is instantiated once per page and shared by every view.

import { instance } from "@viz-js/viz";

let viz = null;

/** The shared Graphviz instance (the first call compiles the WASM module; later calls are free). */
export function graphviz() {
  if (viz === null) {
    viz = instance().catch((err) => {
      viz = null;
      throw err;
    });
  }
  return viz;
}

// Network simplex (dot's x-coordinate pass) gets at most NSLIMIT iterations per node (a -G default; a DOT's own
// nslimit wins). Every picture measured lays out byte-identically with it (the lecture's graphs folded, opened and
// in full, the moons loss folded and with its largest box open); the moons loss after Expand all that fits
// (5 dense clusters, 888 edges) took ~11 s without it and ~1.4 s with it (node, @viz-js/viz).
const NSLIMIT = 8;

// dot's default ranking is recursive on clusters (opened boxes) and can put an edge's head on its tail's rank; a
// flat edge touching a record is then dropped ("lost fold3 fold1 edge", the moons loss after Expand all that fits:
// reported as an error, yet the status is "success" with the edge missing). One global ranking (newrank) has no
// such edge but lays out large opened pictures 1.5-4x slower: the retry for that error, as the kernel's render_svg.
const LOST_EDGE = /lost \S+ \S+ edge/;

/** Lay out `dot` and return the SVG document text; throws an Error with Graphviz's messages on failure. */
export async function layoutSVG(dot) {
  const g = await graphviz();
  let result = g.render(dot, { format: "svg", engine: "dot", graphAttributes: { nslimit: NSLIMIT } });
  if (result.errors.some((e) => LOST_EDGE.test(e.message))) {
    result = g.render(dot, { format: "svg", engine: "dot", graphAttributes: { nslimit: NSLIMIT, newrank: true } });
  }
  if (result.status !== "success") {
    const messages = result.errors.map((e) => e.message.trim()).filter(Boolean).join("; ");
    throw new Error(`Graphviz could not lay out the graph: ${messages || "unknown error"}`);
  }
  return result.output;
}
