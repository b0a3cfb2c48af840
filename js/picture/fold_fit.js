// @ts-check
// The fit loop: an open set grown one fold box at a time within a node budget, as micrograd_widget/picture/fold_fit.py.
//
// fold_tree.js's expand and expandAllThatFits grow an open set through `grow`: at most `budget` units and
// max(EDGES_PER_BOX * budget, edges of the set it starts from) edges (`edgeLimit`). Python keeps the picture's
// units and counts and rewrites only the box tried; here each box tried is counted on its whole picture (`fits`).
//
// API (pure, no DOM; `flags` is fold_tree.js's open set, per group 1 when open and inside open groups only):
//   unitArray(tree, flags) -> {unit, box}     per node its unit (itself, or n + its closed box); per group its box
//   unitsOfFlags(tree, flags) -> number        how many units (nodes + boxes) the open set draws
//   edgeLimit(tree, flags, budget) -> number   the most edges a set grown from `flags` may draw
//   grow(tree, flags, candidates, budget, limit)   the fit loop: open each candidate that fits, in order
//   fits(tree, flags, budget, limit) -> boolean    whether the picture of `flags` is within both limits

import { EDGES_PER_BOX } from "../core/shared.js";

/** @import { FoldTree } from "./fold_tree.js" */

// ---------------------------------------------------------------- the units and edges of a picture

// Python's Opening, FitBase, fit_base and _buckets (the default picture and each box's border, kept per tree) have
// no twin: here a picture's units and edges are counted whole, by the three functions below.

/**
 * @param {FoldTree} tree
 * @param {Uint8Array} flags
 * @returns {{unit: Int32Array, box: Int32Array}}
 */
export function unitArray(tree, flags) {
  const { n, groups, groupOf } = tree;
  const box = new Int32Array(groups.length);
  for (let g = 0; g < groups.length; g++) {
    const above = groups[g].parent >= 0 ? box[groups[g].parent] : -1;
    box[g] = above >= 0 ? above : flags[g] ? -1 : g;
  }
  const unit = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const g = groupOf[i];
    unit[i] = g < 0 || box[g] < 0 ? i : n + box[g];
  }
  return { unit, box };
}

/**
 * @param {FoldTree} tree
 * @param {Uint8Array} flags
 * @returns {number}
 */
export function unitsOfFlags(tree, flags) {
  let units = tree.top;
  tree.groups.forEach((g, k) => { if (flags[k]) units += g.children.length + g.nodes - 1; });
  return units;
}

// How many distinct edges join two different units (fold_rules.py's edge_count). The pairs go in an open-addressing
// table of int32 pairs: a Set of numbers (tail * width + head, past 2^31) took ~2 ms a call on the moons loss, and
// expand calls it per child.
/**
 * @param {FoldTree} tree
 * @param {Int32Array} unit
 * @returns {number}
 */
function edgeCount(tree, unit) {
  if (!tree.tape) throw new TypeError("fold tree: expand needs the tape: compileFolds(spec, tape)");
  const { inputStart, inputs } = tree.tape;
  let mask = 1023;
  let tails = new Int32Array(mask + 1).fill(-1);
  let heads = new Int32Array(mask + 1);
  let count = 0;
  /** @type {(c: number, u: number) => number} */
  const slot = (c, u) => {
    let h = (Math.imul(c, 0x9e3779b1) ^ Math.imul(u, 0x85ebca77)) & mask;
    while (tails[h] !== -1 && (tails[h] !== c || heads[h] !== u)) h = (h + 1) & mask;
    return h;
  };
  for (let i = 0; i < tree.n; i++) {
    const u = unit[i];
    for (let p = inputStart[i]; p < inputStart[i + 1]; p++) {
      const c = unit[inputs[p]];
      if (c === u) continue;
      const h = slot(c, u);
      if (tails[h] !== -1) continue;
      tails[h] = c;
      heads[h] = u;
      if (++count * 2 > mask) { // grow: keep the table at most half full
        const [oldTails, oldHeads] = [tails, heads];
        mask = mask * 2 + 1;
        tails = new Int32Array(mask + 1).fill(-1);
        heads = new Int32Array(mask + 1);
        for (let k = 0; k < oldTails.length; k++) {
          if (oldTails[k] === -1) continue;
          const g = slot(oldTails[k], oldHeads[k]);
          tails[g] = oldTails[k];
          heads[g] = oldHeads[k];
        }
      }
    }
  }
  return count;
}

// ---------------------------------------------------------------- the fit loop

/**
 * The most edges a set grown from `flags` may draw (OpenSetFit's limit): the set it starts from is kept.
 * @param {FoldTree} tree
 * @param {Uint8Array} flags
 * @param {number} budget
 * @returns {number}
 */
export function edgeLimit(tree, flags, budget) {
  return Math.max(EDGES_PER_BOX * budget, edgeCount(tree, unitArray(tree, flags).unit));
}

/**
 * The fit loop (OpenSetFit.grow): try each of `candidates` in order, a group whose parent is open and itself
 * closed, and keep it open when the picture still fits; `flags` is changed in place.
 * @param {FoldTree} tree
 * @param {Uint8Array} flags
 * @param {Iterable<number>} candidates
 * @param {number} budget
 * @param {number} limit
 */
export function grow(tree, flags, candidates, budget, limit) {
  for (const g of candidates) {
    const parent = tree.groups[g].parent;
    if (flags[g] || (parent >= 0 && !flags[parent])) continue;
    flags[g] = 1;
    if (!fits(tree, flags, budget, limit)) flags[g] = 0;
  }
}

/**
 * Whether the picture of `flags` has at most `budget` units and `limit` edges (OpenSetFit.open's test).
 * @param {FoldTree} tree
 * @param {Uint8Array} flags
 * @param {number} budget
 * @param {number} limit
 * @returns {boolean}
 */
export function fits(tree, flags, budget, limit) {
  if (unitsOfFlags(tree, flags) > budget) return false;
  return edgeCount(tree, unitArray(tree, flags).unit) <= limit;
}
