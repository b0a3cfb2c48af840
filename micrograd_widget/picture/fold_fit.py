"""The fit loop: an open set grown one fold box at a time within a node budget, at the cost of the boxes tried.

fold_tree.py's ``expand``, ``expand_all_that_fits`` and ``check_open`` all grow an open set through ``OpenSetFit``:
at most ``budget`` units, ``max(EDGES_PER_BOX * budget, edges of the set it starts from)`` edges and a layout cost
of ``max(LAYOUT_COST_LIMIT, the cost of the set it starts from)``: the sum of each open box's ``Opening.cost``, the
ranks the edges it draws cross (what Graphviz's dot spends its time on). A picture of
an open set costs a pass over the whole graph, so ``OpenSetFit`` keeps the picture's units (per node: itself or
the closed box drawing it) and its unit and edge counts, and opening a box rewrites only the nodes inside it:
trying a box costs the nodes it holds and their edges. The default picture it starts from (and the graph's
consumers, per node) is worked out once per fold tree and kept. js/picture/fold_fit.js is its twin (the same limits
and loop, and the same border count per box tried).
"""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from itertools import accumulate, compress, repeat
from typing import TYPE_CHECKING

from micrograd_widget.core.tape import Tape
from micrograd_widget.picture.fold import EDGES_PER_BOX, LAYOUT_COST_LIMIT
from micrograd_widget.picture.fold_rules import edge_count, edge_owners

if TYPE_CHECKING:
    from micrograd_widget.picture.fold_tree import FoldTree

__all__ = ["FitBase", "Opening", "OpenSetFit"]


# ---------------------------------------------------------------- the units and edges of a picture

@dataclass(frozen=True)
class Opening:
    """What opening one group (its parent open, its children closed) does, whatever else is open: its members and
    their units once it is open, how many distinct edges join two of those units, and the edges that cross its
    border as (outside node, unit inside) and (unit inside, outside node) pairs, each once; ``cost``, the ranks those
    edges cross (``opening_cost``)."""

    members: array[int]
    units: array[int]
    internal: int
    inward: list[tuple[int, int]]
    outward: list[tuple[int, int]]
    cost: int


def opening_cost(tape: Tape, new: dict[int, int], internal: Iterable[tuple[int, int]],
                 inward: Iterable[tuple[int, int]], outward: Iterable[tuple[int, int]], top: Sequence[int]) -> int:
    """The ranks the edges of an opened group cross (dot draws an edge through a virtual node per rank it crosses, and
    its passes cost what those add up to), ``new`` its members' units: ranks from the group's border, in tape order,
    a node drawn in full two ranks past what feeds it (its op ellipse between), a closed child box one past; an edge
    inside counts the ranks between its ends, one from outside the rank of its head, one to outside the ranks from
    its tail to the group's deepest; each at least 1. An edge across the border counts once per unit outside in the
    default picture (``top``: per node, itself or its top-level box), as it is drawn while that is closed (opening
    that counts its own border). js/picture/fold_fit.js openingCost is the same count."""
    rank = dict.fromkeys(new.values(), 0)
    starts, flat = tape.starts, tape.flat
    for x in sorted(new):
        ux = new[x]
        step = 2 if ux == x else 1
        r = rank[ux]
        for c in flat[starts[x]:starts[x + 1]]:
            uc = new.get(c)
            if uc is None:
                r = max(r, step)
            elif uc != ux:
                r = max(r, rank[uc] + step)
        rank[ux] = r
    deepest = max(rank.values(), default=0)
    into = {(top[c], ux) for c, ux in inward}
    out_of = {(ux, top[y]) for ux, y in outward}
    return (sum(max(1, rank[ux] - rank[uc]) for uc, ux in internal) + sum(max(1, rank[ux]) for _, ux in into)
            + sum(max(1, deepest - rank[ux]) for ux, _ in out_of))


@dataclass(frozen=True)
class FitBase:
    """What every fit on one tree starts from: the default picture's units, unit count and edge count, the nodes
    each group holds directly, and each node's consumers (both in CSR form); ``openings``, per group tried, its
    Opening (a front end's next Expand of a box costs its border, not its members)."""

    unit: array[int]
    units: int
    edges: int
    direct_start: array[int]
    direct: array[int]
    consumer_start: array[int]
    consumers: array[int]
    openings: dict[int, Opening] = field(default_factory=dict)


def fit_base(tape: Tape, tree: FoldTree) -> FitBase:
    """The default picture (nothing opened) of ``tree`` as units and counts, and the CSR tables: a few passes
    over the nodes and edges, most of them in C (map, zip, Counter)."""
    n, groups, group_of = tree.n, tree.groups, tree.group_of
    top = array("i", range(len(groups)))        # per group, its top-level ancestor (parents come first)
    for g, group in enumerate(groups):
        if group.parent >= 0:
            top[g] = top[group.parent]
    unit = array("i", [i if g < 0 else n + top[g] for i, g in enumerate(group_of)])
    owner = edge_owners(tape)
    units = group_of.count(-1) + sum(1 for g in groups if g.parent < 0)
    return FitBase(unit, units, edge_count(tape, unit, owner), *_buckets(len(groups), group_of, range(n)),
                   *_buckets(n, tape.flat, owner))


def _buckets(size: int, keys: Sequence[int], items: Iterable[int]) -> tuple[array[int], array[int]]:
    """``items`` grouped by ``keys`` (0 to size - 1; a key -1 drops its item) in CSR form: key k's items are
    ``grouped[start[k]:start[k + 1]]``, in their given order (a counting sort)."""
    counts = Counter(keys)
    start = array("i", accumulate(map(counts.get, range(size), repeat(0)), initial=0))
    at, grouped = start.tolist(), array("i", [0]) * start[-1]
    for k, item in zip(keys, items):
        if k >= 0:
            grouped[at[k]] = item
            at[k] += 1
    return start, grouped


# ---------------------------------------------------------------- the fit loop

class OpenSetFit:
    """The picture of an open set that only grows, kept as units and counts. It starts from ``opened`` (per group,
    open or not: a parent open before its child), whatever its size; ``open(g)`` opens group ``g`` (its parent
    open, itself closed) if the picture still fits (units, edges and layout cost), and says whether it did (``refused``
    keeps, per group it did not open, the limit it was past); ``grow`` is the loop. With no budget
    (None) every box fits and nothing is counted."""

    def __init__(self, tape: Tape, tree: FoldTree, budget: int | None, opened: Sequence[bool] = ()) -> None:
        self.tape, self.tree, self.budget = tape, tree, budget
        self.is_open = [False] * len(tree.groups)
        self.refused: dict[int, str] = {}      # per group left closed, the limit it was past: units, edges or cost
        self.units = self.edges = self.cost = 0
        if budget is None:
            for g in compress(range(len(tree.groups)), opened):
                self.is_open[g] = True
            return
        if tree.fit_base is None:
            tree.fit_base = fit_base(tape, tree)
        self.base = tree.fit_base
        self.unit = self.base.unit[:]           # copied in C: the only per-fit cost proportional to the graph
        self.units, self.edges = self.base.units, self.base.edges
        self.limit = -1                         # the set it starts from is kept, whatever it draws
        for g in compress(range(len(tree.groups)), opened):
            self._open(g, force=True)
        self.limit = max(EDGES_PER_BOX * budget, self.edges)
        self.cost_limit = max(LAYOUT_COST_LIMIT, self.cost)

    def grow(self, candidates: Iterable[int]) -> None:
        """The fit loop: try each of ``candidates`` in order, a group whose parent is open and itself closed."""
        groups, is_open = self.tree.groups, self.is_open
        for g in candidates:
            parent = groups[g].parent
            if not is_open[g] and (parent < 0 or is_open[parent]):
                self.open(g)

    def _members(self, g: int) -> dict[int, int]:
        """Per node inside group ``g``, its unit once ``g`` is open: itself, or the child group holding it."""
        tree, base, n = self.tree, self.base, self.tree.n
        ds, direct = base.direct_start, base.direct
        new = {i: i for i in direct[ds[g]:ds[g + 1]]}
        for c in tree.groups[g].children:
            stack, u = [c], n + c
            while stack:
                h = stack.pop()
                new.update(dict.fromkeys(direct[ds[h]:ds[h + 1]], u))
                stack.extend(tree.groups[h].children)
        return new

    def _opening(self, g: int) -> Opening:
        """Group ``g``'s Opening, worked out the first time it is tried on this tree and kept with it."""
        found = self.base.openings.get(g)
        if found is not None:
            return found
        new = self._members(g)
        starts, flat = self.tape.starts, self.tape.flat
        cs, consumers = self.base.consumer_start, self.base.consumers
        internal: set[tuple[int, int]] = set()
        inward: set[tuple[int, int]] = set()
        outward: set[tuple[int, int]] = set()
        for x, ux in new.items():
            for c in flat[starts[x]:starts[x + 1]]:
                uc = new.get(c)
                if uc is None:
                    inward.add((c, ux))
                elif uc != ux:
                    internal.add((uc, ux))
            for y in consumers[cs[x]:cs[x + 1]]:
                if y not in new:
                    outward.add((ux, y))
        found = Opening(array("i", new), array("i", new.values()), len(internal), sorted(inward), sorted(outward),
                        opening_cost(self.tape, new, internal, inward, outward, self.base.unit))
        self.base.openings[g] = found
        return found

    def open(self, g: int) -> bool:
        """Open ``g`` if the picture then has at most ``budget`` units, ``limit`` edges and ``cost_limit`` layout cost;
        else change nothing."""
        return self._open(g, force=False)

    def _open(self, g: int, force: bool) -> bool:
        if self.budget is None:
            self.is_open[g] = True
            return True
        group = self.tree.groups[g]
        units = self.units + len(group.children) + group.nodes - 1
        if units > self.budget and not force:
            self.refused[g] = "units"
            return False
        opening, unit = self._opening(g), self.unit
        # the box's pairs: (unit outside, box) by that unit, (box, unit outside) by -1 - that unit
        gone = {unit[c] for c, _ in opening.inward} | {-1 - unit[y] for _, y in opening.outward}
        made = {(unit[c], ux) for c, ux in opening.inward} | {(ux, unit[y]) for ux, y in opening.outward}
        edges = self.edges - len(gone) + len(made) + opening.internal
        cost = self.cost + opening.cost
        if (edges > self.limit or cost > self.cost_limit) and not force:
            self.refused[g] = "edges" if edges > self.limit else "cost"
            return False
        for x, ux in zip(opening.members, opening.units):
            unit[x] = ux
        self.units, self.edges, self.cost = units, edges, cost
        self.is_open[g] = True
        return True
