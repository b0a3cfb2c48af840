// Folding in the browser: the same pictures as micrograd_widget/fold_tree.py, with no kernel.
//
// Python computes, once per tape, a fold hierarchy (fold_tree.py) and sends it as the widget's `folds` trait:
//   { version: 1, budget, message,                 // budget: the node budget the tree was built for
//     groups: [[key, kind, title, note, parent, total], ...],   // parents before children; parent -1 = top level
//     group_of: Int32 little-endian buffer (one per tape node: its innermost group, -1 = none) }
// kind is "scope" | "sum" | "terms" | "leaves" | "distance"; key is the scope path for modules, "<kind>:<node id>"
// otherwise (stable across runs); total (Σ boxes) is the node whose '+' the box stands in for, or -1.
// The empty open set draws exactly the picture fold.py's planner draws; each open key replaces its box by its
// members (nodes and child groups), drawn as a labelled Graphviz cluster. Held to tests/vectors/fold_*.json.
//
// API (pure, no DOM; `tape` is js/tape.js's compileTape(spec); `open` is an array of keys; order never matters):
//   compileFolds(spec, nodeCount) -> tree    decode the trait: groups with key/kind/title/note/parent/total/count,
//                                            children, groupOf (Int32Array), byKey (Map key -> group index)
//   pictureFor(tape, tree, open) -> { unitOf, shown, boxes: [{ id: "fold<k>", key, kind, title, note, count,
//                                     group, total }], clusters: [{ id, key, title, group, parent }], edges:
//                                     [[tail, head], ...], message }   what the picture draws for this open set
//   dotFor(tape, tree, open, options) -> string   the DOT, byte-identical to Python's
//                                            (options: { precision, rankdir, color, output, palette })
//   expand(tree, open, key, budget) -> open'  open `key` (and what it needs above it), then its child groups,
//                                            nearest the output first, while the picture fits the budget
//   collapse(tree, open, key) -> open'       close `key` and every group inside it
//   expandAllThatFits(tree, open, budget) -> open'   open groups nearest the output first while they fit
//   closedBoxOf(tree, open, node) -> key | null       the outermost closed group holding `node` (null: drawn)
//   keysToReveal(tree, node) -> [key, ...]   the groups holding `node`, outermost first (open them to draw it)
//   unitsFor(tree, open) -> number           how many units (nodes + boxes) the open set draws
