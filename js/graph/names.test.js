// The node names' pure helper (graph/names.js): the key each node is known by (the names shown are tested in
// Chromium by tests/browser/).

import { test } from "node:test";
import assert from "node:assert/strict";

import { nodeKeys } from "./names.js";

test("node keys: the label when unique, else the node id", () => {
  assert.deepEqual(nodeKeys(["a", "", "w", "w", "out"]), ["a", "1", "2", "3", "out"]);
  assert.deepEqual(nodeKeys(["<img src=x>", "x"]), ["<img src=x>", "x"]);
});
