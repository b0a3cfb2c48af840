"""The fit loop (fold_fit.py): an open set grown box by box keeps the units and edges of the picture it stands for."""

from __future__ import annotations

import random

from builders import small_moons

from micrograd_widget.core.tape import Tape
from micrograd_widget.picture.fold import EDGES_PER_BOX
from micrograd_widget.picture.fold_fit import OpenSetFit
from micrograd_widget.picture.fold_tree import build_tree, picture


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
