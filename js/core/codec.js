// @ts-check
// The number codec of the kernel <-> view traits and messages: lists of numbers whose non-finite entries
// travel as strings (spec.js's encodeNumber/decodeNumber), decoded into Float64Arrays.

import { decodeNumber, encodeNumber } from "./spec.js";

/**
 * `values` decoded into a Float64Array, or null when it is not a list (of length `n` when `n` is given).
 * @param {unknown} values
 * @param {number} [n]
 * @returns {Float64Array | null}
 */
export function decodeList(values, n) {
  if (!Array.isArray(values) || (n !== undefined && values.length !== n)) return null;
  return Float64Array.from(values, decodeNumber);
}

/**
 * `values` as a plain list the JSON of a trait or message can carry.
 * @param {Iterable<number> | ArrayLike<number>} values
 * @returns {(number | string)[]}
 */
export function encodeList(values) {
  return Array.from(values, encodeNumber);
}

/**
 * Whether two lists hold the same numbers, NaN equal to NaN and -0 apart from 0 (Object.is).
 * @param {ArrayLike<unknown>} a
 * @param {ArrayLike<unknown>} b
 * @returns {boolean}
 */
export function sameValues(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}
