"""The boxes a folded picture may draw nodes as: modules (per scope depth), long sums as Σ boxes, the
nodes only a sum's terms use, and leaves that feed the same boxes. fold.py's planner chooses among them
(its docstring says the rules); the heuristics that find structure live here.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass
from itertools import chain, compress, filterfalse
from typing import Literal, NamedTuple

from .ops import OPS_BY_NAME
from .tape import Tape

__all__ = ["Box", "FoldKind", "SumTree", "MIN_SUM_TERMS", "MIN_LEAF_GROUP", "scope_levels", "uses_of", "sum_trees",
           "structure", "units_of", "contract", "kinds_of", "leaf_users"]

MIN_SUM_TERMS = 8          # beyond the budget, a sum of this many terms or more is drawn as one Σ box
MIN_LEAF_GROUP = 8         # beyond the budget, this many leaves feeding the same boxes are drawn as one box

FoldKind = Literal["scope", "sum", "terms", "leaves", "distance"]


@dataclass
class Box:
    """A fold box while planning: its members and how the picture names it."""

    title: str
    members: list[int]
    kind: FoldKind
    note: str = ""
    terms: int = 0
    total: int | None = None
    of_sum: int | None = None      # a terms box: the total of its sum
    shown_terms: int = 0           # a Σ box: how many of its terms are drawn in full


class SumTree(NamedTuple):
    """A long sum: its top '+' node (the total), its other '+' nodes ascending, its number of terms."""

    top: int
    members: list[int]
    terms: int


def _prefix(scope: str, depth: int) -> str:
    return ".".join(scope.split(".")[:depth])


def scope_levels(tape: Tape) -> list[tuple[int, list[Box]]]:
    """Per scope depth, deepest first, the module boxes at that depth: [(depth, boxes)], only depths
    giving at least two boxes (one box for everything would show nothing). The root is never boxed;
    a box of one node is drawn as that node."""
    scopes, n = tape.scopes, len(tape)
    distinct = set(scopes)
    distinct.discard("")
    if not distinct:
        return []
    # Every node but the root by its scope, ascending, in one pass; each depth merges the lists of the scopes that
    # share a prefix (sorted() merges ascending runs), instead of walking every node once per depth.
    by_scope: defaultdict[str, list[int]] = defaultdict(list)
    for i, s in zip(range(n - 1), scopes):
        by_scope[s].append(i)
    by_scope.pop("", None)
    levels = []
    for depth in range(max(s.count(".") + 1 for s in distinct), 0, -1):
        runs: dict[str, list[list[int]]] = {}
        for s, members in by_scope.items():
            runs.setdefault(_prefix(s, depth), []).append(members)
        groups = sorted(((p, sorted(chain.from_iterable(r))) for p, r in runs.items()), key=lambda pm: pm[1][0])
        boxes = [Box(title, members, "scope", f"{title}: {len(members):,} nodes made inside this module, folded")
                 for title, members in groups if len(members) >= 2]       # in order of first node, as found
        if len(boxes) >= 2:
            levels.append((depth, boxes))
    # Nested groupings with as many boxes are the same boxes: keep the shorter titles ('layers.0').
    return [lv for k, lv in enumerate(levels) if k + 1 == len(levels) or len(levels[k + 1][1]) != len(lv[1])]


def uses_of(tape: Tape) -> list[int]:
    """How many times each node is an input (``x + x`` uses ``x`` twice)."""
    uses = [0] * len(tape)
    for ins in tape.inputs:
        for c in ins:
            uses[c] += 1
    return uses


def sum_trees(tape: Tape, uses: list[int]) -> list[SumTree]:
    """The long sums: maximal trees of '+' nodes in one scope where every node but the top feeds only
    the next '+' (what ``sum()`` and a neuron's ``b + w0*x0 + ...`` build), with at least
    ``MIN_SUM_TERMS`` terms."""
    inputs, scopes, n = tape.inputs, tape.scopes, len(tape)
    add_op = OPS_BY_NAME["add"]                # the table's row, not a user-defined op that is also named 'add'
    add = [op is add_op for op in tape.ops]
    adds = list(compress(range(n), add))       # the '+' nodes: the only ones walked below
    inner = [False] * n
    for i in adds:
        for c in inputs[i]:
            if add[c] and uses[c] == 1 and scopes[c] == scopes[i]:
                inner[c] = True
    trees = []
    for top in adds:
        if inner[top] or not any(map(inner.__getitem__, inputs[top])):
            continue
        members, stack, terms = [], [top], 0
        while stack:
            for c in inputs[stack.pop()]:
                if inner[c]:
                    members.append(c)
                    stack.append(c)
                else:
                    terms += 1
        if terms >= MIN_SUM_TERMS:
            trees.append(SumTree(top, sorted(members), terms))
    return trees


def only_used_by(inputs: Sequence[Sequence[int]], uses: Sequence[int], tree: list[int],
                 free: Container[int]) -> list[int]:
    """The nodes only ``tree`` uses (a sum's terms and, through each other, their inputs whose every use is
    inside the sum or already collected), among the ``free`` ones (not held by another box). Ascending.
    Level by level from ``tree`` (the order in which the uses of a node are met does not change what is found),
    each level's inputs outside ``tree`` and free filtered in C."""
    left: dict[int, int] = {}
    found: list[int] = []
    inside = set(tree)
    level = tree
    while level:
        reached = []
        for c in filter(free.__contains__,
                        filterfalse(inside.__contains__, chain.from_iterable(map(inputs.__getitem__, level)))):
            r = uses[c] - 1
            if r:                       # used more than once: counted down over the uses met
                r = left.get(c, r + 1) - 1
                left[c] = r
            if r == 0:
                reached.append(c)
        found += reached
        level = reached
    return sorted(found)


def sum_title(terms: int) -> str:
    """A Σ box's title. A no-break space: Graphviz 2.43's record parser drops a space after a non-ASCII first
    character."""
    return f"\u03a3\u00a0sum of {terms:,} terms"


def sum_note(terms: int, partial_sums: int) -> str:
    """What a Σ box holds (its tooltip)."""
    return (f"\u03a3: a sum of {terms:,} terms built by {partial_sums + 1:,} '+' nodes; its {partial_sums:,} "
            "partial sums are folded here, the total is the next box")


def terms_title_and_note(tape: Tape, direct: list[int], terms: int, found: list[int]) -> tuple[str, str]:
    """A terms box's title and note: ``direct`` the sum's terms, ``found`` every node only they use."""
    return (f"{len(direct):,} terms: {kinds_of(tape, direct)}",
            f"the {len(direct):,} terms of a sum of {terms:,} terms and the nodes only they use: {len(found):,} "
            "nodes, folded")


def kinds_of(tape: Tape, nodes: Iterable[int]) -> str:
    """'100 ReLU, 1 leaf' or "337 '*'": the ops of ``nodes``, most common first (at most three kinds)."""
    counts: dict[str, int] = {}
    for i in nodes:
        kind = tape.symbols[i] or ("leaf" if not tape.inputs[i] else "node")
        counts[kind] = counts.get(kind, 0) + 1
    ranked = sorted(counts.items(), key=lambda kv: -kv[1])
    text = ", ".join(f"{c:,} {k}" if k[:1].isalnum() else f"{c:,} '{k}'" for k, c in ranked[:3])
    return text + (", \u2026" if len(ranked) > 3 else "")


class _Untaken(Container[int]):
    """The nodes not ``taken`` (a list of flags, read as it changes), as a container for ``only_used_by``."""

    __slots__ = ("taken",)

    def __init__(self, taken: list[bool]) -> None:
        self.taken = taken

    def __contains__(self, i: object) -> bool:
        return not self.taken[i]  # type: ignore[call-overload]  # only node ids are asked


def structure(tape: Tape, uses: list[int], trees: list[SumTree], scope_boxes: list[Box],
              users: dict[int, list[int]]) -> tuple[list[Box], list[int]]:
    """Fold boxes that keep a large graph's shape readable, on top of ``scope_boxes``: each long sum
    outside them as a Σ box (its partial sums; the total stays a drawn node), the nodes only its terms
    use as one box, and every ``MIN_LEAF_GROUP`` or more leaves feeding the same units as one (in the
    picture they are interchangeable: a column of boxes with the same arrows). With the boxes, the unit each
    node is drawn as (``units_of`` of them), which finding the leaf boxes needs on the way."""
    n, inputs = len(tape), tape.inputs
    taken = [False] * n
    taken[tape.root] = True
    for b in scope_boxes:
        for i in b.members:
            taken[i] = True
    sums = [(top, members, terms) for top, members, terms in trees if not taken[members[0]]]
    for top, members, _ in sums:
        taken[top] = True
        for i in members:
            taken[i] = True
    boxes = list(scope_boxes)
    term_boxes = []
    free = _Untaken(taken)
    for top, members, terms in sums:
        boxes.append(Box(sum_title(terms), members, "sum", sum_note(terms, len(members)), terms, top))
        tree = [*members, top]
        found = only_used_by(tape.inputs, uses, tree, free)
        if len(found) >= 2:
            for i in found:
                taken[i] = True
            collected = set(found)
            direct = [c for i in tree for c in inputs[i] if c in collected]
            title, note = terms_title_and_note(tape, direct, terms, found)
            term_boxes.append(Box(title, found, "terms", note, len(direct), of_sum=top))
    boxes += term_boxes
    unit = units_of(n, boxes)
    leaf_boxes = _leaf_boxes(unit, taken, users)
    for j, box in enumerate(leaf_boxes, len(boxes)):
        for i in box.members:
            unit[i] = n + j
    return boxes + leaf_boxes, unit


def _leaf_boxes(unit: list[int], taken: list[bool], users: dict[int, list[int]]) -> list[Box]:
    """One box per ``MIN_LEAF_GROUP`` or more leaves (not ``taken`` by another box) that feed the same units;
    ``users``: ``leaf_users(tape)``."""
    consumers = {c: [unit[i] for i in used_by] for c, used_by in users.items() if not taken[c]}
    keys = [(units[0],) if len(units) == 1 else tuple(sorted(set(units))) for units in consumers.values()]
    counts = Counter(keys)
    groups: dict[tuple[int, ...], list[int]] = {}      # only the groups big enough, in order of first leaf
    for leaf, key in zip(consumers, keys, strict=True):
        if counts[key] >= MIN_LEAF_GROUP:
            groups.setdefault(key, []).append(leaf)
    return [Box("leaves", sorted(leaves), "leaves",
                f"{len(leaves):,} leaves (inputs or constants) that all feed the same "
                f"{'box or node' if len(key) == 1 else f'{len(key):,} boxes and nodes'}, folded")
            for key, leaves in groups.items() if len(leaves) >= MIN_LEAF_GROUP]


def leaf_users(tape: Tape) -> dict[int, list[int]]:
    """Per leaf that some node uses, those nodes (once per use, ascending), the leaves in the order the tape's
    edges first meet them (consumers ascending, inputs in order): one pass over the edges, read again by the
    leaf boxes of every scope depth the planner tries and by the leaf groups of the fold hierarchy."""
    inputs = tape.inputs
    users: defaultdict[int, list[int]] = defaultdict(list)
    for i, ins in enumerate(inputs):
        for c in ins:
            if not inputs[c]:
                users[c].append(i)
    return users


def units_of(n: int, boxes: list[Box]) -> list[int]:
    """The unit each node is drawn as: itself (its id), or box ``j`` (``n + j``)."""
    unit = list(range(n))
    for j, box in enumerate(boxes):
        for i in box.members:
            unit[i] = n + j
    return unit


def contract(tape: Tape, unit: list[int]) -> dict[tuple[int, int], None]:
    """The edges between units (input unit, consumer unit), once each, in a deterministic order."""
    pairs: dict[tuple[int, int], None] = {}
    for u, ins in zip(unit, tape.inputs):
        for c in ins:
            v = unit[c]
            if v != u:
                pairs[v, u] = None
    return pairs
