// @ts-check
// Learning on a frozen tape, no DOM: the twin of micrograd_widget/core/learn.py (same names, same sections). One step
// replays forward and backward at the current leaf values, then moves every parameter at once,
// `p += sign * h * dOutput/dp` (sign +1: the lecture's nudge, the output rises; -1: a step of gradient descent);
// the other leaves (inputs, targets, constants) never move. Descent repeats that step; its floats are Python's
// loop's (`Tape.replay` then `p -= h * grad`, parameters in the page's order), since js/core/tape.js replays as
// core/tape.py does. The view (js/graph/learn-panel.js) batches steps per animation frame; nothing here times.

import { backward, forward, requireReplayable } from "./tape.js";

/** @import { Tape } from "./spec.js" */

// ------------------------------------------------------------------ the step size

/**
 * The step size the learner typed, as a number, or the words refusing it: any finite positive number.
 * @param {string | number} raw
 * @returns {{h: number, error: string}}
 */
export function readStepSize(raw) {
  const text = String(raw).trim();
  const h = text === "" ? NaN : Number(text);
  if (Number.isFinite(h) && h > 0) return { h, error: "" };
  const shown = text.length > 40 ? `${text.slice(0, 40)}\u2026` : text;
  return { h: NaN, error: `The step size must be a finite positive number such as 0.01 (got "${shown}").` };
}

// ------------------------------------------------------------------ one step

/**
 * Replays `tape` at `values` (leaf values in `tape.leaves` order; changed in place) and moves each parameter
 * (positions `params` in `tape.leaves`) by `sign * h` times its grad of node `output`. Returns the output's data
 * before the move, or throws (values unchanged) when an op fails on these values, naming the node.
 * @param {Tape} tape
 * @param {Float64Array} values
 * @param {Int32Array | number[]} params
 * @param {number} sign +1 or -1
 * @param {number} h
 * @param {number} [output]
 * @param {{data: Float64Array, grad: Float64Array}} [work] reused buffers of tape.n
 * @returns {number}
 */
export function step(tape, values, params, sign, h, output = tape.root, work = scratch(tape)) {
  const failure = forward(tape, values, work.data);
  if (failure >= 0) throw new RangeError(`node ${failure}'s op failed at these values: the step is not taken`);
  backward(tape, work.data, output, work.grad);
  const { leaves } = tape;
  const grad = work.grad;
  const scale = sign * h;
  for (let p = 0; p < params.length; p++) {
    const j = params[p];
    values[j] += scale * grad[leaves[j]];
  }
  return work.data[output];
}

/**
 * Each parameter moved by `scale` times its grad in `grad`; returns `loss` (the step's output before the move).
 * @param {Tape} tape
 * @param {Float64Array} values
 * @param {ArrayLike<number>} params
 * @param {number} scale
 * @param {Float64Array} grad
 * @param {number} loss
 * @returns {number}
 */
function move(tape, values, params, scale, grad, loss) {
  const { leaves } = tape;
  for (let p = 0; p < params.length; p++) values[params[p]] += scale * grad[leaves[params[p]]];
  return loss;
}

/**
 * Buffers for `step`: every node's data and grad.
 * @param {Tape} tape
 * @returns {{data: Float64Array, grad: Float64Array}}
 */
export function scratch(tape) {
  return { data: new Float64Array(tape.n), grad: new Float64Array(tape.n) };
}

// ------------------------------------------------------------------ descent

/** Gradient descent on one tape: the leaf values it moves, its step count and the losses it saw (one per step,
 * the output's data before that step's move, as the lecture's loop prints it). */
export class Descent {
  /**
   * @param {Tape} tape
   * @param {ArrayLike<number>} values the starting leaf values (copied)
   * @param {Int32Array | number[]} params
   * @param {number} [output]
   */
  constructor(tape, values, params, output = tape.root) {
    requireReplayable(tape);
    this.tape = tape;
    this.values = Float64Array.from(values);
    this.params = params;
    this.output = output;
    this.work = scratch(tape);
    this.steps = 0;
    this.fresh = false; // work holds the replay at the current values
    /** @type {number[]} */
    this.losses = [];
  }

  /**
   * `count` steps of size `h` (sign -1: descent; +1: ascent); returns the loss before the last. An op failure stops
   * the run before that step (thrown, the steps before it kept).
   * @param {number} count
   * @param {number} h
   * @param {number} [sign]
   * @returns {number}
   */
  run(count, h, sign = -1) {
    let loss = NaN;
    for (let s = 0; s < count; s++) {
      // The replay at the current values was made already (replayed()): its grads are this step's.
      loss = this.fresh ? move(this.tape, this.values, this.params, sign * h, this.work.grad, this.work.data[this.output])
        : step(this.tape, this.values, this.params, sign, h, this.output, this.work);
      this.fresh = false;
      this.losses.push(loss);
      this.steps += 1;
    }
    return loss;
  }

  /** Forward and backward at the current values into `work` (what the picture shows); the next step reuses them.
   * Returns false when an op fails there. */
  replayed() {
    const failure = forward(this.tape, this.values, this.work.data);
    if (failure >= 0) return false;
    backward(this.tape, this.work.data, this.output, this.work.grad);
    this.fresh = true;
    return true;
  }
}
