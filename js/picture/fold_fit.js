// @ts-check
// The fit loop: an open set grown one fold box at a time within a node budget, as micrograd_widget/picture/fold_fit.py.
//
// fold_tree.js's expand and expandAllThatFits grow an open set through `grow`: at most `budget` units,
// max(EDGES_PER_BOX * budget, edges of the set it starts from) edges (`edgeLimit`) and a layout cost of
// max(LAYOUT_COST_LIMIT, the cost of the set it starts from) (`costLimit`): the sum of each open group's
// `openingCost`, the ranks the edges it draws cross. As Python's OpenSetFit, `grow` keeps the picture's units and
// counts and rewrites only the box tried (its border, kept per tree: `opening`); `fits` counts a set whole.
//
// API (pure, no DOM; `flags` is fold_tree.js's open set, per group 1 when open and inside open groups only):
//   unitArray(tree, flags) -> {unit, box}     per node its unit (itself, or n + its closed box); per group its box
//   unitsOfFlags(tree, flags) -> number        how many units (nodes + boxes) the open set draws
//   edgeLimit(tree, flags, budget) -> number   the most edges a set grown from `flags` may draw
//   costLimit(tree, flags) -> number           the most layout cost a set grown from `flags` may have
//   openingCost(tree, g) -> number             the ranks the edges of group g cross once it is open
//   grow(tree, flags, candidates, budget, limits)  the fit loop: open each candidate that fits, in order
//   fits(tree, flags, budget, limits) -> boolean   whether the picture of `flags` is within the three limits
//   misfit(tree, flags, budget, limits) -> "units" | "cost" | "edges" | null   the limit it is past (null: fits)
//   (limits: {edges, cost}, edgeLimit's and costLimit's)

import { EDGES_PER_BOX, LAYOUT_COST_LIMIT } from "../core/shared.js";

/** @import { FoldTree } from "./fold_tree.js" */
/** @import { Tape } from "../core/spec.js" */

// ---------------------------------------------------------------- the units and edges of a picture

// Python's Opening and FitBase are `opening` and CostTables below (each box's border and the tables it is read from,
// kept per tree); a picture's units and edges are also counted whole, by the three functions below (`fits`).

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

// ---------------------------------------------------------------- the layout cost

/**
 * What opening one group does, whatever else is open (fold_fit.py's Opening): its members and their units once it is
 * open, how many distinct edges join two of those units, the edges across its border as [outside node, unit inside]
 * and [unit inside, outside node] pairs, each once, and its layout cost.
 * @typedef {{members: Int32Array, units: Int32Array, internal: number, inward: [number, number][],
 *   outward: [number, number][], cost: number}} Opening
 */
/**
 * Per tree, what openings need: per node its unit in the default picture (`top`), the nodes each group holds
 * directly and each node's consumers (CSR), and each group's Opening worked out so far; and the edge counts of the
 * last open sets counted (openSetEdges), by their flags.
 * @typedef {{top: Int32Array, directStart: Int32Array, direct: Int32Array, consumerStart: Int32Array,
 *   consumers: Int32Array, openings: Map<number, Opening>, edgeCounts: Map<string, number>}} CostTables
 */
/** @type {WeakMap<FoldTree, CostTables>} */
const costTables = new WeakMap();
const OPEN_SETS_KEPT = 8; // edge counts kept per tree (openSetEdges): an Expand's two, and the sets around them

/**
 * @param {FoldTree} tree
 * @returns {CostTables}
 */
function tablesOf(tree) {
  const known = costTables.get(tree);
  if (known) return known;
  if (!tree.tape) throw new TypeError("fold tree: expand needs the tape: compileFolds(spec, tape)");
  const { n, groups, groupOf } = tree;
  const { inputStart, inputs } = tree.tape;
  const directStart = new Int32Array(groups.length + 1);
  for (let i = 0; i < n; i++) if (groupOf[i] >= 0) directStart[groupOf[i] + 1]++;
  for (let g = 0; g < groups.length; g++) directStart[g + 1] += directStart[g];
  const direct = new Int32Array(directStart[groups.length]);
  const at = directStart.slice(0, groups.length);
  for (let i = 0; i < n; i++) if (groupOf[i] >= 0) direct[at[groupOf[i]]++] = i;
  const consumerStart = new Int32Array(n + 1);
  for (let p = 0; p < inputStart[n]; p++) consumerStart[inputs[p] + 1]++;
  for (let i = 0; i < n; i++) consumerStart[i + 1] += consumerStart[i];
  const consumers = new Int32Array(inputStart[n]);
  const next = consumerStart.slice(0, n);
  for (let i = 0; i < n; i++) for (let p = inputStart[i]; p < inputStart[i + 1]; p++) consumers[next[inputs[p]]++] = i;
  const tables = { top: unitArray(tree, new Uint8Array(groups.length)).unit, directStart, direct, consumerStart, consumers,
    openings: new Map(), edgeCounts: new Map() };
  costTables.set(tree, tables);
  return tables;
}

/**
 * A pair of `tree`'s units (or nodes: every unit and node is below n + the number of groups) as one number, for a Set or
 * Map key: exact while that bound is at most 2^26 (a pair is then below 2^52).
 * @param {FoldTree} tree
 * @returns {(a: number, b: number) => number}
 */
function pairKey(tree) {
  const width = tree.n + tree.groups.length;
  if (width > 2 ** 26) throw new RangeError(`fold tree: ${width} nodes and groups, more than the fold plan can key (at most 2^26)`);
  return (a, b) => a * width + b;
}

/**
 * The ranks the edges of group `g` cross once it is open (its children closed), as fold_fit.py opening_cost: ranks
 * from the group's border in tape order, a node drawn in full two ranks past what feeds it (its op ellipse between),
 * a closed child box one past; an edge inside counts the ranks between its ends, one from outside (once per unit
 * outside in the default picture) the rank of its head, one to outside the ranks from its tail to the group's
 * deepest; each at least 1.
 * @param {FoldTree} tree
 * @param {number} g
 * @returns {number}
 */
export function openingCost(tree, g) {
  return opening(tree, g).cost;
}

/**
 * Group `g`'s Opening, worked out the first time it is tried on this tree and kept with it.
 * @param {FoldTree} tree
 * @param {number} g
 * @returns {Opening}
 */
function opening(tree, g) {
  const tables = tablesOf(tree);
  const known = tables.openings.get(g);
  if (known !== undefined) return known;
  const { n, groups } = tree;
  const { top, directStart, direct, consumerStart, consumers } = tables;
  const { inputStart, inputs } = /** @type {Tape} */ (tree.tape);
  /** @type {Map<number, number>} per member, its unit once g is open */
  const unitIn = new Map();
  for (let p = directStart[g]; p < directStart[g + 1]; p++) unitIn.set(direct[p], direct[p]);
  for (const c of groups[g].children) {
    const stack = [c];
    while (stack.length) {
      const h = /** @type {number} */ (stack.pop());
      for (let p = directStart[h]; p < directStart[h + 1]; p++) unitIn.set(direct[p], n + c);
      stack.push(...groups[h].children);
    }
  }
  /** @type {Map<number, number>} */
  const rank = new Map();
  for (const u of unitIn.values()) rank.set(u, 0);
  // The distinct pairs inside, across the border, and by the default units, each keyed by pairKey (a number: a string
  // per pair made the first Expand on the moons loss spend ~50 ms here building and hashing strings).
  const key = pairKey(tree);
  /** @type {Map<number, [number, number]>} */
  const inside = new Map();
  /** @type {Map<number, [number, number]>} */
  const inward = new Map();
  /** @type {Map<number, [number, number]>} */
  const outward = new Map();
  /** @type {Map<number, [number, number]>} */
  const into = new Map();
  /** @type {Map<number, [number, number]>} */
  const outOf = new Map();
  const members = Int32Array.from(unitIn.keys()).sort();
  for (const x of members) {
    const ux = /** @type {number} */ (unitIn.get(x));
    const step = ux === x ? 2 : 1;
    let r = /** @type {number} */ (rank.get(ux));
    for (let p = inputStart[x]; p < inputStart[x + 1]; p++) {
      const c = inputs[p];
      const uc = unitIn.get(c);
      if (uc === undefined) {
        r = Math.max(r, step);
        inward.set(key(c, ux), [c, ux]);
        into.set(key(top[c], ux), [top[c], ux]);
      } else if (uc !== ux) {
        r = Math.max(r, /** @type {number} */ (rank.get(uc)) + step);
        inside.set(key(uc, ux), [uc, ux]);
      }
    }
    rank.set(ux, r);
    for (let p = consumerStart[x]; p < consumerStart[x + 1]; p++) {
      const y = consumers[p];
      if (unitIn.has(y)) continue;
      outward.set(key(ux, y), [ux, y]);
      outOf.set(key(ux, top[y]), [ux, top[y]]);
    }
  }
  let deepest = 0;
  for (const r of rank.values()) deepest = Math.max(deepest, r);
  /** @type {(u: number) => number} */
  const at = (u) => /** @type {number} */ (rank.get(u));
  let cost = 0;
  for (const [uc, ux] of inside.values()) cost += Math.max(1, at(ux) - at(uc));
  for (const [, ux] of into.values()) cost += Math.max(1, at(ux));
  for (const [ux] of outOf.values()) cost += Math.max(1, deepest - at(ux));
  const found = { members: Int32Array.from(unitIn.keys()), units: Int32Array.from(unitIn.values()), internal: inside.size,
    inward: [...inward.values()], outward: [...outward.values()], cost };
  tables.openings.set(g, found);
  return found;
}

/**
 * The layout cost of the open set `flags`: the sum of its open groups' opening costs.
 * @param {FoldTree} tree
 * @param {Uint8Array} flags
 * @returns {number}
 */
function costOf(tree, flags) {
  let cost = 0;
  for (let g = 0; g < flags.length; g++) if (flags[g]) cost += openingCost(tree, g);
  return cost;
}

/**
 * The most layout cost a set grown from `flags` may have (OpenSetFit's cost_limit): the set it starts from is kept.
 * @param {FoldTree} tree
 * @param {Uint8Array} flags
 * @returns {number}
 */
export function costLimit(tree, flags) {
  return Math.max(LAYOUT_COST_LIMIT, costOf(tree, flags));
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
  return Math.max(EDGES_PER_BOX * budget, openSetEdges(tree, flags));
}

/**
 * How many distinct edges the picture of `flags` draws (edgeCount of its units), kept with the tree for the last
 * OPEN_SETS_KEPT open sets: an Expand counts its open set's and its trial's, each twice (the limit and the fit, the
 * test and the grow), 5-8 ms each on the moons loss.
 * @param {FoldTree} tree
 * @param {Uint8Array} flags
 * @returns {number}
 */
function openSetEdges(tree, flags) {
  const kept = tablesOf(tree).edgeCounts;
  const key = flags.join("");
  const known = kept.get(key);
  if (known !== undefined) return known;
  const count = edgeCount(tree, unitArray(tree, flags).unit);
  kept.set(key, count);
  for (const old of kept.keys()) {
    if (kept.size <= OPEN_SETS_KEPT) break;
    kept.delete(old);
  }
  return count;
}

/**
 * The fit loop (OpenSetFit.grow): try each of `candidates` in order, a group whose parent is open and itself
 * closed, and keep it open when the picture still fits; `flags` is changed in place. The picture's units and counts
 * are kept, and a box tried costs its border (OpenSetFit._open): the pairs it drew with the units outside go, the
 * pairs its units inside draw with them and among themselves come.
 * @param {FoldTree} tree
 * @param {Uint8Array} flags
 * @param {Iterable<number>} candidates
 * @param {number} budget
 * @param {{edges: number, cost: number}} limits
 */
export function grow(tree, flags, candidates, budget, limits) {
  const key = pairKey(tree);
  const { unit } = unitArray(tree, flags);
  let units = unitsOfFlags(tree, flags);
  let cost = costOf(tree, flags);
  let edges = -1; // counted when a box first passes the units and the cost
  for (const g of candidates) {
    const G = tree.groups[g];
    if (flags[g] || (G.parent >= 0 && !flags[G.parent])) continue;
    const more = units + G.children.length + G.nodes - 1;
    const op = opening(tree, g);
    if (more > budget || cost + op.cost > limits.cost) continue;
    if (edges < 0) edges = openSetEdges(tree, flags); // the units of flags as the loop found them: none opened yet
    const gone = new Set();
    const made = new Set();
    for (const [c, ux] of op.inward) { gone.add(unit[c]); made.add(key(unit[c], ux)); }
    for (const [ux, y] of op.outward) { gone.add(-1 - unit[y]); made.add(key(ux, unit[y])); }
    const after = edges - gone.size + made.size + op.internal;
    if (after > limits.edges) continue;
    for (let k = 0; k < op.members.length; k++) unit[op.members[k]] = op.units[k];
    flags[g] = 1;
    [units, cost, edges] = [more, cost + op.cost, after];
  }
}

/**
 * Whether the picture of `flags` has at most `budget` units, `limits.edges` edges and `limits.cost` layout cost
 * (OpenSetFit.open's test).
 * @param {FoldTree} tree
 * @param {Uint8Array} flags
 * @param {number} budget
 * @param {{edges: number, cost: number}} limits
 * @returns {boolean}
 */
export function fits(tree, flags, budget, limits) {
  return misfit(tree, flags, budget, limits) === null;
}

/**
 * Which limit the picture of `flags` is past, tested in `fits`'s order ("units", "cost", "edges"), or null when it
 * fits: what the page tells a learner whose box stays closed.
 * @param {FoldTree} tree
 * @param {Uint8Array} flags
 * @param {number} budget
 * @param {{edges: number, cost: number}} limits
 * @returns {"units" | "cost" | "edges" | null}
 */
export function misfit(tree, flags, budget, limits) {
  if (unitsOfFlags(tree, flags) > budget) return "units";
  if (costOf(tree, flags) > limits.cost) return "cost";
  return openSetEdges(tree, flags) > limits.edges ? "edges" : null;
}
