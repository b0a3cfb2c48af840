// @ts-check
// What a closed fold box shows live (issue 9, js/host/svg-contract.md "Live fold box"): a box with one output node (js/picture/fold_tree.js
// pictureFor's `output`: a member used outside the box, or the root) shows that node's data and grad; a box with
// several shows the largest |grad| among its members. Either way it is filled by its largest-|grad| member's grad on
// the nodes' colour scale, and that scale counts the boxes. Computed once per picture (boxNumbers), then per frame
// (boxMaxima: picture/dot.js boxMax per box, the DOT's own rule).

import { boxMax } from "../picture/dot.js";

/** @import { PictureBox } from "../picture/fold_tree.js" */

/**
 * A picture's closed boxes as boxNumbers lists them.
 * @typedef {object} BoxNumbers
 * @property {Int32Array} start box k's members are members[start[k]..start[k + 1]]
 * @property {Int32Array} members
 * @property {Int32Array} single box k's one output node, -1 when it has none or several
 */

/**
 * Per closed box k (0..boxes-1) of a picture whose `foldOf[i]` is node i's box (-1: drawn): its members as a CSR
 * list (`start`, `members`, in node order) and its one output node (`single[k]`: `folds[k].output`, -1 when it has
 * none or several).
 * @param {ArrayLike<Pick<PictureBox, "output"> | undefined>} folds
 * @param {ArrayLike<number>} foldOf
 * @param {number} boxes
 * @returns {BoxNumbers}
 */
export function boxNumbers(folds, foldOf, boxes) {
  const n = foldOf.length;
  const start = new Int32Array(boxes + 1);
  for (let i = 0; i < n; i++) if (foldOf[i] >= 0) start[foldOf[i] + 1] += 1;
  for (let k = 0; k < boxes; k++) start[k + 1] += start[k];
  const members = new Int32Array(start[boxes]);
  const fill = start.slice(0, boxes);
  for (let i = 0; i < n; i++) if (foldOf[i] >= 0) members[fill[foldOf[i]]++] = i;
  const single = Int32Array.from({ length: boxes }, (_, k) => folds[k]?.output ?? -1);
  return { start, members, single };
}

/** Per box into `into`: its largest-|grad| member, picture/dot.js boxMax (the differentiated output left out; while
 * stepping, `reachedAt`/`step` the stepper's, the members not reached yet too), or -1 when no member is counted.
 * @param {BoxNumbers} numbers
 * @param {ArrayLike<number>} grad
 * @param {number} output
 * @param {Int32Array} into
 * @param {ArrayLike<number> | null} [reachedAt]
 * @param {number} [step]
 * @returns {Int32Array}
 */
export function boxMaxima(numbers, grad, output, into, reachedAt = null, step = 0) {
  const { start, members } = numbers;
  for (let k = 0; k < into.length; k++) {
    into[k] = boxMax(grad, members.subarray(start[k], start[k + 1]), output, reachedAt, step) ?? -1;
  }
  return into;
}
