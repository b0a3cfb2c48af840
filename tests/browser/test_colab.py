"""Google Colab's rules, emulated (mgw_browser/colab.py, pages/colab/): each widget output is its own page, its
widget manager's get_model(id) resolves only the models the displayed widget references (else Error('not
found')), anywidget's front end is the installed package's own JS loaded as an AMD module, and a real kernel
answers through a Jupyter server's websocket. A GraphWidget and a TrainingWidget render there, a slider's move
reaches the kernel's Values and the kernel's changes reach the view."""

from __future__ import annotations

import json
import math
import time

import pytest
from playwright.sync_api import expect

from .mgw_browser.colab import output_frame, run
from .mgw_browser.dom import WidgetDom, expected_numbers, poll
from .mgw_browser.graphs import (
    KERNEL_STATE_MARKER,
    LECTURE_L_SOURCE,
    PRINT_LECTURE_L_SOURCE,
    TRAIN_CELL,
    lecture_L,
)

pytestmark = [pytest.mark.browser]

SETTLE_DEBOUNCE_S = 0.5  # crosses the view's ~150 ms settle debounce before asking the kernel
GRAPH_CELL = LECTURE_L_SOURCE + "from micrograd_widget import explore\nw = explore(L)\nw\n"
# The loader asked the kernel for the assets (its fallback) only if answer_request recorded the widget.
ASKED_CELL = "from micrograd_widget.host import assets as _a\nprint('MGW-ASKED', {n} in _a._answered)\n"
VIEWS_IMPORTED = "() => globalThis[Symbol.for('micrograd-widget.views')]?.size ?? 0"  # js/host/loader.js's cache


@pytest.fixture
def colab_page(colab_host, guarded):
    """The host page on a new kernel: no request may leave 127.0.0.1 and no uncaught error (the host is ours)."""
    page = guarded.page
    page.set_viewport_size({"width": 1000, "height": 900})
    page.goto(colab_host.new_kernel())
    page.wait_for_function("() => window.colabHost")
    return page


def _marked(text: str, marker: str):
    for line in text.splitlines():
        if line.startswith(marker):
            return json.loads(line[len(marker):])
    return None


def _close(a: float, b: float) -> bool:
    return a == b or math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-12)


def test_a_graph_widget_under_colabs_rules_moves_and_the_kernel_follows(colab_page):
    page = colab_page
    run(page, GRAPH_CELL)
    frame = output_frame(page, 0)
    view = WidgetDom(frame)
    view.wait_ready(timeout_s=60)
    view.expect_numbers(expected_numbers(lecture_L()))

    # The views came through the widget's reference to the assets model, not the kernel fallback.
    assert "MGW-ASKED False" in run(page, ASKED_CELL.format(n="w"))

    x = view.move_slider("a", 0.85)
    assert x != 2.0, "slider a did not move"
    want = expected_numbers(lecture_L(a=x))
    view.expect_numbers(want)
    time.sleep(SETTLE_DEBOUNCE_S)
    printed = poll(lambda: _marked(run(page, PRINT_LECTURE_L_SOURCE), KERNEL_STATE_MARKER),
                   lambda p: p is not None and all(_close(p[k][f], v) for k, fs in want.items() for f, v in fs.items()),
                   "the kernel's Values to hold what the widget shows", timeout_s=30, interval_s=0.5)
    assert printed is not None

    # The kernel's write-back reaches the output's page.
    run(page, "w.set_leaf(a, 1.5)")
    view.expect_numbers(expected_numbers(lecture_L(a=1.5)))

    # Colab's rule holds in this host: a model the widget does not reference is "not found" in its page.
    other = run(page, "import ipywidgets\nother = ipywidgets.IntSlider()\nprint(other.model_id)").strip()
    assert frame.evaluate("id => colabRules.lookup(id)", other) == "not found"
    assets_id = run(page, "print(w._mgw_assets.model_id)").strip()
    assert frame.evaluate("id => colabRules.lookup(id)", assets_id) == "found"

    # A reloaded host knows no model made before (the assets model among them): the view asks the kernel.
    page.reload()
    page.wait_for_function("() => window.colabHost")
    run(page, "w2 = explore(L)\nw2\n")
    again = WidgetDom(output_frame(page, 0))
    again.wait_ready(timeout_s=60)
    again.expect_numbers(expected_numbers(lecture_L(a=1.5)))
    assert "MGW-ASKED True" in run(page, ASKED_CELL.format(n="w2"))


def test_a_training_widget_under_colabs_rules_shows_the_kernels_steps(colab_page):
    page = colab_page
    printed = _marked(run(page, TRAIN_CELL), "MGW-TRAINED ")
    assert printed is not None and printed["step"] == 39
    root = output_frame(page, 0).locator(".mgw-training")
    expect(root).to_have_attribute("data-state", "ready", timeout=60_000)
    expect(root.locator('[data-role="step"]')).to_have_text(str(printed["step"]), timeout=20_000)
    assert float(root.locator('[data-role="loss"]').get_attribute("data-value")) == printed["loss"]
    expect(root.locator('[data-role="status"]')).to_have_text("finished after 40 steps", timeout=20_000)
    assert "MGW-ASKED False" in run(page, ASKED_CELL.format(n="w"))

    # A second output is a second page (cell 2's): it imports the views for itself, as every Colab output must.
    run(page, GRAPH_CELL)
    view = WidgetDom(output_frame(page, 2))
    view.wait_ready(timeout_s=60)
    view.expect_numbers(expected_numbers(lecture_L()))
    for cell in (0, 2):
        assert output_frame(page, cell).evaluate(VIEWS_IMPORTED) == 1, f"cell {cell}'s page did not import the views"
