// @ts-check
// Forward and backward replay of a compiled tape (spec.js's compileTape), no DOM: the twin of
// micrograd_widget/core/tape.py's replay. Follows js/core/ops.js (generated from the Python op table) row for row and the
// Python replay's order: forward in node order, backward in reverse node order from the chosen output, so both
// sides agree. Nothing here recurses.

import { backwardLoop, forwardLoop } from "./ops.js";

/** @import { Tape } from "./spec.js" */

/**
 * Throws when the browser cannot replay `tape` (a user-defined op or a node built by hand), saying why.
 * @param {Tape} tape
 */
export function requireReplayable(tape) {
  if (!tape.replayable) throw new Error(`cannot replay in the browser: ${tape.reason}`);
}

/**
 * Recompute every node's data into `data` (Float64Array of n; leaf entries are taken from `leafValues`,
 * given in `tape.leaves` order). Returns the first node whose inputs are outside its op's domain (where
 * the Python op raises: log of a non-positive number, a float overflow in exp or **, ...), or -1; all
 * nodes are computed. NaN or infinities that Python returns without raising (inf - inf) are no failure.
 * @param {Tape} tape
 * @param {ArrayLike<number>} leafValues
 * @param {Float64Array} [data]
 * @returns {number}
 */
export function forward(tape, leafValues, data = new Float64Array(tape.n)) {
  requireReplayable(tape);
  const { n, leaves, code, a, b, k } = tape;
  if (leafValues.length !== leaves.length) {
    throw new RangeError(`expected ${leaves.length} leaf values (one per leaf), got ${leafValues.length}`);
  }
  for (let j = 0; j < leaves.length; j++) data[leaves[j]] = leafValues[j];
  return forwardLoop(n, code, a, b, k, data);
}

/**
 * Fresh grads of node `output` (default: the root) with respect to every node, into `grad`.
 * @param {Tape} tape
 * @param {Float64Array} data
 * @param {number} [output]
 * @param {Float64Array} [grad]
 * @returns {Float64Array}
 */
export function backward(tape, data, output = tape.root, grad = new Float64Array(tape.n)) {
  requireReplayable(tape);
  if (!Number.isInteger(output) || output < 0 || output >= tape.n) {
    throw new RangeError(`output must be a node id from 0 to ${tape.n - 1}, got ${output}`);
  }
  return backwardLoop(output, tape.code, tape.a, tape.b, tape.k, data, grad);
}

/**
 * Forward then backward: `{data, grad, failure}` for new leaf values and an output node.
 * @param {Tape} tape
 * @param {ArrayLike<number>} leafValues
 * @param {number} [output]
 * @returns {{data: Float64Array, grad: Float64Array, failure: number}}
 */
export function replay(tape, leafValues, output = tape.root) {
  const data = new Float64Array(tape.n);
  const failure = forward(tape, leafValues, data);
  const grad = backward(tape, data, output);
  return { data, grad, failure };
}
