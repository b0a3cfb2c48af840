"""Graph -> DOT: the lecture's ``trace``/``draw_dot``, stable node ids, one escaping function, folding.

Everything that draws a graph (``draw_dot``, the inline display, the live widget) goes through
``graph_view(tape, ...)``: one layout path. The DOT it writes is laid out by Graphviz, either the
kernel's ``dot`` (static SVG) or Graphviz compiled to WebAssembly in the browser (the widget).

Folding (``node_budget``)
-------------------------
A graph of more than ``node_budget`` nodes is drawn as a summary: at most ``node_budget`` boxes (value
nodes plus fold boxes), the structure a learner reads at a glance (inputs -> layers -> losses -> sum ->
loss), and a message (``GraphView.message``) saying what was folded. The root is always drawn in full.

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
  root (breadth first over inputs) are kept and the rest go into one box "farther from the output".
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
- A folded picture stacks a box's fields across the direction of flow (top to bottom when
  ``rankdir="LR"``) and sets ranks closer, so the summary fits a screen at a readable size.

Ids, classes and how to find things in the SVG Graphviz makes of this DOT
--------------------------------------------------------------------------
Every DOT node has ``id`` = its name, so Graphviz writes ``<g id="<id>" class="node <classes>">``:

- value node of tape node ``i``: id ``n<i>``; classes ``mgw-value`` plus ``mgw-leaf`` (no inputs) and/or
  ``mgw-root`` (the tape's root, ``i == len(tape) - 1``). Shape ``record`` (``Mrecord``, rounded, for
  leaves). Its label has exactly three fields, label | data | grad, so the group holds exactly three
  ``<text>`` elements, in this order: the label (a single space when the label is empty), ``"data <x>"``
  and ``"grad <x>"``, numbers as ``format_number(x, precision)`` writes them. The box is the group's first
  ``<polygon>`` (``record``) or ``<path>`` (``Mrecord``); its ``fill`` is ``grad_color(grad, scale)``.
  The texts and the shape sit inside ``<g id="a_n<i>"><a xlink:title="...">`` (the full-precision
  tooltip), so look them up with ``group.querySelectorAll("text")``, not as direct children.
- op node of tape node ``i`` (when the node has an op symbol and is not the total of a Σ box): id
  ``n<i>_op``, class ``mgw-op``, one ``<text>`` (the symbol). The total of a Σ box ``fold<k>`` has no
  op node: the box stands in for its '+' (edges into ``fold<k>``, then ``e_fold<k>_n<i>``).
- fold box: id ``fold<k>`` (k = 0, 1, ... in ``GraphView.folds`` order), class ``mgw-fold``, a record
  with two ``<text>``: its title (``Fold.title``: the scope, "Σ sum of 101 terms", "101 terms: 100
  ReLU, 1 leaf", "leaves" or "farther from the output") and ``"<count> nodes"``; its tooltip is
  ``Fold.note``.
- edges: ``<g id="e_<tail>_<head>" class="edge mgw-edge">``, e.g. ``e_n3_n5_op`` and ``e_n5_op_n5``;
  never two edges with the same tail and head.
- legend (when colouring is on): ``<g id="mgw-legend" class="node mgw-legend">`` whose ``<text>``s are,
  in order, ``"grad"``, then ``-scale``, ``-scale/4``, ``0``, ``+scale/4``, ``+scale`` formatted with
  ``format_number``; ``scale`` is ``GraphView.scale``: the largest finite ``|grad|`` among the value nodes
  drawn other than the differentiated output (its own grad, d out / d out = 1, would wash out every
  other colour after a saturated tanh), whose fill is the strongest colour.
- the folding message, when something is folded, is the graph's label: a ``<text>`` directly inside
  ``<g id="graph0" class="graph">``.

Ids repeat from one picture to the next (every graph has an ``n0``): query inside the picture's own
element. Graphviz writes ``-`` in class names as ``&#45;``, which any XML/HTML parser reads back as
``-``.
"""

from __future__ import annotations

import html
import math
import re
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Iterable, Literal

import graphviz

from .engine import Value, topological_order
from .ops import OPS_BY_NAME
from .options import (
    DEFAULT_OPTIONS, MAX_NODE_BUDGET, MAX_PRECISION, MIN_NODE_BUDGET, MIN_PRECISION, RANKDIRS, check_option,
)
from .tape import Tape

__all__ = [
    "trace", "draw_dot", "graph_view", "GraphView", "Fold", "escape", "clean_text", "format_number",
    "grad_color", "grad_scale", "check_option", "DEFAULT_OPTIONS", "RANKDIRS",
    "MIN_PRECISION", "MAX_PRECISION", "MIN_NODE_BUDGET", "MAX_NODE_BUDGET", "MAX_LABEL_CHARS", "MIN_SUM_TERMS",
    "MIN_LEAF_GROUP", "EDGES_PER_BOX",
    "NEGATIVE_COLOR", "POSITIVE_COLOR", "ZERO_COLOR", "NONFINITE_COLOR",
]

MAX_LABEL_CHARS = 40      # longer labels are shortened with '…' in the picture (full text in the tooltip)
MAX_TOOLTIP_CHARS = 300
MAX_SYMBOL_CHARS = 24
EDGES_PER_BOX = 3          # folding also keeps the edge count near EDGES_PER_BOX * node_budget
MIN_SUM_TERMS = 8          # beyond the budget, a sum of this many terms or more is drawn as one Σ box
MIN_LEAF_GROUP = 8         # beyond the budget, this many leaves feeding the same boxes are drawn as one box

# A colour-blind-safe diverging scale: blue for negative grads, white for zero, orange for positive.
# Fills stay light enough for black text at full strength.
NEGATIVE_COLOR = "#5b9bd5"
POSITIVE_COLOR = "#f0913a"
ZERO_COLOR = "#ffffff"
NONFINITE_COLOR = "#bdbdbd"
_FOLD_COLOR = "#eeeeee"

# ---------------------------------------------------------------- text: the one escaping function

_NEWLINES = re.compile(r"\r\n|[\r\n\u2028\u2029\x0b\x0c\x85]")
# C0/C1 controls, lone surrogates and XML non-characters: invalid in SVG, unprintable in HTML.
_UNPRINTABLE = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff]")
_SPACES = re.compile(r"[ \t]+")
_RECORD = str.maketrans({"\\": "\\\\", '"': '\\"', "&": "&amp;", "{": "\\{", "}": "\\}",
                         "|": "\\|", "<": "\\<", ">": "\\>"})
_DOT = str.maketrans({"\\": "\\\\", '"': '\\"', "&": "&amp;"})


def clean_text(text: object, max_chars: int | None = None) -> str:
    """The plain text a user string shows as: newlines as '↵', unprintable characters as '\ufffd',
    runs of spaces as one space, trimmed, and shortened to ``max_chars`` with '…'."""
    if text == "":
        return ""
    s = _NEWLINES.sub(" \u21b5 ", str(text))
    s = _SPACES.sub(" ", _UNPRINTABLE.sub("\ufffd", s)).strip(" ")
    if max_chars is not None and len(s) > max_chars:
        s = s[: max(max_chars - 1, 0)].rstrip(" ") + "\u2026"
    return s


def escape(text: object, target: Literal["record", "dot", "html"] = "record") -> str:
    """Make a user string (label, scope, op symbol) safe: THE one escaping function for DOT and HTML.

    ``"record"``: one field of a DOT record label; ``"dot"``: any other DOT string (op label, tooltip);
    ``"html"``: HTML text or a quoted attribute value. The text is ``clean_text(text)`` first, so what
    a picture shows and what a table shows agree, and nothing can break out of its field or tag.
    """
    s = clean_text(text)
    if target == "record":
        return s.translate(_RECORD)
    if target == "dot":
        return s.translate(_DOT)
    if target == "html":
        return html.escape(s, quote=True)
    raise ValueError(f"escape(target=...) must be 'record', 'dot' or 'html', got {target!r}")


def format_number(x: float, precision: int = 4) -> str:
    """A number as a picture shows it: fixed point with ``precision`` decimals (the lecture's
    ``%.4f``), scientific from 1e6 up, and 'nan' / 'inf' / '-inf'."""
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if abs(x) >= 1e6:
        return f"{x:.{precision}e}"
    return f"{x:.{precision}f}"


def grad_scale(grads: Iterable[float], output: float | None = None) -> float:
    """The colour scale's full strength: the largest finite ``|grad|`` in ``grads``, the nodes drawn other
    than the differentiated output; ``|output|`` (that node's grad, None when it is not drawn) only when no
    other grad is finite and non-zero, since d out / d out = 1 would wash out every other colour. 0.0 when
    there is none."""
    scale = max((abs(g) for g in grads if math.isfinite(g)), default=0.0)
    if scale == 0 and output is not None and math.isfinite(output):
        return abs(output)
    return scale


def grad_color(grad: float, scale: float) -> str:
    """A node's fill: white at 0, towards ``POSITIVE_COLOR`` (orange) or ``NEGATIVE_COLOR`` (blue) by
    ``t = min(1, sqrt(|grad| / scale))`` per RGB channel, rounded; grey for nan/inf grads.

    The square root keeps small gradients visible next to a large one; a grad beyond ``scale`` (the
    differentiated output's, which ``grad_scale`` leaves out) gets the strongest colour.
    """
    if not math.isfinite(grad):
        return NONFINITE_COLOR
    if grad == 0 or not scale > 0:
        return ZERO_COLOR
    t = min(1.0, math.sqrt(abs(grad) / scale))
    end = NEGATIVE_COLOR if grad < 0 else POSITIVE_COLOR
    rgb = (int(end[k:k + 2], 16) for k in (1, 3, 5))
    return "#" + "".join(f"{round(255 + (c - 255) * t):02x}" for c in rgb)


# ---------------------------------------------------------------- the lecture's API

def trace(root: Value) -> tuple[list[Value], list[tuple[Value, Value]]]:
    """The lecture's ``trace``: every node of ``root``'s graph (topological order, root last) and every
    ``(input, node)`` edge once; lists in a deterministic order instead of the lecture's sets."""
    if not isinstance(root, Value):
        raise TypeError(f"trace() takes a Value, got {type(root).__name__}")
    nodes = topological_order(root)
    edges = list(dict.fromkeys((child, v) for v in nodes for child in v._prev))
    return nodes, edges


def draw_dot(root: Value, rankdir: str = "LR", format: str = "svg", *, precision: int = 4,
             color: bool = True) -> graphviz.Digraph:
    """The lecture's ``draw_dot``: the whole graph (never folded) as a ``graphviz.Digraph``; records
    ``label | data | grad``, op nodes, edges, with stable ids (see the module docstring)."""
    if not isinstance(root, Value):
        raise TypeError(f"draw_dot() takes a Value, got {type(root).__name__}")
    g = graph_view(Tape.from_value(root), precision=precision, rankdir=rankdir, node_budget=None, color=color).graph
    g.format = format
    return g


# ---------------------------------------------------------------- folding

FoldKind = Literal["scope", "sum", "terms", "leaves", "distance"]


@dataclass(frozen=True)
class Fold:
    """Nodes drawn as one box: a module (``kind="scope"``, ``title`` the scope), the partial sums of a
    long sum (``"sum"``), that sum's terms (``"terms"``), leaves feeding the same boxes (``"leaves"``),
    or the nodes farthest from the output (``"distance"``). ``note`` says what the box holds; ``total``
    is, for a Σ box, the tape node holding the sum (drawn in full, fed by the box in place of its '+')."""

    id: str
    title: str
    members: tuple[int, ...]
    kind: FoldKind
    note: str = ""
    total: int | None = None


@dataclass(frozen=True, eq=False)
class GraphView:
    """One picture of a tape: its DOT, the tape node ids drawn in full, the folds and what was folded."""

    tape: Tape
    graph: graphviz.Digraph
    shown: tuple[int, ...]
    folds: tuple[Fold, ...]
    message: str
    options: dict[str, Any] = field(default_factory=dict)
    output: int | None = None

    @property
    def scale(self) -> float:
        """The colour scale for the grads the tape holds now: ``grad_scale`` over the drawn nodes, the
        differentiated output (``output``, default the root) left out."""
        out = self.tape.root if self.output is None else self.output
        grad = self.tape.grad
        return grad_scale((grad[i] for i in self.shown if i != out), grad[out] if out in self.shown else None)

    @property
    def dot(self) -> str:
        """The DOT source."""
        return self.graph.source

    @property
    def total(self) -> int:
        """How many nodes the tape has."""
        return len(self.tape)


@dataclass
class _Box:
    """A fold box while planning: its members and how the picture names it."""

    title: str
    members: list[int]
    kind: FoldKind
    note: str = ""
    terms: int = 0
    total: int | None = None
    of_sum: int | None = None      # a terms box: the total of its sum
    shown_terms: int = 0           # a Σ box: how many of its terms are drawn in full


def _prefix(scope: str, depth: int) -> str:
    return ".".join(scope.split(".")[:depth])


def _scope_levels(tape: Tape) -> list[tuple[int, list[_Box]]]:
    """Per scope depth, deepest first, the module boxes at that depth: [(depth, boxes)], only depths
    giving at least two boxes (one box for everything would show nothing). The root is never boxed;
    a box of one node is drawn as that node."""
    distinct = {s for s in tape.scopes if s}
    if not distinct:
        return []
    levels = []
    for depth in range(max(s.count(".") + 1 for s in distinct), 0, -1):
        prefix = {s: _prefix(s, depth) for s in distinct}
        groups: dict[str, list[int]] = {}
        for i, s in enumerate(tape.scopes):
            if s and i != tape.root:
                groups.setdefault(prefix[s], []).append(i)
        boxes = [_Box(title, members, "scope", f"{title}: {len(members):,} nodes made inside this module, folded")
                 for title, members in groups.items() if len(members) >= 2]
        if len(boxes) >= 2:
            levels.append((depth, boxes))
    # Nested groupings with as many boxes are the same boxes: keep the shorter titles ('layers.0').
    return [lv for k, lv in enumerate(levels) if k + 1 == len(levels) or len(levels[k + 1][1]) != len(lv[1])]


def _uses(tape: Tape) -> list[int]:
    """How many times each node is an input (``x + x`` uses ``x`` twice)."""
    uses = [0] * len(tape)
    for ins in tape.inputs:
        for c in ins:
            uses[c] += 1
    return uses


def _sum_trees(tape: Tape, uses: list[int]) -> list[tuple[int, list[int], int]]:
    """The long sums: maximal trees of '+' nodes in one scope where every node but the top feeds only
    the next '+' (what ``sum()`` and a neuron's ``b + w0*x0 + ...`` build), with at least
    ``MIN_SUM_TERMS`` terms. Each as (top, the other '+' nodes ascending, number of terms)."""
    inputs, scopes = tape.inputs, tape.scopes
    add_op = OPS_BY_NAME["add"]                # the table's row, not a user-defined op that is also named 'add'
    add = [op is add_op for op in tape.ops]
    inner = [False] * len(tape)
    for i, ins in enumerate(inputs):
        if add[i]:
            for c in ins:
                if add[c] and uses[c] == 1 and scopes[c] == scopes[i]:
                    inner[c] = True
    trees = []
    for top in range(len(tape)):
        if not add[top] or inner[top] or not any(inner[c] for c in inputs[top]):
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
            trees.append((top, sorted(members), terms))
    return trees


def _term_nodes(tape: Tape, uses: list[int], tree: list[int], taken: list[bool]) -> list[int]:
    """The nodes only a sum uses: its terms and, recursively, their inputs whose every use is inside
    the sum or already collected (not ``taken`` by another box). Ascending."""
    inputs = tape.inputs
    left: dict[int, int] = {}
    found: list[int] = []
    stack = list(tree)
    inside = set(tree)
    while stack:
        for c in inputs[stack.pop()]:
            if taken[c] or c in inside:
                continue
            r = left.get(c, uses[c]) - 1
            left[c] = r
            if r == 0:
                found.append(c)
                stack.append(c)
    return sorted(found)


def _kinds_of(tape: Tape, nodes: Iterable[int]) -> str:
    """'100 ReLU, 1 leaf' or "337 '*'": the ops of ``nodes``, most common first (at most three kinds)."""
    counts: dict[str, int] = {}
    for i in nodes:
        kind = tape.symbols[i] or ("leaf" if not tape.inputs[i] else "node")
        counts[kind] = counts.get(kind, 0) + 1
    ranked = sorted(counts.items(), key=lambda kv: -kv[1])
    text = ", ".join(f"{c:,} {k}" if k[:1].isalnum() else f"{c:,} '{k}'" for k, c in ranked[:3])
    return text + (", \u2026" if len(ranked) > 3 else "")


def _structure(tape: Tape, uses: list[int], trees: list[tuple[int, list[int], int]],
                scope_boxes: list[_Box]) -> list[_Box]:
    """Fold boxes that keep a large graph's shape readable, on top of ``scope_boxes``: each long sum
    outside them as a Σ box (its partial sums; the total stays a drawn node), the nodes only its terms
    use as one box, and every ``MIN_LEAF_GROUP`` or more leaves feeding the same units as one (in the
    picture they are interchangeable: a column of boxes with the same arrows)."""
    n = len(tape)
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
    for top, members, terms in sums:
        # A no-break space: Graphviz 2.43's record parser drops a space after a non-ASCII first character.
        boxes.append(_Box(f"\u03a3\u00a0sum of {terms:,} terms", members, "sum",
                          f"\u03a3: a sum of {terms:,} terms built by {len(members) + 1:,} '+' nodes; its "
                          f"{len(members):,} partial sums are folded here, the total is the next box", terms, top))
        found = _term_nodes(tape, uses, members + [top], taken)
        if len(found) >= 2:
            for i in found:
                taken[i] = True
            collected = set(found)
            direct = [c for i in members + [top] for c in tape.inputs[i] if c in collected]
            term_boxes.append(_Box(f"{len(direct):,} terms: {_kinds_of(tape, direct)}", found, "terms",
                                   f"the {len(direct):,} terms of a sum of {terms:,} terms and the nodes only "
                                   f"they use: {len(found):,} nodes, folded", len(direct), of_sum=top))
    boxes += term_boxes
    unit = _units(n, boxes)
    consumers: dict[int, list[int]] = {}
    for i, ins in enumerate(tape.inputs):
        for c in ins:
            if not tape.inputs[c] and not taken[c]:
                consumers.setdefault(c, []).append(unit[i])
    groups: dict[tuple[int, ...], list[int]] = {}
    for leaf, units in consumers.items():
        groups.setdefault(tuple(sorted(set(units))), []).append(leaf)
    for key, leaves in groups.items():
        if len(leaves) >= MIN_LEAF_GROUP:
            boxes.append(_Box("leaves", sorted(leaves), "leaves",
                              f"{len(leaves):,} leaves (inputs or constants) that all feed the same "
                              f"{'box or node' if len(key) == 1 else f'{len(key):,} boxes and nodes'}, folded"))
    return boxes


def _units(n: int, boxes: list[_Box]) -> list[int]:
    """The unit each node is drawn as: itself (its id), or box ``j`` (``n + j``)."""
    unit = list(range(n))
    for j, box in enumerate(boxes):
        for i in box.members:
            unit[i] = n + j
    return unit


def _contract(tape: Tape, unit: list[int]) -> dict[tuple[int, int], None]:
    """The edges between units (input unit, consumer unit), once each, in a deterministic order."""
    pairs: dict[tuple[int, int], None] = {}
    for i, ins in enumerate(tape.inputs):
        u = unit[i]
        for c in ins:
            if unit[c] != u:
                pairs[(unit[c], u)] = None
    return pairs


def _plan(tape: Tape, budget: int | None) -> tuple[list[int], list[Fold], str]:
    """Which nodes to draw in full and which to fold (the rules are in the module docstring): at most
    ``budget`` boxes and at most ``EDGES_PER_BOX * budget`` edges; spare boxes go to long sums' terms."""
    n = len(tape)
    if budget is None or n <= budget:
        return list(range(n)), [], ""
    edge_budget = EDGES_PER_BOX * budget
    uses = _uses(tape)
    trees = _sum_trees(tape, uses)
    levels = _scope_levels(tape)
    # Module boxes as deep as possible, giving at most ``budget`` boxes and at most ``budget`` edges
    # between them: dense wiring (every neuron of a layer feeding every neuron of the next) is what
    # makes a picture unreadable, and one box per layer reads better. Failing that, the deepest level
    # within the edge budget that Graphviz lays out quickly.
    chosen: tuple[list[_Box], list[int]] | None = None
    fallback: tuple[list[_Box], list[int]] | None = None
    for _, scope_boxes in levels or [(0, [])]:
        boxes = _structure(tape, uses, trees, scope_boxes)
        if n - sum(len(b.members) for b in boxes) + len(boxes) > budget:
            continue
        unit = _units(n, boxes)
        edges = len(_contract(tape, unit))
        if edges <= budget:
            chosen = (boxes, unit)
            break
        if edges <= edge_budget and fallback is None:
            fallback = (boxes, unit)
    chosen = chosen or fallback
    if chosen:
        boxes, unit = chosen
        boxes = _unfold_terms(tape, boxes, unit, budget)
        unit = _units(n, boxes)
        kept = set(unit)
    else:
        # Too many nodes outside modules (or no modules): keep the modules at the deepest depth with
        # at most half the budget in boxes, then the units nearest the root; fold the rest in one box.
        scope_boxes = next((b for _, b in levels if len(b) <= budget // 2), levels[-1][1] if levels else [])
        boxes = _structure(tape, uses, trees, scope_boxes)
        unit = _units(n, boxes)
        kept = _nearest_units(tape, unit, boxes, budget - 1, edge_budget)
    shown = [i for i in range(n) if unit[i] == i and i in kept]
    drawn = [b for j, b in enumerate(boxes) if n + j in kept]
    folds = [Fold(f"fold{k}", b.title, tuple(b.members), b.kind, b.note, b.total if b.total in kept else None)
             for k, b in enumerate(drawn)]
    rest = tuple(i for i in range(n) if unit[i] not in kept)
    if rest:
        folds.append(Fold(f"fold{len(folds)}", "farther from the output", rest, "distance",
                          f"{len(rest):,} nodes farther from the output, folded"))
    return shown, folds, f"showing {len(shown):,} of {n:,} nodes; " + _what_was_folded(drawn, len(rest))


def _unfold_terms(tape: Tape, boxes: list[_Box], unit: list[int], budget: int) -> list[_Box]:
    """Spend what the folded picture leaves of ``budget`` on the terms of its long sums: per terms box
    (largest first) that takes no input from outside itself, the most terms nearest the output whose
    nodes fit in the boxes left and keep the edges within ``max(budget, edges now)``; the others stay
    one box. The boxes afterwards (a terms box drawn in full is gone)."""
    n, inputs = len(tape), tape.inputs
    units = len(set(unit))
    edges = len(_contract(tape, unit))
    limit = max(budget, edges)
    sums = {b.total: b for b in boxes if b.kind == "sum"}
    order = sorted((j for j, b in enumerate(boxes) if b.kind == "terms"), key=lambda j: (-len(boxes[j].members), j))
    for j in order:
        box, total = boxes[j], boxes[j].of_sum
        sum_box = sums[total]
        inside = set(box.members)
        if any(c not in inside for i in box.members for c in inputs[i]):
            continue      # fed by other boxes: each term drawn would add an edge from them (a tall fan)
        partial = set(sum_box.members)
        # The terms, nearest the output first: breadth first from the total through the partial sums.
        direct: list[int] = []
        queue, seen = deque([total]), set()
        while queue:
            for c in inputs[queue.popleft()]:
                if c in partial:
                    queue.append(c)
                elif c in inside and c not in seen:
                    seen.add(c)
                    direct.append(c)
        # rank[i]: the first term (in that order) whose drawing needs node i.
        rank: dict[int, int] = {}
        for r, t in enumerate(direct):
            stack = [t]
            rank[t] = r
            while stack:
                for c in inputs[stack.pop()]:
                    if c not in rank:
                        rank[c] = r
                        stack.append(c)
        # The edges that touch this box: inside it, and into the partial sums or the total.
        pairs = [(c, i) for i in box.members for c in inputs[i]]
        pairs += [(c, i) for i in (*sum_box.members, total) for c in inputs[i] if c in inside]
        box_unit = -1

        def cost(k: int) -> tuple[int, int]:
            """(units, edges) of the picture with the first ``k`` terms drawn in full."""
            def u(i: int) -> int:
                return i if i in inside and rank[i] < k else (box_unit if i in inside else unit[i])
            local = {(u(c), u(i)) for c, i in pairs if u(c) != u(i)}
            drawn = sum(1 for i in box.members if rank[i] < k)
            return units - 1 + drawn + (drawn < len(box.members)), len(local)

        before = cost(0)[1]

        def fits(k: int) -> bool:
            boxes_k, local = cost(k)
            return boxes_k <= budget and edges - before + local <= limit
        lo, hi = 0, len(direct) + 1
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if fits(mid) else (lo, mid)
        if lo == 0:
            continue
        units, local = cost(lo)
        edges += local - before
        for i in box.members:
            if rank[i] < lo:
                unit[i] = i
        rest = [i for i in box.members if rank[i] >= lo]
        left = direct[lo:]
        sum_box.shown_terms = lo
        box.members = rest
        box.terms = len(left)
        box.title = f"{len(left):,} more terms: {_kinds_of(tape, left)}"
        box.note = (f"the {len(left):,} terms farthest from the output of a sum of {sum_box.terms:,} terms and the "
                    f"nodes only they use: {len(rest):,} nodes, folded ({lo:,} terms are drawn in full)")
    return [b for b in boxes if b.members]


def _what_was_folded(boxes: list[_Box], rest: int) -> str:
    """The folding message after 'showing x of n nodes; ', one clause per kind of box."""
    def of(kind: str) -> list[_Box]:
        return [b for b in boxes if b.kind == kind]

    def count(k: int, one: str, many: str) -> str:
        return f"{k:,} {one if k == 1 else many}"
    parts = []
    if modules := of("scope"):
        parts.append(f"{sum(len(b.members) for b in modules):,} folded by module into {count(len(modules), 'box', 'boxes')}")
    if sums := of("sum"):
        sizes = [f"{b.terms:,}" for b in sums]
        listed = " and ".join(sizes) if len(sizes) <= 2 else ", ".join(sizes[:3]) + (", \u2026" if len(sizes) > 3 else "")
        drawn_as = "a \u03a3 box" if len(sums) == 1 else "\u03a3 boxes"
        parts.append(f"{count(len(sums), 'long sum', 'long sums')} ({listed} terms) drawn as {drawn_as}")
        their = "their" if len(sums) > 1 else "its"
        if shown := sum(b.shown_terms for b in sums):
            parts.append(f"{shown:,} of {their} terms (those nearest the output) drawn in full")
        if terms := of("terms"):
            parts.append(f"{'the other' if shown else their} terms ({sum(len(b.members) for b in terms):,} nodes) "
                         f"folded into {count(len(terms), 'box', 'boxes')}")
    if leaves := of("leaves"):
        parts.append(f"{sum(len(b.members) for b in leaves):,} leaves folded into {count(len(leaves), 'box', 'boxes')}")
    if rest:
        parts.append(f"the {rest:,} farthest from the output folded into one box")
    return ", ".join(parts)


def _nearest_units(tape: Tape, unit: list[int], boxes: list[_Box], limit: int, edge_limit: int) -> set[int]:
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


# ---------------------------------------------------------------- DOT

def _record(fields: Iterable[str], rankdir: str, across: bool = False) -> str:
    """A record label with its fields in one row, or with ``across`` stacked across the direction of
    flow (a folded picture: a narrow box keeps the path from inputs to output short)."""
    body = " | ".join(fields)
    return "{ " + body + " }" if rankdir == "LR" and not across else body


def graph_view(tape: Tape | Value, *, precision: int = 4, rankdir: str = "LR", node_budget: int | None = 250,
               color: bool = True, output: int | None = None) -> GraphView:
    """The picture of ``tape`` (or of a Value's graph): at most ``node_budget`` boxes (value nodes and
    fold boxes; ``None`` draws everything), folded beyond it by structure, module or distance from the root.
    ``output``: the node id the grads are of (default the root), left out of the colour scale."""
    if isinstance(tape, Value):
        tape = Tape.from_value(tape)
    if not isinstance(tape, Tape):
        raise TypeError(f"graph_view() takes a Tape or a Value, got {type(tape).__name__}")
    if output is not None and (isinstance(output, bool) or not isinstance(output, int) or not 0 <= output < len(tape)):
        raise ValueError(f"output is the node id the grads are of, a whole number from 0 to {len(tape) - 1}; "
                         f"got {output!r}")
    options = {"precision": check_option("precision", precision), "rankdir": check_option("rankdir", rankdir),
               "node_budget": check_option("node_budget", node_budget), "color": check_option("color", color)}
    precision, rankdir = options["precision"], options["rankdir"]
    shown, folds, message = _plan(tape, options["node_budget"])
    across = bool(folds)
    # Stacked numbers are left-aligned (DOT's \l) so a number growing a digit as a slider moves does
    # not shift its row.
    end = "\\l" if across and rankdir == "LR" else ""

    g = graphviz.Digraph(
        name="micrograd", format="svg",
        graph_attr={"rankdir": rankdir, "bgcolor": "white", "fontname": "Helvetica", "fontsize": "11",
                    **({"ranksep": "0.25", "nodesep": "0.2"} if folds else {})},
        node_attr={"fontname": "Helvetica", "fontsize": "11", "shape": "record", "style": "filled",
                   "fillcolor": ZERO_COLOR},
        edge_attr={"color": "#555555", "arrowsize": "0.7", "class": "mgw-edge"},
    )
    if message:
        g.attr(label=graphviz.nohtml(escape(message, "dot")), labelloc="t", labeljust="l")
    data, grad, labels, symbols, scopes, inputs = tape.data, tape.grad, tape.labels, tape.symbols, tape.scopes, tape.inputs
    picture = GraphView(tape, g, tuple(shown), tuple(folds), message, options, output)
    scale = picture.scale
    root = tape.root
    name = {i: f"n{i}" for i in shown}
    for f in folds:
        for i in f.members:
            name[i] = f.id
    op_labels: dict[str, tuple[str, str]] = {}
    sum_box = {f.total: f.id for f in folds if f.total is not None}   # a Σ box stands in for its total's '+'

    for i in shown:
        leaf = not inputs[i]
        attrs = {"id": name[i], "class": "mgw-value" + (" mgw-leaf" if leaf else "") + (" mgw-root" if i == root else "")}
        text = clean_text(labels[i], MAX_TOOLTIP_CHARS)
        label = _record((escape(clean_text(text, MAX_LABEL_CHARS)), f"data {format_number(data[i], precision)}{end}",
                         f"grad {format_number(grad[i], precision)}{end}"), rankdir, across)
        tip = [escape(text or "(no label)", "dot"),
               f"node n{i}" + (f", op {escape(symbols[i], 'dot')}" if symbols[i] else ", leaf" if leaf else ""),
               f"data = {data[i]!r}", f"grad = {grad[i]!r}"]
        if scopes[i]:
            tip.append("scope " + escape(clean_text(scopes[i], MAX_TOOLTIP_CHARS), "dot"))
        attrs["tooltip"] = graphviz.nohtml("\\n".join(tip))
        if leaf:
            attrs["shape"] = "Mrecord"
        if i == root:
            attrs.update(style="filled,bold", penwidth="2.5")
        if color:
            attrs["fillcolor"] = grad_color(grad[i], scale)
        g.node(name[i], graphviz.nohtml(label), **attrs)
        if symbols[i] and i not in sum_box:
            if symbols[i] not in op_labels:
                op_labels[symbols[i]] = (graphviz.nohtml(escape(clean_text(symbols[i], MAX_SYMBOL_CHARS), "dot")),
                                         graphviz.nohtml(escape(clean_text(symbols[i], MAX_TOOLTIP_CHARS), "dot")))
            op_label, op_tip = op_labels[symbols[i]]
            op = f"n{i}_op"
            g.node(op, op_label, tooltip=op_tip, shape="ellipse", margin="0.02", id=op, **{"class": "mgw-op"})

    for f in folds:
        label = _record((escape(clean_text(f.title, MAX_LABEL_CHARS)), f"{len(f.members):,} nodes"), rankdir, across)
        tip = f.note or f"{f.title}: {len(f.members):,} nodes folded"
        g.node(f.id, graphviz.nohtml(label), shape="record", style="filled,dashed", fillcolor=_FOLD_COLOR,
               tooltip=graphviz.nohtml(escape(clean_text(tip, MAX_TOOLTIP_CHARS), "dot")), id=f.id,
               **{"class": "mgw-fold"})

    edges: dict[tuple[str, str], None] = {}
    for i in shown:
        head = sum_box.get(i) or (f"n{i}_op" if symbols[i] else name[i])
        for c in inputs[i]:
            if name[c] != head:
                edges[(name[c], head)] = None
        if head != name[i]:
            edges[(head, name[i])] = None
    for f in folds:
        for i in f.members:
            for c in inputs[i]:
                if name[c] != f.id:
                    edges[(name[c], f.id)] = None
    for tail, head in edges:
        g.edge(tail, head, id=f"e_{tail}_{head}")

    if color and shown:
        g.node("mgw-legend", _legend(scale, precision), shape="plaintext", id="mgw-legend",
               tooltip="node colour = grad: blue negative, white zero, orange positive",
               **{"class": "mgw-legend"})
    return picture


def _legend(scale: float, precision: int) -> str:
    """An HTML-like label: one swatch per grad value -scale, -scale/4, 0, +scale/4, +scale."""
    cells = "".join(
        f'<TD BGCOLOR="{grad_color(v, scale)}">{format_number(v, precision)}</TD>'
        for v in (0.0 - scale, 0.0 - scale / 4, 0.0, scale / 4, scale)
    )
    return ('<<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="3">'
            f'<TR><TD>grad</TD>{cells}</TR></TABLE>>')
