"""far_ranks.py: the ranks a picture's edges cross beyond the next (dot's virtual nodes), counted by hand."""

from __future__ import annotations

from builders import chain, horner, tanh_chain

from micrograd_widget.core.tape import Tape
from micrograd_widget.engine import Value
from micrograd_widget.picture.far_ranks import far_ranks, unit_pairs, whole_far_ranks


def test_far_ranks_count_the_ranks_each_edge_crosses_beyond_the_next() -> None:
    # x feeds m1 = x * a and m2 = m1 * x: ranks m2 0 (the output), m1 -2 (its op between), x and a just before their
    # first consumer, -4; an edge into a node drawn in full crosses 2 ranks when its tail sits just before it: only
    # x -> m2 crosses more, 2 ranks (worked by hand)
    x, a = Value(2.0, label="x"), Value(3.0, label="a")
    tape = Tape.from_value(x * a * x)
    assert far_ranks(unit_pairs(tape, list(range(len(tape)))), len(tape)) == 2
    # Horner's rule of degree d: a_d = m_d + c_d the output (rank 0), m_k = y * x at -4(d - k) - 2; x sits just before
    # m_1 (-4d) and crosses 4k - 4 ranks beyond the next to m_k, each c_k just before its a_k: 2d(d - 1) in all; a
    # chain, one whose constants are fresh leaves at each step, and Python's sum() of products have none
    for d in (1, 5, 40):
        tape = Tape.from_value(horner(d))
        by_hand = sum(4 * k - 4 for k in range(1, d + 1))
        assert by_hand == 2 * d * (d - 1)
        assert far_ranks(unit_pairs(tape, list(range(len(tape)))), len(tape)) == by_hand
    products = sum(Value(0.5 + k) * Value(1.5 - k) for k in range(60))
    assert isinstance(products, Value)
    for root in (tanh_chain(2000), chain(400), products):
        tape = Tape.from_value(root)
        assert far_ranks(unit_pairs(tape, list(range(len(tape)))), len(tape)) == 0


def test_whole_far_ranks_is_far_ranks_of_every_node_drawn_in_full() -> None:
    tape = Tape.from_value(horner(7))
    assert whole_far_ranks(tape) == far_ranks(unit_pairs(tape, list(range(len(tape)))), len(tape)) == 2 * 7 * 6


def test_far_ranks_of_a_dot_graph_and_of_boxes_that_feed_each_other() -> None:
    # n=0: every unit one rank past what it takes (dot.py counts a picture's DOT edges so, ellipses included): 0 -> 1
    # -> 2 and 0 -> 2 rank 2 at 0, 1 at -1, 0 at -2; 0 -> 2 crosses one rank beyond the next (worked by hand)
    assert far_ranks({(0, 1), (1, 2), (0, 2)}, 0) == 1
    assert far_ranks({(0, 1), (1, 2)}, 0) == 0
    # Boxes that feed each other (a box's member feeds a node outside it that feeds another member) never wait out
    # their consumers: they and what feeds them stay unranked, and count no ranks, never less than none
    assert far_ranks({(0, 1), (1, 0), (2, 0), (0, 3)}, 0) == 0
    assert far_ranks({(0, 1), (1, 0), (0, 2), (2, 3), (0, 3)}, 0) == 0    # 2 -> 3 is ranked and crosses none
