// @ts-check
// The ranks a picture's edges cross beyond the next one, which Graphviz's dot draws through as many virtual nodes: the
// twin of micrograd_widget/picture/far_ranks.py. graph/picture.js refuses a graph drawn whole past REFUSED_FAR_RANKS
// of them (wholeFarRanks); picture/dot.js lays out a picture past FAR_RANKS_LIMIT of them as a large one (farRanks).
//
// API (pure, no DOM):
//   farRanks(pairs, n) -> number               the ranks a picture's edges (unit pairs) cross beyond the next
//   wholeFarRanks(tape) -> number              the ranks the edges of the whole graph drawn cross beyond the next

/** @import { Tape } from "../core/spec.js" */

/**
 * The ranks a picture's edges (`pairs` of units [in, out], each once; `n` the tape's length) cross beyond the next
 * one, which Graphviz's dot draws through as many virtual nodes (micrograd_widget/picture/far_ranks.py far_ranks):
 * each unit ranked as late as it can be, just before the first of its consumers (a node drawn in full, below `n`,
 * two ranks on, its op ellipse between; a box, or any unit when `n` is 0, one), what feeds nothing drawn last. Units
 * in a cycle (boxes feeding each other), and what feeds them, are never ranked: their edges count none, never fewer.
 * @param {Iterable<readonly [number, number]>} pairs
 * @param {number} n
 * @returns {number}
 */
export function farRanks(pairs, n) {
  /** @type {Map<number, number[]>} */
  const into = new Map(); // per unit, the units it feeds
  /** @type {Map<number, number[]>} */
  const outputsOf = new Map(); // per unit, the units that feed it
  /** @type {Map<number, number>} */
  const rank = new Map();
  const list = [...pairs];
  for (const [v, u] of list) {
    const feeds = into.get(v);
    if (feeds) feeds.push(u); else into.set(v, [u]);
    const fedBy = outputsOf.get(u);
    if (fedBy) fedBy.push(v); else outputsOf.set(u, [v]);
    rank.set(v, 0);
    rank.set(u, 0);
  }
  /** @type {Map<number, number>} */
  const waiting = new Map([...into].map(([v, us]) => [v, us.length])); // per unit, its consumers not ranked yet
  const ready = [...rank.keys()].filter((u) => !into.has(u));
  const step = (/** @type {number} */ w) => (w < n ? 2 : 1);
  for (let u = ready.pop(); u !== undefined; u = ready.pop()) { // from the output back, once all consumers are ranked
    const consumers = into.get(u);
    if (consumers) {
      let r = Infinity;
      for (const w of consumers) r = Math.min(r, (rank.get(w) ?? 0) - step(w));
      rank.set(u, r);
    }
    for (const v of outputsOf.get(u) ?? []) {
      const left = (waiting.get(v) ?? 0) - 1;
      waiting.set(v, left);
      if (left === 0) ready.push(v);
    }
  }
  let far = 0;
  for (const [v, u] of list) far += Math.max(0, (rank.get(u) ?? 0) - (rank.get(v) ?? 0) - step(u));
  return far;
}

/**
 * The ranks the edges of the picture drawing every node of `tape` in full cross beyond the next one, which Graphviz's
 * dot draws through as many virtual nodes (micrograd_widget/picture/far_ranks.py whole_far_ranks): each node
 * ranked as late as it can be, two ranks before the first of its consumers (the op ellipse between), the output
 * last; each distinct edge counted once. graph/picture.js refuses a picture past REFUSED_FAR_RANKS of them, as
 * picture/layout.py layout_refusal does.
 * @param {Tape} tape
 * @returns {number}
 */
export function wholeFarRanks(tape) {
  const { n, inputStart, inputs } = tape;
  const rank = new Int32Array(n).fill(1); // 1: no consumer seen yet (ranks are 0 or less)
  let far = 0;
  for (let i = n - 1; i >= 0; i--) { // backwards in tape order: every consumer is ranked before what it takes
    if (rank[i] === 1) rank[i] = 0; // feeds nothing drawn: the output, last
    for (let j = inputStart[i]; j < inputStart[i + 1]; j++) rank[inputs[j]] = Math.min(rank[inputs[j]], rank[i] - 2);
  }
  for (let i = 0; i < n; i++) {
    for (let j = inputStart[i]; j < inputStart[i + 1]; j++) {
      let seen = false; // an input used twice (a + a) is one edge
      for (let k = inputStart[i]; k < j; k++) seen ||= inputs[k] === inputs[j];
      if (!seen) far += rank[i] - rank[inputs[j]] - 2;
    }
  }
  return far;
}
