// The composition vectors the compose and edges tests share (tests/vectors/compose/*.json, written by
// tests/vectors/generate_compose.py), and the DOT each composes.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

export const VECTORS = fileURLToPath(new URL("../../tests/vectors/", import.meta.url));

/**
 * A composition vector by name (moons_nested, far_layout, ...).
 * @param {string} name
 */
export function composeVector(name) {
  return JSON.parse(readFileSync(`${VECTORS}compose/${name}.json`, "utf8"));
}

/**
 * The DOT a vector composes: its folding vector's, with straight edges when `large` (generate_compose.py forced).
 * @param {{source: [string, number, number], large: boolean}} v
 * @returns {string}
 */
export function sourceDot(v) {
  const [folds, k, option] = v.source;
  const dot = JSON.parse(readFileSync(`${VECTORS}folds/${folds}.json`, "utf8")).cases[k].dot[option];
  if (!v.large) return dot;
  const [head, graph, ...rest] = dot.split("\n");
  return [head, `${graph.slice(0, -1)} splines=line]`, ...rest].join("\n");
}
