"""save_svg(root, path) and GraphWidget.save_svg(path): the static picture written to a file, atomically,
with the same numbers, options and output as the display and the widget; a clear error without Graphviz."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from builders import lecture_L

import micrograd_widget
from micrograd_widget import GraphWidget, save_svg
from micrograd_widget.display import render_svg
from micrograd_widget.dot import graph_view
from micrograd_widget.tape import Tape


def test_save_svg_is_public():
    assert "save_svg" in micrograd_widget.__all__
    assert micrograd_widget.save_svg is save_svg


def test_writes_the_pictures_svg(tmp_path):
    L = lecture_L()["L"]
    out = save_svg(L, tmp_path / "L.svg")
    assert out == tmp_path / "L.svg"
    text = out.read_text(encoding="utf-8")
    assert text == render_svg(graph_view(Tape.from_value(L)))
    assert text.lstrip().startswith("<?xml") and "<svg" in text
    assert 'id="n0"' in text and 'id="n6"' in text
    assert "data 2.0000" in text and "grad 6.0000" in text and "data &#45;8.0000" in text
    assert [p.name for p in tmp_path.iterdir()] == ["L.svg"], "a temporary file was left behind"


def test_options_and_output(tmp_path):
    nodes = lecture_L()
    L, d = nodes["L"], nodes["d"]
    text = save_svg(L, tmp_path / "p.svg", precision=2, rankdir="TB", color=False, output=d).read_text()
    tape = Tape.from_value(L)
    assert text == render_svg(graph_view(tape, precision=2, rankdir="TB", color=False, output=tape.index(d)))
    assert "data 2.00" in text and "data 2.0000" not in text
    by_id = save_svg(L, tmp_path / "q.svg", precision=2, rankdir="TB", color=False, output=tape.index(d))
    assert by_id.read_text() == text


def test_widget_saves_what_it_shows(tmp_path):
    nodes = lecture_L()
    w = GraphWidget(nodes["L"], precision=3, output=nodes["e"])
    w.set_leaf("a", 0.5)
    text = w.save_svg(tmp_path / "w.svg").read_text()
    assert text == render_svg(graph_view(w.tape, precision=3, output=w.tape.index(nodes["e"])))
    assert "data 0.500" in text, "the widget's current leaf value is drawn"
    w.close()
    with pytest.raises(RuntimeError, match="closed"):
        w.save_svg(tmp_path / "closed.svg")


def test_replaces_atomically(tmp_path, monkeypatch):
    target = tmp_path / "pic.svg"
    target.write_text("old")
    target.chmod(0o640)
    renames = []
    real_replace = os.replace

    def spy(src, dst):
        renames.append((Path(src), Path(dst), Path(src).read_text()))
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", spy)
    save_svg(lecture_L()["L"], target)
    [(src, dst, written)] = renames
    assert dst == target and src.parent == tmp_path and src.name.startswith(".pic.svg.")
    assert "<svg" in written, "the whole picture is written before the rename"
    assert target.read_text() == written and (target.stat().st_mode & 0o777) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pic.svg"]


def test_clear_error_without_graphviz_and_the_old_file_kept(tmp_path, monkeypatch):
    target = tmp_path / "pic.svg"
    target.write_text("old")
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    with pytest.raises(RuntimeError, match=r"Graphviz's dot program.*not found.*apt-get install graphviz"):
        save_svg(lecture_L()["L"], target)
    w = GraphWidget(lecture_L()["L"])
    with pytest.raises(RuntimeError, match="install"):
        w.save_svg(target)
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bin", "pic.svg"]


def test_refuses_what_is_not_a_value(tmp_path):
    with pytest.raises(TypeError, match="takes a Value"):
        save_svg(1.0, tmp_path / "x.svg")  # type: ignore[arg-type]


def _mlp_loss():
    import random

    from micrograd_widget import MLP

    random.seed(1)
    model = MLP(3, [4, 4, 1])
    xs = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
    ys = [1.0, -1.0, -1.0, 1.0]
    loss = sum((model(x) - y) ** 2 for x, y in zip(xs, ys))
    loss.backward()
    return loss


def test_widget_saves_the_boxes_it_has_open(tmp_path):
    w = GraphWidget(_mlp_loss(), node_budget=60)
    closed = w.save_svg(tmp_path / "closed.svg").read_text()
    key = "layers.1.neurons.0"
    w.opened = [key]
    assert w.opened == [key]
    text = w.save_svg(tmp_path / "open.svg").read_text()
    assert text == render_svg(graph_view(w.tape, node_budget=60, open_keys=[key]))
    assert text != closed and 'class="cluster' in text and 'class="cluster' not in closed
