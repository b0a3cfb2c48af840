// @ts-check
// The differentiated output drawn bold, as dot.py draws it (class mgw-output-node, penwidth 2.5: Graphviz writes
// stroke-width="2.5" on the box), kept on the node the view differentiates now: a layout marks the output it was
// written for (the output when its DOT was written), and choosing another output lays nothing out again.

const MARK = "mgw-output-node";
const BOLD = "2.5";

function setBold(g, on) {
  g.classList.toggle(MARK, on);
  const shape = g.querySelector("polygon, path");
  if (!shape) return;
  if (on) shape.setAttribute("stroke-width", BOLD);
  else shape.removeAttribute("stroke-width");
}

/** Mark node `output`'s box in `bound` (a BoundPicture) as the output, and no other box; nothing when it is folded. */
export function markOutput(bound, output) {
  if (!bound) return;
  const g = bound.outline.groupOf.get(output);
  for (const old of bound.svg.querySelectorAll(`g.${MARK}`)) if (old !== g) setBold(old, false);
  if (g && !g.classList.contains(MARK)) setBold(g, true);
}
