// What a closed fold box shows live (graph/box-numbers.js), on small tapes worked out by hand: its members, its one
// output node (js/picture/fold_tree.js pictureFor's: a member used outside the box, or the root), and its largest |grad| with the
// output left out (picture/dot.js boxMax per box).

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

import { compileTape, decodeNumber } from "../core/spec.js";
import { boxFill, pictureScale } from "../picture/dot.js";
import { compileFolds, pictureFor } from "../picture/fold_tree.js";
import { PALETTE } from "../core/shared.js";
import { colorScale, formatNumber } from "../picture/format.js";
import { boxMaxima, boxNumbers } from "./box-numbers.js";

const OPS = [
  { name: "mul", symbol: "*", arity: 2, builtin: true },
  { name: "add", symbol: "+", arity: 2, builtin: true },
];
const ROW = { "*": 0, "+": 1 };

/** A compiled tape from [symbol or "", [inputs]] per node, in tape order. */
function tapeOf(nodes) {
  const starts = [0];
  const flat = [];
  for (const [, ins] of nodes) {
    flat.push(...ins);
    starts.push(flat.length);
  }
  const leaves = nodes.flatMap(([, ins], i) => (ins.length ? [] : [i]));
  return compileTape({
    version: 2, n: nodes.length, root: nodes.length - 1, ops: OPS,
    symbol: nodes.map(([s]) => s), label: nodes.map(() => ""), scope: nodes.map(() => ""),
    op: Int32Array.from(nodes.map(([s]) => (s ? ROW[s] : -1))), input_start: Int32Array.from(starts),
    inputs: Int32Array.from(flat), k: Float64Array.from(nodes, () => NaN), leaves: Int32Array.from(leaves),
    leaf_data: Float64Array.from(leaves, () => 1),
  });
}

// a, b, c leaves; d = a*b; e = d+c; f = e*e (root). Box 0 = {a, b, d} (output d), box 1 = {c, e} (output e).
const TAPE = tapeOf([["", []], ["", []], ["", []], ["*", [0, 1]], ["+", [3, 2]], ["*", [4, 4]]]);

/** The box numbers of the picture whose box k holds the nodes with foldOf[i] = k (one top-level group per box, every
 * group closed), with each box's output as js/picture/fold_tree.js pictureFor finds it. */
function numbersOf(foldOf, boxes) {
  const groups = Array.from({ length: boxes }, (_, k) => [`box:${k}`, "scope", `box ${k}`, "", -1, -1]);
  const tree = compileFolds({ version: 1, budget: 10, message: "", groups, group_of: Int32Array.from(foldOf) }, TAPE);
  return boxNumbers(pictureFor(TAPE, tree, []).boxes, Int32Array.from(foldOf), boxes);
}

test("members by box, and the one output node of each box", () => {
  const nb = numbersOf([0, 0, 1, 0, 1, -1], 2);
  assert.deepEqual(Array.from(nb.start), [0, 3, 5]);
  assert.deepEqual(Array.from(nb.members), [0, 1, 3, 2, 4]);
  assert.deepEqual(Array.from(nb.single), [3, 4]);
});

test("a box with two members used outside it has no single output", () => {
  // box 0 = {a, b}: both feed d, which is drawn
  assert.deepEqual(Array.from(numbersOf([0, 0, -1, -1, -1, -1], 1).single), [-1]);
});

test("the root inside a box is its output, in the live numbers and in the DOT (dot.py's _edges)", () => {
  assert.deepEqual(Array.from(numbersOf([-1, -1, -1, 0, 0, 0], 1).single), [5]);
  assert.deepEqual(Array.from(numbersOf([-1, -1, -1, 1, 0, 0], 2).single), [5, 3], "box 0 = {e, f}: the root; box 1 = {d}: used by e");
  // the root and another member used outside: two outputs, none single
  assert.deepEqual(Array.from(numbersOf([-1, -1, -1, 0, -1, 0], 1).single), [-1]);
});

test("largest |grad| per box keeps the sign's member and skips the output", () => {
  const nb = numbersOf([0, 0, 1, 0, 1, 1], 2);
  const grad = Float64Array.from([0.5, -3, 2, 1, 7, 1]);
  const best = boxMaxima(nb, grad, 4, new Int32Array(2));
  assert.deepEqual(Array.from(best), [1, 2]); // box 0: b (-3); box 1: c (2; e is the output)
});

test("largest |grad| per box: an infinite grad is the largest, a NaN larger still (dot.py's box_max)", () => {
  // A box holding an infinite grad truly has max |grad| = inf, and says so; before, the live picture skipped it and
  // showed a finite max where the DOT download and Python's picture showed inf.
  const nb = numbersOf([0, 0, 1, 0, 1, 1], 2);
  const best = new Int32Array(2);
  assert.deepEqual(Array.from(boxMaxima(nb, Float64Array.from([0.5, -3, 2, -Infinity, 7, 1]), 4, best)), [3, 2]);
  // box 0 = {a, b, d}: inf at a, then NaN at d (later in node order): NaN wins, wherever it is
  assert.deepEqual(Array.from(boxMaxima(nb, Float64Array.from([Infinity, -3, 2, NaN, 7, 1]), 4, best)), [3, 2]);
  assert.deepEqual(Array.from(boxMaxima(nb, Float64Array.from([NaN, Infinity, 2, NaN, 7, 1]), 4, best)), [0, 2]);
  // a box whose every member's grad is infinite: its first member, not "none" (which the picture painted white, 0)
  assert.deepEqual(Array.from(boxMaxima(nb, Float64Array.from([Infinity, -Infinity, 2, Infinity, 7, 1]), 4, best)),
    [0, 2]);
});

test("an empty box has no largest member", () => {
  const nb = numbersOf([-1, -1, -1, -1, -1, -1], 1);
  assert.deepEqual(Array.from(boxMaxima(nb, new Float64Array(6), 5, new Int32Array(1))), [-1]);
});

test("largest |grad| per box: ties go to the first member in node order", () => {
  const nb = numbersOf([0, 0, 0, 1, 1, -1], 2);
  const grad = Float64Array.from([1, -2, 2, 0, -0, 9]);
  assert.deepEqual(Array.from(boxMaxima(nb, grad, 5, new Int32Array(2))), [1, 3]);
  // called again on other grads, nothing of the last frame is left over
  assert.deepEqual(Array.from(boxMaxima(nb, Float64Array.from([1, 0, 0, NaN, NaN, 0]), 5, new Int32Array(2))), [0, 3]);
  assert.deepEqual(Array.from(boxMaxima(nb, Float64Array.from([5, 0, 0, 1, 2, 0]), 5, new Int32Array(2))), [0, 4]);
});

/** The largest-|grad| member of `members` by a sort, the reference: NaN above all, then |grad|, the first on a tie. */
function largestBySort(grad, members) {
  const rank = (i) => (Number.isNaN(grad[i]) ? [2, 0] : Math.abs(grad[i]) === Infinity ? [1, 0] : [0, Math.abs(grad[i])]);
  const order = (x, y) => rank(y)[0] - rank(x)[0] || rank(y)[1] - rank(x)[1] || x - y;
  const sorted = [...members].sort(order);
  return sorted.length ? sorted[0] : -1;
}

test("largest |grad| per box on random pictures, stepping or not, is a sort's (NaN, then inf, then |grad|)", () => {
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  for (let trial = 0; trial < 200; trial++) {
    const boxes = 1 + Math.floor(rand() * 4);
    const foldOf = Int32Array.from({ length: 6 }, () => Math.floor(rand() * (boxes + 1)) - 1);
    const pool = [0, 1, -1, 2.5, -2.5, Infinity, -Infinity, NaN, 1e-300];
    const grad = Float64Array.from({ length: 6 }, () => pool[Math.floor(rand() * pool.length)]);
    const output = Math.floor(rand() * 6);
    const reachedAt = Int32Array.from({ length: 6 }, () => Math.floor(rand() * 4));
    const step = Math.floor(rand() * 4);
    const nb = boxNumbers([], foldOf, boxes);
    for (const stepping of [false, true]) {
      const expected = [];
      for (let k = 0; k < boxes; k++) {
        const members = [0, 1, 2, 3, 4, 5].filter((i) => foldOf[i] === k && i !== output && (!stepping || reachedAt[i] <= step));
        expected.push(largestBySort(grad, members));
      }
      const got = boxMaxima(nb, grad, output, new Int32Array(boxes), stepping ? reachedAt : null, step);
      assert.deepEqual(Array.from(got), expected, `trial ${trial}, stepping ${stepping}`);
    }
  }
});

test("while stepping, a member not reached yet is left out of its box's largest |grad|, and a box none reached says so", () => {
  // box 0 = {a, b, d}, box 1 = {c, e}; f (the output) reaches e at step 1, then d and c at step 2, a and b at step 3
  const nb = numbersOf([0, 0, 1, 0, 1, -1], 2);
  const reachedAt = Int32Array.from([3, 3, 2, 2, 1, 0]);
  const grad = Float64Array.from([0, 0, 0, 0, 4, 1]); // the stepper's partial grads after step 1
  const best = new Int32Array(2);
  // -1: no member of that box reached (the picture says "max |grad| ·")
  assert.deepEqual(Array.from(boxMaxima(nb, grad, 5, best, reachedAt, 0)), [-1, -1], "step 0: none reached");
  assert.deepEqual(Array.from(boxMaxima(nb, grad, 5, best, reachedAt, 1)), [-1, 4]);
  const later = Float64Array.from([0, 0, 4, -8, 4, 1]); // after step 2: d and c reached, a and b not yet (0)
  assert.deepEqual(Array.from(boxMaxima(nb, later, 5, best, reachedAt, 2)), [3, 2]);
  const stale = Float64Array.from([9, 9, 4, -8, 4, 1]); // a number in an unreached member never wins
  assert.deepEqual(Array.from(boxMaxima(nb, stale, 5, best, reachedAt, 2)), [3, 2]);
  assert.deepEqual(Array.from(boxMaxima(nb, stale, 5, best)), [0, 2], "not stepping: every member counts");
});

test("the live picture's box numbers and fills are Python's, grads inf and nan included (tests/vectors/folds/nonfinite.json)", () => {
  // Python's static picture (dot.py) wrote each case's DOT; the picture paints a box from boxMaxima's member: the
  // same "max |grad|" text (or its one output's data and grad) and the same fill (boxFill), on the picture's scale.
  const v = JSON.parse(readFileSync(fileURLToPath(new URL("../../tests/vectors/folds/nonfinite.json", import.meta.url)), "utf-8"));
  const decode = (doc) => {
    const out = {};
    for (const [key, value] of Object.entries(doc)) {
      const typed = value && typeof value === "object" && !Array.isArray(value);
      out[key] = typed && "int32" in value ? Int32Array.from(value.int32)
        : typed && "float64" in value ? Float64Array.from(value.float64.map(decodeNumber)) : value;
    }
    return out;
  };
  const tape = compileTape(decode(v.spec));
  const tree = compileFolds(decode(v.folds), tape);
  const data = Float64Array.from(v.data.map(decodeNumber));
  const grad = Float64Array.from(v.grad.map(decodeNumber));
  assert.ok(grad.some(Number.isNaN) && grad.some((g) => Math.abs(g) === Infinity), "the vector holds nan and inf grads");
  const seen = new Set();
  for (const c of v.cases) {
    const pic = pictureFor(tape, tree, c.open);
    assert.deepEqual(pic.boxes.map((b) => b.id), c.boxes.map((b) => b.id));
    const foldOf = new Int32Array(tape.n).fill(-1);
    pic.boxes.forEach((b, k) => { for (const i of b.members) foldOf[i] = k; });
    const nb = boxNumbers(pic.boxes, foldOf, pic.boxes.length);
    const best = boxMaxima(nb, grad, tape.root, new Int32Array(pic.boxes.length));
    const scale = colorScale(pictureScale(grad, pic.shown, best, tape.root), 4);
    const lines = c.dot[0].split("\n");
    c.boxes.forEach((b, k) => {
      const line = lines.find((s) => s.trimStart().startsWith(`${b.id} [`));
      assert.equal(line.match(/fillcolor="([^"]*)"/)[1], boxFill(grad, best[k], scale, PALETTE), `${b.id}: ${line}`);
      if (nb.single[k] >= 0) {
        assert.ok(line.includes(`data ${formatNumber(data[nb.single[k]], 4)}`), `${b.id}: its output's data: ${line}`);
        return;
      }
      const shown = line.match(/max \\\|grad\\\| (\S+?)(\\l)?"/)[1];
      assert.equal(formatNumber(Math.abs(grad[best[k]]), 4), shown, `${b.id}: ${line}`);
      seen.add(shown);
    });
  }
  assert.ok(seen.has("nan") && seen.has("inf"), `boxes showing nan and inf were checked: ${[...seen]}`);
});
