// @ts-check
// Path tracing over a compiled tape (spec.js), pure (no DOM) and iterative (graphs have a million nodes):
// what a node depends on, and the nodes through which the output's gradient reaches it. The tape is in
// topological order (every input's id is below its node's), which the downward walk uses.

/** @import { Tape } from "./spec.js" */

/**
 * Every node `node` depends on (its inputs, their inputs, ...; not `node` itself), as a sorted Int32Array.
 * @param {Tape} tape
 * @param {number} node
 * @returns {Int32Array}
 */
export function inputsTrace(tape, node) {
  const { inputStart, inputs } = tape;
  const seen = new Uint8Array(tape.n);
  const stack = [node];
  let count = 0;
  while (stack.length) {
    const i = /** @type {number} */ (stack.pop()); // the loop runs while the stack is not empty
    for (let e = inputStart[i]; e < inputStart[i + 1]; e++) {
      const j = inputs[e];
      if (!seen[j]) {
        seen[j] = 1;
        count++;
        stack.push(j);
      }
    }
  }
  seen[node] = 0; // only if the graph had a cycle, which a tape cannot
  return collect(seen, count);
}

/**
 * The nodes through which the gradient of `output` flows back to `node`: those both reachable from `node`
 * (it is one of their inputs, or an input's input, ...) and among `output`'s inputs, recursively; `node` and
 * `output` included. Empty when `output` does not depend on `node` (its grad is 0 by construction).
 * @param {Tape} tape
 * @param {number} node
 * @param {number} output
 * @returns {Int32Array}
 */
export function pathToOutput(tape, node, output) {
  const n = tape.n;
  if (node === output) return Int32Array.of(node);
  if (node > output) return new Int32Array(0); // an input's id is always below its node's
  const { inputStart, inputs } = tape;
  const feeds = new Uint8Array(n); // feeds[i]: output depends on i (or i is output)
  feeds[output] = 1;
  for (let i = output; i >= node; i--) {
    if (!feeds[i]) continue;
    for (let e = inputStart[i]; e < inputStart[i + 1]; e++) feeds[inputs[e]] = 1;
  }
  if (!feeds[node]) return new Int32Array(0);
  const reached = new Uint8Array(n); // reached[i]: i is node or depends on it
  reached[node] = 1;
  let count = 1;
  for (let i = node + 1; i <= output; i++) {
    if (!feeds[i]) continue;
    for (let e = inputStart[i]; e < inputStart[i + 1]; e++) {
      if (reached[inputs[e]]) {
        reached[i] = 1;
        count++;
        break;
      }
    }
  }
  return collect(reached, count);
}

/**
 * @param {Uint8Array} flags
 * @param {number} count
 * @returns {Int32Array}
 */
function collect(flags, count) {
  const out = new Int32Array(count);
  let at = 0;
  for (let i = 0; i < flags.length && at < count; i++) if (flags[i]) out[at++] = i;
  return out;
}
