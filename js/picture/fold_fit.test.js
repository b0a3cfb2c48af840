// js/picture/fold_fit.js, as tests/test_fold_fit.py holds fold_fit.py: the units and edges it counts are the ones
// the picture of its open set draws (counted here by hand, from the tree), and the fit loop keeps the set it starts
// from and then the limits; its layout cost (worked by hand) as fold_fit.py counts it.

import { test } from "node:test";
import assert from "node:assert/strict";

import { EDGES_PER_BOX, LAYOUT_COST_LIMIT } from "../core/shared.js";
import { costLimit, edgeLimit, fits, grow, openingCost, unitArray, unitsOfFlags } from "./fold_fit.js";
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
    const cost = costLimit(tree, flags);
    assert.ok(fits(tree, flags, hand.units, { edges: hand.edges, cost })
      && !fits(tree, flags, hand.units - 1, { edges: hand.edges, cost })
      && !fits(tree, flags, hand.units, { edges: hand.edges - 1, cost }), `seed ${seed}: fits is at most both limits`);
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
  grow(tree, small, tree.groups.keys(), 60, { edges: limit, cost: costLimit(tree, small) });
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
  grow(tree, unbounded, tree.groups.keys(), 1e9, { edges: 1e9, cost: 1e9 });
  assert.deepEqual(unbounded, everything, "room for everything: every box opens");
});

// a, b leaves; c = a * b; d = c + a; e = d * b; one group holds a and c (tests/test_fold_fit.py's, folded at 4).
function little() {
  const tape = { n: 5, inputStart: Int32Array.from([0, 0, 0, 2, 4, 6]), inputs: Int32Array.from([0, 1, 2, 0, 3, 1]) };
  const groups = [{ key: "distance:2", kind: "distance", title: "", note: "", parent: -1, total: -1, count: 2, nodes: 2,
    children: [] }];
  return { n: 5, tape, budget: 4, message: "", groups, groupOf: Int32Array.from([0, -1, 0, -1, -1]),
    byKey: new Map([["distance:2", 0]]), top: 4 };
}

test("opening a box costs the ranks its edges cross, worked by hand", () => {
  // a rank 0; c two past a (its op ellipse between): 2. Inside a -> c: 2. From outside b -> c: 2. To outside a -> d:
  // 2 - 0 = 2, c -> d: 2 - 2 = 0, at least 1. As fold_fit.py opening_cost.
  const tree = little();
  assert.equal(openingCost(tree, 0), 2 + 2 + 2 + 1);
  assert.equal(costLimit(tree, Uint8Array.from([1])), LAYOUT_COST_LIMIT, "7 is within the limit");
  const flags = new Uint8Array(1);
  grow(tree, flags, [0], 10, { edges: 100, cost: 6 });
  assert.deepEqual(Array.from(flags), [0], "past the layout cost: stays closed");
  grow(tree, flags, [0], 10, { edges: 100, cost: 7 });
  assert.deepEqual(Array.from(flags), [1], "at it: opens");
});
