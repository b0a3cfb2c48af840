"""The fold rules, once for every level: which nodes a folded picture may draw as one box, and what each box says.

A box is a module (the nodes made inside one nn module, a scope prefix), a long sum's partial sums (a Σ box), the
nodes only that sum's terms use, or ``MIN_LEAF_GROUP`` or more leaves feeding the same units. ``fold_boxes`` finds
the sums, terms and leaves among the nodes not already in a module box, for the planner's top level (fold.py:
the whole tape) and for the inner levels of the hierarchy (fold_children.py: one box's members) alike; the levels
differ only in their module boxes and in what counts as outside (a leaf's key). Every box's title and note is
written here, one function per kind, and ``edge_count`` counts the edges between the units of any picture.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Container, Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from itertools import chain, compress, filterfalse, repeat
from operator import sub
from typing import Literal, NamedTuple

from micrograd_widget.core.ops import OPS_BY_NAME
from micrograd_widget.core.tape import Tape
from micrograd_widget.picture.text import plural

__all__ = ["Box", "FoldKind", "Level", "SumTree", "TapeFacts", "MIN_SUM_TERMS", "MIN_LEAF_GROUP", "scope_levels",
           "sub_modules", "module_box", "fold_boxes", "units_of", "edge_owners", "edge_count", "terms_title_and_note",
           "distance_title", "distance_note", "module_name"]

MIN_SUM_TERMS = 8          # beyond the budget, a sum of this many terms or more is drawn as one Σ box
MIN_LEAF_GROUP = 8         # beyond the budget, this many leaves feeding the same boxes are drawn as one box

FoldKind = Literal["scope", "sum", "terms", "leaves", "distance"]


@dataclass
class Box:
    """A fold box found by the rules (the planner's, and a group of the hierarchy before it is numbered): its
    members (ascending) and how the picture names it. ``total``: a Σ box's total node; ``of_sum``: a terms box's;
    ``key``: its key in the hierarchy when not ``"<kind>:<largest member>"`` (a module's scope path)."""

    title: str
    members: list[int]
    kind: FoldKind
    note: str = ""
    terms: int = 0
    total: int | None = None
    of_sum: int | None = None
    shown_terms: int = 0           # a Σ box: how many of its terms the planner draws in full
    key: str = ""
    depth: int = 0                 # a module's scope depth (its sub-modules are one level down)


class SumTree(NamedTuple):
    """A long sum: its top '+' node (the total), its other '+' nodes ascending, its number of terms."""

    top: int
    members: list[int]
    terms: int


class Level(NamedTuple):
    """The boxes ``fold_boxes`` found on one level, and per node in one of them the index of its box."""

    boxes: list[Box]
    box_of: dict[int, int]


class TapeFacts:
    """What every level of folding reads again: the inputs (one list), each node's uses, the long sums by their
    top node, each leaf's users and scope prefixes; each found on first need, once per tape."""

    def __init__(self, tape: Tape, inputs: Sequence[Sequence[int]] | None = None) -> None:
        self.tape = tape
        self.inputs = tape.inputs if inputs is None else inputs
        self._prefixes: dict[tuple[str, int], str] = {}

    @cached_property
    def uses(self) -> list[int]:
        return uses_of(self.tape)

    @cached_property
    def trees(self) -> list[SumTree]:
        return sum_trees(self.tape, self.uses)

    @cached_property
    def sum_at(self) -> dict[int, SumTree]:
        return {t.top: t for t in self.trees}

    @cached_property
    def leaf_users(self) -> dict[int, list[int]]:
        return leaf_users(self.tape)

    def prefix(self, scope: str, depth: int) -> str:
        """The first ``depth`` parts of ``scope`` ('layers.0.neurons.3', 2 -> 'layers.0')."""
        key = (scope, depth)
        p = self._prefixes.get(key)
        if p is None:
            p = self._prefixes[key] = ".".join(scope.split(".")[:depth])
        return p


# ---------------------------------------------------------------- one note per kind of box

def module_box(scope: str, members: list[int]) -> Box:
    """A module's box: the nodes made inside ``scope``."""
    return Box(scope, members, "scope", f"{module_name(scope)}: {plural(len(members), 'node')} made inside it",
               key=scope, depth=scope.count(".") + 1)


def module_name(scope: str) -> str:
    """What a learner calls the module of ``scope``: 'neuron layers.0.neurons.3' and 'layer layers.1' (an
    item of a list attribute, ``neurons.3``, is named by that list's noun), else 'module encoder'."""
    parts = scope.split(".")
    for k in range(len(parts) - 1, 0, -1):
        if parts[k].isdigit() and not parts[k - 1].isdigit():
            noun = parts[k - 1]
            if k == len(parts) - 1 and len(noun) > 1 and noun.endswith("s") and noun[:-1].isalpha():
                return f"{noun[:-1]} {scope}"
            break
    return f"module {scope}"


def sum_title(terms: int) -> str:
    """A Σ box's title. A no-break space: Graphviz 2.43's record parser drops a space after a non-ASCII first
    character."""
    return f"\u03a3\u00a0sum of {plural(terms, 'term')}"


def sum_note(terms: int, partial_sums: int) -> str:
    """What a Σ box holds (its tooltip)."""
    return (f"\u03a3: the {plural(partial_sums, 'partial sum')} (running totals) of a sum of {plural(terms, 'term')}, "
            "added one '+' at a time; the sum's total is drawn next to this box")


def terms_title_and_note(tape: Tape, direct: list[int], terms: int, nodes: int, drawn: int = 0) -> tuple[str, str]:
    """A terms box's title and note: ``direct`` its terms, of a sum of ``terms`` terms, ``nodes`` the nodes it holds;
    ``drawn``: how many of the sum's terms (those nearest the output) the planner draws in full beside it."""
    held = f"and the nodes that feed only them: {plural(nodes, 'node')}"
    if not drawn:
        return (f"{plural(len(direct), 'term')}: {kinds_of(tape, direct)}",
                f"the {plural(len(direct), 'term')} of a sum of {plural(terms, 'term')}, {held}")
    more, rest = (("term", "the other term") if len(direct) == 1 else ("terms", f"the other {len(direct):,} terms"))
    return (f"{len(direct):,} more {more}: {kinds_of(tape, direct)}",
            f"{rest} of a sum of {plural(terms, 'term')} ({drawn:,} {'is' if drawn == 1 else 'are'} drawn in full), "
            f"{held}")


def leaves_note(leaves: int, units: int) -> str:
    """What a leaves box holds: ``leaves`` leaves feeding the same ``units`` units."""
    fed = "node or box" if units == 1 else f"{units:,} nodes and boxes"
    return f"{plural(leaves, 'leaf')} (inputs or constants) that all feed the same {fed}"


def distance_title() -> str:
    """The title of the box of what a picture has no room for: the nodes computed before those it draws."""
    return "earlier steps"


def distance_note(nodes: int) -> str:
    """What an "earlier steps" box holds: the ``nodes`` left once the last steps before the output are drawn."""
    return (f"{plural(nodes, 'node')} computed earlier: the picture draws the last steps before the output in full "
            "and puts the earlier ones in this box")


def kinds_of(tape: Tape, nodes: Iterable[int]) -> str:
    """'100 ReLU, 1 leaf' or "337 '*'": the ops of ``nodes``, most common first (at most three kinds)."""
    counts: dict[str, int] = {}
    for i in nodes:
        kind = tape.symbols[i] or ("leaf" if not tape.inputs[i] else "node")
        counts[kind] = counts.get(kind, 0) + 1
    ranked = sorted(counts.items(), key=lambda kv: -kv[1])
    text = ", ".join(plural(c, k) if k in ("leaf", "node") else f"{c:,} {k}" if k[:1].isalnum() else f"{c:,} '{k}'"
                     for k, c in ranked[:3])
    return text + (", \u2026" if len(ranked) > 3 else "")


# ---------------------------------------------------------------- modules

def scope_levels(tape: Tape) -> list[tuple[int, list[Box]]]:
    """The planner's top level: per scope depth, deepest first, the module boxes at that depth: [(depth, boxes)],
    only depths giving at least two boxes (one box for everything would show nothing). The root is never boxed;
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
            runs.setdefault(".".join(s.split(".")[:depth]), []).append(members)
        groups = sorted(((p, sorted(chain.from_iterable(r))) for p, r in runs.items()), key=lambda pm: pm[1][0])
        boxes = [module_box(title, members) for title, members in groups if len(members) >= 2]   # by first node
        if len(boxes) >= 2:
            levels.append((depth, boxes))
    # Nested groupings with as many boxes are the same boxes: keep the shorter titles ('layers.0').
    return [lv for k, lv in enumerate(levels) if k + 1 == len(levels) or len(levels[k + 1][1]) != len(lv[1])]


def sub_modules(facts: TapeFacts, members: list[int], depth: int) -> list[Box]:
    """An inner level: the sub-modules of a group of scope depth ``depth`` (0: not a module), the first deeper
    level whose scope prefixes split its members (or leave some outside); modules of one node stay nodes."""
    scopes = facts.tape.scopes
    # Which level splits is decided on the members' distinct scopes (a few), not on every member at every level.
    distinct = set(map(scopes.__getitem__, members))
    if len(distinct) < 2:       # one scope: every level has one prefix holding every member, no split
        return []
    levels = {s: s.count(".") + 1 for s in distinct if s}
    for d in range(depth + 1, max(levels.values(), default=0) + 1):
        prefix_of = {s: facts.prefix(s, d) for s, k in levels.items() if k >= d}   # the scopes this level splits
        prefixes = set(prefix_of.values())
        # Split: two prefixes or more, or one that leaves out a scope of the group (and so its members).
        if len(prefixes) >= 2 or (len(prefixes) == 1 and len(prefix_of) < len(distinct)):
            groups: defaultdict[str, list[int]] = defaultdict(list)
            for i in members:
                p = prefix_of.get(scopes[i])
                if p is not None:
                    groups[p].append(i)
            return [module_box(p, m) for p, m in groups.items() if len(m) >= 2]
    return []


# ---------------------------------------------------------------- long sums, their terms, leaves: every level

def fold_boxes(facts: TapeFacts, free: set[int], modules: list[Box], sums: Iterable[SumTree],
               inside: set[int] | None = None) -> Level:
    """The boxes of one level: ``modules``, then each long sum among ``sums`` whose '+' nodes are all ``free`` (not
    in a module) as a Σ box (its partial sums; the total stays a drawn node), then per sum the nodes only its terms
    use as one box (two or more), then every ``MIN_LEAF_GROUP`` or more free leaves with the same key as one box.
    A leaf's key is the units its uses feed (a node, or a box above), a use outside ``inside`` (None: the whole
    tape) counting as one unit "outside"; a leaf with no use inside is no member of a leaves box, and a box of
    every node inside is no box. ``free`` loses the members of the boxes found."""
    tape, inputs = facts.tape, facts.inputs
    found = [t for t in sums if free.issuperset(t.members)]
    for t in found:                     # every sum's partial sums and total first: no sum's terms take them
        free.difference_update(t.members)
        free.discard(t.top)
    boxes = [*modules, *(Box(sum_title(t.terms), t.members, "sum", sum_note(t.terms, len(t.members)), t.terms, t.top)
                         for t in found)]
    for top, members, terms in found:
        tree = [*members, top]
        only = only_used_by(inputs, facts.uses, tree, free)
        if len(only) >= 2:
            free.difference_update(only)
            collected = set(only)
            direct = [c for i in tree for c in inputs[i] if c in collected]
            title, note = terms_title_and_note(tape, direct, terms, len(only))
            boxes.append(Box(title, only, "terms", note, len(direct), of_sum=top))
    box_of = {i: j for j, b in enumerate(boxes) for i in b.members}
    for b in _leaf_boxes(facts, free, box_of, len(facts.tape) if inside is None else len(inside), inside):
        box_of.update(dict.fromkeys(b.members, len(boxes)))
        boxes.append(b)
    return Level(boxes, box_of)


def _leaf_boxes(facts: TapeFacts, free: set[int], box_of: dict[int, int], size: int,
                inside: set[int] | None) -> list[Box]:
    """``fold_boxes``'s leaves boxes, in order of their first leaf met (the tape's edges' order at the top level);
    ``box_of``: the boxes found before them, ``size``: how many nodes are inside."""
    inputs, users = facts.inputs, facts.leaf_users
    if inside is None:
        leaves: Iterable[int] = filter(free.__contains__, users)
    else:
        leaves = sorted(c for c in free if not inputs[c])
        if len(leaves) < MIN_LEAF_GROUP:     # too few leaves for any box: no walk
            return []
    get, outside = box_of.get, len(facts.tape)       # units: box j as j, node i as ~i (negative), outside as n
    groups: dict[tuple[int, ...], list[int]] = {}
    for c in leaves:
        used_by = users.get(c, ())
        fed_by = used_by if inside is None else [i for i in used_by if i in inside]
        if not fed_by:
            continue
        fed = {get(i, ~i) for i in fed_by}
        if len(fed_by) < len(used_by):
            fed.add(outside)
        groups.setdefault(tuple(sorted(fed)), []).append(c)
    return [Box("leaves", sorted(m), "leaves", leaves_note(len(m), len(key)))
            for key, m in groups.items() if MIN_LEAF_GROUP <= len(m) < size]


def units_of(n: int, boxes: list[Box]) -> list[int]:
    """The unit each node is drawn as: itself (its id), or box ``j`` (``n + j``)."""
    unit = list(range(n))
    for j, box in enumerate(boxes):
        for i in box.members:
            unit[i] = n + j
    return unit


def edge_owners(tape: Tape) -> list[int]:
    """Per edge of the tape (in ``tape.flat``'s order), the node whose input it is."""
    starts = tape.starts
    return list(chain.from_iterable(map(repeat, range(len(tape)), map(sub, starts[1:], starts[:-1]))))


def edge_count(tape: Tape, unit: Sequence[int], owners: Sequence[int] | None = None) -> int:
    """How many edges between units a picture has (each pair of units once), ``unit`` each node's unit. Walks
    ``tape.inputs``, or ``owners`` (``edge_owners(tape)``) with ``tape.flat`` when already made; an edge inside
    a unit (most of a folded picture's) makes no pair."""
    pairs: set[tuple[int, int]] = set()
    add = pairs.add
    if owners is None:
        for u, ins in zip(unit, tape.inputs):
            for c in ins:
                v = unit[c]
                if v != u:
                    add((v, u))
    else:
        for c, i in zip(tape.flat, owners):
            v, u = unit[c], unit[i]
            if v != u:
                add((v, u))
    return len(pairs)


# ---------------------------------------------------------------- what the rules read

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
    ``MIN_SUM_TERMS`` terms; ascending by top."""
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


def leaf_users(tape: Tape) -> dict[int, list[int]]:
    """Per leaf that some node uses, those nodes (once per use, ascending), the leaves in the order the tape's
    edges first meet them (consumers ascending, inputs in order): one pass over the edges, read by the leaves
    boxes of every level."""
    inputs = tape.inputs
    users: defaultdict[int, list[int]] = defaultdict(list)
    for i, ins in enumerate(inputs):
        for c in ins:
            if not inputs[c]:
                users[c].append(i)
    return users


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

