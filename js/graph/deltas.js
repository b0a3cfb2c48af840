// @ts-check
// The Δ marks a step leaves in the picture (js/host/svg-contract.md, "Δ after a step"): under each drawn value node's
// data and grad numbers, its change since the step before ("Δ +0.0600"), until the next change. SVG text made with
// svgElement (js/ui/svg.js) and textContent: no markup is parsed.

import { changeFrom, formatChange } from "../picture/change.js";
import { nameByTexts, svgElement } from "../ui/svg.js";

/** The lowest y of a box's outline (a polygon's points or a path's numbers), or NaN. */
function bottomOf(shape) {
  if (!shape) return NaN;
  const raw = shape.getAttribute("points") || shape.getAttribute("d") || "";
  const numbers = raw.match(/-?\d+(?:\.\d+)?/g) || [];
  let bottom = -Infinity;
  for (let t = 1; t < numbers.length; t += 2) bottom = Math.max(bottom, Number(numbers[t]));
  return Number.isFinite(bottom) ? bottom : NaN;
}

export class DeltaMarks {
  constructor() {
    /** @type {Element[]} */
    this.marks = [];
  }

  /**
   * Write each drawn node's Δdata and Δgrad (now minus before) under its numbers in `bound` (graph/bound-picture.js),
   * replacing the marks of the step before.
   */
  show(bound, names, now, before, precision) {
    this.clear();
    if (!bound) return;
    const dData = changeFrom(now.data, before.data, new Float64Array(now.data.length));
    const dGrad = changeFrom(now.grad, before.grad, new Float64Array(now.grad.length));
    bound.shown.forEach((i, k) => {
      const g = bound.boxes.group[k];
      const bottom = bottomOf(bound.boxes.shape[k]);
      if (!g || !Number.isFinite(bottom)) return;
      const texts = g.querySelectorAll("text");
      [[texts[1], "delta-data", dData[i]], [texts[2], "delta-grad", dGrad[i]]].forEach(([text, field, d]) => {
        if (!text) return;
        const mark = svgElement("text", { class: "mgw-delta", "data-node": names.keys[i], "data-field": field,
          "text-anchor": "middle", "font-size": 9, x: text.getAttribute("x") || "0", y: bottom + 9 });
        mark.textContent = `\u0394 ${formatChange(Number(d), precision)}`;
        g.append(mark);
        this.marks.push(mark);
      });
      nameByTexts(g); // its name reads the marks too
    });
  }

  /** Remove every Δ mark (the numbers changed otherwise: a slider, training, Reset, a new picture). */
  clear() {
    const boxes = new Set(this.marks.map((mark) => mark.parentElement));
    for (const mark of this.marks) mark.remove();
    this.marks = [];
    for (const g of boxes) if (g) nameByTexts(g);
  }
}
