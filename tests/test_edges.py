"""A composed picture's edges (micrograd_widget/picture/edges.py): one worked out by hand, and every edge of a
composition against Graphviz's own drawing of the same pinned picture (Debian's; js/picture/edges.test.js holds the
twin to the browser's Graphviz). The compose vectors hold both twins to the same bytes (tests/test_compose.py)."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from micrograd_widget.picture import layout
from micrograd_widget.picture.compose import compose
from micrograd_widget.picture.edges import Drawn, draw_edge, with_edges

VECTORS = Path(__file__).resolve().parent / "vectors"
sys.path.insert(0, str(VECTORS))
import generate_compose  # noqa: E402  (tests/vectors/ is on the path only from here)


def test_an_edge_from_a_record_to_an_ellipse_worked_out_by_hand() -> None:
    """The record: centre (0, 0), 80 x 60 points; the ellipse: centre (200, 0), 54 x 36 (in hundredths below). The
    line leaves the record at x = 40; the tip stops 1.51 short of the ellipse (200 - 27 - 1.51 = 171.49), the
    arrowhead's base 7 before it (164.49), its corners 2.45 either side (the base plus (-u.y, u.x) x 2.45, u = (1, 0):
    SVG y -2.45 first); the curve's handles at a third and two thirds of 40 -> 164.49 (81.5, 122.99, half up)."""
    edge = draw_edge("e_a_b", "a", "b", Drawn(0, 0, 4000, 3000, False), Drawn(20000, 0, 2700, 1800, True))
    assert edge == ('<g id="e_a_b" class="edge mgw&#45;edge">\n<title>a&#45;&gt;b</title>\n'
                    '<path fill="none" stroke="#555555" d="M40,0C81.5,0 122.99,0 164.49,0"/>\n'
                    '<polygon fill="#555555" stroke="#555555" points="164.49,-2.45 171.49,0 164.49,2.45 164.49,-2.45"/>'
                    "\n</g>\n")


def test_an_edge_straight_down_between_records_worked_out_by_hand() -> None:
    """From y = 100 - 20 = 80 (SVG -80) down to the tip at 0 + 10 + 1.51 = 11.51 (SVG -11.51), its base at 18.51;
    the first corner is the base plus (-u.y, u.x) x 2.45 with u = (0, -1): x + 2.45."""
    edge = draw_edge("e_a_b", "a", "b", Drawn(0, 10000, 4000, 2000, False), Drawn(0, 0, 3000, 1000, False))
    assert ' d="M0,-80C0,-59.5 0,-39.01 0,-18.51"' in edge
    assert 'points="2.45,-18.51 0,-11.51 -2.45,-18.51 2.45,-18.51"' in edge


def test_with_edges_draws_them_under_the_boxes_and_over_the_opened_boxes_frames() -> None:
    svg = '<svg><g id="graph0" class="graph"><g id="open0" class="cluster"></g><g id="n1" class="node x"></g></g></svg>'
    assert with_edges(svg, '<g id="e_n0_n1" class="edge"></g>') == (
        '<svg><g id="graph0" class="graph"><g id="open0" class="cluster"></g><g id="e_n0_n1" class="edge"></g>'
        '<g id="n1" class="node x"></g></g></svg>')
    with pytest.raises(RuntimeError, match="drew no box"):
        with_edges("<svg></svg>", "")


_EDGE_SVG = re.compile(r'<g id="(e_\w+)" class="edge[^"]*">.*?d="M([-\d.]+),([-\d.]+)C[^"]*?([-\d.]+),([-\d.]+)"'
                       r'.*?points="([-\d.]+),([-\d.]+) ([-\d.]+),([-\d.]+) ([-\d.]+),([-\d.]+)', re.S)


def _edge_ends(svg: str) -> dict[str, list[float]]:
    """Each drawn edge's start, the end of its line (the arrowhead's base) and its arrowhead's three corners, by id."""
    return {m.group(1): [float(v) for v in m.groups()[1:]] for m in _EDGE_SVG.finditer(svg)}


@pytest.mark.parametrize("name", ["moons_nested", "far_layout"])
def test_the_edges_drawn_here_meet_the_boxes_where_graphviz_draws_its_own(dot_program: str, name: str) -> None:
    """The reference is Graphviz itself: the same pinned picture drawn by ``neato -n2`` with its edges in. Every
    box is drawn where it is pinned (the edges' frame is the boxes'), every edge starts within a point of where
    Graphviz starts it and its arrowhead's tip is within 3 points of Graphviz's (Debian's 2.43 stops its tips
    ~1.4 points further from the box than the browser's 16.1, which js/picture/compose.test.js holds to 1.5
    points), and each arrowhead is Graphviz's: 7 points long (10 x arrowsize 0.7), 4.9 wide, on the line."""
    v = json.loads((VECTORS / "compose" / f"{name}.json").read_text())
    dot = generate_compose.source_dot(*v["source"], v["large"])
    composed = compose(dot, lambda part: layout.lay_part(part, time.monotonic() + 60, 60))
    ours = with_edges(subprocess.run(["neato", "-n2", "-Tsvg"], input=composed.dot, capture_output=True,
                                     text=True, check=True).stdout, composed.edges)
    edge_lines = [line for line in dot.split("\n") if " -> " in line and line.startswith("\t")]
    whole = composed.dot[:composed.dot.rindex("}")] + "\n".join(edge_lines) + "\n}\n"
    theirs = subprocess.run(["neato", "-n2", "-Tsvg"], input=whole, capture_output=True, text=True, check=True).stdout
    pinned = {m.group(1): (float(m.group(2)), float(m.group(3)))
              for m in re.finditer(r'\t(\w+) \[[^\n]*pos="([-\d.]+),([-\d.]+)!"', composed.dot)}
    ellipses = re.findall(r'<g id="(n\d+_op)" class="node[^"]*">.*?<ellipse[^>]*cx="([-\d.]+)" cy="([-\d.]+)"', ours,
                          re.S)
    assert len(ellipses) >= 40
    for node, cx, cy in ellipses:
        assert (float(cx), -float(cy)) == pytest.approx(pinned[node], abs=0.01), f"{node} drawn off its pin"
    mine, graphviz_own = _edge_ends(ours), _edge_ends(theirs)
    assert len(mine) == len(edge_lines) > 250 and mine.keys() == graphviz_own.keys()
    for edge, (sx, sy, bx, by, ax, ay, tx, ty, cx, cy) in mine.items():
        gsx, gsy, *_, gtx, gty, _, _ = graphviz_own[edge]
        assert abs(sx - gsx) <= 1 and abs(sy - gsy) <= 1, f"{edge} starts at {sx},{sy}; Graphviz's at {gsx},{gsy}"
        assert math.dist((tx, ty), (gtx, gty)) <= 3, f"{edge} ends at {tx},{ty}; Graphviz's at {gtx},{gty}"
        assert math.dist((bx, by), (tx, ty)) == pytest.approx(7, abs=0.02), f"{edge}'s arrowhead"
        assert math.dist((ax, ay), (cx, cy)) == pytest.approx(4.9, abs=0.02), f"{edge}'s arrowhead"
        assert abs((tx - sx) * (by - sy) - (ty - sy) * (bx - sx)) <= 0.02 * math.dist((sx, sy), (tx, ty)), edge
