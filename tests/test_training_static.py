"""training/static_picture.py, the training view's static SVG (what a notebook saved without the widget shows): the loss
line, the curve and the model picture with the final grads' norms, or without Graphviz the curve and a hint."""

from __future__ import annotations

import pytest
from helpers import lecture_run, svg_boxes, svg_texts

from micrograd_widget.picture import text
from micrograd_widget.training.model_picture import neuron_norms
from micrograd_widget.training.widget import watch


@pytest.mark.usefixtures("dot_program")
def test_the_mimebundle_has_the_view_a_static_picture_and_a_true_text(model, clock):
    w = watch(model, clock=clock)
    lecture_run(w, model, 60)
    data, _ = w._repr_mimebundle_()
    assert set(data) == {"application/vnd.jupyter.widget-view+json", "image/svg+xml", "text/plain"}
    assert data["text/plain"] == repr(w) and "60 steps logged" in data["text/plain"]
    words = svg_texts(data["image/svg+xml"])
    assert words[0] == f"loss {text.format_number(w.losses[-1], 4)} at step 59 (60 steps logged, running)"
    norms = neuron_norms([p.grad for p in model.parameters()], w.boxes)    # the final grads' norms, drawn
    boxes = svg_boxes(data["image/svg+xml"])
    assert [boxes[f"u{k}"][-1] for k in range(len(w.boxes))] == [text.format_number(x, 4) for x in norms]
    w.finish()
    assert "(60 steps logged, finished)" in svg_texts(w._repr_mimebundle_()[0]["image/svg+xml"])[0]


def test_without_dot_the_static_picture_is_the_curve_with_a_hint(model, clock, tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    w = watch(model, clock=clock)
    lecture_run(w, model, 3)
    words = svg_texts(w._repr_mimebundle_()[0]["image/svg+xml"])
    assert words[0].endswith("(3 steps logged, running)") and any("install" in t for t in words)


@pytest.mark.usefixtures("dot_program")
def test_one_step_logged_is_one_step(model, clock):
    """Issue 19: a count of one is singular in the static picture's title ("1 steps logged" before)."""
    w = watch(model, clock=clock)
    lecture_run(w, model, 1)
    data, _ = w._repr_mimebundle_()
    title = svg_texts(data["image/svg+xml"])[0]
    assert title == f"loss {text.format_number(w.losses[-1], 4)} at step 0 (1 step logged, running)"
    assert "1 step logged" in repr(w)
