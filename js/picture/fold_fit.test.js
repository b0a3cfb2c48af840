// js/picture/fold_fit.js, as tests/test_fold_fit.py holds fold_fit.py: the units and edges it counts are the ones
// the picture of its open set draws (counted here by hand, from the tree), and the fit loop keeps the set it starts
// from and then the limits.

import { test } from "node:test";
import assert from "node:assert/strict";

import { EDGES_PER_BOX } from "../core/shared.js";
import { edgeLimit, fits, grow, unitArray, unitsOfFlags } from "./fold_fit.js";
import { load } from "./folds.fixture.js";

/** A picture's units and edges between them, by hand: each node's outermost closed group (or itself), every distinct
 * unit, every distinct pair of units. */
function counts(tape, tree, flags) {
  const unit = [];
  for (let i = 0; i < tree.n; i++) {
    let u = i;
    for (let g = tree.groupOf[i]; g >= 0; g = tree.groups[g].parent) if (!flags[g]) u = tree.n + g;
    unit.push(u);
  }
  const pairs = new Set();
  for (let i = 0; i < tree.n; i++) {
    for (let p = tape.inputStart[i]; p < tape.inputStart[i + 1]; p++) {
      const c = unit[tape.inputs[p]];
      if (c !== unit[i]) pairs.add(`${c} ${unit[i]}`);
    }
  }
  return { unit, units: new Set(unit).size, edges: pairs.size };
}

/** A random open set, parents before children, from a seeded generator (the same sets every run). */
function randomFlags(tree, seed, p) {
  let state = seed;
  const random = () => { // mulberry32
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  const flags = new Uint8Array(tree.groups.length);
  tree.groups.forEach((G, g) => { flags[g] = (G.parent < 0 || flags[G.parent]) && random() < p ? 1 : 0; });
  return flags;
}

test("a fit counts what the picture of its open set draws", () => {
  const { tape, tree } = load("moons.json");
  for (const seed of [1, 7, 42]) {
    const flags = randomFlags(tree, seed, 0.3);
    assert.ok(flags.some((f) => f), `seed ${seed}: something is open`);
    const hand = counts(tape, tree, flags);
    assert.deepEqual(Array.from(unitArray(tree, flags).unit), hand.unit, `seed ${seed}: units per node`);
    assert.equal(unitsOfFlags(tree, flags), hand.units, `seed ${seed}: units`);
    assert.equal(edgeLimit(tree, flags, 0), hand.edges, `seed ${seed}: edges (a budget of 0 leaves the set's own)`);
    assert.ok(fits(tree, flags, hand.units, hand.edges) && !fits(tree, flags, hand.units - 1, hand.edges)
      && !fits(tree, flags, hand.units, hand.edges - 1), `seed ${seed}: fits is at most both limits`);
  }
});

test("a fit keeps the set it starts from and then the limits", () => {
  const { tape, tree } = load("moons.json");
  const everything = new Uint8Array(tree.groups.length).fill(1);
  const all = counts(tape, tree, everything);
  assert.ok(all.units > 60);
  assert.equal(edgeLimit(tree, everything, 60), Math.max(EDGES_PER_BOX * 60, all.edges), "the set it starts from is kept");
  const small = new Uint8Array(tree.groups.length);
  const limit = edgeLimit(tree, small, 60);
  assert.equal(limit, Math.max(EDGES_PER_BOX * 60, counts(tape, tree, small).edges));
  grow(tree, small, tree.groups.keys(), 60, limit);
  const grown = counts(tape, tree, small);
  assert.ok(small.some((f) => f), "something opens");
  assert.ok(grown.units <= 60 && grown.edges <= limit, `${grown.units} units, ${grown.edges} edges`);
  tree.groups.forEach((G, g) => {        // every box left closed, and openable, would break a limit
    if (small[g] || (G.parent >= 0 && !small[G.parent])) return;
    const trial = small.slice();
    trial[g] = 1;
    const c = counts(tape, tree, trial);
    assert.ok(c.units > 60 || c.edges > limit, `group ${g} fits but was left closed`);
  });
  const unbounded = new Uint8Array(tree.groups.length);
  grow(tree, unbounded, tree.groups.keys(), 1e9, 1e9);
  assert.deepEqual(unbounded, everything, "room for everything: every box opens");
});
