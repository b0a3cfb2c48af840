"""marimo, first-class: a real ``marimo run`` server (headless) driven by Playwright.

A bare ``Value`` as a cell's last expression shows the live widget (``Value._display_``), its numbers are the
engine's, and a slider moves every number (checked against the engine run here, in the test's own process, on
the same expression); ``watch(model)`` follows a training loop live and ends on its last step with no
``finish()`` (marimo has no cell events: training.py's timer flush), then says it finished (no ``log()`` for a
while: the idle end). No request leaves 127.0.0.1.
"""

from __future__ import annotations

import random
import shutil
import textwrap
import time
from typing import Any

import pytest
from builders import lecture_L
from playwright.sync_api import expect

from micrograd_widget.nn import MLP
from micrograd_widget.training.log import IDLE_END, IDLE_TICKS

from .mgw_browser.dom import WidgetDom, expected_numbers, poll
from .mgw_browser.marimo import LECTURE_L_CELL, Cell, MarimoServer, write_marimo_notebook

pytestmark = pytest.mark.browser


STEPS, EVERY, PAUSE = 40, 0.5, 0.04   # ~1.6 s of loop: pushes every 0.5 s, the last steps only by the timer


def training_cells(steps: int) -> list[Cell]:
    return [
        Cell("""
            import random
            from micrograd_widget.nn import MLP
            from micrograd_widget.training.widget import watch
            random.seed(7)
            model = MLP(3, [4, 4, 1])
            w = watch(model, every=EVERY)
            w
        """.replace("EVERY", repr(EVERY)), defines=("model", "w")),
        Cell("""
            import time
            xs = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
            ys = [1.0, -1.0, -1.0, 1.0]
            for _ in range(STEPS):
                loss = sum((model(x) - y) ** 2 for x, y in zip(xs, ys))
                model.zero_grad()
                loss.backward()
                for p in model.parameters():
                    p.data -= 0.05 * p.grad
                w.log(loss)
                time.sleep(PAUSE)
        """.replace("STEPS", str(steps)).replace("PAUSE", repr(PAUSE)), reads=("model", "w")),
    ]


def expected_losses(steps: int) -> list[float]:
    """The same run as the notebook's, computed here: the losses the view must end on."""
    random.seed(7)
    model = MLP(3, [4, 4, 1])
    xs = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
    ys = [1.0, -1.0, -1.0, 1.0]
    out = []
    for _ in range(steps):
        loss = sum((model(x) - y) ** 2 for x, y in zip(xs, ys))
        model.zero_grad()
        loss.backward()
        for p in model.parameters():
            p.data -= 0.05 * p.grad
        out.append(loss.data)
    return out


@pytest.fixture
def marimo_app(tmp_path, widget_bundle):
    """marimo_app(cells) -> the URL of a running ``marimo run`` of those cells (stopped after the test)."""
    servers: list[MarimoServer] = []

    def _start(cells: list[Cell]) -> str:
        nb = write_marimo_notebook(tmp_path / f"nb{len(servers)}.py", cells)
        server = MarimoServer(nb, tmp_path / f"marimo{len(servers)}")
        servers.append(server)
        return server.start().url

    yield _start
    for server in servers:
        server.stop()
        shutil.rmtree(server.home, ignore_errors=True)


def test_a_bare_value_is_the_live_widget_and_a_slider_moves_every_number(marimo_app, guarded_lab):
    page = guarded_lab.page
    page.goto(marimo_app([LECTURE_L_CELL, Cell("L", reads=("L",))]))
    view = WidgetDom(page)
    view.wait_ready(timeout_s=60)
    assert view.root.locator('[data-role="graph"]').get_attribute("data-layout-thread") == "worker"  # marimo allows it
    nodes = lecture_L()
    view.expect_numbers(expected_numbers(nodes))
    a = view.set_slider("a", 3.5)
    moved = lecture_L(a=a)                       # the engine, in this process, on the moved leaf
    assert moved["L"].data != nodes["L"].data
    view.expect_numbers(expected_numbers(moved))
    assert not guarded_lab.log.outside


def test_a_training_loop_updates_the_view_live_without_finish(marimo_app, guarded_lab):
    page = guarded_lab.page
    page.goto(marimo_app(training_cells(STEPS)))
    root = page.locator(".mgw-training")
    root.wait_for(state="attached", timeout=60_000)
    step = root.locator('[data-role="step"]')
    seen: list[str] = []

    def read() -> str:
        text = (step.text_content() or "").strip()
        if not seen or seen[-1] != text:
            seen.append(text)
        return text
    poll(read, lambda text: text == str(STEPS - 1), f"the view to reach step {STEPS - 1}", timeout_s=60)
    intermediate = [s for s in seen if s.isdigit() and 0 < int(s) < STEPS - 1]
    assert intermediate, f"the view jumped to the end without updating during the loop: {seen}"
    losses = expected_losses(STEPS)
    assert float(root.locator('[data-role="loss"]').get_attribute("data-value") or "nan") == losses[-1]
    time.sleep(2 * EVERY)
    assert (step.text_content() or "").strip() == str(STEPS - 1)
    # A plain loop, no finish(), no cell end to hear: no log() for IDLE_END seconds ends the run, and the view says so.
    status = root.locator('[data-role="status"]')
    poll(lambda: (status.text_content() or "").strip(), lambda text: text == f"finished after {STEPS} steps",
         "the view to say the run finished", timeout_s=IDLE_END * (1 + 1 / IDLE_TICKS) + 20)
    assert root.get_attribute("data-finished") == "true"
    assert not guarded_lab.log.outside



MLP_LOSS = """
    import random
    from micrograd_widget.nn import MLP
    random.seed(1)
    model = MLP(3, [4, 4, 1])
    xs = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
    ys = [1.0, -1.0, -1.0, 1.0]
    loss = sum((model(x) - y) ** 2 for x, y in zip(xs, ys))
    loss.backward()
"""


def test_the_widget_trains_in_marimo(marimo_app, guarded_lab):
    """Train in a marimo app (issue 21): steps are taken in the page and the loss falls below the one computed here."""
    here: dict[str, Any] = {}
    exec(textwrap.dedent(MLP_LOSS), here)  # the same loss, in this process: the number training must go below
    page = guarded_lab.page
    page.goto(marimo_app([Cell(MLP_LOSS, defines=("loss",)), Cell("loss", reads=("loss",))]))
    view = WidgetDom(page)
    view.wait_ready(timeout_s=60)
    train, steps = view.root.locator('[data-action="train"]'), view.root.locator('[data-role="steps"]')
    train.click()

    def count() -> int:
        return int((steps.text_content() or "0").replace(",", ""))

    poll(count, lambda n: n > 20, "training to take steps")
    # Past its first write-back to the kernel (learn-panel.js WRITE_BACK_MS, 1 s): marimo's front end sets the values
    # the view sent again once the kernel has them, which the view once took for a change and paused the run.
    before = count()
    time.sleep(2.5)
    assert train.get_attribute("aria-pressed") == "true", "training goes on past its write-backs to the kernel"
    assert count() > before
    train.click()
    assert train.get_attribute("aria-pressed") == "false"
    shown = float(view.root.locator('[data-role="learn-loss"]').text_content() or "nan")
    assert shown < here["loss"].data, "training must lower the loss"
    assert not guarded_lab.log.outside


def test_a_cell_run_again_lets_go_of_its_old_widget(marimo_app, guarded_lab):
    """A cell showing a bare Value runs again (here: its button is pressed): marimo closes the old widget's comm, and
    the widget itself is closed with it (engine.py ``_display_``), so ipywidgets' registry does not keep every run's
    widget, tape and graph for as long as the kernel runs."""
    page = guarded_lab.page
    page.goto(marimo_app([
        Cell("import marimo as mo\nagain = mo.ui.button(label='again', value=0, on_click=lambda n: n + 1)\nagain",
             defines=("mo", "again")),
        Cell("from micrograd_widget import Value\nv = Value(2.0 + again.value, label='v') * 3\nv",
             reads=("again",), defines=("v",)),
        Cell("from ipywidgets.widgets.widget import _instances\nfrom micrograd_widget.graph.widget import GraphWidget\n"
             "kept = sum(isinstance(w, GraphWidget) for w in list(_instances.values()))\n"
             "mo.md(f'graph widgets kept: {kept} after run {again.value}')", reads=("mo", "again", "v")),
    ]))
    WidgetDom(page).wait_ready(timeout_s=60)
    kept = page.get_by_text("graph widgets kept:")
    expect(kept).to_have_text("graph widgets kept: 1 after run 0", timeout=30_000)
    for run in (1, 2, 3):
        page.get_by_role("button", name="again").click()
        expect(kept).to_have_text(f"graph widgets kept: 1 after run {run}", timeout=30_000)
    assert not guarded_lab.log.outside
