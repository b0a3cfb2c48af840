"""The static picture in a plain page of a 1000 x 900 window (save_html's <noscript>, nbviewer, a widget whose script
cannot run): ``Value._repr_html_``, the widget's fallback and ``draw_dot``'s notebook display show the output's box
in sight on first render, with no script, at a readable zoom (60% or more), and never scale a small picture up."""

from __future__ import annotations

import pytest
from builders import lecture_mlp_loss, lecture_neuron_spelled

from micrograd_widget import GraphWidget, Value
from micrograd_widget.display import value_html
from micrograd_widget.picture.dot import draw_dot

from .mgw_browser.dom import poll
from .mgw_browser.graphs import REPO, lecture_neuron
from .mgw_browser.jupyter import write_notebook
from .mgw_browser.lab import cell_locator, cell_state, open_notebook, run_cell, stream_text
from .mgw_browser.static_picture import in_sight, measure

pytestmark = pytest.mark.browser

READABLE = 0.6  # the "readable": the default font at 60% zoom or more


def _fallback(root: Value) -> str:
    widget = GraphWidget(root)
    try:
        html: str = widget._repr_mimebundle_()[0]["text/html"]
        return html
    finally:
        widget.close()


PICTURES = {
    "neuron spelled out": lambda: value_html(lecture_neuron_spelled()),
    "MLP loss": lambda: value_html(lecture_mlp_loss()),
    "MLP loss, rankdir TB": lambda: value_html(lecture_mlp_loss(), rankdir="TB"),
    "widget fallback, MLP loss": lambda: _fallback(lecture_mlp_loss()),
    "draw_dot neuron": lambda: draw_dot(lecture_neuron()["o"])._repr_mimebundle_()["text/html"],
    "draw_dot neuron spelled out, TB": lambda: draw_dot(lecture_neuron_spelled(), rankdir="TB")._repr_mimebundle_()[
        "text/html"],
    "draw_dot MLP loss": lambda: draw_dot(lecture_mlp_loss())._repr_mimebundle_()["text/html"],
}


def _show(page, html: str) -> dict:
    page.set_viewport_size({"width": 1000, "height": 900})
    page.set_content(f"<!DOCTYPE html><html><body style='margin:16px'>{html}</body></html>")
    page.wait_for_function("() => [...document.images].every(i => i.complete && i.naturalWidth)")
    m = measure(page.locator(".mgw-static").first)
    assert m is not None, "the picture did not load"
    return m


@pytest.mark.parametrize("name", list(PICTURES))
def test_the_output_is_in_sight_at_a_readable_zoom(guarded, name):
    m = _show(guarded.page, PICTURES[name]())
    assert in_sight(m), f"{name}: the output's box {m['box']} is not inside the visible rect {m['seen']}"
    assert READABLE - 0.005 <= m["zoom"] <= 1.0 + 1e-9, f"{name}: shown at {m['zoom']:.0%}"


def test_a_picture_that_fits_readably_is_fitted_to_the_column(guarded):
    """The lecture's L (1,673 px) fits a 968 px column at 58%, below readable: shown at 60%, scrolled to its root;
    a 1,400 px window's column fits it at 82%, with no scrolling."""
    from builders import lecture_L
    html = value_html(lecture_L()["L"])
    m = _show(guarded.page, html)
    assert m["zoom"] == pytest.approx(READABLE, abs=0.005) and in_sight(m)
    guarded.page.set_viewport_size({"width": 1400, "height": 900})
    m = measure(guarded.page.locator(".mgw-static"))
    assert m is not None and m["width"] == pytest.approx(1400 - 32, abs=1) and in_sight(m)
    assert guarded.page.locator(".mgw-static").evaluate("s => s.scrollWidth <= s.clientWidth")


def test_a_small_picture_is_not_scaled_up(guarded):
    a = Value(2.0, label="a")
    y = a * 3
    y.label = "y"
    y.backward()
    m = _show(guarded.page, value_html(y))
    assert m["zoom"] == pytest.approx(1.0, abs=0.005) and m["width"] < 900 and in_sight(m)
    left = guarded.page.evaluate("() => document.images[0].getBoundingClientRect().left")
    assert left == 16, "a small picture is drawn at the column's left (the body's 16 px margin), as any output"


_BUILDERS = str(REPO / "tests")
LAB_CELLS = [
    f"import sys; sys.path.insert(0, {_BUILDERS!r})\n"
    "from builders import lecture_mlp_loss, lecture_neuron_spelled\n"
    "from micrograd_widget import draw_dot\nfrom micrograd_widget.host.demo import lecture_neuron\n",
    "lecture_neuron_spelled()\n",
    "lecture_mlp_loss()\n",
    "draw_dot(lecture_neuron()['o'])\n",
]


@pytest.mark.jupyterlab
def test_in_jupyterlab_the_output_is_in_sight_on_first_render(jupyterlab, guarded_lab, notebook_name, tmp_path):
    """Where it matters most: a notebook's outputs in JupyterLab (which may run no script in them), in a 1000 x 900
    window: the bare neuron spelled out, the bare MLP loss (Value._repr_html_) and draw_dot's Digraph."""
    page = guarded_lab.page
    page.set_viewport_size({"width": 1000, "height": 900})
    write_notebook(jupyterlab.notebooks / notebook_name, LAB_CELLS)
    open_notebook(page, jupyterlab, notebook_name)
    for cell in range(len(LAB_CELLS)):
        run_cell(page, cell, timeout_s=90)
    for cell in range(1, len(LAB_CELLS)):
        assert not stream_text(cell_state(page, cell)["outputs"]), f"cell {cell} printed an error"
        scroller = cell_locator(page, cell).locator(".jp-OutputArea .mgw-static")
        scroller.scroll_into_view_if_needed()   # the cell's output brought on screen, as a learner scrolls to it
        m = poll(lambda s=scroller: measure(s), lambda r: r is not None, f"cell {cell}'s picture")
        page.screenshot(path=str(tmp_path / f"cell{cell}.png"))
        assert in_sight(m), f"cell {cell}: the output's box {m['box']} is not inside the visible rect {m['seen']}"
        assert READABLE - 0.005 <= m["zoom"] <= 1.0 + 1e-9, f"cell {cell}: shown at {m['zoom']:.0%}"
