// @ts-check
// What a closed fold box shows live (issue 9, js/svg-contract.md "Live fold box"): a box with one output node (a
// member used outside the box, or the root) shows that node's data and grad; a box with several shows the largest
// |grad| among its members. Either way it is filled by its largest-|grad| member's grad on the nodes' colour scale,
// and that scale counts the boxes. Pure: computed once per picture (boxNumbers), then per frame (largestGrad).

/**
 * Per closed box k (0..boxes-1) of a picture whose `foldOf[i]` is node i's box (-1: drawn): its members as a CSR
 * list (`start`, `members`) and its one output node (`single[k]`, -1 when it has none or several); `foldOf` and
 * scratch rows for largestGrad.
 */
export function boxNumbers(tape, foldOf, boxes) {
  const n = tape.n;
  const start = new Int32Array(boxes + 1);
  for (let i = 0; i < n; i++) if (foldOf[i] >= 0) start[foldOf[i] + 1] += 1;
  for (let k = 0; k < boxes; k++) start[k + 1] += start[k];
  const members = new Int32Array(start[boxes]);
  const fill = start.slice(0, boxes);
  const used = new Uint8Array(n); // 1: node i is used by a unit other than its own box
  const { inputStart, inputs } = tape;
  for (let i = 0; i < n; i++) {
    const k = foldOf[i];
    if (k >= 0) members[fill[k]++] = i;
    for (let p = inputStart[i]; p < inputStart[i + 1]; p++) {
      const c = inputs[p];
      if (foldOf[c] >= 0 && foldOf[c] !== k) used[c] = 1;
    }
  }
  if (foldOf[tape.root] >= 0) used[tape.root] = 1;
  const single = new Int32Array(boxes).fill(-1);
  const outputs = new Int32Array(boxes);
  for (let k = 0; k < boxes; k++) {
    for (let p = start[k]; p < start[k + 1]; p++) {
      const i = members[p];
      if (used[i]) {
        outputs[k] += 1;
        single[k] = i;
      }
    }
    if (outputs[k] !== 1) single[k] = -1;
  }
  return { start, members, single, foldOf, bestAbs: new Float64Array(boxes), reached: new Uint8Array(boxes) };
}

/** Per box: the member with the largest |grad| (the differentiated output left out), or -1: fold-dot.js boxMax's rule
 * (dot.py's box_max): a NaN grad is the largest, then an infinite one, then the largest finite |grad|; the first in
 * node order on a tie. One pass in node order (no member lists: the slider frame's cost is one read per node).
 * While stepping (`reachedAt`, `step`: the stepper's), a member the backward pass has not reached yet is left out, as
 * from the picture's colour scale, and `numbers.reached[k]` says whether box k has a member (other than the output)
 * reached at all (1 for every box when not stepping). */
export function largestGrad(numbers, grad, output, into, reachedAt = null, step = 0) {
  const { foldOf, bestAbs, reached } = numbers;
  into.fill(-1);
  bestAbs.fill(-1);
  reached.fill(reachedAt === null ? 1 : 0);
  for (let i = 0; i < foldOf.length; i++) {
    const k = foldOf[i];
    if (k < 0 || i === output) continue;
    if (reachedAt !== null) {
      if (reachedAt[i] > step) continue;
      reached[k] = 1;
    }
    const a = Math.abs(grad[i]);
    if (a > bestAbs[k] || (Number.isNaN(a) && !Number.isNaN(bestAbs[k]))) {
      into[k] = i;
      bestAbs[k] = a;
    }
  }
  return into;
}
