"""What a widget's ``view`` trait carries beyond JSON: ``fold_of`` (per node the closed box holding it) is a binary
Int32 buffer in the comm state, in the exported page (js/host.js reads its buffers) and in a notebook's saved
state (ipywidgets' embed format, as nbclient and JupyterLab store it), and it says the boxes Python's fold draws.
The static fallback lays out the picture the widget drew for its view, and follows what changed since."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import pytest
from builders import fold_of, lecture_L
from ipywidgets.embed import embed_data
from ipywidgets.widgets.widget import _remove_buffers

from micrograd_widget import dot as dot_module
from micrograd_widget.display import tape_mimebundle, value_mimebundle
from micrograd_widget.engine import Value
from micrograd_widget.export import save_html
from micrograd_widget.nn import MLP
from micrograd_widget.tape import Tape
from micrograd_widget.widget import GraphWidget

_STATE = re.compile(r'<script type="application/vnd.jupyter.widget-state\+json">\s*(.*?)\s*</script>', re.S)


def folded_widget() -> tuple[GraphWidget, list[int]]:
    """A widget on an MLP loss folded at budget 60, and per node its box in dot.py's picture (-1: drawn)."""
    model = MLP(3, [8, 8, 1])
    loss = sum((model([0.5, -1.0, 2.0]) - 1.0) ** 2 for _ in range(3))
    assert isinstance(loss, Value)
    widget = GraphWidget(loss, node_budget=60)
    want = [-1] * len(widget.tape)
    for k, f in enumerate(dot_module.graph_view(widget.tape, node_budget=60).folds):
        for i in f.members:
            want[i] = k
    assert 0 < want.count(-1) < len(want), "the graph should be partly folded"
    return widget, want


def saved_buffer(model: dict, path: list[str]) -> bytes:
    """The bytes a saved model state (embed format) keeps at ``path``, checked absent from its JSON."""
    found = [b for b in model.get("buffers", []) if b["path"] == path]
    assert len(found) == 1, f"{path} should be saved once as a buffer, got {found}"
    holder = model["state"]
    for key in path[:-1]:
        holder = holder[key]
    assert path[-1] not in holder, f"{path} is saved both as a buffer and as JSON"
    assert found[0].get("encoding", "base64") == "base64"
    return base64.b64decode(found[0]["data"])


def test_fold_of_is_a_binary_buffer_in_the_comm_state() -> None:
    widget, want = folded_widget()
    text, paths, buffers = _remove_buffers(widget.get_state())
    assert ["view", "fold_of"] in paths and "fold_of" not in text["view"]
    raw = bytes(buffers[paths.index(["view", "fold_of"])])
    assert fold_of({"fold_of": raw}) == want


def test_an_unfolded_picture_sends_an_empty_buffer() -> None:
    x = Value(2.0, label="x")
    widget = GraphWidget(x * x + 1.0)
    assert bytes(widget.view["fold_of"]) == b"" and widget.view["folds"] == []


def test_fold_of_is_saved_as_a_buffer_in_a_notebook_and_in_the_exported_page(tmp_path: Path) -> None:
    widget, want = folded_widget()
    notebook = embed_data(views=[widget])["manager_state"]["state"][widget.model_id]
    assert fold_of({"fold_of": saved_buffer(notebook, ["view", "fold_of"])}) == want
    page = save_html(widget, tmp_path / "folded.html").read_text(encoding="utf-8")
    match = _STATE.search(page)
    assert match, "the page holds its widget state"
    model = json.loads(match.group(1))["state"][widget.model_id]
    assert fold_of({"fold_of": saved_buffer(model, ["view", "fold_of"])}) == want


# ---------------------------------------------------------------- the static fallback reuses the widget's picture


def fallback_svg(widget: GraphWidget) -> str:
    data, _ = widget._repr_mimebundle_()
    svg: str = data["image/svg+xml"]
    return svg


def test_the_fallback_lays_out_the_picture_the_widget_drew_without_planning_it_again(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    nodes = lecture_L()
    widget = GraphWidget(nodes["L"], precision=2)
    want = value_mimebundle(nodes["L"], precision=2)["image/svg+xml"]

    def plan_again(*_: object, **__: object) -> None:
        raise AssertionError("the widget's picture was planned again")

    with monkeypatch.context() as m:
        m.setattr(dot_module, "graph_view", plan_again)
        assert fallback_svg(widget) == want
        assert widget.save_svg(tmp_path / "same.svg").read_text(encoding="utf-8") == want
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
    widget, _ = folded_widget()
    root = widget.tape.values[widget.tape.root]
    before = fallback_svg(widget)
    key = widget.folds["groups"][0][0]
    widget.opened = [key]
    assert widget.opened == [key], "the box fits the budget"
    reference = Tape.from_value(root)
    reference.backward()
    after = fallback_svg(widget)
    assert after == tape_mimebundle(reference, node_budget=60, open_keys=[key])["image/svg+xml"] and after != before
