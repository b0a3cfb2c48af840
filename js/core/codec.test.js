// The number lists the view and the kernel exchange (codec.js): non-finite numbers as strings, and the equality
// that tells a change from an echo.

import { test } from "node:test";
import assert from "node:assert/strict";

import { decodeList, encodeList, sameValues } from "./codec.js";

test("number lists: non-finite numbers travel as strings and come back the same", () => {
  assert.deepEqual(encodeList(new Float64Array([1.5, NaN, Infinity, -Infinity, -0])), [1.5, "NaN", "Infinity", "-Infinity", -0]);
  assert.deepEqual(Array.from(decodeList([1.5, "NaN", "-Infinity"], 3)), [1.5, NaN, -Infinity]);
  assert.equal(decodeList([1, 2], 3), null, "a list of another length is refused");
  assert.equal(decodeList("1,2"), null, "so is anything but a list");
  assert.deepEqual(Array.from(decodeList([4, 5])), [4, 5], "any length when none is asked for");
  assert.throws(() => decodeList(["nan"], 1), /NaN/, "an unknown string is an error that names the accepted ones");
});

test("same values: NaN equals NaN, -0 differs from 0, lengths must match", () => {
  assert.equal(sameValues([1, NaN], new Float64Array([1, NaN])), true);
  assert.equal(sameValues([0], [-0]), false);
  assert.equal(sameValues([1, 2], [1, 2.000001]), false);
  assert.equal(sameValues([1], [1, 2]), false);
});
