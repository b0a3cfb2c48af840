"""The fold rules (fold_rules.py): one grouping for the planner's top level and the hierarchy's inner levels, the
edge count of a picture, one note per kind of box."""

from __future__ import annotations

import itertools

from builders import small_moons

from micrograd_widget.core.tape import Tape
from micrograd_widget.engine import Value, scope
from micrograd_widget.picture.fold_rules import (
    MIN_LEAF_GROUP,
    Box,
    TapeFacts,
    distance_note,
    distance_title,
    edge_count,
    fold_boxes,
    kinds_of,
    leaves_note,
    module_box,
    module_name,
    scope_levels,
    sum_note,
    terms_title_and_note,
)
from micrograd_widget.picture.fold_tree import build_tree, picture


def _boxes(facts: TapeFacts, modules: list[Box], inside: set[int] | None) -> set[tuple[str, tuple[int, ...]]]:
    tape = facts.tape
    free = set(range(len(tape))).difference(*(b.members for b in modules))
    free.discard(tape.root)
    return {(b.kind, tuple(b.members)) for b in fold_boxes(facts, free, modules, facts.trees, inside).boxes}


def test_the_top_level_and_an_inner_level_holding_everything_find_the_same_boxes() -> None:
    root = small_moons(8, 3)
    tape = Tape.from_value(root)
    facts = TapeFacts(tape)
    everything = set(range(len(tape)))
    levels = [boxes for _, boxes in scope_levels(tape)]
    assert levels, "the moons loss has modules"
    for modules in [[], *levels]:
        top = _boxes(facts, modules, None)
        assert {k for k, _ in top} >= {"sum", "leaves"} or modules, "the level finds sums and leaves"
        assert top == _boxes(facts, modules, everything)


def leaves_fed_once_and_twice() -> Value:
    """Module 'a' holds 10 leaves that all feed its sub-module 'a.x' (5 once, 5 twice: ``d * d``) and a sub-module
    'a.y'; module 'b' two nodes; the root sums them."""
    with scope("a"):
        once = [Value(float(k + 1), label=f"c{k}") for k in range(5)]
        twice = [Value(float(k + 2), label=f"d{k}") for k in range(5)]
        with scope("x"):
            prods = [c * 2.0 for c in once] + [d * d for d in twice]
            out_x = prods[0]
            for p in prods[1:]:
                out_x = out_x * p                   # products, not a long sum: no Σ or terms box takes them
        with scope("y"):
            out_a = out_x.tanh().tanh()
    with scope("b"):
        out_b = Value(3.0).tanh()
    return out_a + out_b


def test_leaves_fed_once_and_twice_by_one_unit_fold_together_at_every_level() -> None:
    """The rule: MIN_LEAF_GROUP or more leaves feeding the same units are one box, however often each feeds them.
    The inner levels counted the leaves used once apart (5 < 8) and drew these 10 as nodes."""
    tape = Tape.from_value(leaves_fed_once_and_twice())
    tree = build_tree(tape, 4)
    a = tree.by_key["a"]
    children = [tree.groups[c] for c in tree.groups[a].children]
    leaves = [g for g in children if g.kind == "leaves"]
    names = {tape.labels[i] for i in range(len(tape)) if tree.group_of[i] in {tree.by_key[g.key] for g in leaves}}
    assert names == {f"c{k}" for k in range(5)} | {f"d{k}" for k in range(5)}
    assert len(names) >= MIN_LEAF_GROUP and leaves[0].note.startswith("10 leaves (inputs or constants)")


def _reference_edges(tape: Tape, unit: list[int]) -> int:
    return len({(unit[c], unit[i]) for i in range(len(tape)) for c in tape.inputs[i] if unit[c] != unit[i]})


def test_edge_count_counts_each_pair_of_units_once() -> None:
    a, b = Value(1.0), Value(2.0)
    c = a * b
    d = c + a
    e = d * d                                   # two edges d -> e: one pair
    tape = Tape.from_value(e)
    ids = {v: tape.index(v) for v in (a, b, c, d, e)}
    assert edge_count(tape, list(range(len(tape)))) == 5          # a-c, b-c, c-d, a-d, d-e, worked out by hand
    unit = list(range(len(tape)))
    unit[ids[a]] = unit[ids[b]] = unit[ids[c]] = 99                 # a, b, c as one box: box-d only
    assert edge_count(tape, unit) == 2
    moons = Tape.from_value(small_moons(8, 3))
    tree = build_tree(moons, 120)
    for keys in itertools.islice(itertools.accumulate([[g.key] for g in tree.groups[:6]]), 6):
        pic = picture(moons, tree, keys)
        assert edge_count(moons, pic.unit) == _reference_edges(moons, pic.unit)


def sum_fed_through_a_node_into_another() -> Value:
    """Module 'm': a long sum B of 8 leaves, tanh(B) a term of a long sum A of 8 terms; module 'n' one node."""
    with scope("m"):
        b = Value(0.0)
        for k in range(8):
            b = b + Value(float(k), label=f"b{k}")
        a = b.tanh()
        for k in range(7):
            a = a + Value(float(k), label=f"a{k}")
    with scope("n"):
        n = Value(1.0).tanh()
    return a + n


def test_a_sums_total_stays_a_node_beside_its_box_at_every_level() -> None:
    """The rule: a Σ box holds a sum's partial sums and the total is drawn beside it (the planner's top level).
    An inner level let a later sum's terms box take the total of an earlier one."""
    for root, budget in [(sum_fed_through_a_node_into_another(), 4), (small_moons(8, 3), 120)]:
        tape = Tape.from_value(root)
        tree = build_tree(tape, budget)
        sums = [g for g in tree.groups if g.kind == "sum"]
        assert sums, "the graph has long sums"
        for g in sums:
            assert tree.group_of[g.total] == g.parent, f"the total of {g.title!r} is drawn beside it"


def test_each_box_says_what_it_holds_in_a_learners_words() -> None:
    """Issue 19: the notes the picture's tooltips and the inspector read, worked out by hand; a count of one is
    singular and leaves are leaves ("99,754 leaf" before), and no note says "farther from the output"."""
    members = list(range(44))
    assert module_box("layers.0.neurons.0", members).note == "neuron layers.0.neurons.0: 44 nodes made inside it"
    assert module_box("layers.1", members[:2]).note == "layer layers.1: 2 nodes made inside it"
    assert [module_name(s) for s in ("encoder", "blocks.2.attn", "heads.10", "x.0.1")] == [
        "module encoder", "module blocks.2.attn", "head heads.10", "module x.0.1"]
    assert sum_note(100, 98) == ("\u03a3: the 98 partial sums (running totals) of a sum of 100 terms, added one '+' at "
                                 "a time; the sum's total is drawn next to this box")
    assert leaves_note(1_200, 1) == "1,200 leaves (inputs or constants) that all feed the same node or box"
    assert leaves_note(8, 3) == "8 leaves (inputs or constants) that all feed the same 3 nodes and boxes"
    assert distance_title() == "earlier steps"
    assert distance_note(1) == ("1 node computed earlier: the picture draws the last steps before the output in full "
                                "and puts the earlier ones in this box")
    xs = [Value(float(k)) for k in range(12)]
    tape = Tape.from_value(sum(xs[1:], xs[0]) * 2.0)
    leaves = [i for i in range(len(tape)) if not tape.inputs[i]]
    assert kinds_of(tape, leaves) == "13 leaves"              # the 12 xs and the constant 2.0
    assert kinds_of(tape, leaves[:1]) == "1 leaf"
    title, note = terms_title_and_note(tape, leaves[:9], 9, 9)
    assert (title, note) == ("9 terms: 9 leaves",
                             "the 9 terms of a sum of 9 terms, and the nodes that feed only them: 9 nodes")
    title, note = terms_title_and_note(tape, leaves[:1], 9, 1, drawn=8)
    assert (title, note) == ("1 more term: 1 leaf", "the other term of a sum of 9 terms (8 are drawn in full), and "
                                                    "the nodes that feed only them: 1 node")
