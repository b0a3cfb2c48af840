"""The fold hierarchy (fold_tree.py): every node in one innermost group, stable keys, bounded groups, the default
picture unchanged, open/close/expand-all-that-fits within the budget, and the shared vectors never stale."""

from __future__ import annotations

import importlib.util
import random
import sys
from pathlib import Path
from typing import Any

import pytest
from builders import picture_view

from micrograd_widget import MLP, Value
from micrograd_widget.core.spec import from_buffer
from micrograd_widget.core.tape import Tape
from micrograd_widget.picture import fold_fit, fold_tree
from micrograd_widget.picture.dot import graph_view
from micrograd_widget.picture.fold import EDGES_PER_BOX, plan
from micrograd_widget.picture.fold_rules import edge_count
from micrograd_widget.picture.fold_tree import (
    FoldTree,
    build_tree,
    check_open,
    child_cap,
    closed_box_of,
    collapse,
    expand,
    expand_all_that_fits,
    keys_to_reveal,
    picture,
)

VECTORS = Path(__file__).resolve().parent / "vectors"


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("vectors_generate_folds", VECTORS / "generate_folds.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("vectors_generate_folds", module)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def generator() -> Any:
    return _generator()


@pytest.fixture(scope="module")
def graphs(generator: Any) -> dict[str, tuple[Tape, int | None]]:
    return {name: (Tape.from_value(build()), budget) for name, (build, budget) in generator.GRAPHS.items()}


def test_committed_fold_vectors_are_exactly_what_the_generator_writes(generator: Any) -> None:
    expected = generator.render()
    committed = {p.name: p.read_text(encoding="utf-8") for p in (VECTORS / "folds").glob("*.json")}
    assert sorted(committed) == sorted(expected), "run: .venv/bin/python tests/vectors/generate_folds.py"
    for name, text in expected.items():
        assert committed[name] == text, f"{name} is stale; run: .venv/bin/python tests/vectors/generate_folds.py"


def holders(tree: FoldTree, i: int) -> list[int]:
    g = tree.group_of[i]
    return tree.ancestors(g) if g >= 0 else []


@pytest.mark.parametrize("budget_scale", [1, 3])
def test_every_node_is_in_one_innermost_group_and_groups_stay_small(graphs: dict[str, tuple[Tape, int | None]],
                                                                     budget_scale: int) -> None:
    for name, (tape, whole) in graphs.items():
        if whole is None:   # no budget: no group, every node drawn
            assert build_tree(tape, None).groups == [] and set(build_tree(tape, None).group_of) == {-1}, name
            continue
        budget = whole * budget_scale
        tree = build_tree(tape, budget)
        members = [0] * len(tree.groups)
        for i in range(len(tape)):
            for g in holders(tree, i):
                members[g] += 1
        assert members == [g.count for g in tree.groups], name
        for k, g in enumerate(tree.groups):
            assert g.parent < k, "parents come before their children"
            assert 2 <= g.count < len(tape), (name, g.key)
            assert len(g.children) + g.nodes <= child_cap(budget), (name, g.key)
            assert g.children == [c for c, h in enumerate(tree.groups) if h.parent == k]
        assert len({g.key for g in tree.groups}) == len(tree.groups), "keys are unique"
        assert tree.group_of[tape.root] == -1, "the root is always drawn"


def test_keys_are_stable_across_two_tapes_of_the_same_graph(generator: Any) -> None:
    for name, (build, budget) in generator.GRAPHS.items():
        first, second = (build_tree(Tape.from_value(build()), budget) for _ in range(2))
        assert first.spec()["groups"] == second.spec()["groups"], name
        assert first.group_of == second.group_of, name


def test_the_empty_open_set_draws_the_planners_picture(graphs: dict[str, tuple[Tape, int | None]]) -> None:
    for name, (tape, budget) in graphs.items():
        folding = plan(tape, budget)
        pic = picture(tape, build_tree(tape, budget), [])
        view = graph_view(tape, node_budget=budget)
        assert pic.shown == folding.shown and list(view.shown) == folding.shown, name
        assert [f.members for f in view.folds] == [f.members for f in folding.folds], name
        assert view.message == folding.message and not pic.clusters, name
        assert view.tree is not None and not view.tree.nested, "nothing opened: the top level is all it builds"
        assert graph_view(tape, node_budget=budget, tree=build_tree(tape, budget)).dot == view.dot, name


def neuron(n_inputs: int = 3) -> Value:
    """One scoped neuron on labelled inputs: tanh(b + w0*x0 + w1*x1 + w2*x2) (13 nodes: 3 inputs, 4 params)."""
    model = MLP(n_inputs, [1])
    out = model([Value(float(k + 1), label=f"x{k}") for k in range(n_inputs)])
    assert isinstance(out, Value)
    return out


def two_neurons_summed() -> Tape:
    """MLP(3, [2]) on one example (a linear layer), both outputs summed: two neuron modules of 10 nodes each
    (4 parameters, 3 products, 3 sums), 3 inputs and the sum."""
    model = MLP(3, [2])
    outs = model([Value(1.0, label="x0"), Value(-2.0, label="x1"), Value(0.5, label="x2")])
    assert isinstance(outs, list)
    root = outs[0] + outs[1]
    root.backward()
    return Tape.from_value(root)


def test_open_and_close_by_hand_on_two_neurons() -> None:
    tape = two_neurons_summed()
    assert len(tape) == 3 + 2 * 10 + 1
    tree = build_tree(tape, 20)
    keys = [g.key for g in tree.groups]
    assert keys == ["layers.0.neurons.0", "layers.0.neurons.1"], "one box per neuron, nothing inside them"
    default = picture(tape, tree, [])
    assert len(default.shown) == 4 and default.boxes == [0, 1], "3 inputs + the sum, 2 neuron boxes"
    # A neuron opens into its 10 nodes: 6 - 1 + 10 = 15 units; over a budget of 14 it is refused.
    assert expand(tape, tree, [], "layers.0.neurons.1", 14) == []
    opened = expand(tape, tree, [], "layers.0.neurons.1", 15)
    assert opened == ["layers.0.neurons.1"]
    pic = picture(tape, tree, opened)
    assert len(pic.shown) == 4 + 10 and pic.boxes == [0] and pic.clusters == [1]
    assert closed_box_of(tree, opened, tape.root - 1) is None
    assert closed_box_of(tree, opened, 0) == "layers.0.neurons.0"
    assert keys_to_reveal(tree, 0) == ["layers.0.neurons.0"] and keys_to_reveal(tree, tape.root) == []
    assert collapse(tree, opened, "layers.0.neurons.1") == []
    assert expand_all_that_fits(tape, tree, [], 20) == ["layers.0.neurons.0"], "in tree order while they fit"
    assert expand_all_that_fits(tape, tree, [], 24) == keys
    dot = graph_view(tape, node_budget=20, open_keys=opened).dot
    assert '\tsubgraph cluster_open0 {\n\t\tgraph [class="mgw-cluster"' in dot and 'label="layers.0.neurons.1"' in dot
    with pytest.raises(KeyError, match="no fold box has the key 'nope'"):
        expand(tape, tree, [], "nope", 20)


def test_a_big_neuron_opens_into_a_few_boxes(graphs: dict[str, tuple[Tape, int]]) -> None:
    tape, budget = graphs["moons"]
    tree = build_tree(tape, budget)
    layer = tree.by_key["layers.1"]
    opened = expand(tape, tree, [], "layers.1", 4 * budget)
    assert opened[0] == "layers.1" and len(opened) > 1, "the layer opens, then some of its neurons"
    pic = picture(tape, tree, opened)
    assert len(pic.shown) + len(pic.boxes) <= 4 * budget
    assert edge_count(tape, pic.unit) <= max(3 * 4 * budget, edge_count(tape, picture(tape, tree, []).unit))
    assert all(tree.groups[c].parent == layer for c in pic.clusters[1:])
    before = {tree.groups[g].key for g in picture(tape, tree, []).boxes} - {"layers.1"}
    after = {tree.groups[g].key for g in pic.boxes}
    assert before <= after, "nothing else moves"


def test_the_widget_open_set_is_checked_and_capped(graphs: dict[str, tuple[Tape, int]]) -> None:
    tape, budget = graphs["moons"]
    tree = build_tree(tape, budget)
    with pytest.raises(ValueError, match="unknown fold box key"):
        check_open(tape, tree, ["layers.9"], budget)
    with pytest.raises(ValueError, match="list of fold box keys"):
        check_open(tape, tree, "layers.1", budget)
    everything = [g.key for g in tree.groups]
    capped = check_open(tape, tree, everything, budget)
    assert len(picture(tape, tree, capped).shown) + len(picture(tape, tree, capped).boxes) <= budget
    assert check_open(tape, tree, ["layers.1.neurons.3"], budget) == [], "inside a closed box: dropped"


def _greedy_reference(tape: Tape, tree: FoldTree, keys: list[str], budget: int) -> list[str]:
    """The rule as stated, by drawing every trial picture: in tree order, open each asked-for group whose parent is
    open while the picture keeps at most ``budget`` units and max(EDGES_PER_BOX * budget, default edges) edges."""
    limit = max(EDGES_PER_BOX * budget, edge_count(tape, picture(tape, tree, []).unit))
    kept: list[str] = []
    for group in tree.groups:
        if group.key in keys and (group.parent < 0 or tree.groups[group.parent].key in kept):
            trial = picture(tape, tree, [*kept, group.key])
            if len(trial.shown) + len(trial.boxes) <= budget and edge_count(tape, trial.unit) <= limit:
                kept.append(group.key)
    return kept


@pytest.mark.parametrize("name", ["moons", "lecture_mlp", "chain", "long_sum"])
def test_check_open_keeps_what_the_rule_keeps(graphs: dict[str, tuple[Tape, int]], name: str) -> None:
    tape, budget = graphs[name]
    tree = build_tree(tape, budget)
    every = [g.key for g in tree.groups]
    rng = random.Random(name)
    for keys in [every, every[::-1], *(rng.sample(every, min(len(every), k)) for k in (3, 12, 40))]:
        assert check_open(tape, tree, keys, budget) == _greedy_reference(tape, tree, keys, budget)


def test_check_open_costs_the_boxes_tried_not_a_picture_per_key(graphs: dict[str, tuple[Tape, int]],
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 24 (5): a picture of the whole graph per key made one all-boxes ``opened`` O(keys x nodes)."""
    tape, budget = graphs["moons"]
    tree = build_tree(tape, budget)
    every = [g.key for g in tree.groups]
    passes: list[str] = []
    for module, name in [(fold_tree, "picture"), (fold_fit, "edge_count"), (fold_fit, "fit_base")]:
        original = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *a, _f=original, _n=name, **k: passes.append(_n) or _f(*a, **k))
    check_open(tape, tree, every[:5], budget)
    assert passes == ["fit_base", "edge_count"], "one pass over the graph (the default picture), kept with the tree"
    visited: list[int] = []
    members = fold_fit.OpenSetFit._members
    monkeypatch.setattr(fold_fit.OpenSetFit, "_members", lambda self, g: visited.append(g) or members(self, g))
    check_open(tape, tree, every, budget)
    assert passes == ["fit_base", "edge_count"], "no whole-graph pass per key"
    assert len(visited) <= budget, "only boxes within the budget's reach are tried"


def _fits_reference(tape: Tape, tree: FoldTree, keys: list[str], budget: int, limit: int) -> bool:
    pic = picture(tape, tree, keys)
    return len(pic.shown) + len(pic.boxes) <= budget and edge_count(tape, pic.unit) <= limit


def _expand_all_reference(tape: Tape, tree: FoldTree, start: list[str], budget: int) -> list[str]:
    """The rule as stated, by drawing every trial picture: from ``start``, in tree order, open each group whose
    parent is open while the picture keeps at most ``budget`` units and max(EDGES_PER_BOX * budget, edges of
    ``start``) edges."""
    limit = max(EDGES_PER_BOX * budget, edge_count(tape, picture(tape, tree, start).unit))
    kept = list(start)
    for group in tree.groups:
        open_parent = group.parent < 0 or tree.groups[group.parent].key in kept
        if group.key not in kept and open_parent and _fits_reference(tape, tree, [*kept, group.key], budget, limit):
            kept.append(group.key)
    return [g.key for g in tree.groups if g.key in kept]


def _expand_reference(tape: Tape, tree: FoldTree, start: list[str], key: str, budget: int) -> list[str]:
    """``key`` and the groups holding it opened together if the picture fits, then its children one by one."""
    limit = max(EDGES_PER_BOX * budget, edge_count(tape, picture(tape, tree, start).unit))
    g = tree.by_key[key]
    kept = [*start, *(tree.groups[a].key for a in tree.ancestors(g) if tree.groups[a].key not in start)]
    if not _fits_reference(tape, tree, kept, budget, limit):
        return start
    for c in tree.groups[g].children:
        if tree.groups[c].key not in kept and _fits_reference(tape, tree, [*kept, tree.groups[c].key], budget, limit):
            kept.append(tree.groups[c].key)
    return [h.key for h in tree.groups if h.key in kept]


@pytest.mark.parametrize("name", ["moons", "lecture_mlp", "chain", "long_sum"])
def test_expand_and_expand_all_keep_what_the_rule_keeps(graphs: dict[str, tuple[Tape, int]], name: str) -> None:
    """expand and expand_all_that_fits grow the open set through fold_fit's loop, as check_open does."""
    tape, budget = graphs[name]
    tree = build_tree(tape, budget)
    rng = random.Random(name)
    for b in (budget // 2, budget, 3 * budget):
        start = check_open(tape, tree, rng.sample([g.key for g in tree.groups], min(6, len(tree.groups))), b)
        assert expand_all_that_fits(tape, tree, start, b) == _expand_all_reference(tape, tree, start, b)
        for group in rng.sample(tree.groups, min(8, len(tree.groups))):
            assert expand(tape, tree, start, group.key, b) == _expand_reference(tape, tree, start, group.key, b)


def test_expand_costs_the_boxes_tried_not_a_picture_per_box(graphs: dict[str, tuple[Tape, int]],
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """expand and expand_all_that_fits drew a picture of the whole graph per box tried (21 s for all that fits at a
    budget of 1,000 on the moons loss)."""
    tape, budget = graphs["moons"]
    tree = build_tree(tape, budget)
    passes: list[str] = []
    for module, name in [(fold_tree, "picture"), (fold_fit, "edge_count")]:
        original = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *a, _f=original, _n=name, **k: passes.append(_n) or _f(*a, **k))
    opened = expand_all_that_fits(tape, tree, [], 4 * budget)
    expand(tape, tree, opened, "layers.1", 4 * budget)
    assert len(opened) > 3 and passes == ["edge_count"], "the default picture's edges once, kept with the tree"


def test_the_spec_is_compact(graphs: dict[str, tuple[Tape, int]]) -> None:
    tape, budget = graphs["moons"]
    tree = build_tree(tape, budget)
    spec = tree.spec()
    assert from_buffer(spec["group_of"], "i").tolist() == tree.group_of.tolist()
    assert len(bytes(spec["group_of"])) == 4 * len(tape)
    assert all(len(row) == 6 for row in spec["groups"])


# ---- the widget's `opened` trait (ipywidgets' Widget.open() is a method, hence not `open`)

def test_the_widget_opens_boxes_from_python_and_from_the_view() -> None:
    import traitlets

    from micrograd_widget.graph.widget import GraphWidget

    tape = two_neurons_summed()
    root = tape.values[tape.root]
    w = GraphWidget(root, node_budget=20)
    try:
        assert w.folds["groups"][1][0] == "layers.0.neurons.1" and w.opened == []
        assert [f["key"] for f in picture_view(w)["folds"]] == ["layers.0.neurons.0", "layers.0.neurons.1"]
        w.opened = ["layers.0.neurons.1"]
        assert "subgraph cluster_open0" in w._drawing().dot and picture_view(w)["open"] == ["layers.0.neurons.1"]
        assert w._drawing().dot == graph_view(tape, node_budget=20, open_keys=["layers.0.neurons.1"]).dot
        with pytest.raises(traitlets.TraitError, match="unknown fold box key"):
            w.opened = ["layers.7"]
        assert w.opened == ["layers.0.neurons.1"], "a refused open set changes nothing"
        w.set_state({"opened": ["nope"]})
        assert "unknown fold box key" in w.error and w.opened == ["layers.0.neurons.1"]
        w.set_state({"opened": ["layers.0.neurons.0", "layers.0.neurons.1"]})
        assert w.error == "" and w.opened == ["layers.0.neurons.0"], "cut to what a budget of 20 allows"
        w.node_budget = 10
        assert w.folds["budget"] == 10 and w.opened == [], "a new budget, a new hierarchy: keys not in it go"
    finally:
        w.close()
