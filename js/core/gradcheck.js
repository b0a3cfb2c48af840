// @ts-check
// The numerical gradient check's maths, as micrograd_widget/core/gradcheck.py's check_tape and _row: a leaf's
// d(output)/d(leaf) by central differences from two forward replays (numericGrad), and whether the analytic
// grad is within tolerance of it (gradcheckVerdict), with gradcheck.py's rule and defaults (GRADCHECK_DEFAULTS).
// Pure, tested in node; the inspector's panel that runs it over the leaves is js/graph/gradcheck-panel.js.

import { GRADCHECK_DEFAULTS } from "./shared.js";
import { forward } from "./tape.js";

/** @import { Tape } from "./spec.js" */

/**
 * d(output)/d(leaf j) by central differences, (f(x + eps) - f(x - eps)) / 2eps, from two forward replays
 * (`leafValues` is restored; `scratch` is a Float64Array(n) to reuse). `failure` is the node whose op
 * failed in either replay (numeric is then NaN), else -1.
 * @param {Tape} tape
 * @param {Float64Array} leafValues changed during the call, restored after
 * @param {number} j
 * @param {number} output
 * @param {number} eps
 * @param {Float64Array} [scratch]
 * @returns {{numeric: number, failure: number}}
 */
export function numericGrad(tape, leafValues, j, output, eps, scratch = new Float64Array(tape.n)) {
  const x = leafValues[j];
  try {
    leafValues[j] = x + eps;
    const f1 = forward(tape, leafValues, scratch);
    const plus = scratch[output];
    leafValues[j] = x - eps;
    const f2 = forward(tape, leafValues, scratch);
    const minus = scratch[output];
    const failure = f1 >= 0 ? f1 : f2;
    return { numeric: failure >= 0 ? NaN : (plus - minus) / (2 * eps), failure };
  } finally {
    leafValues[j] = x;
  }
}

/**
 * How far an analytic grad is from its numeric estimate, and whether that is within tolerance (as gradcheck.py):
 * |analytic - numeric| <= atol + rtol * |numeric|, the tolerances by default gradcheck.py's (GRADCHECK_DEFAULTS).
 * @param {number} analytic
 * @param {number} numeric
 * @param {number} [rtol]
 * @param {number} [atol]
 * @returns {{absError: number, relError: number, ok: boolean}}
 */
export function gradcheckVerdict(analytic, numeric, rtol = GRADCHECK_DEFAULTS.rtol, atol = GRADCHECK_DEFAULTS.atol) {
  const absError = Math.abs(analytic - numeric);
  const scale = Math.max(Math.abs(analytic), Math.abs(numeric));
  const relError = scale > 0 ? absError / scale : Number.isNaN(scale) ? NaN : 0;
  return { absError, relError, ok: absError <= atol + rtol * Math.abs(numeric) };
}
