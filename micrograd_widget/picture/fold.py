"""Folding: which nodes a picture of more than ``node_budget`` nodes draws in full and which it draws as boxes.

``plan(tape, budget)`` is the planner: its boxes are the default picture, the top level of the fold hierarchy
(fold_tree.py), inside which each box is grouped again so that it can be opened; dot.py's ``graph_view`` writes
the DOT for any open set of that hierarchy (js/picture/fold_tree.js writes the same in the browser). Which boxes exist
and what they say are the fold rules (fold_rules.py), the same at every level; this module chooses among them.

A graph of more than ``node_budget`` nodes is drawn as a summary: at most ``node_budget`` boxes (value
nodes plus fold boxes), the structure a learner reads at a glance (inputs -> layers -> losses -> sum ->
loss), and a message (``Plan.message``) saying what was folded. The root is always drawn in full.

- Repeated structure: a long sum (``MIN_SUM_TERMS`` terms or more; a tree of '+' nodes in one scope
  where every node but the top feeds only the next '+', as ``sum()`` and a neuron's
  ``b + w0*x0 + ...`` build) becomes one Σ box holding its partial sums, drawn in place of the '+' op
  of the node that holds the total (that node stays drawn in full, so its numbers stay live); the
  nodes only its terms use become one box ("101 terms: 100 ReLU, 1 leaf"); ``MIN_LEAF_GROUP`` or more
  leaves that feed the same boxes (interchangeable in the picture) become one box.
- Modules: one box per nn module (the tape's scopes) at the deepest scope depth that gives at most
  ``node_budget`` boxes and at most ``node_budget`` edges between them. Dense wiring is what makes a
  picture unreadable, so when every neuron of a layer feeds every neuron of the next the boxes are
  whole layers (``layers.0``); failing that, the deepest depth within ``EDGES_PER_BOX * node_budget``
  edges (a few thousand edges make Graphviz's layout take minutes).
- When the nodes outside modules are still too many, or there are no scopes, the units nearest the
  root (breadth first over inputs) are kept and the rest, computed earlier, go into one box "earlier steps".
- Layout cost: a default picture (even of a graph under the budget) whose edges cross more than
  ``FAR_RANKS_LIMIT`` ranks beyond the next (far_ranks.py: Graphviz's virtual nodes; an input feeding every step of
  a long chain, as in Horner's rule) keeps only as many units nearest the root as stay within it, and says so.
- Spare budget buys detail: when the folds above leave boxes unused, the terms of each long sum
  (largest terms box first) are drawn in full, nearest the output first (breadth first from the
  total through its partial sums; a node shared by two terms goes with the nearer one), as many as
  keep the picture within ``node_budget`` boxes and ``max(node_budget, edges before)`` edges between
  boxes (op ellipses count with their node); the other terms stay one box, "189 more terms: ...".
  The first k that fits is found by bisection, so this is O(n log n). Only a terms box fed by
  nothing outside itself is opened: drawing the terms of one fed by a module (the moons loss's
  per-sample losses) would fan an edge out of that module to every term, a picture too tall to read.
  Sum of 250 products ``x_i * x_(i-1)`` (997 nodes, budget 250): 61 terms and their nodes drawn in
  full, 187 boxes in all (3 before).

A *unit* is what one node is drawn as: itself (its id) or box ``j`` (``len(tape) + j``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass

from micrograd_widget.core.tape import Tape
from micrograd_widget.picture.far_ranks import FAR_RANKS_LIMIT, far_ranks, unit_pairs, whole_far_ranks
from micrograd_widget.picture.fold_rules import (
    Box,
    FoldKind,
    TapeFacts,
    distance_note,
    distance_title,
    edge_count,
    fold_boxes,
    scope_levels,
    terms_title_and_note,
    units_of,
)
from micrograd_widget.picture.text import plural

__all__ = ["Fold", "Plan", "plan", "EDGES_PER_BOX", "LAYOUT_COST_LIMIT"]

EDGES_PER_BOX = 3          # folding also keeps the edge count near EDGES_PER_BOX * node_budget
# Opening boxes keeps a picture's layout cost (fold_fit.py layout_cost: the ranks its edges cross, which Graphviz's
# dot lays out as that many virtual nodes) at most max(this, the cost of the set it starts from). Past ~10,000 dot's
# passes blow up: the moons loss at node_budget=2000 opened to its regularisation sum (~140,000) ran for minutes.
LAYOUT_COST_LIMIT = 10_000
# What the folding sentence adds when the default picture draws fewer boxes than the budget for its far ranks.
SLOW_LAYOUT_NOTE = " (fewer than the node budget allows: their edges reach far back, which is slow to lay out)"


@dataclass(frozen=True)
class Fold:
    """Nodes drawn as one box: a module (``kind="scope"``, ``title`` the scope), the partial sums of a
    long sum (``"sum"``), that sum's terms (``"terms"``), leaves feeding the same boxes (``"leaves"``),
    or the nodes farthest from the output (``"distance"``). ``note`` says what the box holds; ``total``
    is, for a Σ box, the tape node holding the sum (when that node is drawn in full, the box feeds it in
    place of its '+'); ``key`` is its key in the fold hierarchy (fold_tree.py), what an open set lists;
    ``output`` is its one output node (the only member used outside the box, or the root), None when it has several."""

    id: str
    title: str
    members: tuple[int, ...]
    kind: FoldKind
    note: str = ""
    total: int | None = None
    key: str = ""
    output: int | None = None


@dataclass(frozen=True)
class Plan:
    """What a picture draws: the tape nodes drawn in full (ascending), the fold boxes (ids ``fold0``,
    ``fold1``, ... in this order) and the message saying what was folded ("" when nothing was)."""

    shown: list[int]
    folds: list[Fold]
    message: str


def plan(tape: Tape, budget: int | None, facts: TapeFacts | None = None) -> Plan:
    """Which nodes to draw in full and which to fold (the rules are in the module docstring): at most
    ``budget`` boxes and at most ``EDGES_PER_BOX * budget`` edges; spare boxes go to long sums' terms.
    ``facts``: the tape's (fold_rules.TapeFacts), to share what it finds with the fold hierarchy."""
    n = len(tape)
    if budget is None or (n <= budget and whole_far_ranks(tape) <= FAR_RANKS_LIMIT):
        return Plan(list(range(n)), [], "")
    edge_budget = EDGES_PER_BOX * budget
    facts = TapeFacts(tape) if facts is None else facts
    levels = [boxes for _, boxes in scope_levels(tape)] or [[]]     # module boxes per depth, deepest first
    built: list[list[Box]] = []          # fold_boxes()'s boxes on each level, in that order
    chosen = _module_level(facts, levels, budget, edge_budget, built)
    if chosen is not None:
        boxes, unit, edges = chosen
        boxes = _unfold_terms(tape, boxes, unit, edges, budget)
        if len(boxes) < len(chosen[0]):     # a terms box drawn whole is gone: the boxes after it are renumbered
            unit = units_of(n, boxes)
        kept, slow = None, False            # every unit
        # an edge crosses at most 2 ranks per unit: only past that bound are they counted (the moons loss's 15
        # units and <= 250 edges are not)
        bound = 2 * len(set(unit)) * max(budget, edges)
        if bound > FAR_RANKS_LIMIT and far_ranks(unit_pairs(tape, unit), n) > FAR_RANKS_LIMIT:
            kept, slow = _nearest_within_cost(tape, unit, boxes, budget - 1, edge_budget)
    else:
        # Too many nodes outside modules (or no modules): keep the modules at the deepest depth with
        # at most half the budget in boxes, then the units nearest the root; fold the rest in one box.
        boxes = built[next((k for k, b in enumerate(levels) if len(b) <= budget // 2), len(levels) - 1)]
        unit = units_of(n, boxes)
        kept, slow = _nearest_within_cost(tape, unit, boxes, budget - 1, edge_budget)
    return _plan_of(tape, boxes, unit, kept, slow)


def _module_level(facts: TapeFacts, levels: list[list[Box]], budget: int, edge_budget: int,
                  built: list[list[Box]]) -> tuple[list[Box], list[int], int] | None:
    """The boxes (module boxes and ``fold_boxes``'s) of the deepest scope depth giving at most ``budget``
    boxes and at most ``budget`` edges between them: dense wiring (every neuron of a layer feeding every
    neuron of the next) is what makes a picture unreadable, and one box per layer reads better. Failing
    that, the deepest depth within the edge budget that Graphviz lays out quickly; None if none fits
    (then every level's boxes are in ``built``, for the caller's fallback). With the boxes, what choosing
    them measured and the caller needs again: each node's unit (``units_of``) and the edges between units."""
    tape = facts.tape
    n = len(tape)
    fallback: tuple[list[Box], list[int], int] | None = None
    for modules in levels:
        free = set(range(n)).difference(*(b.members for b in modules))
        free.discard(tape.root)
        boxes = fold_boxes(facts, free, modules, facts.trees).boxes
        built.append(boxes)
        if n - sum(len(b.members) for b in boxes) + len(boxes) > budget:
            continue
        unit = units_of(n, boxes)
        edges = edge_count(tape, unit)
        if edges <= budget:
            return boxes, unit, edges
        if edges <= edge_budget and fallback is None:
            fallback = boxes, unit, edges
    return fallback


def _plan_of(tape: Tape, boxes: list[Box], unit: list[int], kept: set[int] | None, slow: bool = False) -> Plan:
    """The plan drawing the ``kept`` units (None: every unit): nodes and boxes kept, every other node in one
    last box; ``slow``: fewer were kept than the budget allows, for their layout cost (the message says so)."""
    n = len(tape)
    rest: tuple[int, ...] = ()
    if kept is None:
        shown, drawn = [i for i in range(n) if unit[i] == i], boxes
    else:
        shown = [i for i in range(n) if unit[i] == i and i in kept]
        drawn = [b for j, b in enumerate(boxes) if n + j in kept]
        rest = tuple(i for i in range(n) if unit[i] not in kept)
    folds = [Fold(f"fold{k}", b.title, tuple(b.members), b.kind, b.note, b.total)
             for k, b in enumerate(drawn)]
    if rest:
        folds.append(Fold(f"fold{len(folds)}", distance_title(), rest, "distance", distance_note(len(rest))))
    why = SLOW_LAYOUT_NOTE if slow else ""
    return Plan(shown, folds, f"showing {len(shown):,} of {n:,} nodes; " + _what_was_folded(drawn, len(rest)) + why)


@dataclass
class _TermsDrawing:
    """A terms box being opened: its terms nearest the output first (``direct``), for each of its nodes
    the first term whose drawing needs it (``rank``), and the tape edges that touch it (``pairs``: inside
    it, and into its sum's partial sums or total); ``unit`` is the picture's units before opening it."""

    members: list[int]
    rank: dict[int, int]
    direct: list[int]
    pairs: list[tuple[int, int]]
    unit: list[int]

    def drawn(self, k: int) -> int:
        """How many of its nodes the first ``k`` terms draw."""
        return sum(1 for i in self.members if self.rank[i] < k)

    def units(self, before: int, k: int) -> int:
        """The picture's units (``before`` with the box closed) once its first ``k`` terms are drawn."""
        drawn = self.drawn(k)
        return before - 1 + drawn + (drawn < len(self.members))

    def edges(self, k: int) -> int:
        """The edges between units among ``pairs`` once its first ``k`` terms are drawn."""
        rank, unit = self.rank, self.unit

        def unit_of(i: int) -> int:
            r = rank.get(i)
            return unit[i] if r is None else i if r < k else -1      # -1: the box itself
        return len({(unit_of(c), unit_of(i)) for c, i in self.pairs if unit_of(c) != unit_of(i)})

    def most_terms(self, units: int, outside: int, budget: int, limit: int) -> int:
        """The most terms drawn in full (nearest the output first) that keep the picture (now ``units``
        units, ``outside`` edges not among ``pairs``) within ``budget`` units and ``limit`` edges; by
        bisection, as drawing more terms never takes fewer units or edges."""
        lo, hi = 0, len(self.direct) + 1
        while hi - lo > 1:
            mid = (lo + hi) // 2
            fits = self.units(units, mid) <= budget and outside + self.edges(mid) <= limit
            lo, hi = (mid, hi) if fits else (lo, mid)
        return lo


def _terms_nearest_output(inputs: Sequence[Sequence[int]], total: int, partial: set[int],
                          inside: set[int]) -> list[int]:
    """A sum's terms in the box ``inside``, nearest the output first: breadth first from the total
    through the partial sums."""
    direct: list[int] = []
    queue, seen = deque([total]), set()
    while queue:
        for c in inputs[queue.popleft()]:
            if c in partial:
                queue.append(c)
            elif c in inside and c not in seen:
                seen.add(c)
                direct.append(c)
    return direct


def _first_use(inputs: Sequence[Sequence[int]], terms: list[int]) -> dict[int, int]:
    """For each node under ``terms``: the position of the first term (in that order) whose drawing needs it."""
    rank: dict[int, int] = {}
    for r, t in enumerate(terms):
        stack = [t]
        rank[t] = r
        while stack:
            for c in inputs[stack.pop()]:
                if c not in rank:
                    rank[c] = r
                    stack.append(c)
    return rank


def _unfold_terms(tape: Tape, boxes: list[Box], unit: list[int], edges: int, budget: int) -> list[Box]:
    """Spend what the folded picture (``unit``: each node's unit, ``edges`` between units) leaves of ``budget``
    on the terms of its long sums: per terms box (largest first) that takes no input from outside itself, the
    most terms nearest the output whose nodes fit in the boxes left and keep the edges within
    ``max(budget, edges now)``; the others stay one box. The boxes afterwards (a terms box drawn in full is
    gone); ``unit`` follows, but for the numbering of the boxes after a box gone."""
    inputs = tape.inputs
    units = len(set(unit))
    limit = max(budget, edges)
    sums = {b.total: b for b in boxes if b.kind == "sum"}
    for box in sorted((b for b in boxes if b.kind == "terms"), key=lambda b: -len(b.members)):
        total = box.of_sum
        assert total is not None, "a terms box belongs to a sum"
        sum_box = sums[total]
        inside = set(box.members)
        if any(c not in inside for i in box.members for c in inputs[i]):
            continue      # fed by other boxes: each term drawn would add an edge from them (a tall fan)
        direct = _terms_nearest_output(inputs, total, set(sum_box.members), inside)
        pairs = [(c, i) for i in box.members for c in inputs[i]]
        pairs += [(c, i) for i in (*sum_box.members, total) for c in inputs[i] if c in inside]
        drawing = _TermsDrawing(box.members, _first_use(inputs, direct), direct, pairs, unit)
        before = drawing.edges(0)
        k = drawing.most_terms(units, edges - before, budget, limit)
        if k:
            units = drawing.units(units, k)
            edges += drawing.edges(k) - before
            _draw_terms(tape, box, sum_box, drawing, k)
    return [b for b in boxes if b.members]


def _draw_terms(tape: Tape, box: Box, sum_box: Box, drawing: _TermsDrawing, k: int) -> None:
    """Draw the first ``k`` terms of ``box`` in full (their nodes become their own units); the box keeps the rest."""
    for i in box.members:
        if drawing.rank[i] < k:
            drawing.unit[i] = i
    rest = [i for i in box.members if drawing.rank[i] >= k]
    left = drawing.direct[k:]
    sum_box.shown_terms = k
    box.members = rest
    box.terms = len(left)
    box.title, box.note = terms_title_and_note(tape, left, sum_box.terms, len(rest), k)


def _what_was_folded(boxes: list[Box], rest: int) -> str:
    """The folding message after 'showing x of n nodes; ', one clause per kind of box."""
    def of(kind: str) -> list[Box]:
        return [b for b in boxes if b.kind == kind]

    parts = []
    if modules := of("scope"):
        folded = sum(len(b.members) for b in modules)
        parts.append(f"{folded:,} folded into {plural(len(modules), 'box')}, one per module")
    if sums := of("sum"):
        sizes = [f"{b.terms:,}" for b in sums]
        more = ", \u2026" if len(sizes) > 3 else ""
        listed = " and ".join(sizes) if len(sizes) <= 2 else ", ".join(sizes[:3]) + more
        drawn_as = "a \u03a3 box" if len(sums) == 1 else "\u03a3 boxes"
        parts.append(f"{plural(len(sums), 'long sum')} ({listed} terms) drawn as {drawn_as}")
        their = "their" if len(sums) > 1 else "its"
        if shown := sum(b.shown_terms for b in sums):
            parts.append(f"{shown:,} of {their} terms drawn in full")
        if terms := of("terms"):
            nodes = plural(sum(len(b.members) for b in terms), "node")
            parts.append(f"{'the other' if shown else their} terms ({nodes}) folded into {plural(len(terms), 'box')}")
    if leaves := of("leaves"):
        parts.append(f"{plural(sum(len(b.members) for b in leaves), 'leaf')} folded into {plural(len(leaves), 'box')}")
    if rest:
        parts.append(f"the {plural(rest, 'node')} computed earliest folded into one box ('{distance_title()}')")
    return ", ".join(parts)


def _nearest_within_cost(tape: Tape, unit: list[int], boxes: list[Box], limit: int,
                         edge_limit: int) -> tuple[set[int], bool]:
    """``_nearest_units``, with fewer units when their edges would cross more than FAR_RANKS_LIMIT ranks beyond
    the next (``far_ranks``): the most units, found by bisection, whose picture stays within it, and whether it took
    fewer. An input that feeds a long chain (``y = y * x + c``, Horner's rule) reaches back across every rank of
    it, and dot's passes ran for minutes on such a picture of 250 boxes."""
    def cost(kept: set[int]) -> int:
        return far_ranks(_kept_pairs(tape, unit, boxes, kept), len(tape))

    kept = _nearest_units(tape, unit, boxes, limit, edge_limit)
    if cost(kept) <= FAR_RANKS_LIMIT:
        return kept, False
    low, high = 1, limit - 1             # _nearest_units(low) fits (the root alone), (high + 1) does not
    best = _nearest_units(tape, unit, boxes, low, edge_limit)
    while low < high:
        mid = (low + high + 1) // 2
        tried = _nearest_units(tape, unit, boxes, mid, edge_limit)
        if cost(tried) <= FAR_RANKS_LIMIT:
            low, best = mid, tried
        else:
            high = mid - 1
    return best, True


def _kept_pairs(tape: Tape, unit: list[int], boxes: list[Box], kept: set[int]) -> set[tuple[int, int]]:
    """``unit_pairs`` of the picture drawing only the ``kept`` units, everything else one box (unit -1), read from
    the kept units' members alone."""
    n, inputs = len(tape), tape.inputs
    pairs: set[tuple[int, int]] = set()
    for u in kept:
        for x in boxes[u - n].members if u >= n else (u,):
            for c in inputs[x]:
                v = unit[c]
                if v != u:
                    pairs.add((v if v in kept else -1, u))
    return pairs


def _nearest_units(tape: Tape, unit: list[int], boxes: list[Box], limit: int, edge_limit: int) -> set[int]:
    """Units met by a breadth-first walk from the root over inputs, up to ``limit`` units and
    ``edge_limit`` edges among them. A unit that would bring more edges than the budget can spare
    while keeping two per unit still to come (e.g. an input feeding every module) is left out."""
    n, inputs = len(tape), tape.inputs
    box_inputs: list[list[int]] = []
    for j, box in enumerate(boxes):
        seen: dict[int, None] = {}
        for i in box.members:
            for c in inputs[i]:
                if unit[c] != n + j:
                    seen[unit[c]] = None
        box_inputs.append(list(seen))

    def inputs_of(u: int) -> list[int]:
        return box_inputs[u - n] if u >= n else list(dict.fromkeys(unit[c] for c in inputs[u] if unit[c] != u))

    start = unit[tape.root]
    kept = {start}
    consumers_kept: dict[int, int] = {}      # unit -> how many kept units take it as an input
    for w in inputs_of(start):
        consumers_kept[w] = consumers_kept.get(w, 0) + 1
    rejected: set[int] = set()
    edges = 0
    queue = deque([start])
    while queue and len(kept) < limit:
        for v in inputs_of(queue.popleft()):
            if v in kept or v in rejected:
                continue
            ins = inputs_of(v)
            cost = consumers_kept.get(v, 0) + sum(1 for w in ins if w in kept)
            if edges + cost + 2 * (limit - len(kept) - 1) > edge_limit:
                rejected.add(v)
                continue
            kept.add(v)
            edges += cost
            for w in ins:
                consumers_kept[w] = consumers_kept.get(w, 0) + 1
            queue.append(v)
            if len(kept) >= limit:
                break
    return kept
