"""Far ranks: how far back a picture's edges reach, the layout cost of a picture as a whole.

Graphviz's dot draws an edge through a virtual node for every rank it crosses beyond the next, and its passes cost
what those add up to: an input feeding every step of a long chain (Horner's rule, ``y = y * x + c``) makes them grow
as the square of the chain. fold.py's planner keeps a default picture within ``FAR_RANKS_LIMIT``; a picture drawn whole
(``node_budget=None``) past ``REFUSED_FAR_RANKS`` is not laid out at all (picture/layout.py layout_refusal, and in the
browser js/graph/picture.js through js/picture/far_ranks.js wholeFarRanks, the twin of ``whole_far_ranks``). Opening
a box is bounded by fold_fit.py's own layout cost, ``opening_cost``.
"""

from __future__ import annotations

from micrograd_widget.core.tape import Tape
from micrograd_widget.picture.fold_rules import edge_owners

__all__ = ["FAR_RANKS_LIMIT", "REFUSED_FAR_RANKS", "unit_pairs", "far_ranks", "whole_far_ranks"]

# The default picture keeps the ranks its edges cross beyond the next one (``far_ranks``: dot's virtual nodes) at most
# this. An input feeding every step of a long chain (Horner's rule, ``y = y * x + c``: 2d(d - 1) of them at degree d)
# makes them grow as the square of the chain: Debian's dot took 0.3 s at 1,740 (degree 30), 0.7 s at 3,120, 5-7 s at
# 7,080, 28 s at 12,640 and over a minute at 19,800 (degree 100, 302 nodes); a chain whose constants are fresh
# leaves (x * 1.01 + 0.01) has none.
FAR_RANKS_LIMIT = 3_000
# A picture drawn whole (node_budget=None) past this many is not laid out at all, in the kernel or the browser: dot
# would run for half a minute or more (28 s at 12,640 above).
REFUSED_FAR_RANKS = 4 * FAR_RANKS_LIMIT


def unit_pairs(tape: Tape, unit: list[int]) -> set[tuple[int, int]]:
    """The edges of the picture drawing each node as ``unit[node]``: (unit in, unit out) pairs, each once."""
    get = unit.__getitem__
    return {(v, u) for v, u in zip(map(get, tape.flat), map(get, edge_owners(tape))) if v != u}


def far_ranks(pairs: set[tuple[int, int]], n: int) -> int:
    """The ranks a picture's edges (``pairs`` of units, ``unit_pairs``; ``n`` the tape's length) cross beyond the
    next one, which Graphviz's dot draws through as many virtual nodes. Each unit is ranked as late as it can be, just
    before the first of its consumers (an op's node drawn in full two ranks on, its ellipse between; a box one), as
    dot's ranking puts what feeds one consumer: a term of a long sum or a constant used once then costs nothing, and
    an input used along a whole chain (Horner's rule's x) the ranks back to each later use. With ``n`` 0 every unit is
    one rank past what it takes (dot.py counts a picture's DOT edges so). Units in a cycle (boxes feeding each other),
    and what feeds them, are never ranked, and their edges count no ranks (never fewer than none);
    js/picture/far_ranks.js farRanks is its twin."""
    into: dict[int, list[int]] = {}       # per unit, the units it feeds
    outputs_of: dict[int, list[int]] = {}  # per unit, the units that feed it
    for v, u in pairs:
        into.setdefault(v, []).append(u)
        outputs_of.setdefault(u, []).append(v)
    waiting = {v: len(us) for v, us in into.items()}   # per unit, its consumers not ranked yet
    rank = dict.fromkeys((w for pair in pairs for w in pair), 0)
    ready = [u for u in rank if u not in into]     # what feeds nothing drawn (the output) sits last, at rank 0
    while ready:                          # from the output back, each unit once all its consumers are ranked
        u = ready.pop()
        if u in into:
            rank[u] = min(rank[w] - (2 if w < n else 1) for w in into[u])
        for v in outputs_of.get(u, ()):
            waiting[v] -= 1
            if not waiting[v]:
                ready.append(v)
    return sum(max(0, rank[u] - rank[v] - (2 if u < n else 1)) for v, u in pairs)


def whole_far_ranks(tape: Tape) -> int:
    """``far_ranks`` of the picture drawing every node of ``tape`` in full (js/picture/far_ranks.js wholeFarRanks)."""
    n = len(tape)
    return far_ranks(unit_pairs(tape, list(range(n))), n)
