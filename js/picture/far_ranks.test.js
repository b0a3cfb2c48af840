// js/picture/far_ranks.js, as tests/test_far_ranks.py holds far_ranks.py: the ranks a picture's edges cross beyond
// the next, worked by hand.

import { test } from "node:test";
import assert from "node:assert/strict";

import { farRanks, wholeFarRanks } from "./far_ranks.js";

/**
 * A tape's inputs only (what wholeFarRanks reads), from each node's input list, in tape order.
 * @param {number[][]} ins
 * @returns {import("../core/spec.js").Tape}
 */
function inputsOnly(ins) {
  const inputStart = Int32Array.from([0, ...ins.map((_, i) => ins.slice(0, i + 1).flat().length)]);
  return /** @type {import("../core/spec.js").Tape} */ (/** @type {unknown} */ ({ n: ins.length, inputStart, inputs: Int32Array.from(ins.flat()) }));
}

test("wholeFarRanks counts the ranks each edge crosses beyond the next, worked by hand as Python's far_ranks", () => {
  // x, a; m1 = x * a (rank 2), m2 = m1 * x (rank 4): only x -> m2 crosses more than the 2 ranks of its op, by 2
  assert.equal(wholeFarRanks(inputsOnly([[], [], [0, 1], [2, 0]])), 2);
  // a + a is one edge; a chain has none, fresh constants at each step too (n_k = n_(k-1) * c_k: c_k just before)
  assert.equal(wholeFarRanks(inputsOnly([[], [0, 0]])), 0);
  assert.equal(wholeFarRanks(inputsOnly([[], [0], [1], [2], [3]])), 0);
  assert.equal(wholeFarRanks(inputsOnly([[], [], [0, 1], [], [2, 3], [], [4, 5]])), 0);
  // sum() of products p_k = w_k * v_k: each p_k sits just before the partial sum that takes it, as dot ranks it
  assert.equal(wholeFarRanks(inputsOnly([[], [], [0, 1], [], [], [3, 4], [2, 5], [], [], [7, 8], [6, 9]])), 0);
  // Horner's rule of degree d (x, c0, then per step m_k = y * x, c_k, a_k = m_k + c_k; a_d the output, rank 0): m_k at
  // -4(d - k) - 2, x just before m_1 at -4d, crossing 4k - 4 ranks beyond the next to m_k; c_k just before a_k: 2d(d - 1)
  for (const d of [1, 5, 40, 200]) {
    const ins = [[], []];
    let y = 1;
    for (let k = 1; k <= d; k++) {
      ins.push([y, 0], []);
      ins.push([ins.length - 2, ins.length - 1]);
      y = ins.length - 1;
    }
    assert.equal(wholeFarRanks(inputsOnly(ins)), 2 * d * (d - 1), `degree ${d}`);
  }
});

test("farRanks counts a picture's unit edges as Python's far_ranks, worked by hand", () => {
  // n = 3: x (0), a (1), m1 = x * a (2), m2 = m1 * x (3), nodes drawn in full two ranks on: x -> m2 crosses 2
  assert.equal(farRanks([[0, 2], [1, 2], [2, 3], [0, 3]], 4), 2);
  // units at or past n (boxes), or any with n = 0 (a DOT graph), are one rank on: 0 -> 2 crosses 1
  assert.equal(farRanks([[0, 1], [1, 2], [0, 2]], 0), 1);
  assert.equal(farRanks([[10, 11], [11, 12], [10, 12]], 10), 1);
  assert.equal(farRanks([[0, 1], [1, 2]], 0), 0);
  // boxes feeding each other stay unranked with what feeds them: their edges count none, never fewer
  assert.equal(farRanks([[0, 1], [1, 0], [2, 0], [0, 3]], 0), 0);
  assert.equal(farRanks([[0, 1], [1, 0], [0, 2], [2, 3], [0, 3]], 0), 0);
  // one unit feeding 200,000 others is ranked without spreading them as arguments
  const fan = Array.from({ length: 200000 }, (_, k) => /** @type {[number, number]} */ ([0, k + 1]));
  assert.equal(farRanks(fan, 0), 0);
});
