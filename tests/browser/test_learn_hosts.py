"""Learning where the widget runs (issue 21), beyond the fake-model page (tests/browser/test_learn.py): JupyterLab
and Notebook 7, where a Step up in the widget reaches the kernel's Values (the next cell sees them, grads recomputed),
and the exported page (save_html), which trains with no kernel, resets, and refuses at once, in words, to step a graph
with a user-defined op.

Expected numbers are worked out by hand or by the engine in this process, never read from the view."""

from __future__ import annotations

import math

import pytest
from builders import lecture_mlp_and_loss
from playwright.sync_api import expect

from micrograd_widget.core.ops import define_op
from micrograd_widget.engine import Value
from micrograd_widget.picture.text import format_number

from .mgw_browser.dom import WidgetDom, poll
from .mgw_browser.graphs import KERNEL_STATE_MARKER, LECTURE_L_SOURCE, PRINT_LECTURE_L_SOURCE
from .mgw_browser.jupyter import write_notebook
from .mgw_browser.lab import marked_json, open_notebook, run_all, run_cell, widget_in_cell

pytestmark = pytest.mark.browser

# After one step up at 0.01 from a=2, b=-3, c=10, f=-2 (grads 6, -4, -2, 4): a=2.06, b=-3.04, c=9.98, f=-1.96;
# e = a*b = -6.2624, d = e + c = 3.7176, L = d*f = -7.286496; dL/dd = dL/de = dL/dc = f = -1.96, dL/df = d = 3.7176,
# dL/da = b*f = 5.9584, dL/db = a*f = -4.0376. All by hand.
NUDGED = {
    "a": (2.06, 5.9584), "b": (-3.04, -4.0376), "c": (9.98, -1.96), "f": (-1.96, 3.7176),
    "e": (-6.2624, -1.96), "d": (3.7176, -1.96), "L": (-7.286496, 1.0),
}


def _nudged(printed: dict | None) -> bool:
    return printed is not None and all(
        math.isclose(printed[k]["data"], data, rel_tol=1e-12) and math.isclose(printed[k]["grad"], grad, rel_tol=1e-12)
        for k, (data, grad) in NUDGED.items())


EXPLORE_L = LECTURE_L_SOURCE + "from micrograd_widget import explore\nw = explore(L)\nw\n"


def _step_up_reaches_the_kernel(page, server, notebook_name: str, kind: str) -> None:
    """In ``server`` (JupyterLab: kind "lab"; Notebook 7: "notebook"), the lecture's L in a widget, one click of Step
    up at the default step size, then the next cell prints the kernel's Values: they must be NUDGED."""
    write_notebook(server.notebooks / notebook_name, [EXPLORE_L, PRINT_LECTURE_L_SOURCE])
    open_notebook(page, server, notebook_name)
    run_all(page, kind)
    view = widget_in_cell(page, 0)
    expect(view.root.locator('input[data-role="step-size"]')).to_have_value("0.01")  # the default NUDGED assumes
    view.root.locator('[data-action="step-up"]').click()
    expect(view.root.locator('[data-role="steps"]')).to_have_text("1")
    printed = poll(lambda: marked_json(run_cell(page, 1)["outputs"], KERNEL_STATE_MARKER), _nudged,
                   "the next cell to see a = 2.06, L = -7.286496 and the grads at those values", timeout_s=30,
                   interval_s=0.5)
    assert _nudged(printed), printed
    assert not view.error_text(), view.error_text()


@pytest.mark.jupyterlab
def test_a_step_up_in_lab_reaches_the_kernels_values_with_their_grads(jupyterlab, guarded_lab, notebook_name):
    _step_up_reaches_the_kernel(guarded_lab.page, jupyterlab, notebook_name, "lab")


@pytest.mark.jupyterlab
def test_a_step_up_in_notebook7_reaches_the_kernels_values_with_their_grads(jupyter_notebook, guarded_lab,
                                                                             notebook_name):
    _step_up_reaches_the_kernel(guarded_lab.page, jupyter_notebook, notebook_name, "notebook")


@pytest.fixture
def exported(tmp_path, static_server, guarded, widget_bundle):
    """exported(root) -> WidgetDom: save_html(root) served alone in a folder of the test server, rendered."""
    from micrograd_widget import save_html

    def _open(root: Value) -> WidgetDom:
        guarded.page.goto(static_server.serve_alone(save_html(root, tmp_path / "page.html"), f"learn-{tmp_path.name}"))
        view = WidgetDom(guarded.page)
        view.wait_ready(60)
        return view
    return _open


def _count(locator) -> int:
    return int((locator.text_content() or "0").replace(",", ""))


def test_the_exported_page_trains_pauses_and_resets(exported):
    _model, loss = lecture_mlp_and_loss()
    view = exported(loss)
    train, steps = view.root.locator('[data-action="train"]'), view.root.locator('[data-role="steps"]')
    shown = view.root.locator('[data-role="learn-loss"]')
    start = format_number(loss.data, 4)
    expect(shown).to_have_text(start)
    train.click()
    poll(lambda: _count(steps), lambda n: n > 50, "training in the page to take steps")
    train.click()
    expect(train).to_have_attribute("aria-pressed", "false")
    taken = _count(steps)
    assert taken > 50 and _count(steps) == taken, "paused: the count stays"
    assert float(shown.text_content() or "nan") < loss.data, "training must lower the loss"
    view.root.locator('button[data-role="reset"]').click()
    expect(steps).to_have_text("0")
    expect(shown).to_have_text(start)
    assert not view.error_text(), view.error_text()


def test_the_exported_page_refuses_at_once_to_train_a_graph_with_a_user_op(exported):
    cube = define_op("cube_for_learn_export", lambda x: x ** 3, lambda x, out: 3 * x * x)
    x = Value(2.0, label="x")
    y = Value.apply(cube, x)
    y.label = "y"
    view = exported(y)
    note = view.root.locator('[data-role="learn-note"]')
    expect(note).to_contain_text("cube_for_learn_export")
    for action in ("step-up", "train"):
        view.root.locator(f'[data-action="{action}"]').click()
        # Said at once (the generic "No kernel answered" comes only after the kernel's 8 s timeout).
        text = poll(view.error_text, lambda t: "training needs the kernel" in t, "the refusal in words", timeout_s=7)
        assert "this graph has an op the browser cannot replay (cube_for_learn_export)" in text, text
        assert "No kernel answered" not in text, text
        expect(view.root.locator('[data-role="steps"]')).to_have_text("0")
        expect(view.root.locator('[data-action="train"]')).to_have_attribute("aria-pressed", "false")
    view.expect_numbers({"x": {"data": 2.0}, "y": {"data": 8.0}})  # nothing moved
