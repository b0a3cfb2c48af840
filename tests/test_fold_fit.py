"""The fit loop (fold_fit.py): an open set grown box by box keeps the units and edges of the picture it stands for,
and its layout cost (worked by hand) within LAYOUT_COST_LIMIT."""

from __future__ import annotations

import random
from itertools import compress
from typing import Any

import pytest
from builders import small_moons

from micrograd_widget.core.tape import Tape
from micrograd_widget.engine import Value
from micrograd_widget.picture import fold_fit
from micrograd_widget.picture.fold import EDGES_PER_BOX, LAYOUT_COST_LIMIT
from micrograd_widget.picture.fold_fit import OpenSetFit
from micrograd_widget.picture.fold_tree import build_tree, expand_all_that_fits, picture


def _counts(tape: Tape, unit: list[int]) -> tuple[int, int]:
    """A picture's units and edges between them, by hand: every distinct unit, every distinct pair of units."""
    return len(set(unit)), len({(unit[c], unit[i]) for i in range(len(tape)) for c in tape.inputs[i]
                                if unit[c] != unit[i]})


def test_a_fit_counts_what_the_picture_of_its_open_set_draws() -> None:
    tape = Tape.from_value(small_moons(8, 3))
    tree = build_tree(tape, 60)
    rng = random.Random(7)
    start = [False] * len(tree.groups)
    for g in range(len(tree.groups)):              # a random open set, parents before children
        parent = tree.groups[g].parent
        start[g] = (parent < 0 or start[parent]) and rng.random() < 0.3
    fit = OpenSetFit(tape, tree, 10**6, start)     # a budget nothing exceeds: every box fits
    keys = [g.key for g, o in zip(tree.groups, fit.is_open, strict=True) if o]
    assert fit.is_open == start and (fit.units, fit.edges) == _counts(tape, picture(tape, tree, keys).unit)
    for g in rng.sample(range(len(tree.groups)), 40):
        fit.grow([g])
        keys = [h.key for h, o in zip(tree.groups, fit.is_open, strict=True) if o]
        assert (fit.units, fit.edges) == _counts(tape, picture(tape, tree, keys).unit)


def test_a_fit_keeps_the_set_it_starts_from_and_then_the_limits() -> None:
    tape = Tape.from_value(small_moons(8, 3))
    tree = build_tree(tape, 60)
    everything = [True] * len(tree.groups)
    fit = OpenSetFit(tape, tree, 60, everything)
    assert fit.is_open == everything and fit.units > 60, "the set it starts from is kept, over the budget or not"
    assert fit.limit == max(EDGES_PER_BOX * 60, fit.edges)
    small = OpenSetFit(tape, tree, 60)
    small.grow(range(len(tree.groups)))
    assert small.units <= 60 and small.edges <= max(EDGES_PER_BOX * 60, OpenSetFit(tape, tree, 60).edges)
    unbounded = OpenSetFit(tape, tree, None)
    unbounded.grow(range(len(tree.groups)))
    assert unbounded.is_open == everything, "no budget: every box opens"


def _little() -> tuple[Tape, Any]:
    """a, b leaves; c = a * b; d = c + a; e = d * b: at a budget of 4, a and c fold into one box (by distance)."""
    a, b = Value(2.0, label="a"), Value(3.0, label="b")
    e = (a * b + a) * b
    tape = Tape.from_value(e)
    tree = build_tree(tape, 4)
    assert [(g.key, list(compress(range(5), (x == k for x in tree.group_of)))) for k, g in enumerate(tree.groups)] \
        == [("distance:2", [0, 2])]
    return tape, tree


def test_opening_a_box_costs_the_ranks_its_edges_cross() -> None:
    # The box {a, c} opened, by hand: a leaf rank 0; c two ranks past a (its op ellipse between): 2, the deepest.
    # Inside: a -> c spans 2. From outside: b -> c, 2. To outside: a -> d, 2 - 0 = 2; c -> d, 2 - 2 = 0, at least 1.
    tape, tree = _little()
    fit = OpenSetFit(tape, tree, 10)
    assert fit.cost == 0 and fit.open(0) and fit.cost == 2 + 2 + 2 + 1
    assert OpenSetFit(tape, tree, 10, [True]).cost == 7, "the set it starts from counts its cost too"


def test_a_box_past_the_layout_cost_stays_closed(monkeypatch: pytest.MonkeyPatch) -> None:
    tape, tree = _little()
    monkeypatch.setattr(fold_fit, "LAYOUT_COST_LIMIT", 6)
    fit = OpenSetFit(tape, tree, 10)
    assert not fit.open(0) and fit.cost == 0 and not fit.is_open[0], "7 > 6: refused, nothing changed"
    assert OpenSetFit(tape, tree, 10, [True]).is_open == [True], "a set that starts past it is kept"
    monkeypatch.setattr(fold_fit, "LAYOUT_COST_LIMIT", 7)
    assert OpenSetFit(tape, tree, 10).open(0), "at the limit it opens"


def test_expand_all_that_fits_stops_at_the_layout_cost(monkeypatch: pytest.MonkeyPatch) -> None:
    # 300 squares summed: the Σ chain opened draws term k's edge to the k-th '+', 2k ranks along: ~21,000 ranks
    # crossed, past LAYOUT_COST_LIMIT, though its units and edges fit twice the budget (tests/vectors/folds/cost_cap).
    xs = [Value(0.01 * i - 0.5) for i in range(300)]
    total = sum((x * x for x in xs), Value(0.0))
    tape = Tape.from_value(total)
    tree = build_tree(tape, 400)
    opened = expand_all_that_fits(tape, tree, [], 800)
    fit = OpenSetFit(tape, tree, 800, [g.key in opened for g in tree.groups])
    assert "sum:897" not in opened and fit.cost <= LAYOUT_COST_LIMIT
    assert fit.units + tree.groups[tree.by_key["sum:897"]].nodes - 1 <= 800, "its units would fit"
    monkeypatch.setattr(fold_fit, "LAYOUT_COST_LIMIT", 10**9)
    assert "sum:897" in expand_all_that_fits(tape, tree, [], 800), "with no cost limit it opens"
