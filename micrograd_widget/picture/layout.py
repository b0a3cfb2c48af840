"""The kernel's layout path: a picture's DOT laid out by the installed Graphviz, as the browser's layout worker lays it
out with Graphviz compiled to WebAssembly (js/host/graphviz.js), with the same defaults, retry and time limit
(js/core/shared.js carries them): ``dot`` for a picture, ``dot -Tjson0`` per part and ``neato -n2`` for a large opened
picture laid out box by box (picture/compose.py). display.py draws what it returns (a notebook's picture, save_svg).
"""

from __future__ import annotations

import re
import subprocess
import sys
import time

import graphviz

from micrograd_widget.picture.compose import composable, compose
from micrograd_widget.picture.dot import GraphView
from micrograd_widget.picture.edges import with_edges
from micrograd_widget.picture.far_ranks import REFUSED_FAR_RANKS, whole_far_ranks

__all__ = ["NSLIMIT", "LOST_EDGE", "DOT_TIME_LIMIT", "LayoutRefused", "in_browser", "layout_refusal", "render_svg",
           "lay_part", "with_layout_defaults"]


def in_browser() -> bool:
    """Whether this Python runs in a web browser (Pyodide, as in JupyterLite), which runs no other program."""
    return sys.platform == "emscripten"


# Network simplex gets at most this many iterations per node, as in the browser (js/host/graphviz.js, from
# js/core/shared.js;
# a default a DOT's own nslimit overrides): without it Debian's dot 2.43 can spend minutes on a large opened
# picture (the moons loss after Expand all that fits), and with it almost every picture of the fold vectors
# lays out byte-identically. A picture of more than 1,000 edges, or whose edges cross more than FAR_RANKS_LIMIT ranks
# beyond the next (that one), carries a smaller nslimit of its own, with mclimit and newrank (dot.py large_layout).
NSLIMIT = 8
# dot's default ranking is recursive on clusters (opened boxes) and can put an edge's head on its tail's rank;
# Graphviz 2.43 (Debian's) then fails on such a flat edge touching a record ("Error: lost fold3 fold1 edge", the
# moons loss after Expand all that fits). One global ranking (newrank) has no such edge, but lays out large
# opened pictures several times slower, so it is the retry for that error, not the default (js/host/graphviz.js does
# the same, with this pattern: js/core/shared.js).
LOST_EDGE = re.compile(r"lost \S+ \S+ edge")


# dot may run this long on one picture (its newrank retry included), then it is stopped, as the browser stops its
# layout (js/host/layout-worker.js, with this limit: js/core/shared.js): at the default node budget a picture lays out
# in a few seconds, but a large opened one (the moons loss at node_budget=2000 after Expand all that fits) can run for
# minutes in Debian's dot 2.43, the kernel frozen meanwhile. Read when a layout starts; tests set it lower.
DOT_TIME_LIMIT = 60.0  # seconds
_DOT = ["dot", "-Kdot", "-Tsvg"]  # what graphviz.Source(...).pipe(format="svg") runs
_PART = ["dot", "-Kdot", "-Tjson0"]  # one part of a picture laid out box by box (picture/compose.py)
_PINNED = ["neato", "-n2", "-Tsvg"]  # the composed picture drawn where its parts put every node (Graphviz's nop2)


class LayoutRefused(TimeoutError):
    """``dot`` was not started: drawn whole (``node_budget=None``), the picture's edges reach so far back that it
    would run for minutes (``layout_refusal`` says so in words)."""


def layout_refusal(view: GraphView) -> str:
    """Why ``view`` is not laid out at all, or "": a picture drawing every node whose edges cross more than
    REFUSED_FAR_RANKS ranks beyond the next (far_ranks.py; a budget's picture stays far below). The browser
    refuses it alike (js/graph/picture.js layoutRefusal)."""
    if view.folds or len(view.shown) != len(view.tape):
        return ""
    far = whole_far_ranks(view.tape)
    if far <= REFUSED_FAR_RANKS:
        return ""
    return (f"the graph's edges reach far back (they cross {far:,} ranks beyond the next, over the "
            f"{REFUSED_FAR_RANKS:,} that Graphviz lays out in seconds), so its layout would run for minutes; draw it "
            "with a node budget (node_budget=250), which folds what reaches far back")


def render_svg(view: GraphView) -> str:
    """The picture as SVG text, laid out by the kernel's ``dot`` with the browser's ``nslimit`` default (its
    warnings kept out of the notebook), once more with ``newrank`` when dot loses an edge between clusters; a large
    opened picture box by box (picture/compose.py: each part by dot, the boxes drawn by ``neato -n2``, the edges by
    picture/edges.py).
    Raises ``graphviz.ExecutableNotFound`` when Graphviz is not installed, ``graphviz.CalledProcessError`` when
    dot fails, ``TimeoutError`` (dot stopped) when both together run past ``DOT_TIME_LIMIT`` seconds, and, at once,
    ``LayoutRefused`` for a picture ``layout_refusal`` refuses."""
    if in_browser():  # no subprocess there: dot is missing, not failing
        raise graphviz.ExecutableNotFound(_DOT)
    refused = layout_refusal(view)
    if refused:
        raise LayoutRefused(f"Graphviz's dot was not started: {refused}")
    limit = DOT_TIME_LIMIT
    deadline = time.monotonic() + limit
    if composable(view.dot):  # a large opened picture: laid out box by box, as in the browser
        composed = compose(view.dot, lambda part: lay_part(part, deadline, limit))
        return with_edges(_pipe(composed.dot, deadline, limit, _PINNED), composed.edges)
    try:
        return _pipe(with_layout_defaults(view.dot), deadline, limit)
    except graphviz.CalledProcessError as err:
        if not LOST_EDGE.search(str(err.stderr or "")):
            raise
    return _pipe(with_layout_defaults(view.dot, "newrank=true"), deadline, limit)


def lay_part(part: str, deadline: float, limit: float) -> str:
    """One part of a picture laid out box by box (picture/compose.py), as Graphviz's json0 text: dot with the
    browser's ``nslimit`` default, stopped at ``deadline`` as ``_pipe`` says."""
    return _pipe(with_layout_defaults(part), deadline, limit, _PART)


def with_layout_defaults(dot: str, more: str = "") -> str:
    """``dot`` with the layout path's defaults (NSLIMIT, and ``more`` attributes) in a ``graph [...]`` line before its
    own, which override them, as the browser's ``graphAttributes`` do; dot's command-line ``-G`` would override the
    DOT's own instead (a large picture's small nslimit: the moons loss opened at node_budget=2000, 1.5 s -> 7.7 s)."""
    head, _, body = dot.partition("\n")
    return f"{head}\n\tgraph [{more + ' ' if more else ''}nslimit={NSLIMIT}]\n{body}"


def _pipe(dot: str, deadline: float, limit: float, command: list[str] = _DOT) -> str:
    """``dot`` laid out by the kernel's Graphviz (``command``: as SVG by dot unless told), its warnings dropped, the
    process killed at ``deadline`` (a ``time.monotonic()``; ``limit``: the seconds it allowed in all, for the
    message)."""
    hidden = None  # on Windows: no console window flashes up, as with graphviz's own pipe
    if sys.platform == "win32":
        hidden = subprocess.STARTUPINFO(dwFlags=subprocess.STARTF_USESHOWWINDOW, wShowWindow=subprocess.SW_HIDE)
    try:
        done = subprocess.run(command, input=dot, capture_output=True, encoding="utf-8", startupinfo=hidden,
                              timeout=max(deadline - time.monotonic(), 0.0), check=False)
    except FileNotFoundError as err:
        raise graphviz.ExecutableNotFound(command) from err
    except subprocess.TimeoutExpired:  # subprocess.run has killed dot and waited for it
        raise TimeoutError(
            f"Graphviz's dot was stopped after laying out this picture for {limit:g} s (at the default node budget "
            "a picture takes a few seconds); draw fewer boxes: close opened boxes, or lower the node budget "
            "(node_budget=100)") from None
    if done.returncode:
        raise graphviz.CalledProcessError(done.returncode, command, output=done.stdout, stderr=done.stderr)
    return done.stdout
