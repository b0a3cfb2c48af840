// @ts-check
// The backward pass one step at a time, as the engine runs it: backwardSteps fires the op nodes an output
// depends on in reverse node order with exactly backward()'s float operations, and records each step (the node
// fired, its upstream grad, the local partials and the inputs they add to), so the partial grads after any step
// k can be had (applyStep going forward, gradsAfter from the start). Pure maths, tested in node; the backprop
// stepper panel that walks through it on the page is js/graph/stepper-panel.js.

import { localGradInto } from "./ops.js";
import { requireReplayable } from "./tape.js";

/** @import { Tape } from "./spec.js" */

/**
 * The backward pass of one output, step by step (backwardSteps): per step s, the node fired, its inputs, the
 * upstream grad and the local partials; per node, the step after which it has a grad.
 * @typedef {object} BackwardSteps
 * @property {number} n nodes of the tape
 * @property {number} output
 * @property {number} count steps
 * @property {Int32Array} node
 * @property {Int32Array} inputA
 * @property {Int32Array} inputB -1 for a unary op
 * @property {Float64Array} upstream
 * @property {Float64Array} localA
 * @property {Float64Array} localB NaN for a unary op
 * @property {Int32Array} reachedAt
 * @property {Float64Array} grad the grads after every step
 */

/** `reachedAt` of a node the backward pass never writes (not an input of anything `output` depends on). */
export const NEVER = 0x7fffffff;

/**
 * The backward pass of node `output` as the engine runs it, one step per op node that `output` depends on
 * (itself included), in reverse node order: step s fires node `node[s]`, whose grad is then final
 * (`upstream[s]`), and adds `localA[s] * upstream[s]` to input `inputA[s]`, then (binary ops)
 * `localB[s] * upstream[s]` to `inputB[s]` (-1 for unary ops), exactly the float operations of `backward`.
 * `reachedAt[i]` is the number of steps after which node i has a grad (0 for `output`, NEVER if none);
 * `grad` holds the grads after every step. O(n) time and memory; partial grads come from `gradsAfter`.
 * @param {Tape} tape
 * @param {Float64Array} data
 * @param {number} [output]
 * @returns {BackwardSteps}
 */
export function backwardSteps(tape, data, output = tape.root) {
  requireReplayable(tape);
  if (!Number.isInteger(output) || output < 0 || output >= tape.n) {
    throw new RangeError(`output must be a node id from 0 to ${tape.n - 1}, got ${output}`);
  }
  const { n, row, code, a, b, k } = tape;
  const needed = new Uint8Array(n);
  needed[output] = 1;
  let count = 0;
  for (let i = output; i >= 0; i--) {
    if (!needed[i] || row[i] < 0) continue;
    count += 1;
    needed[a[i]] = 1;
    if (b[i] >= 0) needed[b[i]] = 1;
  }
  const node = new Int32Array(count);
  const inputA = new Int32Array(count);
  const inputB = new Int32Array(count);
  const upstream = new Float64Array(count);
  const localA = new Float64Array(count);
  const localB = new Float64Array(count);
  const reachedAt = new Int32Array(n).fill(NEVER);
  const grad = new Float64Array(n);
  grad[output] = 1;
  reachedAt[output] = 0;
  const local = new Float64Array(2);
  let s = 0;
  for (let i = output; i >= 0; i--) {
    if (!needed[i] || row[i] < 0) continue;
    const g = grad[i];
    const ai = a[i];
    const bi = b[i];
    localGradInto(code[i], data[ai], bi < 0 ? 0 : data[bi], k[i], data[i], local);
    node[s] = i;
    upstream[s] = g;
    inputA[s] = ai;
    localA[s] = local[0];
    grad[ai] += local[0] * g;
    if (reachedAt[ai] === NEVER) reachedAt[ai] = s + 1;
    inputB[s] = bi;
    if (bi >= 0) {
      localB[s] = local[1];
      grad[bi] += local[1] * g;
      if (reachedAt[bi] === NEVER) reachedAt[bi] = s + 1;
    } else {
      localB[s] = NaN;
    }
    s += 1;
  }
  return { n, output, count, node, inputA, inputB, upstream, localA, localB, reachedAt, grad };
}

/**
 * Add step `s`'s contributions to `grad` (the partial grads after s steps become those after s + 1).
 * @param {BackwardSteps} steps
 * @param {number} s
 * @param {Float64Array} grad
 * @returns {Float64Array}
 */
export function applyStep(steps, s, grad) {
  const g = steps.upstream[s];
  grad[steps.inputA[s]] += steps.localA[s] * g;
  const bi = steps.inputB[s];
  if (bi >= 0) grad[bi] += steps.localB[s] * g;
  return grad;
}

/**
 * The grads after the first `k` steps (0..count) of `backwardSteps`: what the engine holds at that moment.
 * @param {BackwardSteps} steps
 * @param {number} k
 * @param {Float64Array} [grad]
 * @returns {Float64Array}
 */
export function gradsAfter(steps, k, grad = new Float64Array(steps.n)) {
  if (!Number.isInteger(k) || k < 0 || k > steps.count) {
    throw new RangeError(`step must be an integer from 0 to ${steps.count}, got ${k}`);
  }
  grad.fill(0);
  grad[steps.output] = 1;
  for (let s = 0; s < k; s++) applyStep(steps, s, grad);
  return grad;
}
