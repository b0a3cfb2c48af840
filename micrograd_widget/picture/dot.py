"""Graph -> DOT: the lecture's ``trace``/``draw_dot``, stable node ids, the picture's DOT text.

Everything that draws a graph (``draw_dot``, the inline display, the live widget) goes through
``graph_view(tape, ...)``: one layout path. It asks fold.py which nodes to draw in full beyond the node
budget and writes the DOT, which Graphviz lays out, either the kernel's ``dot`` (static SVG) or Graphviz
compiled to WebAssembly in the browser (the widget). The ids and classes of the SVG that comes out are a
contract with the JS view and the tests: js/host/svg-contract.md. A folded picture stacks a box's fields
across the direction of flow (top to bottom when ``rankdir="LR"``) and sets ranks closer, so the summary
fits a screen at a readable size. The text helpers (``clean_text``, ``escape``, ``format_number``) are text.py's,
the grad colours (``grad_scale``, ``grad_color``, the palette) colors.py's.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import graphviz

from micrograd_widget.core.tape import Tape
from micrograd_widget.engine import Value, topological_order
from micrograd_widget.host.options import check_option
from micrograd_widget.picture.colors import (
    FOLD_COLOR,
    ColorScale,
    grad_color,
    grad_scale,
    legend_marks,
    legend_words,
    scale_title,
)
from micrograd_widget.picture.dot_style import DOT_STYLE, LARGE_PICTURE_EDGES, LEGEND_TABLE
from micrograd_widget.picture.far_ranks import FAR_RANKS_LIMIT, far_ranks
from micrograd_widget.picture.fold import Fold
from micrograd_widget.picture.fold_tree import FoldTree, Picture, build_tree, picture
from micrograd_widget.picture.text import (
    MAX_LABEL_CHARS,
    MAX_SYMBOL_CHARS,
    MAX_TOOLTIP_CHARS,
    clean_text,
    escape,
    format_number,
    plural,
)

__all__ = ["trace", "draw_dot", "graph_view", "GraphView", "Drawing"]


# ---------------------------------------------------------------- the lecture's API

def trace(root: Value) -> tuple[list[Value], list[tuple[Value, Value]]]:
    """The lecture's ``trace``: every node of ``root``'s graph (topological order, root last) and every
    ``(input, node)`` edge once; lists in a deterministic order instead of the lecture's sets."""
    if not isinstance(root, Value):
        raise TypeError(f"trace() takes a Value, got {type(root).__name__}")
    nodes = topological_order(root)
    edges = list(dict.fromkeys((child, v) for v in nodes for child in v._prev))
    return nodes, edges


class Drawing(graphviz.Digraph):
    """The ``graphviz.Digraph`` ``draw_dot`` returns (``render``, ``view``, ``pipe``, ``source`` as ever), shown in
    a notebook as display.py's ``svg_html`` of its SVG: fitted to the column while readable, else scrolled to the
    output, where Jupyter draws a bare SVG at full size with the output past the column's right edge."""

    # draw_dot's picture planned again, for the table a browser's Python shows (no dot there); None elsewhere
    _plan: Callable[[], GraphView] | None = None

    def _repr_mimebundle_(self, include: Iterable[str] | None = None, exclude: Iterable[str] | None = None,
                          **kwargs: Any) -> dict[str, str | bytes]:
        """graphviz's bundle, its default SVG given as ``svg_html`` (``text/html``); an SVG asked for by name
        (``include``) stays an SVG. In a browser's Python, where ``dot`` cannot run, the table of its nodes."""
        from micrograd_widget.display import BROWSER_HINT, html_table, svg_html  # display.py draws here
        from micrograd_widget.picture.layout import in_browser

        if in_browser():
            table = html_table(self._plan(), BROWSER_HINT) if self._plan else f"<p>{BROWSER_HINT}</p>"
            return {"text/plain": repr(self), "text/html": table}
        bundle: dict[str, str | bytes] = super()._repr_mimebundle_(include, exclude, **kwargs)
        svg = bundle.get("image/svg+xml")
        if include is None and isinstance(svg, str):
            del bundle["image/svg+xml"]
            bundle["text/html"] = svg_html(svg, "the graph drawn by draw_dot")
        return bundle


def draw_dot(root: Value, rankdir: str = "LR", format: str = "svg", *, precision: int = 4,
             color: bool = True, color_scale: str = "relative") -> graphviz.Digraph:
    """The lecture's ``draw_dot``: the whole graph (never folded) as a ``graphviz.Digraph`` (a ``Drawing``, readable
    in a notebook column); records ``label | data | grad``, op nodes, edges, with stable ids
    (js/host/svg-contract.md)."""
    if not isinstance(root, Value):
        raise TypeError(f"draw_dot() takes a Value, got {type(root).__name__}")
    plan = partial(graph_view, Tape.from_value(root), precision=precision, rankdir=rankdir, node_budget=None,
                   color=color, color_scale=color_scale)
    g = plan().graph
    g.format = format
    g._plan = plan
    return g


# ---------------------------------------------------------------- the picture

@dataclass(frozen=True, eq=False)
class GraphView:
    """One picture of a tape: its DOT, the tape node ids drawn in full, the closed fold boxes drawn, what was
    folded, and (``tree``, ``open``) the fold hierarchy and the opened boxes it was drawn for."""

    tape: Tape
    graph: graphviz.Digraph
    shown: tuple[int, ...]
    folds: tuple[Fold, ...]
    message: str
    options: dict[str, Any] = field(default_factory=dict)
    output: int | None = None
    tree: FoldTree | None = None
    open: tuple[str, ...] = ()

    @property
    def scale(self) -> float:
        """The colour scale for the grads the tape holds now: ``grad_scale`` over the drawn nodes and each fold
        box's largest-|grad| member, the differentiated output (``output``, default the root) left out."""
        out = self.tape.root if self.output is None else self.output
        return _scale(self.tape, self.shown, out, [f.members for f in self.folds])

    @property
    def dot(self) -> str:
        """The DOT source."""
        source: str = self.graph.source
        return source

    @property
    def total(self) -> int:
        """How many nodes the tape has."""
        return len(self.tape)


def _scale(tape: Tape, shown: Iterable[int], out: int, boxes: Iterable[Sequence[int]] = ()) -> float:
    """``grad_scale`` over the drawn nodes and the boxes' largest-|grad| members (``out`` left out)."""
    return _scale_of(tape, shown, out, [box_max(tape.grad, members, out) for members in boxes])


def _scale_of(tape: Tape, shown: Iterable[int], out: int, biggest: Iterable[int | None]) -> float:
    """``_scale`` with each box's largest-|grad| member (``box_max``) already found."""
    grad = tape.grad
    shown = list(shown)
    maxima = [grad[m] for m in biggest if m is not None]
    return grad_scale([*(grad[i] for i in shown if i != out), *maxima], grad[out] if out in set(shown) else None)


def box_max(grad: Sequence[float], members: Iterable[int], out: int) -> int | None:
    """The member of a fold box with the largest |grad|, ``out`` (the differentiated output) left out: what the
    box's "max |grad|" and its colour show (js/host/svg-contract.md "Live fold box"). A nan grad is the largest (the
    max of numbers one of which is not a number is nan, as numpy's max and JavaScript's Math.max say), then an
    infinite one (the box truly holds max |grad| = inf), then the largest finite |grad|; the first in tape order
    wins a tie. None when no member is counted. js/picture/dot.js boxMax is the same rule (the browser's DOT and
    its live picture, js/graph/box-numbers.js)."""
    best, best_abs = None, -1.0
    for i in members:
        if i != out:
            a = abs(grad[i])
            if a > best_abs or (a != a and best_abs == best_abs):     # a != a: a is nan, and beats all but nan
                best, best_abs = i, a
    return best


def _record(fields: Iterable[str], rankdir: str, across: bool = False) -> str:
    """A record label with its fields in one row, or with ``across`` stacked across the direction of
    flow (a folded picture: a narrow box keeps the path from inputs to output short)."""
    body = " | ".join(fields)
    return "{ " + body + " }" if rankdir == "LR" and not across else body


def graph_view(tape: Tape | Value, *, precision: int = 4, rankdir: str = "LR", node_budget: int | None = 250,
               color: bool = True, color_scale: str = "relative", output: int | None = None,
               open_keys: Iterable[str] = (), tree: FoldTree | None = None) -> GraphView:
    """The picture of ``tape`` (or of a Value's graph): at most ``node_budget`` boxes (value nodes and
    fold boxes; ``None`` draws everything), folded beyond it by structure, module or distance from the root
    (fold.py), with the fold boxes ``open_keys`` opened (fold_tree.py; ``tree``: the hierarchy already
    built for this tape and budget). ``output``: the node id the grads are of (default the root), left out
    of the colour scale."""
    if isinstance(tape, Value):
        tape = Tape.from_value(tape)
    if not isinstance(tape, Tape):
        raise TypeError(f"graph_view() takes a Tape or a Value, got {type(tape).__name__}")
    if output is not None and (isinstance(output, bool) or not isinstance(output, int) or not 0 <= output < len(tape)):
        raise ValueError(f"output is the node id the grads are of, a whole number from 0 to {len(tape) - 1}; "
                         f"got {output!r}")
    options = {name: check_option(name, value) for name, value in
               (("precision", precision), ("rankdir", rankdir), ("node_budget", node_budget), ("color", color),
                ("color_scale", color_scale))}
    with tape.shared_inputs():  # folding reads every node's inputs many times: one list of tuples for the pass
        keys = tuple(open_keys)
        if tree is None or tree.budget != options["node_budget"] or tree.n != len(tape) or (keys and not tree.nested):
            tree = build_tree(tape, options["node_budget"], nested=bool(keys))   # nothing opened: the top level
        pic = picture(tape, tree, keys)
        dot_text, folds, graph_attrs = write_dot(tape, tree, pic, options, tape.root if output is None else output)
    # The lecture's Digraph, its attributes editable as dicts; its source is exactly the text written above.
    graph = Drawing(name="micrograd", format="svg", graph_attr=graph_attrs,
                    node_attr=dict(DOT_STYLE["node"]), edge_attr=dict(DOT_STYLE["edge"]))
    graph.body = dot_text.splitlines(keepends=True)[4:-1]
    assert graph.source == dot_text, "the Digraph's header is the one write_dot writes"
    return GraphView(tape, graph, tuple(pic.shown), folds, pic.message, options, output, tree,
                     tuple(tree.groups[g].key for g in pic.clusters))


# ---------------------------------------------------------------- DOT text (js/picture/dot.js writeDot writes the same)

_ID = re.compile(r"([a-zA-Z_][a-zA-Z0-9_]*|-?(\.[0-9]+|[0-9]+(\.[0-9]*)?))\Z")
_KEYWORDS = frozenset({"node", "edge", "graph", "digraph", "subgraph", "strict"})


def quote(text: str, html_label: bool = False) -> str:
    """A DOT identifier or attribute value as the graphviz package writes it: bare when it is an ID or a
    number (and no keyword), an HTML label as it is, else in double quotes (``text`` is already escaped)."""
    if html_label or (_ID.match(text) and text.lower() not in _KEYWORDS):
        return text
    return f'"{text}"'


def _attr_list(attrs: dict[str, str]) -> str:
    """Attributes ``name=value``, sorted by name (the graphviz package's order)."""
    return " ".join(f"{quote(k)}={quote(v)}" for k, v in sorted(attrs.items()))


def _line(name: str, label: str | None, attrs: dict[str, str], indent: str, html_label: bool = False) -> str:
    """A node statement: ``label`` first, the other attributes sorted by name (the graphviz package's order)."""
    parts = ([] if label is None else [f"label={quote(label, html_label)}"]) + ([_attr_list(attrs)] if attrs else [])
    return f"{indent}{quote(name)} [{' '.join(parts)}]\n"


def _graph_attrs(rankdir: str, folded: bool, edges: Collection[tuple[str, str]]) -> dict[str, str]:
    """The graph's attributes (dot_style.py's, closer ranks when ``folded``, ``large_layout`` for its ``edges``): the
    header and the Digraph's."""
    ids: dict[str, int] = {}  # far_ranks with n=0: every DOT node (ellipses included) one rank past what it takes
    pairs = {(ids.setdefault(tail, len(ids)), ids.setdefault(head, len(ids))) for tail, head in edges}
    return {**DOT_STYLE["graph"], "rankdir": rankdir, **(DOT_STYLE["folded"] if folded else {}),
            **large_layout(len(edges), far_ranks(pairs, 0))}


def large_layout(edges: int, far: int) -> dict[str, str]:
    """What a picture of more than LARGE_PICTURE_EDGES ``edges``, or whose edges cross more than FAR_RANKS_LIMIT
    ranks beyond the next (``far``: far_ranks of its DOT edges, each one rank), adds to its attributes:
    DOT_STYLE["large"] and an ``nslimit`` (js/picture/dot.js largeLayout). dot's x-coordinate pass runs up to
    nslimit x nodes iterations, each costing its graph's size, both counting the virtual nodes edges pass through
    (edges + far): 8 x (LARGE_PICTURE_EDGES / (edges + far))^2 in hundredths keeps it at the work the layouts' NSLIMIT
    (8) has on LARGE_PICTURE_EDGES short edges. At least 0.18, below which the pass costs little less and the edges
    wander: Expand all at node_budget=2000 on the moons loss (6,653 edges through 118,351 far ranks) is laid out by
    Debian's dot in 0.6 s at 0.18 and at 0.05, its frames at Fit 1.2-1.4x the default picture's at 0.18, 1.9x at 0.05.
    Opening the moons loss's regularisation sum (888 edges through 7,804 far ranks) took that dot 4-7 s at NSLIMIT, a
    lost edge and its newrank retry; 0.2 s with this."""
    if edges <= LARGE_PICTURE_EDGES and far <= FAR_RANKS_LIMIT:
        return {}
    work = edges + far
    hundredths = max(18, 800 * LARGE_PICTURE_EDGES * LARGE_PICTURE_EDGES // (work * work))
    return {**DOT_STYLE["large"], "nslimit": f"{hundredths // 100}.{hundredths % 100:02d}"}


def write_dot(tape: Tape, tree: FoldTree, pic: Picture, options: dict[str, Any],
              out: int) -> tuple[str, tuple[Fold, ...], dict[str, str]]:
    """The DOT text of picture ``pic`` and its closed boxes as ``Fold``s (ids ``fold0``, ``fold1``, ... in
    tree order), and the graph's attributes. Opened boxes are labelled clusters (``open0``, ...) around what they
    hold."""
    n, groups = len(tape), tree.groups
    rankdir, precision = options["rankdir"], options["precision"]
    folded = bool(pic.boxes)
    box_id = {g: f"fold{k}" for k, g in enumerate(pic.boxes)}
    members: dict[int, list[int]] = {g: [] for g in pic.boxes}
    for i, u in enumerate(pic.unit):
        if u >= n:
            members[u - n].append(i)
    totals = {groups[g].total: box_id[g] for g in pic.boxes
              if groups[g].kind == "sum" and groups[g].total >= 0 and pic.unit[groups[g].total] == groups[g].total}
    outputs: dict[int, int | None] = {}
    edges = _edges(tape, pic.shown, [(box_id[g], n + g, members[g]) for g in pic.boxes], box_id, totals, pic.unit,
                   outputs)
    folds = tuple(Fold(box_id[g], groups[g].title, tuple(members[g]), groups[g].kind, groups[g].note,
                       groups[g].total if groups[g].total >= 0 else None, groups[g].key, outputs.get(n + g))
                  for g in pic.boxes)
    biggest = [box_max(tape.grad, members[g], out) for g in pic.boxes]    # each box's colour and max |grad|
    scale = color_scale_of(_scale_of(tape, pic.shown, out, biggest), options) if options["color"] else None
    graph_attrs = _graph_attrs(rankdir, folded, edges)
    lines = ["digraph micrograd {\n", f"\tgraph [{_attr_list(graph_attrs)}]\n",
             f"\tnode [{_attr_list(DOT_STYLE['node'])}]\n", f"\tedge [{_attr_list(DOT_STYLE['edge'])}]\n"]
    if pic.message:
        lines.append(f"\tlabel={quote(escape(pic.message, 'dot'))} {_attr_list(DOT_STYLE['message'])}\n")
    # What each container (-1: the graph; else an opened group) holds: nodes, closed boxes, opened groups.
    held: dict[int, list[str]] = {-1: [], **{g: [] for g in pic.clusters}}
    op_labels: dict[str, tuple[str, str]] = {}
    for i in pic.shown:
        where = tree.group_of[i] if tree.group_of[i] >= 0 else -1
        held[where].append(_value_line(tape, i, out, scale, precision, rankdir, folded))
        if tape.symbols[i] and i not in totals:
            held[where].append(_op_line(i, tape.symbols[i], op_labels))
    for f, g, big in zip(folds, pic.boxes, biggest, strict=True):
        held[groups[g].parent].append(_fold_line(tape, f, groups[g].count, big, scale, precision, rankdir))
    children: dict[int, list[int]] = {-1: [], **{g: [] for g in pic.clusters}}
    for g in pic.clusters:
        children[groups[g].parent].append(g)
    cluster_id = {g: f"open{k}" for k, g in enumerate(pic.clusters)}

    def emit(container: int, indent: str) -> None:
        lines.extend(indent + s for s in held[container])
        for g in children[container]:
            title = escape(clean_text(groups[g].title, MAX_LABEL_CHARS), "dot")
            tip = escape(clean_text(f"{groups[g].title}: {plural(groups[g].count, 'node')}, opened", MAX_TOOLTIP_CHARS),
                         "dot")
            attrs = {**DOT_STYLE["cluster"], "id": cluster_id[g], "label": title, "tooltip": tip}
            lines.append(f"{indent}\tsubgraph cluster_{cluster_id[g]} {{\n")
            lines.append(f"{indent}\t\tgraph [{_attr_list(attrs)}]\n")
            emit(g, indent + "\t")
            lines.append(f"{indent}\t}}\n")
    emit(-1, "")
    for tail, head in edges:
        lines.append(f"\t{tail} -> {head} [id=e_{tail}_{head}]\n")
    if scale is not None and pic.shown:
        legend = DOT_STYLE["legend"]
        lines.append(_line(legend["id"], _legend(scale), legend, "\t", html_label=True))
    lines.append("}\n")
    return "".join(lines), folds, graph_attrs


def _value_line(tape: Tape, i: int, out: int, scale: ColorScale | None, precision: int, rankdir: str,
                across: bool) -> str:
    """Tape node ``i`` as a record label | data | grad, with its full-precision tooltip; filled by its grad
    on ``scale`` (None: colouring off); drawn bold, class ``mgw-output-node``, when it is ``out`` (the
    differentiated output)."""
    # Stacked numbers are left-aligned (DOT's \l) so a number growing a digit as a slider moves does
    # not shift its row.
    end = "\\l" if across and rankdir == "LR" else ""
    leaf, output = not tape.inputs[i], i == out
    names = DOT_STYLE["classes"]
    classes = names["value"] + (" " + names["leaf"] if leaf else "") + (" " + names["output"] if output else "")
    attrs = {"id": f"n{i}", "class": classes}
    text = clean_text(tape.labels[i], MAX_TOOLTIP_CHARS)
    data, grad = tape.data[i], tape.grad[i]
    label = _record((escape(clean_text(text, MAX_LABEL_CHARS)), f"data {format_number(data, precision)}{end}",
                     f"grad {format_number(grad, precision)}{end}"), rankdir, across)
    symbol = tape.symbols[i]
    tip = [escape(text or "(no label)", "dot"),
           f"node n{i}" + (f", op {escape(symbol, 'dot')}" if symbol else ", leaf" if leaf else ""),
           f"data = {data!r}", f"grad = {grad!r}"]
    if tape.scopes[i]:
        tip.append("scope " + escape(clean_text(tape.scopes[i], MAX_TOOLTIP_CHARS), "dot"))
    attrs["tooltip"] = "\\n".join(tip)
    if leaf:
        attrs.update(DOT_STYLE["leaf"])
    if output:
        attrs.update(DOT_STYLE["output"])
    if scale is not None:
        attrs["fillcolor"] = grad_color(grad, scale)
    return _line(f"n{i}", label, attrs, "\t")


def _op_line(i: int, symbol: str, labels: dict[str, tuple[str, str]]) -> str:
    """The op ellipse of tape node ``i``; ``labels`` caches each symbol's escaped label and tooltip."""
    if symbol not in labels:
        labels[symbol] = (escape(clean_text(symbol, MAX_SYMBOL_CHARS), "dot"),
                          escape(clean_text(symbol, MAX_TOOLTIP_CHARS), "dot"))
    label, tip = labels[symbol]
    return _line(f"n{i}_op", label, {**DOT_STYLE["op"], "id": f"n{i}_op", "tooltip": tip}, "\t")


def _fold_line(tape: Tape, f: Fold, count: int, big: int | None, scale: ColorScale | None, precision: int,
               rankdir: str) -> str:
    """A closed fold box, stacked across the flow: its title, its node count and its live numbers (its one
    output node's data and grad, or the largest |grad| among its members: ``big``, its ``box_max``), filled by
    that largest |grad| on ``scale`` (None: colouring off; the box stays grey); its note as the tooltip
    (js/host/svg-contract.md)."""
    end = "\\l" if rankdir == "LR" else ""
    grad = tape.grad
    if f.output is not None:
        numbers = [f"data {format_number(tape.data[f.output], precision)}",
                   f"grad {format_number(grad[f.output], precision)}"]
    else:
        numbers = [f"max |grad| {format_number(abs(grad[big]) if big is not None else 0.0, precision)}"]
    label = _record((escape(clean_text(f.title, MAX_LABEL_CHARS)), plural(count, "node"),
                     *(escape(x) + end for x in numbers)), rankdir, True)
    tip = f.note or f"{f.title}: {plural(count, 'node')} folded"
    fill = grad_color(grad[big], scale) if scale is not None and big is not None else FOLD_COLOR
    return _line(f.id, label, {**DOT_STYLE["fold"], "fillcolor": fill, "id": f.id,
                               "tooltip": escape(clean_text(tip, MAX_TOOLTIP_CHARS), "dot")}, "\t")


def _edges(tape: Tape, shown: Iterable[int], boxes: Iterable[tuple[str, int, list[int]]], box_id: dict[int, str],
           totals: dict[int, str], unit: Sequence[int], outputs: dict[int, int | None]) -> dict[tuple[str, str], None]:
    """The picture's edges (tail, head), once each: into a node's op ellipse (or its Σ box), from the
    ellipse to the node, and into fold boxes (id, unit, members) from what feeds their members. Every tape edge
    is looked at once, so ``outputs`` learns on the way each box's one output node (the only member used by a
    unit outside it, or the root; None when there are several; js/picture/fold_tree.js boxOutputs). A node's name is
    ``n<id>`` when it is drawn, else its box's id."""
    inputs, symbols, n = tape.inputs, tape.symbols, len(tape)

    def name(u: int) -> str:
        return f"n{u}" if u < n else box_id[u - n]

    def used_outside(c: int, b: int) -> None:
        if b not in outputs:
            outputs[b] = c
        elif outputs[b] != c:
            outputs[b] = None
    if unit[tape.root] >= n:
        outputs[unit[tape.root]] = tape.root
    edges: dict[tuple[str, str], None] = {}
    for i in shown:
        head = totals.get(i) or (f"n{i}_op" if symbols[i] else name(i))
        for c in inputs[i]:
            if unit[c] >= n:
                used_outside(c, unit[c])
            if name(unit[c]) != head:
                edges[(name(unit[c]), head)] = None
        if head != name(i):
            edges[(head, name(i))] = None
    for box, ub, members in boxes:
        tails: dict[int, None] = {}         # the units feeding this box, in the order they are met
        for i in members:
            for c in inputs[i]:
                u = unit[c]
                if u != ub:
                    tails[u] = None
                    if u >= n:              # used_outside, inline: it runs for every edge between boxes
                        seen = outputs.get(u, -1)
                        if seen == -1:
                            outputs[u] = c
                        elif seen != c:
                            outputs[u] = None
        for u in tails:
            edges[(name(u), box)] = None
    return edges


def color_scale_of(largest: float, options: dict[str, Any]) -> ColorScale:
    """The colour scale of a picture whose ``grad_scale`` is ``largest``, drawn with ``options`` (precision and
    color_scale, default relative)."""
    return ColorScale(largest, options["precision"], options.get("color_scale") == "log")


def _legend(scale: ColorScale) -> str:
    """An HTML-like label: which scale is in force, then one swatch per mark (colors.legend_marks); or, when the
    swatches would show nothing, what the grads are in words (colors.legend_words)."""
    words = legend_words(scale)
    if words is not None:
        return f"<{LEGEND_TABLE}<TR><TD>{words}</TD></TR></TABLE>>"
    cells = "".join(f'<TD BGCOLOR="{grad_color(v, scale)}">{text}</TD>' for v, text in legend_marks(scale))
    return f"<{LEGEND_TABLE}<TR><TD>{scale_title(scale)}</TD>{cells}</TR></TABLE>>"
