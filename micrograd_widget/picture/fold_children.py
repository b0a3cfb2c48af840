"""What a fold box of the hierarchy opens into: its units, nearest its output first. The boxes inside it are the
fold rules' (fold_rules.py: its sub-modules, then long sums, their terms and leaves feeding the same units), applied
to its members alone; fold_tree.py numbers them and folds what a box cannot show into "earlier steps" boxes.
"""

from __future__ import annotations

from collections import Counter
from itertools import chain, islice
from operator import not_

from micrograd_widget.picture.fold_rules import MIN_LEAF_GROUP, Box, FoldKind, TapeFacts, fold_boxes, sub_modules

__all__ = ["child_units", "nodes_only"]


def child_units(facts: TapeFacts, members: list[int], depth: int, cap: int) -> list[int | Box]:
    """The units a group of ``members`` (a module of scope depth ``depth``, else 0) opens into, nearest its
    output first: its sub-modules, long sums, their terms and leaves boxes (``fold_rules.fold_boxes`` on its
    members, a use outside them counting as one unit), then single nodes. A grouping that would hold every member
    is no grouping: its nodes are used. Single nodes only, and at most ``cap`` of them (the units a group shows),
    come in any order: the order decides only which units an "earlier steps" group takes, and the numbering of child
    groups (most groups of a large graph are such, e.g. the moons loss's Σ and terms boxes of one neuron)."""
    modules = sub_modules(facts, members, depth)
    if not modules and _no_sums_or_leaf_groups(facts, members, cap):
        return list(members)
    inside = set(members)
    free = inside.difference(*(b.members for b in modules))
    sum_at = facts.sum_at
    sums = [sum_at[top] for top in sorted(filter(sum_at.__contains__, free))]
    boxes, box_of = fold_boxes(facts, free, modules, sums, inside)
    return _nearest_output_first(facts, members, inside, boxes, box_of)


def nodes_only(facts: TapeFacts, kind: FoldKind, members: list[int], depth: int, cap: int) -> bool:
    """True when a group of ``kind`` and ``members`` (scope depth ``depth``) opens into at most ``cap`` units, all
    of them its own nodes: ``child_units`` would find no sub-module, no long sum and no leaves box in it. So is
    every Σ group that small: its members are the partial sums of one long sum, '+' nodes of one scope (a
    partial sum has its total's scope), none the total of a long sum."""
    if kind == "sum":
        return len(members) <= cap
    return _no_sums_or_leaf_groups(facts, members, cap) and not sub_modules(facts, members, depth)


def _no_sums_or_leaf_groups(facts: TapeFacts, members: list[int], cap: int) -> bool:
    """At most ``cap`` members, no long sum's top among them and too few leaves for a leaves box: then
    ``fold_boxes`` finds nothing in them, whatever else is taken out."""
    return (len(members) <= cap and facts.sum_at.keys().isdisjoint(members)
            and sum(map(not_, map(facts.inputs.__getitem__, members))) < MIN_LEAF_GROUP)


def _nearest_output_first(facts: TapeFacts, members: list[int], inside: set[int], boxes: list[Box],
                          box_of: dict[int, int]) -> list[int | Box]:
    """The units of a group in the order a breadth-first walk meets them, from its outputs (members used
    outside it, or the root; largest id first) over inputs inside it. Every member is met: one used only
    inside the group feeds a member, and following consumers ends at an output (a tape ends at its root). The
    walk stops once every unit is met (a layer's outputs meet all its neurons at once).

    The outputs are found from the largest member down, a growing chunk at a time: a member's users come after
    it, so once the chunks have counted the inputs of every member from it up, its uses inside the group are
    known. A walk that meets every unit among the first outputs (a layer's) never counts the rest of the group."""
    inputs, uses, root = facts.inputs, facts.uses, facts.tape.root
    order: list[int | Box] = []
    met: set[int] = set()
    left = len(boxes) + len(members) - len(box_of)  # units not met yet
    outputs: list[int] = []
    inner: Counter[int] = Counter()                 # uses from inside the group, of the members counted so far
    end, size = len(members), 64

    def meet(i: int) -> bool:
        """Put member i's unit in the order unless it was met; True once every unit is met."""
        nonlocal left
        j = box_of.get(i)
        if j is None:
            order.append(i)
        elif j not in met:
            met.add(j)
            order.append(boxes[j])
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
