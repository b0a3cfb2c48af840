"""What a widget's state carries: no DOT (the browser writes every live picture, js/picture/fold_tree.js), in the comm
state, a notebook's saved state (ipywidgets' embed format, as nbclient and JupyterLab store it) and the exported page; a
change of the open set or an option from the view plans no picture. The static fallback is planned when asked
for, once per state, and follows what changed since."""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path
from typing import Any

import pytest
from builders import lecture_L, moons_like_loss
from helpers import folded_widget
from ipywidgets.embed import embed_data

from micrograd_widget.core.tape import Tape
from micrograd_widget.display import tape_mimebundle, value_mimebundle
from micrograd_widget.graph.widget import GraphWidget
from micrograd_widget.host.export import save_html
from micrograd_widget.picture import dot as dot_module

_STATE = re.compile(r'<script type="application/vnd.jupyter.widget-state\+json">\s*(.*?)\s*</script>', re.S)


def from_view(widget: GraphWidget, state: dict[str, Any]) -> None:
    """``state`` sent by a front end, as the comm hands it to the widget."""
    widget._handle_msg({"content": {"data": {"method": "update", "state": state, "buffer_paths": []}}, "buffers": []})


def holds_no_dot(state: Any) -> bool:
    """True when no string in ``state`` (nested dicts and lists) is or holds a DOT graph."""
    if isinstance(state, str):
        return "digraph" not in state and "->" not in state
    if isinstance(state, dict):
        return all(holds_no_dot(v) for v in state.values())
    if isinstance(state, list):
        return all(holds_no_dot(v) for v in state)
    return True


@pytest.mark.parametrize("folded", [False, True], ids=["whole", "folded"])
def test_no_live_widget_state_holds_a_dot(folded: bool, tmp_path: Path) -> None:
    """The browser writes every live picture (js/picture/fold_tree.js): no DOT in the comm state, after an Expand and an
    option change from the view, in a notebook's saved state or in the state the exported page embeds."""
    widget = folded_widget() if folded else GraphWidget(lecture_L()["L"])
    widget.comm.send = lambda *a, **k: None  # type: ignore[method-assign]  # no kernel here
    key = widget.folds["groups"][0][0] if folded else None
    from_view(widget, {"precision": 3, "opened": [key] if key else []})
    assert widget.error == "" and widget.opened == ([key] if key else [])
    state = {k: v for k, v in widget.get_state().items() if k not in ("_esm", "_css")}
    assert "dot" not in state and "view" not in state and holds_no_dot(state)
    notebook = embed_data(views=[widget])["manager_state"]["state"][widget.model_id]["state"]
    assert "dot" not in notebook and "view" not in notebook and holds_no_dot(
        {k: v for k, v in notebook.items() if k not in ("_esm", "_css")})
    page = save_html(widget, tmp_path / "page.html").read_text(encoding="utf-8")
    match = _STATE.search(page)
    assert match, "the page holds its widget state"
    saved = json.loads(match.group(1))["state"][widget.model_id]["state"]
    assert "dot" not in saved and "view" not in saved and holds_no_dot(
        {k: v for k, v in saved.items() if k not in ("_esm", "_css")})


def test_an_options_or_opened_change_from_the_view_plans_no_picture(monkeypatch: pytest.MonkeyPatch) -> None:
    """A front end's Expand or new drawing option costs the kernel its checks only: no picture is planned (the
    static one is planned when a static output asks for it)."""
    widget = folded_widget()
    widget.comm.send = lambda *a, **k: None  # type: ignore[method-assign]
    key = widget.folds["groups"][0][0]

    def plan(*_: object, **__: object) -> None:
        raise AssertionError("a picture was planned for a change from the view")

    monkeypatch.setattr(dot_module, "graph_view", plan)
    for change in ({"opened": [key]}, {"precision": 2, "rankdir": "TB", "color": False}, {"opened": []}):
        from_view(widget, change)
        assert widget.error == "", change
    assert (widget.opened, widget.precision, widget.rankdir, widget.color) == ([], 2, "TB", False)


# ---------------------------------------------------------------- the static fallback reuses the widget's picture


def fallback_svg(widget: GraphWidget) -> str:
    data, _ = widget._repr_mimebundle_()
    svg: str = data["image/svg+xml"]
    return svg


def test_the_fallback_and_save_svg_plan_the_static_picture_once(monkeypatch: pytest.MonkeyPatch,
                                                                  tmp_path: Path) -> None:
    nodes = lecture_L()
    widget = GraphWidget(nodes["L"], precision=2)
    want = value_mimebundle(nodes["L"], precision=2)["image/svg+xml"]
    planned = []
    real = dot_module.graph_view

    def counted(*args: Any, **kwargs: Any) -> dot_module.GraphView:
        planned.append(1)
        return real(*args, **kwargs)

    with monkeypatch.context() as m:
        m.setattr(dot_module, "graph_view", counted)
        assert planned == [], "a live widget plans no picture until a static output asks for one"
        assert fallback_svg(widget) == want
        assert widget.save_svg(tmp_path / "same.svg").read_text(encoding="utf-8") == want
        assert planned == [1], "planned once, for the fallback; save_svg lays out the same picture"
    widget.precision = 3        # a new picture for the view, and the fallback shows it
    assert fallback_svg(widget) == value_mimebundle(nodes["L"], precision=3)["image/svg+xml"] != want


def test_the_fallback_follows_numbers_output_and_opened_boxes_changed_since() -> None:
    nodes = lecture_L()
    widget = GraphWidget(nodes["L"])
    widget.set_leaf("a", 5.0)       # the Values follow: the static display of L is the reference
    assert nodes["a"].data == 5.0
    assert fallback_svg(widget) == value_mimebundle(nodes["L"])["image/svg+xml"]
    widget.tape.forward([1.0, 1.0, 1.0, 1.0])   # the tape's own numbers, changed behind the widget's back
    widget.tape.backward()
    tape = Tape.from_value(nodes["L"])
    tape.forward([1.0, 1.0, 1.0, 1.0])
    tape.backward()
    assert fallback_svg(widget) == tape_mimebundle(tape)["image/svg+xml"]
    widget.output = widget.tape.index(nodes["d"])
    reference = Tape.from_value(nodes["L"])
    reference.backward(reference.index(nodes["d"]))
    assert fallback_svg(widget) == tape_mimebundle(reference, output=reference.index(nodes["d"]))["image/svg+xml"]


def test_the_fallback_shows_the_boxes_opened_in_the_widget() -> None:
    widget = folded_widget()
    root = widget.tape.values[widget.tape.root]
    before = fallback_svg(widget)
    key = widget.folds["groups"][0][0]
    widget.opened = [key]
    assert widget.opened == [key], "the box fits the budget"
    reference = Tape.from_value(root)
    reference.backward()
    after = fallback_svg(widget)
    assert after == tape_mimebundle(reference, node_budget=60, open_keys=[key])["image/svg+xml"] and after != before


def test_opened_set_in_python_past_the_budget_says_which_boxes_were_left_closed_and_why() -> None:
    widget = folded_widget()
    keys = [g.key for g in widget._fold_tree().groups]
    with pytest.warns(UserWarning, match=r"opened: \d+ boxes left closed \(.*\): they do not fit in the node budget "
                                         r"\(60 boxes\) beside what is open: raise node_budget or open fewer$") as seen:
        widget.opened = keys
    assert seen[0].filename == __file__, "the warning names the user's line, not traitlets'"
    kept = widget.opened
    assert 0 < len(kept) < len(keys)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        widget.opened = kept                       # what fits: no words
        from_view(widget, {"opened": keys})        # a view's set is fitted there and checked here in silence
    assert widget.opened == kept
    widget.close()


def test_opened_set_in_python_past_the_layout_cost_says_a_larger_budget_does_not_help() -> None:
    # the moons loss at node_budget=2000: its regularisation sum's terms reach back across the picture (fold_fit's
    # layout cost), which the budget would allow
    widget = GraphWidget(moons_like_loss(), node_budget=2000)
    big = [g.key for g in widget._fold_tree().groups if g.key.startswith(("layers", "sum:", "terms:"))]
    with pytest.warns(UserWarning, match=r"too slow to lay out: a larger node_budget does not help"):
        widget.opened = big
    widget.close()
