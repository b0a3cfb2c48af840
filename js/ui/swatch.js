// @ts-check
// A colour swatch: the small square that shows a grad's fill in the legends and the inspectors.

import { h } from "./dom.js";

/**
 * A `<span class=className>` filled with `color` (left to the stylesheet when there is none).
 * @param {string} className
 * @param {string | null} [color]
 * @returns {HTMLSpanElement}
 */
export function swatch(className, color) {
  const el = h("span", { className });
  if (color) el.style.background = color;
  return el;
}
