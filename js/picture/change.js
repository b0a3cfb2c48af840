// @ts-check
// Pin and compare (issue 21): each node's change from the pinned numbers. A pin keeps only the leaf values and the
// output (js/graph/pin.js replays the frozen tape for the rest); this file is the maths of the change picture: the
// Δ of every node, how a Δ is written ("+1.0000": the sign always said), the captions that say a box shows Δ, and
// the legend's words. The fills are the grad colours' own (format.js gradColor: blue decrease, orange increase,
// white no change) on a scale whose full colour is the largest |Δdata| drawn; a fold box's largest |Δ| is dot.js
// boxMax with no node left out (out = -1).

import { formatNumber } from "./format.js";

/**
 * Per node into `into`: `now[i] - pinned[i]`; 0 where the two are the same number (an infinity unchanged too),
 * NaN where either is NaN or an infinity changed.
 * @param {ArrayLike<number>} now
 * @param {ArrayLike<number>} pinned
 * @param {Float64Array} into
 * @returns {Float64Array}
 */
export function changeFrom(now, pinned, into) {
  for (let i = 0; i < into.length; i++) {
    const x = now[i];
    const y = pinned[i];
    into[i] = x === y ? 0 : x - y;
  }
  return into;
}

/**
 * A change as the picture writes it: formatNumber's digits with its sign always said ("+1.0000", "-3.0000",
 * "0.0000" for no change; "+0.0000" for a rise too small for the digits shown).
 * @param {number} x
 * @param {number} precision
 * @returns {string}
 */
export function formatChange(x, precision) {
  const text = formatNumber(x, precision);
  return x > 0 || x === Infinity ? "+" + text : text;
}

/** @type {Readonly<Record<string, string>>} */
const CHANGE_CAPTIONS = { "data ": "\u0394data ", "grad ": "\u0394grad ", "max |grad| ": "max |\u0394data| " };

/**
 * The caption a number's text gets in the change picture, for its caption in the grad picture ("data " ->
 * "Δdata ", "grad " -> "Δgrad ", a fold box's "max |grad| " -> "max |Δdata| "); any other stays.
 * @param {string} caption
 * @returns {string}
 */
export function changeCaption(caption) {
  return CHANGE_CAPTIONS[caption] ?? caption;
}

/**
 * The legend's words for the change picture whose full colour is at `largest` (the largest |Δdata| drawn).
 * @param {number} largest
 * @param {number} precision
 * @param {boolean} log the log colour scale (one step lighter per power of ten)
 * @returns {string}
 */
export function changeLegendWords(largest, precision, log) {
  if (!(largest > 0)) return "nothing drawn changed since the pin (every \u0394 is 0).";
  const range = `from ${formatChange(-largest, precision)} to ${formatChange(largest, precision)}`;
  return log
    ? `on the log scale: full colour at the next power of ten at or above the largest |\u0394data| drawn (range ${range}), `
      + "one step lighter per power of ten."
    : `range ${range}: full colour at the largest |\u0394data| drawn, lighter for smaller changes.`;
}
