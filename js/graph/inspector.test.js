// The inspector's words for fold boxes (graph/inspector.js foldWords, openedWords), against sentences written by hand
// (issue 19: "44 nodes folded: layers.0.neurons.0: 44 nodes made inside this module, folded." before).

import { test } from "node:test";
import assert from "node:assert/strict";

import { foldWords, openedWords } from "./inspector.js";

test("a closed module box: what it holds, why it is folded, how to open it", () => {
  const fold = { title: "layers.0.neurons.0", note: "neuron layers.0.neurons.0: 44 nodes made inside it", count: 44 };
  assert.deepEqual(foldWords(fold, { nodes: 398, budget: 250, canOpen: true }), [
    "Neuron layers.0.neurons.0: 44 nodes made inside it.",
    "Folded to keep the picture readable: the graph has 398 nodes and the picture draws at most 250 boxes "
      + "(node_budget), so parts of it are drawn as one box each.",
    "Click Expand (or double-click the box) to open it in place; Collapse closes it again.",
  ]);
});

test("a box the view cannot open, with no note and no budget known: the kernel's node_budget draws it", () => {
  assert.deepEqual(foldWords({ title: "earlier steps", count: 1 }, { nodes: 65_818, budget: null, canOpen: false }), [
    "Earlier steps: 1 node.",
    "Folded to keep the picture readable: the graph has 65,818 nodes, so parts of it are drawn as one box each.",
    "Raise node_budget to draw more of it.",
  ]);
});

test("an opened box says what it holds and where it is drawn", () => {
  assert.deepEqual(openedWords({ title: "layers.1", note: "layer layers.1: 164 nodes made inside it", count: 164 }), [
    "Layer layers.1: 164 nodes made inside it.",
    "Opened: what it holds is drawn inside the dashed frame; Collapse closes it again.",
  ]);
  assert.deepEqual(openedWords({ title: "leaves", count: 2 })[0], "Leaves: 2 nodes.");
});
