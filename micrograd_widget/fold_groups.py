"""What a fold box opens into: the structure rules of fold_boxes.py (sub-modules, long sums as Σ groups, the
nodes only their terms use, leaves feeding the same units) applied to the box's members alone, and its units
ordered nearest its output first. fold_tree.py builds the hierarchy from them.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import chain, islice
from operator import not_
from typing import Any

from .fold_boxes import (
    MIN_LEAF_GROUP,
    FoldKind,
    SumTree,
    leaf_users,
    only_used_by,
    sum_note,
    sum_title,
    sum_trees,
    terms_title_and_note,
    uses_of,
)
from .tape import Tape

__all__ = ["Spec", "Context", "child_units", "nodes_only"]


@dataclass
class Spec:
    """A child group found but not yet numbered."""

    kind: FoldKind
    title: str
    note: str
    members: list[int]
    total: int = -1
    depth: int = 0
    key: str = ""


class Context:
    """What building the tree reads many times: inputs, uses, long sums by their top node, scope prefixes."""

    def __init__(self, tape: Tape, inputs: Sequence[tuple[int, ...]], found: dict[str, Any]) -> None:
        self.tape = tape
        self.inputs = inputs
        self.uses: list[int] = found["uses"] if "uses" in found else uses_of(tape)
        trees: list[SumTree] = found["trees"] if "trees" in found else sum_trees(tape, self.uses)
        self.sum_at = {t.top: t for t in trees}
        self.prefixes: dict[tuple[str, int], str] = {}
        self._leaf_users: dict[int, list[int]] | None = found.get("leaf_users")

    def leaf_users(self) -> dict[int, list[int]]:
        """``fold_boxes.leaf_users``: the planner's, else found on first need. The leaf groups of a box read the
        users of its few free leaves instead of walking the inputs of all its members."""
        if self._leaf_users is None:
            self._leaf_users = leaf_users(self.tape)
        return self._leaf_users

    def prefix(self, scope: str, depth: int) -> str:
        key = (scope, depth)
        p = self.prefixes.get(key)
        if p is None:
            p = self.prefixes[key] = ".".join(scope.split(".")[:depth])
        return p


def child_units(ctx: Context, members: list[int], depth: int, cap: int) -> list[int | Spec]:
    """The units a group of ``members`` (a module of scope depth ``depth``, else 0) opens into, nearest its
    output first: its sub-modules, then long sums,
    their terms and leaf groups among the rest (the rules of fold_boxes.structure, applied to its members
    alone), then single nodes. A grouping that would hold every member is no grouping: its nodes are used.
    Single nodes only, and at most ``cap`` of them (the units a group shows), come in any order: the order
    decides only which units a "farther" group takes, and the numbering of child groups (most groups of a
    large graph are such, e.g. the moons loss's 3,400 Σ and terms boxes of one neuron and one sample)."""
    specs = _sub_modules(ctx, members, depth)
    if not specs and _no_sums_or_leaf_groups(ctx, members, cap):
        return list(members)
    inside = set(members)
    rest = set(inside)
    for s in specs:
        rest.difference_update(s.members)
    specs += _sums_within(ctx, sorted(rest), rest)      # takes its groups' members out of ``rest``
    grouped: dict[int, Spec] = {}           # member -> the group holding it (the groups do not overlap)
    for s in specs:
        for i in s.members:
            grouped[i] = s
    # Only a leaf group can hold every member (a module leaves out the group's other nodes, a sum its total).
    for s in _leaves_within(ctx, rest, inside, specs, grouped):
        if len(s.members) < len(members):
            specs.append(s)
            for i in s.members:
                grouped[i] = s
    return _nearest_output_first(ctx, members, inside, grouped, len(specs))


def nodes_only(ctx: Context, kind: FoldKind, members: list[int], depth: int, cap: int) -> bool:
    """True when a group of ``kind`` and ``members`` (scope depth ``depth``) opens into at most ``cap`` units, all
    of them its own nodes: ``child_units`` would find no sub-module, no long sum and no leaf group in it. So is
    every Σ group that small: its members are the partial sums of one long sum, '+' nodes of one scope (a
    partial sum has its total's scope), none the total of a long sum."""
    if kind == "sum":
        return len(members) <= cap
    return _no_sums_or_leaf_groups(ctx, members, cap) and not _sub_modules(ctx, members, depth)


def _no_sums_or_leaf_groups(ctx: Context, members: list[int], cap: int) -> bool:
    """At most ``cap`` members, no long sum's top among them and too few leaves for a leaf group: then
    ``_sums_within`` and ``_leaves_within`` find nothing in them, whatever else is taken out."""
    return (len(members) <= cap and ctx.sum_at.keys().isdisjoint(members)
            and sum(map(not_, map(ctx.inputs.__getitem__, members))) < MIN_LEAF_GROUP)


def _sub_modules(ctx: Context, members: list[int], depth: int) -> list[Spec]:
    """The sub-modules of a group of scope depth ``depth`` (0: not a module): the first deeper level whose
    scope prefixes split its members (or leave some outside); modules of one node stay nodes."""
    scopes = ctx.tape.scopes
    # Which level splits is decided on the members' distinct scopes (a few), not on every member at every level:
    # a 'farther' group inside a moons neuron walked its 3,000 members three times to find no split.
    distinct = set(map(scopes.__getitem__, members))
    if len(distinct) < 2:       # one scope: every level has one prefix holding every member, no split
        return []
    levels = {s: s.count(".") + 1 for s in distinct if s}
    for d in range(depth + 1, max(levels.values(), default=0) + 1):
        prefix_of = {s: ctx.prefix(s, d) for s, k in levels.items() if k >= d}   # the scopes this level splits
        prefixes = set(prefix_of.values())
        # Split: two prefixes or more, or one that leaves out a scope of the group (and so its members).
        if len(prefixes) >= 2 or (len(prefixes) == 1 and len(prefix_of) < len(distinct)):
            groups: defaultdict[str, list[int]] = defaultdict(list)
            for i in members:
                p = prefix_of.get(scopes[i])
                if p is not None:
                    groups[p].append(i)
            return [Spec("scope", p, f"{p}: {len(m):,} nodes made inside this module, folded", m, depth=d, key=p)
                    for p, m in groups.items() if len(m) >= 2]
    return []


def _sums_within(ctx: Context, rest: list[int], free: set[int]) -> list[Spec]:
    """Long sums wholly among ``free`` as Σ groups, and the nodes only their terms use as terms groups."""
    tape, inputs = ctx.tape, ctx.inputs
    out: list[Spec] = []
    terms_specs: list[Spec] = []
    sum_at = ctx.sum_at
    for top in filter(sum_at.__contains__, rest):
        tree = sum_at[top]
        if not free.issuperset(tree.members):
            continue
        members, terms = tree.members, tree.terms
        out.append(Spec("sum", sum_title(terms), sum_note(terms, len(members)), list(members), top))
        free.difference_update(members)
        free.discard(top)
        found = only_used_by(inputs, ctx.uses, [*members, top], free)
        free.add(top)
        if len(found) >= 2:
            free.difference_update(found)
            collected = set(found)
            direct = [c for i in (*members, top) for c in inputs[i] if c in collected]
            title, note = terms_title_and_note(tape, direct, terms, found)
            terms_specs.append(Spec("terms", title, note, found))
    return out + terms_specs


def _leaves_within(ctx: Context, free: set[int], inside: set[int], specs: list[Spec],
                   grouped: dict[int, Spec]) -> list[Spec]:
    """``MIN_LEAF_GROUP`` or more leaves among ``free`` that feed the same units of the group ``inside`` (a
    node, or one of the groups ``specs``, which ``grouped`` gives per member; a use outside the group counts
    as one unit, "outside"), as one group each."""
    uses, inputs = ctx.uses, ctx.inputs
    free_leaves = {c for c in free if not inputs[c]}
    if len(free_leaves) < MIN_LEAF_GROUP:     # too few leaves for any group: no walk
        return []
    number = {id(s): -2 - k for k, s in enumerate(specs)}       # a group's unit: -2, -3, ... (-1 is "outside")
    single: dict[int, int] = {}             # leaves used once: the unit they feed
    shared: dict[int, list[int]] = {}       # leaves used more than once: the units they feed here
    users = ctx.leaf_users()
    for c in sorted(free_leaves):           # what is found below does not depend on the order
        fed = [i if (s := grouped.get(i)) is None else number[id(s)] for i in users.get(c, ()) if i in inside]
        if fed:
            if uses[c] == 1:
                single[c] = fed[0]
            else:
                shared[c] = fed
    counts = Counter(single.values())
    groups: dict[tuple[int, ...], list[int]] = {}
    for leaf, u in single.items():
        if counts[u] >= MIN_LEAF_GROUP:
            groups.setdefault((u,), []).append(leaf)
    for leaf, fed in shared.items():
        units = set(fed)
        if uses[leaf] > len(fed):
            units.add(-1)
        groups.setdefault(tuple(sorted(units)), []).append(leaf)
    found = [(key, sorted(leaves)) for key, leaves in groups.items() if len(leaves) >= MIN_LEAF_GROUP]
    return [Spec("leaves", "leaves", f"{len(leaves):,} leaves (inputs or constants) that all feed the same "
                  f"{'box or node' if len(key) == 1 else f'{len(key):,} boxes and nodes'}, folded", leaves)
            for key, leaves in sorted(found, key=lambda kv: kv[1][0])]


def _nearest_output_first(ctx: Context, members: list[int], inside: set[int], grouped: dict[int, Spec],
                          groups: int) -> list[int | Spec]:
    """The units of a group in the order a breadth-first walk meets them, from its outputs (members used
    outside it, or the root; largest id first) over inputs inside it. Every member is met: one used only
    inside the group feeds a member, and following consumers ends at an output (a tape ends at its root). The
    walk stops once every unit is met (a layer's outputs meet all its neurons at once).

    The outputs are found from the largest member down, a growing chunk at a time: a member's users come after
    it, so once the chunks have counted the inputs of every member from it up, its uses inside the group are
    known. A walk that meets every unit among the first outputs (a layer's) never counts the rest of the group."""
    inputs, uses, root = ctx.inputs, ctx.uses, ctx.tape.root
    order: list[int | Spec] = []
    met: set[int] = set()
    left = groups + len(members) - len(grouped)     # units not met yet (``groups``: how many ``grouped`` holds)
    outputs: list[int] = []
    inner: Counter[int] = Counter()                 # uses from inside the group, of the members counted so far
    end, size = len(members), 64

    def meet(i: int) -> bool:
        """Put member i's unit in the order unless it was met; True once every unit is met."""
        nonlocal left
        u = grouped.get(i)
        if u is None:
            order.append(i)
        elif id(u) not in met:
            met.add(id(u))
            order.append(u)
        else:
            return False
        left -= 1
        return not left

    while end > 0:
        start = max(0, end - size)
        inner.update(chain.from_iterable(map(inputs.__getitem__, islice(members, start, end))))
        for i in map(members.__getitem__, range(end - 1, start - 1, -1)):
            if i == root or uses[i] > inner.get(i, 0):
                outputs.append(i)
                if meet(i):                 # every unit met: the rest of the walk adds nothing
                    return order
        end, size = start, size * 2
    # Every output met and units left: on breadth first, from the outputs over inputs inside the group.
    pending = inside.difference(outputs)    # members not met yet
    queue, met_first = outputs, len(outputs)
    for i in outputs[:met_first]:
        for c in inputs[i]:
            if c in pending:
                pending.remove(c)
                queue.append(c)
    for i in islice(queue, met_first, None):    # the loop reads what it appends
        if meet(i):
            break
        for c in inputs[i]:
            if c in pending:
                pending.remove(c)
                queue.append(c)
    return order
