"""End to end in a real JupyterLab 4 (and one Notebook 7 smoke test): the widget renders from a running
kernel, a dragged slider updates every node in the browser, and the kernel's Values follow (debounced)."""

from __future__ import annotations

import math
import time

import pytest

from .mgw_browser.dom import expected_numbers, poll
from .mgw_browser.graphs import KERNEL_STATE_MARKER, LECTURE_L_SOURCE, PRINT_LECTURE_L_SOURCE, lecture_L
from .mgw_browser.jupyter import write_notebook
from .mgw_browser.lab import (
    WIDGET_MIME,
    cell_state,
    marked_json,
    open_notebook,
    run_all,
    run_cell,
    set_cell_source,
    stream_text,
    widget_in_cell,
)

pytestmark = [pytest.mark.browser, pytest.mark.jupyterlab]

EXPLORE_CELL = LECTURE_L_SOURCE + "from micrograd_widget import explore\nw = explore(L)\nw\n"
SETTLE_DEBOUNCE_S = 0.5  # crosses the contract's ~150 ms settle debounce before asking the kernel


def _close(a: float, b: float) -> bool:
    return a == b or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


def _kernel_matches(printed, expected) -> bool:
    return printed is not None and all(
        _close(printed[label][field], want) for label, fields in expected.items() for field, want in fields.items())


def test_dragging_a_leaf_updates_the_view_and_the_kernel(jupyterlab, guarded_lab, notebook_name):
    page = guarded_lab.page
    write_notebook(jupyterlab.notebooks / notebook_name, [EXPLORE_CELL, PRINT_LECTURE_L_SOURCE])
    open_notebook(page, jupyterlab, notebook_name)
    run_all(page, "lab")
    view = widget_in_cell(page, 0)
    view.expect_numbers(expected_numbers(lecture_L()))

    x = view.move_slider("a", 0.85)
    assert x != 2.0, "slider a did not move"
    view.expect_numbers(expected_numbers(lecture_L(a=x)))

    # Arrow keys reach the slider (data-lm-suppress-shortcuts keeps Lab from taking them).
    slider_b = view.slider("b")
    before_b = float(slider_b.input_value())
    slider_b.focus()
    slider_b.press("ArrowRight")
    y = float(slider_b.input_value())
    assert y > before_b, f"ArrowRight in JupyterLab left slider b at {y} (was {before_b}): Lab took the key"
    want = expected_numbers(lecture_L(a=x, b=y))
    view.expect_numbers(want)

    time.sleep(SETTLE_DEBOUNCE_S)
    printed = poll(lambda: marked_json(run_cell(page, 1)["outputs"], KERNEL_STATE_MARKER),
                   lambda p: _kernel_matches(p, want), "the kernel's Values to hold what the widget shows",
                   timeout_s=30, interval_s=0.5)
    assert _kernel_matches(printed, want)
    view.expect_numbers(want)  # the kernel's echo did not change what the view shows

    # And the other way: a Python-side change of a leaf shows in the view.
    set_cell_source(page, 1, "w.set_leaf(a, 1.5)")
    run_cell(page, 1)
    assert not stream_text(cell_state(page, 1)["outputs"]), "w.set_leaf(a, 1.5) printed an error"
    view.expect_numbers(expected_numbers(lecture_L(a=1.5, b=y)))


def test_two_widgets_on_one_graph_follow_each_other(jupyterlab, guarded_lab, notebook_name):
    """Linked widgets: a drag in one reaches the other's view through the kernel, with no refresh(), both ways."""
    page = guarded_lab.page
    write_notebook(jupyterlab.notebooks / notebook_name, [EXPLORE_CELL, "w2 = explore(L)\nw2\n"])
    open_notebook(page, jupyterlab, notebook_name)
    run_all(page, "lab")
    one, two = widget_in_cell(page, 0), widget_in_cell(page, 1)
    two.expect_numbers(expected_numbers(lecture_L()))
    x = one.move_slider("a", 0.85)
    assert x != 2.0, "slider a did not move"
    two.expect_numbers(expected_numbers(lecture_L(a=x)), timeout_s=30)
    y = two.move_slider("f", 0.2)
    assert y != -2.0, "slider f did not move"
    want = expected_numbers(lecture_L(a=x, f=y))
    one.expect_numbers(want, timeout_s=30)
    two.expect_numbers(want)


def test_load_ext_shows_a_bare_value_as_the_widget(jupyterlab, guarded_lab, notebook_name):
    page = guarded_lab.page
    setup = "%load_ext micrograd_widget\n"  # the widget is the default view once the extension is loaded
    write_notebook(jupyterlab.notebooks / notebook_name, [setup + LECTURE_L_SOURCE + "L\n"])
    open_notebook(page, jupyterlab, notebook_name)
    run_all(page, "lab")
    view = widget_in_cell(page, 0)
    view.expect_numbers(expected_numbers(lecture_L()))
    bundle = next((o for o in cell_state(page, 0)["outputs"] if o.get("output_type") == "execute_result"), None)
    assert bundle is not None, "the bare `L` produced no execute_result"
    mimes = set(bundle["data"])
    assert WIDGET_MIME in mimes, f"no widget view in the bundle: {sorted(mimes)}"
    assert mimes & {"image/svg+xml", "text/html"}, f"no static fallback kept in the bundle: {sorted(mimes)}"
    x = view.move_slider("f", 0.2)
    view.expect_numbers(expected_numbers(lecture_L(f=x)))


def test_notebook7_renders_the_widget_and_a_slider_moves_a_number(jupyter_notebook, guarded_lab, notebook_name):
    page = guarded_lab.page
    write_notebook(jupyter_notebook.notebooks / notebook_name, [EXPLORE_CELL])
    open_notebook(page, jupyter_notebook, notebook_name)
    run_all(page, "notebook")
    view = widget_in_cell(page, 0)
    view.expect_numbers(expected_numbers(lecture_L()))
    x = view.move_slider("c", 0.3)
    view.expect_numbers(expected_numbers(lecture_L(c=x)))
