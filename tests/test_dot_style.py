"""dot_style.py: the DOT writers' style facts have one home. Python's writer (dot.py, its DOT text and its
graphviz.Digraph) draws every fact from the table, and the browser's (js/picture/dot.js, through js/core/shared.js)
writes none of them by hand, so the two cannot drift apart (the fold vectors hold their DOT byte-identical)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from builders import lecture_graph, moons_like_loss

from micrograd_widget.picture.dot import GraphView, graph_view
from micrograd_widget.picture.dot_style import DOT_STYLE, LEGEND_TABLE

FOLD_DOT_JS = Path(__file__).resolve().parents[1] / "js" / "picture/dot.js"
MARK = "mgwmark"


def unfolded() -> GraphView:
    """The lecture's graph drawn whole: leaves, ops, the output, the legend."""
    return graph_view(lecture_graph())


def folded() -> GraphView:
    """A moons-like loss folded to 20 boxes with one box opened: closed boxes, a cluster, the message."""
    first = graph_view(moons_like_loss(points=4), node_budget=20)
    return graph_view(first.tape, node_budget=20, open_keys=[first.folds[0].key], tree=first.tree)


@pytest.mark.parametrize(("kind", "name", "draw"), [
    ("graph", "fontname", unfolded), ("folded", "ranksep", folded), ("node", "fontsize", unfolded),
    ("edge", "arrowsize", unfolded), ("message", "labelloc", folded), ("leaf", "shape", unfolded),
    ("output", "penwidth", unfolded), ("op", "margin", unfolded), ("fold", "style", folded),
    ("cluster", "color", folded), ("legend", "tooltip", unfolded),
])
def test_each_style_fact_reaches_the_dot_and_the_digraph(monkeypatch: pytest.MonkeyPatch, kind: str, name: str,
                                                         draw: Callable[[], GraphView]) -> None:
    monkeypatch.setitem(DOT_STYLE[kind], name, MARK)
    view = draw()   # graph_view asserts that its Digraph's source is the DOT text: both read the table
    assert f"{name}={MARK}" in view.dot, f"DOT_STYLE[{kind!r}][{name!r}] is not what dot.py writes"


@pytest.mark.parametrize("role", ["value", "leaf", "output"])
def test_the_value_classes_come_from_the_table(monkeypatch: pytest.MonkeyPatch, role: str) -> None:
    monkeypatch.setitem(DOT_STYLE["classes"], role, MARK)
    assert MARK in unfolded().dot


def test_the_legend_opens_with_the_table() -> None:
    assert f"label=<{LEGEND_TABLE}<TR><TD>grad</TD>" in unfolded().dot


def test_the_browsers_writer_spells_no_style_fact_itself() -> None:
    source = FOLD_DOT_JS.read_text(encoding="utf-8")
    facts = {value for attrs in DOT_STYLE.values() for value in attrs.values()} | {LEGEND_TABLE}
    # "record" is also the name of escape()'s target; one-letter values are too short to look for.
    facts -= {"record", "l", "t"}
    written = sorted(v for v in facts if json.dumps(v) in source or f"'{v}'" in source or f"`{v}`" in source)
    assert not written, f"js/picture/dot.js spells {written} by hand: read them from ./shared.js's DOT_STYLE"
