"""A large opened picture laid out box by box: each opened box's contents on their own, composed into one picture.

Graphviz's dot lays a picture out whole, so opening one box of a large picture (over ``LARGE_PICTURE_EDGES`` edges,
laid out with ``DOT_STYLE["large"]``'s straight edges) cost the whole picture again: ~1.2 s for the moons loss at
node_budget=2000 beside 1,182 boxes. Here each container (the picture's top level, or an opened box: a DOT cluster)
is one small DOT of its own members, each opened box inside it a fixed-size rectangle of that box's composed size,
and only the edges whose two ends meet first in it. Those DOTs are laid out innermost first (``lay``: DOT -> Graphviz's
``json0`` text; the browser caches each by its text, so opening a box lays out that box, the ones it opens and the
containers around it), then every node is pinned where its container's layout put it (``pos``, points), every opened
box framed (``bb``, its label at ``lp``), and the boxes drawn by Graphviz's ``nop2`` engine (``neato -n2``), which
keeps the positions. The edges are drawn by picture/edges.py (``draw_edge``, ``with_edges``), each a straight arrow
from box to box as a large picture's edges already are: nop2 spent ~210 of its ~400 ms on the moons loss opened at
node_budget=2000 drawing its 6,653 edges (clipping each at its boxes by bisection, then writing its SVG).

The picture is one function of the open set, as before, so the kernel (picture/layout.py ``render_svg``) and the browser
(js/host/graphviz.js ``layOutHere``, through js/picture/compose.js, this module's twin) compose alike; the parts,
the composed DOT and the edges are held to tests/vectors/compose/*.json. Only a large picture with an opened box is
composed (``composable``); any other DOT is laid out whole by dot, as before.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from micrograd_widget.picture.edges import Drawn, draw_edge

__all__ = ["composable", "compose", "Composed", "lean_layout", "PAD"]

# Points between an opened box's frame and its contents (dot's own cluster margin).
PAD = 8

_CLUSTER = re.compile(r"\t+subgraph (cluster_\S+) \{\Z")
_EDGE = re.compile(r"\t(\S+) -> (\S+) \[")
_NODE = re.compile(r"\t+(\S+) \[")
_LABEL = re.compile(r"(?:^| )(label=(?:\"(?:[^\"\\]|\\.)*\"|\S+))")
# A large picture's cuts in dot's work (dot.py large_layout), sized for the whole picture: a part is laid out with
# dot's defaults and the layout path's NSLIMIT instead; and its straight edges, which a part's layout need not route
# (compose draws them): the same places, 20-40% sooner (the moons loss's neuron at node_budget=2000: 81 -> 63 ms).
_WHOLE_ONLY = re.compile(r" (?:mclimit|nslimit)=\S+")
_ROUTED = " splines=line"
_UNROUTED = " splines=none"
# A node's attributes that do not move it, left out of its part: its colour and tooltip change with the picture's
# colour scale and numbers (opening a box rescales every fill), its id with the boxes before it.
_UNMOVING = re.compile(r' (?:class|fillcolor|id|tooltip)=(?:"(?:[^"\\]|\\.)*"|[^\s\]]+)')
_SHAPE = re.compile(r" shape=(\S+?)[\s\]]")
_EDGE_ID = re.compile(r" \[id=(\w+)\]\Z")
# A DOT id the edges' SVG writes as it is (dot.py names nodes n<i>, n<i>_op and fold<k>).
_PLAIN = re.compile(r"\w+\Z")


@dataclass
class _Box:
    """One container of the picture: its top level (``name`` "") or an opened box (a cluster)."""

    name: str
    parent: int
    line: int = -1                                       # its ``graph [...]`` line in the DOT (a cluster's)
    nodes: list[tuple[int, str]] = field(default_factory=list)  # its own nodes: (DOT line, name)
    children: list[int] = field(default_factory=list)    # its opened boxes
    edges: dict[tuple[str, str], None] = field(default_factory=dict)  # its own edges, each once, in DOT order


def composable(dot: str) -> bool:
    """Whether ``dot`` (a picture's DOT, dot.py write_dot's) is laid out box by box: a large picture (straight
    edges, ``DOT_STYLE["large"]``) with an opened box."""
    head = dot[:dot.find("\n", dot.find("\n") + 1)]
    return "splines=line" in head and "\tsubgraph cluster_" in dot


def _parse(lines: list[str]) -> tuple[list[_Box], list[tuple[int, str, str]]]:
    """The containers of a DOT's lines (the top level first, each before its opened boxes), and every edge line as
    (line, tail, head), in DOT order."""
    boxes = [_Box("", -1)]
    where: dict[str, int] = {}
    edge_lines: list[tuple[int, str, str]] = []
    stack = [0]
    for k, line in enumerate(lines):
        if k < 4 or line in ("}", "") or line.startswith("\tlabel="):
            continue
        if (m := _CLUSTER.match(line)) is not None:
            boxes.append(_Box(m.group(1), stack[-1], line=k + 1))
            boxes[stack[-1]].children.append(len(boxes) - 1)
            stack.append(len(boxes) - 1)
        elif line.strip() == "}":
            stack.pop()
        elif (e := _EDGE.match(line)) is not None:
            tail, head = e.group(1), e.group(2)
            edge_lines.append((k, tail, head))
            a, b = _chain(boxes, where[tail]), _chain(boxes, where[head])
            common = next(c for c in a if c in b)    # the innermost container holding both ends
            ends = (_rep(a, common, tail, boxes), _rep(b, common, head, boxes))
            if ends[0] != ends[1]:
                boxes[common].edges[ends] = None
        elif k != boxes[stack[-1]].line and (n := _NODE.match(line)) is not None:
            where[n.group(1)] = stack[-1]
            boxes[stack[-1]].nodes.append((k, n.group(1)))
    return boxes, edge_lines


def _chain(boxes: list[_Box], b: int) -> list[int]:
    """Container ``b`` and those around it, innermost first."""
    out = [b]
    while boxes[out[-1]].parent >= 0:
        out.append(boxes[out[-1]].parent)
    return out


def _rep(chain: list[int], common: int, node: str, boxes: list[_Box]) -> str:
    """What stands for ``node`` (in the containers ``chain``) in container ``common``'s layout: itself, or the
    opened box holding it there."""
    i = chain.index(common)
    return node if i == 0 else boxes[chain[i - 1]].name


def _hundredths(text: str) -> int:
    """A Graphviz coordinate ("52.394") in hundredths of a point, rounded half up alike in Python and JS."""
    return math.floor(float(text) * 100 + 0.5)


def _decimal(n: int, places: int = 2) -> str:
    """Integer ``n`` in units of 10**-places as a decimal ("1234" -> "12.34")."""
    sign, n = ("-", -n) if n < 0 else ("", n)
    unit = 10 ** places
    return f"{sign}{n // unit}.{n % unit:0{places}d}"


def _point(x: int, y: int) -> str:
    """A point in hundredths as Graphviz reads one ("12.34,5.60")."""
    return f"{_decimal(x)},{_decimal(y)}"


def _part(lines: list[str], boxes: list[_Box], b: int, sizes: dict[int, tuple[int, int]]) -> str:
    """The DOT laying out container ``b`` alone: the picture's graph, node and edge defaults, the message (the top
    level) or the box's label (an opened box's), its own nodes, each opened box in it as a rectangle of its composed
    size ``sizes`` (hundredths of a point), its own edges. Its nodes are named by their place in it (``v0``, ``v1``;
    the opened boxes ``c0``, ``c1``), not by their ids, which opening a box renumbers: a part that did not change
    is the same text, and is laid out once."""
    box = boxes[b]
    out = [lines[0], _WHOLE_ONLY.sub("", lines[1]).replace(_ROUTED, _UNROUTED), lines[2], lines[3]]
    if b == 0:
        out += [line for line in lines[4:5] if line.startswith("\tlabel=")]
    else:
        label = _LABEL.search(lines[box.line].strip()[len("graph ["):-1])
        if label is not None:
            out.append(f"\t{label.group(1)} labelloc=t")
    local: dict[str, str] = {}
    for j, (k, name) in enumerate(box.nodes):
        local[name] = f"v{j}"
        out.append(f"\tv{j} [" + _UNMOVING.sub("", lines[k].split(" [", 1)[1]))
    for j, c in enumerate(box.children):
        w, h = sizes[c]
        local[boxes[c].name] = f"c{j}"
        out.append(f'\tc{j} [fixedsize=true height={_decimal((h * 100 + 71) // 72, 4)} label="" '
                   f"shape=box width={_decimal((w * 100 + 71) // 72, 4)}]")
    out += [f"\t{local[tail]} -> {local[head]}" for tail, head in box.edges]
    out.append("}")
    return "\n".join(out) + "\n"


@dataclass
class _Layout:
    """What the composition reads of one part's layout (Graphviz's json0), in hundredths of a point."""

    bb: tuple[int, int, int, int]
    lp: tuple[int, int] | None
    pos: dict[str, tuple[int, int]]
    size: dict[str, tuple[int, int]]


def lean_layout(text: str) -> str:
    """Graphviz's json0 output of a part with only what ``compose`` reads (the bounding box, the label's position,
    each node's name, centre and size): what a cache keeps and the vectors hold."""
    doc = json.loads(text)
    lean: dict[str, object] = {"bb": doc["bb"]}
    if "lp" in doc:
        lean["lp"] = doc["lp"]
    lean["objects"] = [{"name": o["name"], "pos": o["pos"],
                        **({"width": o["width"], "height": o["height"]} if "width" in o else {})}
                       for o in doc.get("objects", ()) if "pos" in o]
    return json.dumps(lean, separators=(",", ":"))


def _inches(text: str) -> int:
    """A Graphviz size in inches ("1.1143") in hundredths of a point, rounded half up alike in Python and JS."""
    return math.floor(float(text) * 7200 + 0.5)


def _read(text: str) -> _Layout:
    """The bounding box, label position, node centres and node sizes of Graphviz's json0 output (or
    ``lean_layout``'s)."""
    doc = json.loads(text)
    x0, y0, x1, y1 = (_hundredths(v) for v in doc["bb"].split(","))
    lp = None
    if "lp" in doc:
        lx, ly = (_hundredths(v) for v in doc["lp"].split(","))
        lp = (lx, ly)
    pos = {}
    size = {}
    for obj in doc.get("objects", ()):
        if "pos" in obj:
            x, y = obj["pos"].split(",")
            pos[obj["name"]] = (_hundredths(x), _hundredths(y))
            if "width" in obj:
                size[obj["name"]] = (_inches(obj["width"]), _inches(obj["height"]))
    return _Layout((x0, y0, x1, y1), lp, pos, size)


def _placed(got: _Layout, local: str, name: str) -> tuple[int, int]:
    """Where a part's layout put ``local`` (``name`` in the picture)."""
    if local not in got.pos:
        raise RuntimeError(f"compose: Graphviz did not place {name}")
    return got.pos[local]


class Composed(NamedTuple):
    """A composed picture: its DOT for nop2 (every node pinned, every opened box framed, no edge) and its edges' SVG
    (``with_edges`` draws them in)."""

    dot: str
    edges: str


def compose(dot: str, lay: Callable[[str], str]) -> Composed:
    """``dot`` (``composable``) with every node pinned and every opened box framed where the box-by-box layout puts
    them, for Graphviz's ``nop2`` engine to draw (``dot``, its edges left out), and those edges' SVG (``edges``, for
    ``with_edges``), each a straight arrow from box to box as a large picture's edges are. ``lay(part)`` lays out one
    part's DOT and returns Graphviz's json0 text; the parts are asked for innermost first, each once."""
    lines = dot.split("\n")
    boxes, edge_lines = _parse(lines)
    layouts: dict[int, _Layout] = {}
    sizes: dict[int, tuple[int, int]] = {}
    for b in reversed(range(len(boxes))):             # innermost first: each opened box before its container
        got = layouts[b] = _read(lay(_part(lines, boxes, b, sizes)))
        x0, y0, x1, y1 = got.bb
        sizes[b] = (x1 - x0 + 200 * PAD, y1 - y0 + 200 * PAD)
    out: list[str | None] = list(lines)
    fallback = _SHAPE.search(lines[2])
    drawn: dict[str, Drawn] = {}
    at: dict[int, tuple[int, int]] = {0: (-layouts[0].bb[0], -layouts[0].bb[1])}  # each container's offset
    for b, box in enumerate(boxes):                   # the top level first, each opened box after its container
        ox, oy = at[b]
        got = layouts[b]
        for j, (k, name) in enumerate(box.nodes):
            x, y = _placed(got, f"v{j}", name)
            out[k] = f'{lines[k][:-1]} pos="{_point(ox + x, oy + y)}!"]'
            if f"v{j}" not in got.size:
                raise RuntimeError(f"compose: Graphviz did not size {name}")
            w, h = got.size[f"v{j}"]
            shape = _SHAPE.search(lines[k]) or fallback
            drawn[name] = Drawn(ox + x, oy + y, w / 2, h / 2, shape is not None and shape.group(1) == "ellipse")
        for j, c in enumerate(box.children):
            cx, cy = _placed(got, f"c{j}", boxes[c].name)
            w, h = sizes[c]
            left, bottom = ox + cx - w // 2, oy + cy - h // 2
            inner = layouts[c]
            at[c] = (left + 100 * PAD - inner.bb[0], bottom + 100 * PAD - inner.bb[1])
            frame = f'bb="{_point(left, bottom)},{_point(left + w, bottom + h)}"'
            if inner.lp is not None:
                frame += f' lp="{_point(at[c][0] + inner.lp[0], at[c][1] + inner.lp[1])}"'
            out[boxes[c].line] = f"{lines[boxes[c].line][:-1]} {frame}]"
    edges = []
    for k, tail, head in edge_lines:
        edge_id = _EDGE_ID.search(lines[k])
        if edge_id is None or not _PLAIN.match(tail) or not _PLAIN.match(head):
            raise RuntimeError(f"compose: an edge not as dot.py writes one: {lines[k]}")
        edges.append(draw_edge(edge_id.group(1), tail, head, drawn[tail], drawn[head]))
        out[k] = None
    x0, y0, x1, y1 = layouts[0].bb
    out[1] = f'{lines[1][:-1]} bb="{_point(0, 0)},{_point(x1 - x0, y1 - y0)}" notranslate=true]'
    if lines[4].startswith("\tlabel=") and layouts[0].lp is not None:
        lx, ly = layouts[0].lp
        out[4] = f'{lines[4]} lp="{_point(lx - x0, ly - y0)}"'
    return Composed("\n".join(line for line in out if line is not None), "".join(edges))
