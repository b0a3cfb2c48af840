// js/picture/fold_tree.js against the vectors Python writes (tests/vectors/folds/*.json, generate_folds.py): the same tape,
// hierarchy and open set give the same units, boxes, members, edges and DOT, byte for byte; the actions
// (expand, collapse, expand all that fits) reach the same open sets; and a folds spec of another version is refused.

import { test } from "node:test";
import assert from "node:assert/strict";

import { backwardSteps, gradsAfter } from "../core/stepper.js";
import {
  closedBoxOf, collapse, compileFolds, dotFor, expand, expandAllThatFits, expandRefusal, keysToReveal, pictureFor,
  prepareExpand,
  unitsFor,
} from "./fold_tree.js";
import { FOLDS, foldFiles, load } from "./folds.fixture.js";

const files = foldFiles();

test("there are fold vectors to check", () => {
  assert.ok(files.length >= 6, `expected the fold vectors in ${FOLDS}; run .venv/bin/python tests/vectors/generate_folds.py`);
});

for (const file of files) {
  test(`fold vectors: ${file}`, () => {
    const { v, tape, tree, data, grad } = load(file);
    for (const [k, c] of v.cases.entries()) {
      const what = `${file} case ${k} (${c.action} ${c.key ?? ""})`;
      const budget = c.budget ?? v.budget;
      if (c.action === "expand") assert.deepEqual(expand(tree, c.from, c.key, budget), c.open, `${what}: open set`);
      if (c.action === "collapse") assert.deepEqual(collapse(tree, c.from, c.key), c.open, `${what}: open set`);
      if (c.action === "expand_all") assert.deepEqual(expandAllThatFits(tree, c.from, budget), c.open, `${what}: open set`);
      const pic = pictureFor(tape, tree, c.open);
      assert.equal(unitsFor(tree, c.open), c.units, `${what}: units`);
      assert.equal(pic.shown.length + pic.boxes.length, c.units, `${what}: units drawn`);
      assert.deepEqual(pic.shown, c.shown, `${what}: nodes drawn`);
      assert.deepEqual(pic.boxes.map((b) => ({ id: b.id, key: b.key, kind: b.kind, title: b.title, members: b.members })), c.boxes, `${what}: boxes`);
      assert.deepEqual(pic.clusters.map((x) => x.key), c.clusters, `${what}: clusters`);
      assert.equal(pic.message, c.message, `${what}: message`);
      c.dot.forEach((expected, j) => {
        const dot = dotFor(tape, tree, c.open, { ...v.options[j], data, grad, picture: pic });
        if (dot !== expected) {
          const a = dot.split("\n");
          const b = expected.split("\n");
          const line = a.findIndex((s, i) => s !== b[i]);
          assert.fail(`${what}: DOT under ${JSON.stringify(v.options[j])} differs at line ${line + 1}:\n  js: ${a[line]}\n  py: ${b[line]}`);
        }
      });
    }
    for (const r of v.reveal) {
      assert.deepEqual(keysToReveal(tree, r.node), r.keys, `${file}: keys to reveal node ${r.node}`);
      assert.equal(closedBoxOf(tree, [], r.node), r.closed_box, `${file}: closed box of node ${r.node}`);
    }
  });
}

test("opening the keys to reveal a node draws it; collapsing its outermost box hides it again", () => {
  const { tape, tree } = load("moons.json");
  for (const node of [0, 17, Math.floor(tape.n / 2), tape.n - 3]) {
    const keys = keysToReveal(tree, node);
    assert.equal(closedBoxOf(tree, keys, node), null);
    assert.ok(pictureFor(tape, tree, keys).shown.includes(node));
    if (keys.length) {
      assert.equal(closedBoxOf(tree, [], node), keys[0]);
      assert.deepEqual(collapse(tree, keys, keys[0]), []);
    }
  }
});

test("expand reaches Python's open sets with the work ahead done first (prepareExpand), in any order", () => {
  // One tree per vector file, each case's open set prepared first (the view's idle work), then every case again in
  // reverse with another set prepared. (A count kept for one open set answering for another is caught by
  // fold_fit.test.js's counts by hand, on three open sets of one tree.)
  for (const file of files) {
    const { v, tree } = load(file);
    const expands = v.cases.filter((/** @type {any} */ c) => c.action === "expand");
    for (const c of expands) {
      const budget = c.budget ?? v.budget;
      prepareExpand(tree, c.from, budget);
      assert.deepEqual(expand(tree, c.from, c.key, budget), c.open, `${file} ${c.key}: open set`);
    }
    for (const c of expands.slice().reverse()) {
      const budget = c.budget ?? v.budget;
      prepareExpand(tree, c.open, budget);
      assert.deepEqual(expand(tree, c.from, c.key, budget), c.open, `${file} ${c.key} again: open set`);
    }
  }
});

test("expand never moves a box it does not open, and never draws more than the budget", () => {
  const { tape, tree } = load("moons.json");
  const before = pictureFor(tape, tree, []);
  const key = before.boxes[0].key;
  const open = expand(tree, [], key, 200);
  const after = pictureFor(tape, tree, open);
  assert.ok(unitsFor(tree, open) <= 200);
  const keysAfter = new Set(after.boxes.map((b) => b.key));
  for (const b of before.boxes) if (b.key !== key) assert.ok(keysAfter.has(b.key), `${b.key} stays a box`);
  assert.deepEqual(expand(tree, [], key, before.boxes.length + before.shown.length), [], "no room: nothing opens");
});

test("a folds spec of another version is refused, naming its version", () => {
  assert.throws(() => compileFolds({ version: 9 }, { n: 1 }), /version 9/);
});

test("while stepping, the DOT writes a grad not reached yet as the picture shows it: \u00b7, white, dashed; boxes too", () => {
  const { v, tape, tree, data } = load("lecture_mlp.json");
  const open = ["distance:312", "layers.0.neurons.0"];
  const pic = pictureFor(tape, tree, open);
  const isLine = (s, i) => s.trimStart().startsWith(`n${i} [`); // a node inside an opened box is indented more
  const lineOf = (dot, i) => dot.split("\n").find((s) => isLine(s, i));
  for (const output of [tape.root, v.options[1].output]) {
    const steps = backwardSteps(tape, data, output);
    for (const k of [0, 1, Math.floor(steps.count / 2), steps.count]) {
      const grad = gradsAfter(steps, k);
      const options = { ...v.options[0], output, data, grad, picture: pic };
      const plain = dotFor(tape, tree, open, options); // the same partial grads, written as numbers
      const stepped = dotFor(tape, tree, open, { ...options, reachedAt: steps.reachedAt, step: k });
      const unreached = pic.shown.filter((i) => steps.reachedAt[i] > k);
      if (k === 0) assert.ok(unreached.length > 1, "at step 0 only the output is reached");
      for (const i of unreached) {
        const line = lineOf(stepped, i);
        assert.match(line, /\| grad \u00b7(\\l)?"/, `n${i} at step ${k}: its grad shows the picture's mark`);
        assert.doesNotMatch(line, /grad = /, `n${i}: no grad number in its tooltip`);
        assert.match(line, /grad not reached yet/);
        assert.match(line, /class="mgw-value( mgw-leaf)? mgw-unreached"/);
        assert.match(line, /style="filled,dashed"/);
        assert.match(line, /fillcolor="#ffffff"/, "white, as the picture paints it");
      }
      // A closed box: its one output not reached yet shows "grad \u00b7"; a box of several outputs whose members
      // (the differentiated output left out) are none reached yet shows "max |grad| \u00b7". Such a box is white and
      // class mgw-unreached; any other box is written as without the stepper (its unreached members' partial grads
      // are 0: they change no largest |grad|).
      const away = pic.boxes.filter((b) => (b.output !== null ? steps.reachedAt[b.output] > k
        : b.members.every((i) => i === output || steps.reachedAt[i] > k)));
      if (k === 0) assert.ok(away.length > 1, "at step 0 the boxes are not reached");
      if (k === steps.count) assert.deepEqual(away.filter((b) => b.members.some((i) => steps.reachedAt[i] < 0x7fffffff)), []);
      const boxLine = (dot, b) => dot.split("\n").find((s) => s.trimStart().startsWith(`${b.id} [`));
      for (const b of away) {
        const line = boxLine(stepped, b);
        const field = b.output !== null ? "grad" : "max \\|grad\\|"; // as the record label escapes it
        assert.ok(line.includes(`| ${field} \u00b7\\l"`) || line.includes(`| ${field} \u00b7"`), `${b.id} at step ${k}: ${line}`);
        assert.match(line, /class="mgw-fold mgw-unreached"/);
        assert.match(line, /fillcolor="#ffffff"/, "white, as the picture paints it");
        const bare = (text) => text.replace(/ (\u00b7|-?0\.0000)(\\l)?"/, ' #$2"').replace(" mgw-unreached", "")
          .replace(/fillcolor="[^"]*"/, "");
        assert.equal(bare(line), bare(boxLine(plain, b)),
          "only the number, class and fill differ");
      }
      const isAway = (s) => away.some((b) => s.trimStart().startsWith(`${b.id} [`));
      const others = (dot) => dot.split("\n").filter((s) => !unreached.some((i) => isLine(s, i)) && !isAway(s));
      assert.deepEqual(others(stepped), others(plain), `step ${k}: reached grads, boxes, edges, legend unchanged`);
    }
  }
  const grad = gradsAfter(backwardSteps(tape, data), 0);
  assert.equal(dotFor(tape, tree, open, { data, grad, reachedAt: null }), dotFor(tape, tree, open, { data, grad }),
    "no stepper: the DOT Python writes");
});

test("a box left closed says why: past the layout cost it is too slow to lay out, not out of the node budget", () => {
  // cost_cap.json's Σ box (generate_folds.py COST_CAP): its units and edges fit the budget, but the edges of its terms
  // reach far back, and opening it would cross 10,297 ranks, over LAYOUT_COST_LIMIT.
  const { tree } = load("cost_cap.json");
  const key = tree.groups.find((G) => G.parent < 0).key;
  assert.deepEqual(expand(tree, [], key, 2000), [], "refused");
  const words = expandRefusal(tree, [], key, 2000);
  assert.match(words, /too slow to lay out/);
  assert.match(words, /reach far back/);
  assert.match(words, /10,000 ranks/);
  assert.match(words, /Close other boxes first/);
  assert.doesNotMatch(words, /does not fit in the node budget/);
  const small = expandRefusal(tree, [], key, 10);
  assert.match(small, /does not fit in the node budget/, "past the units: the budget's words");
  const { tree: moons } = load("moons.json");
  const opened = moons.groups.find((G) => G.parent < 0).key;
  assert.equal(expandRefusal(moons, [], opened, 2000), null, "a box that opens has no refusal");
});
