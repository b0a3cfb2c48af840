"""What a widget's ``view`` trait carries beyond JSON: ``fold_of`` (per node the closed box holding it) is a binary
Int32 buffer in the comm state, in the exported page (js/host.js reads its buffers) and in a notebook's saved
state (ipywidgets' embed format, as nbclient and JupyterLab store it), and it says the boxes Python's fold draws."""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

from builders import fold_of
from ipywidgets.embed import embed_data
from ipywidgets.widgets.widget import _remove_buffers

from micrograd_widget import dot as dot_module
from micrograd_widget.engine import Value
from micrograd_widget.export import save_html
from micrograd_widget.nn import MLP
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
