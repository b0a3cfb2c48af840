"""A composed picture's edges (picture/compose.py), each drawn here as Graphviz draws a straight edge, not by Graphviz.

Graphviz's nop2 spent half its time on the moons loss opened at node_budget=2000 clipping its 6,653 straight edges at
their boxes by bisection and writing their SVG. Here each edge goes from where the line between the two centres
leaves the tail's outline (a record's box, an op's ellipse, as Graphviz clips them) to a 7-point arrowhead whose
stroked tip touches the head's. Everything is in hundredths of a point with the same arithmetic as the twin,
js/picture/edges.js (IEEE doubles, rounded half up), so both write the same bytes: tests/vectors/compose/*.json hold
them, tests/test_edges.py holds them to Graphviz's own drawing of the same pinned picture.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from micrograd_widget.picture.dot_style import DOT_STYLE

__all__ = ["Drawn", "draw_edge", "with_edges"]

# A drawn box's start tag in Graphviz's SVG: the composed picture's edges go before the first (edges first).
_BOX = re.compile(r'<g id="[^"]*" class="node[ "]')
# An arrowhead's length (Graphviz's 10 points times the edges' arrowsize), in hundredths of a point, and its
# half-width per unit of length (Graphviz's "normal" arrow).
_ARROW = math.floor(1000 * float(DOT_STYLE["edge"]["arrowsize"]) + 0.5)
_ARROW_HALF_WIDTH = 0.35
# How far short of the head's outline the arrowhead's tip stops, in hundredths of a point, as Graphviz's does: its
# 1-point stroke reaches past the sharp tip by half the stroke over the sine of the tip's half-angle (~1.51 points).
_MITER = math.floor(50 * math.sqrt(1 + _ARROW_HALF_WIDTH * _ARROW_HALF_WIDTH) / _ARROW_HALF_WIDTH + 0.5)


@dataclass
class Drawn:
    """A drawn node of the composed picture, as its edges see it: centre and half-sizes in hundredths of a point,
    and whether its outline is an ellipse (an op) or a rectangle (a record: Graphviz clips edges at a record's box)."""

    x: int
    y: int
    hw: float
    hh: float
    round: bool


def _outline(node: Drawn, dx: float, dy: float) -> float:
    """The fraction of (dx, dy), from a node's centre, at which that ray leaves its outline."""
    if node.round:
        p = dx / node.hw
        q = dy / node.hh
        return 1 / math.sqrt(p * p + q * q)
    ax, ay = abs(dx), abs(dy)
    return node.hw / ax if ax * node.hh >= ay * node.hw else node.hh / ay  # through a side, or the top or bottom


def _svg_number(n: int) -> str:
    """A coordinate in hundredths of a point as Graphviz's SVG writes one: "12.5", "-3", "0.07"."""
    whole, cents = divmod(abs(n), 100)
    sign = "-" if n < 0 else ""
    if cents == 0:
        return f"{sign}{whole}" if whole else "0"
    return f"{sign}{whole}.{cents // 10 if cents % 10 == 0 else f'{cents:02d}'}"


def _svg_point(x: float, y: float) -> str:
    """A point of the picture (hundredths of a point, y up) in the SVG's coordinates (y down), rounded half up."""
    return f"{_svg_number(math.floor(x + 0.5))},{_svg_number(-math.floor(y + 0.5))}"


# An edge's class as Graphviz's SVG escapes it, and its colour (the DOT's edge defaults).
_EDGE_CLASS = DOT_STYLE["edge"]["class"].replace("-", "&#45;")
_EDGE_COLOR = DOT_STYLE["edge"]["color"]


def draw_edge(edge_id: str, tail: str, head: str, start: Drawn, end: Drawn) -> str:
    """One edge's SVG, as Graphviz draws a straight edge (its group, title, line and arrowhead): from where the line
    between the two centres leaves the tail's outline to an arrowhead whose stroked tip touches the head's."""
    dx = end.x - start.x
    dy = end.y - start.y
    length = math.sqrt(dx * dx + dy * dy)
    s = _outline(start, dx, dy) if length > 0 else 0
    e = 1 - _outline(end, dx, dy) - _MITER / length if length > 0 else 0
    gap = (e - s) * length
    a = _ARROW if gap > _ARROW else gap if gap > 0 else 0  # a short edge's arrowhead is as long as the edge
    ux = dx / length if length > 0 else 0
    uy = dy / length if length > 0 else 0
    sx, sy = start.x + s * dx, start.y + s * dy
    tx, ty = start.x + e * dx, start.y + e * dy
    bx, by = tx - ux * a, ty - uy * a
    vx, vy = -uy * a * _ARROW_HALF_WIDTH, ux * a * _ARROW_HALF_WIDTH
    line = (f"M{_svg_point(sx, sy)}C{_svg_point(sx + (bx - sx) / 3, sy + (by - sy) / 3)} "
            f"{_svg_point(sx + 2 * (bx - sx) / 3, sy + 2 * (by - sy) / 3)} {_svg_point(bx, by)}")
    side = _svg_point(bx + vx, by + vy)
    arrowhead = f"{side} {_svg_point(tx, ty)} {_svg_point(bx - vx, by - vy)} {side}"
    return (f'<g id="{edge_id}" class="edge {_EDGE_CLASS}">\n<title>{tail}&#45;&gt;{head}</title>\n'
            f'<path fill="none" stroke="{_EDGE_COLOR}" d="{line}"/>\n'
            f'<polygon fill="{_EDGE_COLOR}" stroke="{_EDGE_COLOR}" points="{arrowhead}"/>\n</g>\n')


def with_edges(svg: str, edges: str) -> str:
    """nop2's SVG of a composed DOT (``compose``'s ``dot``) with its ``edges`` drawn in, before the first box, as
    Graphviz draws a large picture (edges first: the boxes over their ends)."""
    first = _BOX.search(svg)
    if first is None:
        raise RuntimeError("compose: Graphviz drew no box to draw the edges under")
    return svg[:first.start()] + edges + svg[first.start():]

