"""Graph -> DOT: the lecture's ``trace``/``draw_dot``, stable node ids, one escaping function, colours.

Everything that draws a graph (``draw_dot``, the inline display, the live widget) goes through
``graph_view(tape, ...)``: one layout path. It asks fold.py which nodes to draw in full beyond the node
budget and writes the DOT, which Graphviz lays out, either the kernel's ``dot`` (static SVG) or Graphviz
compiled to WebAssembly in the browser (the widget). The ids and classes of the SVG that comes out are a
contract with the JS view and the tests: js/svg-contract.md. A folded picture stacks a box's fields
across the direction of flow (top to bottom when ``rankdir="LR"``) and sets ranks closer, so the summary
fits a screen at a readable size.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal

import graphviz

from .engine import Value, topological_order
from .fold import EDGES_PER_BOX, MIN_LEAF_GROUP, MIN_SUM_TERMS, Fold, plan
from .options import (
    DEFAULT_OPTIONS,
    MAX_NODE_BUDGET,
    MAX_PRECISION,
    MIN_NODE_BUDGET,
    MIN_PRECISION,
    RANKDIRS,
    check_option,
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
    ``label | data | grad``, op nodes, edges, with stable ids (js/svg-contract.md)."""
    if not isinstance(root, Value):
        raise TypeError(f"draw_dot() takes a Value, got {type(root).__name__}")
    g = graph_view(Tape.from_value(root), precision=precision, rankdir=rankdir, node_budget=None, color=color).graph
    g.format = format
    return g


# ---------------------------------------------------------------- the picture

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
        source: str = self.graph.source
        return source

    @property
    def total(self) -> int:
        """How many nodes the tape has."""
        return len(self.tape)


def _record(fields: Iterable[str], rankdir: str, across: bool = False) -> str:
    """A record label with its fields in one row, or with ``across`` stacked across the direction of
    flow (a folded picture: a narrow box keeps the path from inputs to output short)."""
    body = " | ".join(fields)
    return "{ " + body + " }" if rankdir == "LR" and not across else body


def graph_view(tape: Tape | Value, *, precision: int = 4, rankdir: str = "LR", node_budget: int | None = 250,
               color: bool = True, output: int | None = None) -> GraphView:
    """The picture of ``tape`` (or of a Value's graph): at most ``node_budget`` boxes (value nodes and
    fold boxes; ``None`` draws everything), folded beyond it by structure, module or distance from the root
    (fold.py). ``output``: the node id the grads are of (default the root), left out of the colour scale."""
    if isinstance(tape, Value):
        tape = Tape.from_value(tape)
    if not isinstance(tape, Tape):
        raise TypeError(f"graph_view() takes a Tape or a Value, got {type(tape).__name__}")
    if output is not None and (isinstance(output, bool) or not isinstance(output, int) or not 0 <= output < len(tape)):
        raise ValueError(f"output is the node id the grads are of, a whole number from 0 to {len(tape) - 1}; "
                         f"got {output!r}")
    options = {name: check_option(name, value) for name, value in
               (("precision", precision), ("rankdir", rankdir), ("node_budget", node_budget), ("color", color))}
    with tape.shared_inputs():  # folding reads every node's inputs many times: one list of tuples for the pass
        folding = plan(tape, options["node_budget"])
        graph = _digraph(options["rankdir"], folding.message, folded=bool(folding.folds))
        view = GraphView(tape, graph, tuple(folding.shown), tuple(folding.folds), folding.message, options, output)
        _write(view)
    return view


def _digraph(rankdir: str, message: str, folded: bool) -> graphviz.Digraph:
    """An empty picture: graph, node and edge defaults, and the folding message as its label."""
    g = graphviz.Digraph(
        name="micrograd", format="svg",
        graph_attr={"rankdir": rankdir, "bgcolor": "white", "fontname": "Helvetica", "fontsize": "11",
                    **({"ranksep": "0.25", "nodesep": "0.2"} if folded else {})},
        node_attr={"fontname": "Helvetica", "fontsize": "11", "shape": "record", "style": "filled",
                   "fillcolor": ZERO_COLOR},
        edge_attr={"color": "#555555", "arrowsize": "0.7", "class": "mgw-edge"},
    )
    if message:
        g.attr(label=graphviz.nohtml(escape(message, "dot")), labelloc="t", labeljust="l")
    return g


def _write(view: GraphView) -> None:
    """Write ``view``'s value nodes, op nodes, fold boxes, edges and legend into ``view.graph``."""
    g, tape, options = view.graph, view.tape, view.options
    scale = view.scale if options["color"] else None
    totals = {f.total: f.id for f in view.folds if f.total is not None}   # a Σ box stands in for its total's '+'
    op_labels: dict[str, tuple[str, str]] = {}
    for i in view.shown:
        _value_node(view, i, scale)
        if tape.symbols[i] and i not in totals:
            _op_node(g, i, tape.symbols[i], op_labels)
    for f in view.folds:
        _fold_node(g, f, options["rankdir"])
    for tail, head in _edges(view, totals):
        g.edge(tail, head, id=f"e_{tail}_{head}")
    if scale is not None and view.shown:
        g.node("mgw-legend", _legend(scale, options["precision"]), shape="plaintext", id="mgw-legend",
               tooltip="node colour = grad: blue negative, white zero, orange positive",
               **{"class": "mgw-legend"})


def _value_node(view: GraphView, i: int, scale: float | None) -> None:
    """Tape node ``i`` as a record label | data | grad, with its full-precision tooltip; filled by its grad
    on ``scale`` (None: colouring off)."""
    tape, precision, rankdir = view.tape, view.options["precision"], view.options["rankdir"]
    across = bool(view.folds)
    # Stacked numbers are left-aligned (DOT's \l) so a number growing a digit as a slider moves does
    # not shift its row.
    end = "\\l" if across and rankdir == "LR" else ""
    leaf, root = not tape.inputs[i], i == tape.root
    attrs = {"id": f"n{i}", "class": "mgw-value" + (" mgw-leaf" if leaf else "") + (" mgw-root" if root else "")}
    text = clean_text(tape.labels[i], MAX_TOOLTIP_CHARS)
    label = _record((escape(clean_text(text, MAX_LABEL_CHARS)), f"data {format_number(tape.data[i], precision)}{end}",
                     f"grad {format_number(tape.grad[i], precision)}{end}"), rankdir, across)
    symbol = tape.symbols[i]
    tip = [escape(text or "(no label)", "dot"),
           f"node n{i}" + (f", op {escape(symbol, 'dot')}" if symbol else ", leaf" if leaf else ""),
           f"data = {tape.data[i]!r}", f"grad = {tape.grad[i]!r}"]
    if tape.scopes[i]:
        tip.append("scope " + escape(clean_text(tape.scopes[i], MAX_TOOLTIP_CHARS), "dot"))
    attrs["tooltip"] = graphviz.nohtml("\\n".join(tip))
    if leaf:
        attrs["shape"] = "Mrecord"
    if root:
        attrs.update(style="filled,bold", penwidth="2.5")
    if scale is not None:
        attrs["fillcolor"] = grad_color(tape.grad[i], scale)
    view.graph.node(f"n{i}", graphviz.nohtml(label), **attrs)


def _op_node(g: graphviz.Digraph, i: int, symbol: str, labels: dict[str, tuple[str, str]]) -> None:
    """The op ellipse of tape node ``i``; ``labels`` caches each symbol's escaped label and tooltip."""
    if symbol not in labels:
        labels[symbol] = (graphviz.nohtml(escape(clean_text(symbol, MAX_SYMBOL_CHARS), "dot")),
                          graphviz.nohtml(escape(clean_text(symbol, MAX_TOOLTIP_CHARS), "dot")))
    label, tip = labels[symbol]
    g.node(f"n{i}_op", label, tooltip=tip, shape="ellipse", margin="0.02", id=f"n{i}_op", **{"class": "mgw-op"})


def _fold_node(g: graphviz.Digraph, f: Fold, rankdir: str) -> None:
    """Fold box ``f``: its title and node count, stacked across the flow, its note as the tooltip."""
    label = _record((escape(clean_text(f.title, MAX_LABEL_CHARS)), f"{len(f.members):,} nodes"), rankdir, True)
    tip = f.note or f"{f.title}: {len(f.members):,} nodes folded"
    g.node(f.id, graphviz.nohtml(label), shape="record", style="filled,dashed", fillcolor=_FOLD_COLOR,
           tooltip=graphviz.nohtml(escape(clean_text(tip, MAX_TOOLTIP_CHARS), "dot")), id=f.id,
           **{"class": "mgw-fold"})


def _edges(view: GraphView, totals: dict[int, str]) -> dict[tuple[str, str], None]:
    """The picture's edges (tail, head), once each: into a node's op ellipse (or its Σ box), from the
    ellipse to the node, and into fold boxes from what feeds their members."""
    inputs, symbols = view.tape.inputs, view.tape.symbols
    name = {i: f"n{i}" for i in view.shown}
    for f in view.folds:
        for i in f.members:
            name[i] = f.id
    edges: dict[tuple[str, str], None] = {}
    for i in view.shown:
        head = totals.get(i) or (f"n{i}_op" if symbols[i] else name[i])
        for c in inputs[i]:
            if name[c] != head:
                edges[(name[c], head)] = None
        if head != name[i]:
            edges[(head, name[i])] = None
    for f in view.folds:
        for i in f.members:
            for c in inputs[i]:
                if name[c] != f.id:
                    edges[(name[c], f.id)] = None
    return edges


def _legend(scale: float, precision: int) -> str:
    """An HTML-like label: one swatch per grad value -scale, -scale/4, 0, +scale/4, +scale."""
    cells = "".join(
        f'<TD BGCOLOR="{grad_color(v, scale)}">{format_number(v, precision)}</TD>'
        for v in (0.0 - scale, 0.0 - scale / 4, 0.0, scale / 4, scale)
    )
    return ('<<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="3">'
            f'<TR><TD>grad</TD>{cells}</TR></TABLE>>')
