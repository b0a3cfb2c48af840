// @ts-check
// Numbers as Python prints them, so the widget, the static picture and the kernel show the same text:
// formatFixed(x, p) is f"{x:.{p}f}" and formatExp(x, p) f"{x:.{p}e}" (round half to even), formatNumber
// is micrograd_widget.picture.dot.format_number, pyRepr(x) is repr(x) (shortest round trip), thousands(n) is f"{n:,}" and
// plural(n, noun) is text.py's plural ("1 node", "99,754 leaves"): every count the user reads goes through it. The
// grad colours (gradScale, colorScale, gradColor, legendMarks, legendWords) are micrograd_widget/picture/colors.py's rules.

import { LOG_DECADES, PLURALS } from "../core/shared.js";

/**
 * A grad palette ("#rrggbb" fills, colors.py's): `zero` at 0, towards `positive` or `negative`, `nonfinite`
 * for nan/inf.
 * @typedef {object} Palette
 * @property {string} negative
 * @property {string} positive
 * @property {string} zero
 * @property {string} nonfinite
 */

/**
 * @param {number} ax
 * @param {number} p
 * @returns {boolean}
 */
function isExactTie(ax, p) {
  return /^50*$/.test(exactDecimal(ax).frac.slice(p));
}

/**
 * `x` with `p` decimals, exactly as Python's f"{x:.{p}f}" (nan, inf, -0.0000, half to even).
 * @param {number} x
 * @param {number} p
 * @returns {string}
 */
export function formatFixed(x, p) {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  const sign = x < 0 || Object.is(x, -0) ? "-" : "";
  const ax = Math.abs(x);
  if (ax >= 1e21) return sign + BigInt(ax).toString() + (p > 0 ? "." + "0".repeat(p) : "");
  let s = ax.toFixed(p);
  const scaled = ax * 10 ** p;
  if (Math.abs(scaled - Math.floor(scaled) - 0.5) < 1e-6 && isExactTie(ax, p)) {
    const exact = ax.toFixed(100);
    const cut = exact.indexOf(".") + (p > 0 ? 1 + p : 0);
    const down = exact.slice(0, cut);
    if (Number(down[down.length - 1]) % 2 === 0) s = down;
  }
  return sign + s;
}

/**
 * @param {number} ax
 * @returns {{int: string, frac: string}}
 */
function exactDecimal(ax) {
  if (ax >= 1e21) return { int: BigInt(ax).toString(), frac: "" };
  const s = ax.toFixed(100);
  return { int: s.slice(0, s.indexOf(".")), frac: s.slice(s.indexOf(".") + 1) };
}

/**
 * `x` in scientific notation with `p` decimals, exactly as Python's f"{x:.{p}e}" (e.g. "1.2346e+06").
 * @param {number} x
 * @param {number} p
 * @returns {string}
 */
export function formatExp(x, p) {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  const sign = x < 0 || Object.is(x, -0) ? "-" : "";
  const ax = Math.abs(x);
  const parts = ax.toExponential(p).split("e");
  let mantissa = parts[0];
  let exp = Number(parts[1]);
  const scaled = ax / 10 ** (exp - p);
  if (ax > 0 && Math.abs(scaled - Math.floor(scaled) - 0.5) < 1e-6) {
    // JS rounds an exact tie up; Python rounds it to even: redo the rounding on the exact digits.
    const { int, frac } = exactDecimal(ax);
    const all = (int + frac).replace(/^0+/, "");
    const kept = all.slice(0, p + 1);
    if (/^50*$/.test(all.slice(p + 1)) && Number(kept[kept.length - 1]) % 2 === 0) {
      mantissa = kept[0] + (p > 0 ? "." + kept.slice(1) : "");
      exp = int !== "0" ? int.length - 1 : -(frac.length - frac.replace(/^0+/, "").length + 1);
    }
  }
  return `${sign}${mantissa}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
}

/**
 * A number as the picture shows it (micrograd_widget.picture.dot.format_number): fixed point, scientific from 1e6.
 * @param {number} x
 * @param {number} p
 * @returns {string}
 */
export function formatNumber(x, p) {
  return Math.abs(x) >= 1e6 ? formatExp(x, p) : formatFixed(x, p);
}

/**
 * `n` with thousands separators, as Python's f"{n:,}".
 * @param {number} n
 * @returns {string}
 */
export function thousands(n) {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/**
 * `n` and `noun` as a sentence says them, as text.py's plural: "1 node", "2 nodes", "99,754 leaves" (the plural from
 * PLURALS or the noun + "s"; a noun of several words pluralises its last).
 * @param {number} n
 * @param {string} noun
 * @returns {string}
 */
export function plural(n, noun) {
  if (n === 1) return `1 ${noun}`;
  const cut = noun.lastIndexOf(" ");
  const last = noun.slice(cut + 1);
  const many = Object.hasOwn(PLURALS, last) ? PLURALS[/** @type {keyof typeof PLURALS} */ (last)] : last + "s";
  return `${thousands(n)} ${noun.slice(0, cut + 1)}${many}`;
}

/**
 * `x` as Python's repr(float): shortest digits that round-trip, exponent form below 1e-4 and from 1e16.
 * @param {number} x
 * @returns {string}
 */
export function pyRepr(x) {
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const [mantissa, expText] = x.toExponential().split("e");
  const exp = Number(expText);
  const sign = mantissa.startsWith("-") ? "-" : "";
  const digits = mantissa.replace("-", "").replace(".", "");
  let body;
  if (exp < -4 || exp >= 16) {
    const frac = digits.length > 1 ? "." + digits.slice(1) : "";
    body = `${digits[0]}${frac}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  } else if (exp >= digits.length - 1) {
    body = digits + "0".repeat(exp - digits.length + 1) + ".0";
  } else if (exp >= 0) {
    body = digits.slice(0, exp + 1) + "." + digits.slice(exp + 1);
  } else {
    body = "0." + "0".repeat(-exp - 1) + digits;
  }
  return sign + body;
}

/**
 * @param {number} v
 * @returns {number}
 */
function roundHalfEven(v) {
  const r = Math.round(v);
  return Math.abs(v - Math.trunc(v)) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/**
 * The colour scale's full strength, as micrograd_widget.picture.dot.grad_scale computes it: the largest finite |grad|
 * in `grads` (the nodes drawn other than the differentiated output, whose d out / d out = 1 would wash out
 * every other colour); |output| (that node's grad, null when it is not drawn) only when no other grad is
 * finite and non-zero; 0 when there is none.
 * @param {Iterable<number>} grads
 * @param {number | null} [output]
 * @returns {number}
 */
export function gradScale(grads, output = null) {
  let scale = 0;
  for (const g of grads) {
    const a = Math.abs(g);
    if (a > scale && a !== Infinity) scale = a;
  }
  if (scale === 0 && output !== null && Number.isFinite(output)) return Math.abs(output);
  return scale;
}

/**
 * How a picture's grads become fills (micrograd_widget.picture.colors.ColorScale): `largest` its gradScale, `precision` the
 * decimals shown (on the relative scale a grad shown as 0 is white), `log` the log scale, whose full colour is at
 * 10 ** `top` (1, or the power of ten at or above `largest`).
 * @typedef {object} ColorScale
 * @property {number} largest
 * @property {number} precision
 * @property {boolean} log
 * @property {number} top
 */

/**
 * Whether `x` reads as 0 with `precision` decimals (colors.shown_as_zero): the text decides, as in Python.
 * @param {number} x
 * @param {number} precision
 * @returns {boolean}
 */
export function shownAsZero(x, precision) {
  return Math.abs(x) < 1 && Number(formatFixed(x, precision)) === 0;
}

/**
 * The colour scale of a picture whose gradScale is `largest` (colors.ColorScale).
 * @param {number} largest
 * @param {number} precision
 * @param {boolean} [log]
 * @returns {ColorScale}
 */
export function colorScale(largest, precision, log = false) {
  let top = 0;
  while (Number(`1e${top}`) < largest) top += 1;
  return { largest, precision, log, top };
}

/**
 * How far from white `grad`'s fill is, 0 to 1, for a finite grad (colors.ColorScale.strength).
 * @param {number} grad
 * @param {ColorScale} scale
 * @returns {number}
 */
export function gradStrength(grad, scale) {
  const a = Math.abs(grad);
  if (a === 0) return 0;
  if (scale.log) return Math.min(1, Math.max(0, 1 + (Math.log10(a) - scale.top) / LOG_DECADES));
  if (!(scale.largest > 0) || shownAsZero(grad, scale.precision)) return 0;
  return Math.min(1, Math.sqrt(a / scale.largest));
}

const HEX = Array.from({ length: 256 }, (_, v) => v.toString(16).padStart(2, "0"));
/** @type {Map<string, number[]>} */
const CHANNELS = new Map(); // "#rrggbb" -> its [r, g, b], parsed once (a palette has two ends)

/**
 * @param {string} color
 * @returns {number[]}
 */
function channelsOf(color) {
  let rgb = CHANNELS.get(color);
  if (!rgb) {
    rgb = [1, 3, 5].map((k) => parseInt(color.slice(k, k + 2), 16));
    if (CHANNELS.size < 64) CHANNELS.set(color, rgb);
  }
  return rgb;
}

/**
 * A node's fill for its grad, as micrograd_widget.picture.colors.grad_color computes it: `zero` at 0, towards `positive` or
 * `negative` by t = gradStrength(grad, scale) per RGB channel; `nonfinite` for nan/inf.
 * `palette` = {negative, positive, zero, nonfinite} ("#rrggbb"), sent by the kernel.
 * @param {number} grad
 * @param {ColorScale} scale
 * @param {Palette} palette
 * @returns {string}
 */
export function gradColor(grad, scale, palette) {
  if (!Number.isFinite(grad)) return palette.nonfinite;
  const t = gradStrength(grad, scale);
  if (t === 0) return palette.zero;
  const [r, g, b] = channelsOf(grad < 0 ? palette.negative : palette.positive);
  return "#" + HEX[roundHalfEven(255 + (r - 255) * t)] + HEX[roundHalfEven(255 + (g - 255) * t)]
    + HEX[roundHalfEven(255 + (b - 255) * t)];
}

/**
 * 10 ** k as a learner reads it (colors._decade): 1, 10, 100, else 1e-6, 1e3.
 * @param {number} k
 * @returns {string}
 */
function decade(k) {
  return k >= 0 && k < 3 ? String(10 ** k) : `1e${k}`;
}

/**
 * The legend's five swatches as [grad, its text] (colors.legend_marks).
 * @param {ColorScale} scale
 * @returns {[number, string][]}
 */
export function legendMarks(scale) {
  if (scale.log) {
    const mid = scale.top - Math.floor(LOG_DECADES / 2);
    const big = Number(`1e${scale.top}`);
    const small = Number(`1e${mid}`);
    return [[-big, "-" + decade(scale.top)], [-small, "-" + decade(mid)], [0, "0"], [small, decade(mid)],
      [big, decade(scale.top)]];
  }
  const s = scale.largest;
  return [0 - s, 0 - s / 4, 0, s / 4, s].map((v) => [v, formatNumber(v, scale.precision)]);
}

/**
 * What the legend says instead of swatches when they would show nothing (colors.legend_words), else null.
 * @param {ColorScale} scale
 * @returns {string | null}
 */
export function legendWords(scale) {
  if (scale.largest === 0) return "all gradients are 0";
  if (!scale.log && shownAsZero(scale.largest, scale.precision)) {
    return `every gradient but the output's own shows as ${formatFixed(0, scale.precision)}: the log colour scale `
      + "tells them apart";
  }
  return null;
}

/**
 * The legend's first cell: which scale is in force (colors.scale_title).
 * @param {ColorScale} scale
 * @returns {string}
 */
export function scaleTitle(scale) {
  return scale.log ? "grad, log scale" : "grad";
}
