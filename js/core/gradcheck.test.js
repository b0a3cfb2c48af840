// The numerical gradient check's maths (gradcheck.js, as gradcheck.py): central differences and the verdict. The
// panel's helpers are tested in js/graph/gradcheck-panel.test.js.

import { test } from "node:test";
import assert from "node:assert/strict";

import { gradcheckVerdict, numericGrad } from "./gradcheck.js";
import { GRADCHECK_DEFAULTS } from "./shared.js";
import { replay } from "./tape.js";
import { compile, lectureL } from "./tapes.fixture.js";

test("numeric grads by central differences agree with backprop on the lecture's L; leaf values are restored", () => {
  const tape = lectureL();
  const leaves = Float64Array.from([2, -3, 10, -2]);
  const { grad } = replay(tape, leaves);
  const { eps, rtol, atol } = GRADCHECK_DEFAULTS;
  for (let j = 0; j < leaves.length; j++) {
    const { numeric, failure } = numericGrad(tape, leaves, j, tape.root, eps);
    assert.equal(failure, -1);
    const verdict = gradcheckVerdict(grad[tape.leaves[j]], numeric, rtol, atol);
    assert.ok(verdict.ok, `leaf ${j}: analytic ${grad[tape.leaves[j]]}, numeric ${numeric}`);
    assert.ok(verdict.relError < 1e-6);
  }
  assert.deepEqual([...leaves], [2, -3, 10, -2]);
});

test("the gradcheck verdict follows gradcheck.py: |a - n| <= atol + rtol * |n|, relative to the larger", () => {
  assert.deepEqual(gradcheckVerdict(6, 6), { absError: 0, relError: 0, ok: true });
  assert.deepEqual(gradcheckVerdict(0, 0), { absError: 0, relError: 0, ok: true });
  let v = gradcheckVerdict(2, 3);
  assert.equal(v.absError, 1);
  assert.equal(v.relError, 1 / 3);
  assert.equal(v.ok, false);
  v = gradcheckVerdict(1 + 5e-5, 1); // within rtol = 1e-4
  assert.ok(v.ok);
  v = gradcheckVerdict(1e-7, 0); // within atol = 1e-6
  assert.ok(v.ok);
  assert.equal(v.relError, 1);
  v = gradcheckVerdict(1, NaN);
  assert.ok(Number.isNaN(v.relError));
  assert.equal(v.ok, false);
  assert.equal(gradcheckVerdict(Infinity, Infinity).ok, false);
});

test("a replay that fails while nudging a leaf gives NaN and names the failing node", () => {
  const spec = {
    ops: [{ name: "log", symbol: "log", arity: 1, builtin: true }], op: [-1, 0], inputs: [[], [0]],
    k: [null, null], symbol: ["", "log"], label: ["x", "y"], scope: ["", ""], leaves: [0], root: 1, data: [0, -Infinity],
  };
  const tape = compile(spec);
  const { numeric, failure } = numericGrad(tape, Float64Array.from([1e-7]), 0, 1, 1e-6);
  assert.ok(Number.isNaN(numeric));
  assert.equal(failure, 1);
});
