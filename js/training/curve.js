// @ts-check
// The loss curve's pure helpers (node-tested by curve.test.js): round ticks on linear and log axes,
// the y range of the drawable losses, and the curve as an SVG path broken where a loss cannot be drawn.

export const TICKS = 5;

/**
 * About `count` round values (1, 2 or 5 x 10^k apart) covering [lo, hi]; `minStep` bounds the spacing.
 * @param {number} lo
 * @param {number} hi
 * @param {number} [count]
 * @param {number} [minStep]
 * @returns {number[]}
 */
export function niceTicks(lo, hi, count = TICKS, minStep = 0) {
  if (!Number.isFinite(lo) || !Number.isFinite(hi) || hi < lo) return [];
  if (hi === lo) return [lo];
  const raw = (hi - lo) / Math.max(count - 1, 1);
  const p = 10 ** Math.floor(Math.log10(raw));
  const m = raw / p;
  const step = Math.max((m < 1.5 ? 1 : m < 3 ? 2 : m < 7 ? 5 : 10) * p, minStep);
  /** @type {number[]} */
  const ticks = [];
  for (let k = Math.ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k++) ticks.push(Number((k * step).toPrecision(12)));
  return ticks;
}

/**
 * Ticks of a log axis spanning log10 values [lo, hi], as log10 values: whole decades when it spans one
 * or more, else round numbers between 10^lo and 10^hi.
 * @param {number} lo
 * @param {number} hi
 * @param {number} [count]
 * @returns {number[]}
 */
export function logTicks(lo, hi, count = TICKS) {
  if (hi - lo >= 1) return niceTicks(lo, hi, count, 1);
  return niceTicks(10 ** lo, 10 ** hi, count).filter((t) => t > 0).map(Math.log10);
}

/**
 * Whether a loss can be drawn: finite, and positive on a log scale.
 * @param {number} x
 * @param {boolean} logScale
 * @returns {boolean}
 */
export function drawable(x, logScale) {
  return Number.isFinite(x) && (!logScale || x > 0);
}

/**
 * The y range [lo, hi] of the drawable losses (log10 of them on a log scale), padded; null when none.
 * @param {Iterable<number>} losses
 * @param {boolean} logScale
 * @returns {[number, number] | null}
 */
export function lossDomain(losses, logScale) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const x of losses) {
    if (!drawable(x, logScale)) continue;
    const v = logScale ? Math.log10(x) : x;
    if (v < lo) lo = v;
    if (v > hi) hi = v;
  }
  if (lo > hi) return null;
  if (hi === lo) {
    const pad = logScale ? 0.5 : Math.abs(lo) * 0.1 || 1;
    return [lo - pad, hi + pad];
  }
  const pad = (hi - lo) * 0.05;
  return [lo - pad, hi + pad];
}

/**
 * The curve as an SVG path: "M x y L x y ..." through the drawable losses, broken (a new "M") after each
 * loss that cannot be drawn; `bad` lists the steps of those (non-finite, or <= 0 on a log scale).
 * `sx(step)` and `sy(value)` map to pixels; `value` is log10(loss) on a log scale.
 * @param {ArrayLike<number>} steps
 * @param {ArrayLike<number>} losses
 * @param {(step: number) => number} sx
 * @param {(value: number) => number} sy
 * @param {boolean} logScale
 * @returns {{d: string, bad: number[], drawn: number}}
 */
export function curvePath(steps, losses, sx, sy, logScale) {
  /** @type {string[]} */
  const parts = [];
  /** @type {number[]} */
  const bad = [];
  let pen = false;
  let drawn = 0;
  for (let i = 0; i < losses.length; i++) {
    const x = losses[i];
    if (!drawable(x, logScale)) {
      bad.push(steps[i]);
      pen = false;
      continue;
    }
    parts.push(`${pen ? "L" : "M"}${sx(steps[i]).toFixed(1)} ${sy(logScale ? Math.log10(x) : x).toFixed(1)}`);
    pen = true;
    drawn += 1;
  }
  return { d: parts.join(""), bad, drawn };
}

/**
 * A tick label: at most 4 significant digits, exponent form for very large or small values.
 * @param {number} x
 * @returns {string}
 */
export function shortNumber(x) {
  if (!Number.isFinite(x)) return String(x);
  if (x === 0) return "0";
  const a = Math.abs(x);
  if (a >= 1e5 || a < 1e-3) return x.toExponential(1).replace("e+", "e");
  return String(Number(x.toPrecision(4)));
}
