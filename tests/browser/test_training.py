"""The training view (watch) in Chromium: with the fake model of pages/fake_model.html (its bundle swapped for
static/training.js), and end to end in JupyterLab with a real training loop. Expected numbers come from the
kernel-side parameters and the logged losses."""

from __future__ import annotations

import base64
import math
import random
from itertools import pairwise

import pytest
from builders import train_step
from playwright.sync_api import expect

from micrograd_widget.nn import MLP, lecture_data
from micrograd_widget.picture.colors import POSITIVE_COLOR, ColorScale, grad_color, grad_scale
from micrograd_widget.picture.text import format_number
from micrograd_widget.training.model_picture import neuron_norms
from micrograd_widget.training.widget import TrainingWidget, watch

from .mgw_browser.dom import poll, shown_equals
from .mgw_browser.fake_model import write_payload
from .mgw_browser.graphs import TRAIN_CELL
from .mgw_browser.jupyter import write_notebook
from .mgw_browser.lab import cell_locator, cell_state, marked_json, open_notebook, run_all, stream_text

pytestmark = pytest.mark.browser

ROOT = ".mgw-training"
PAGE = "pages/fake_model.html"


class FakeClock:
    """A clock the test moves by hand, so pushes happen exactly when the test says."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def payload(widget: TrainingWidget) -> dict:
    """The widget's synced state as a widget manager delivers it (binary buffers split out, base64)."""
    from ipywidgets.widgets.widget import _remove_buffers

    state = {k: v for k, v in widget.get_state().items() if k not in ("_esm", "_css")}
    state, buffer_paths, buffers = _remove_buffers(state)
    return {"state": state, "buffer_paths": buffer_paths,
            "buffers": [base64.b64encode(bytes(b)).decode("ascii") for b in buffers]}


@pytest.fixture(scope="session")
def training_page(static_server, widget_bundle) -> str:
    """pages/fake_model.html (one fake model for every view: the loader renders the view the state names)."""
    return PAGE


@pytest.fixture
def show(guarded, static_server, training_page):
    """show(widget) -> the view's root locator, rendered from ``widget.get_state()`` and ready."""
    page = guarded.page

    def _show(widget: TrainingWidget):
        url = write_payload(static_server.root, payload(widget))
        page.goto(f"{static_server.url}/{training_page}?state={url}")
        page.wait_for_function("() => window.__mgw && (window.__mgw.ready || window.__mgw.error)", timeout=60_000)
        error = page.evaluate("() => window.__mgw.error")
        assert not error, f"render() failed in the fake-model page: {error}"
        root = page.locator(ROOT)
        expect(root).to_have_attribute("data-state", "ready", timeout=30_000)
        return root
    return _show


def push_to_page(page, before: dict, widget: TrainingWidget) -> None:
    """Deliver what changed in the widget's state since ``before`` to the page's model, as the kernel would."""
    after = payload(widget)["state"]
    changed = {k: v for k, v in after.items() if before.get(k) != v}
    assert changed, "the kernel side changed no synced state"
    page.evaluate("changed => { for (const [k, v] of Object.entries(changed)) window.__mgw.model.set(k, v); }", changed)


def shown_grads(root) -> dict[str, float]:
    return root.evaluate("""r => Object.fromEntries([...r.querySelectorAll('[data-neuron]')]
        .map(e => [e.getAttribute('data-neuron'), Number(e.getAttribute('data-grad'))]))""")


def curve_vertices(root) -> int:
    return root.evaluate("""r => (r.querySelector('[data-role="loss-curve"] [data-role="loss-line"]')
        .getAttribute('d').match(/[ML]/g) || []).length""")


def test_the_curve_grows_and_the_boxes_change_in_place_when_the_kernel_pushes(show, guarded):
    random.seed(3)
    model = MLP(3, [4, 4, 1], act="tanh", output_nonlin=True)
    xs, ys = lecture_data()
    clock = FakeClock()
    w = watch(model, clock=clock)
    for _ in range(5):
        w.log(train_step(model, xs, ys))
        clock.now += 1.0
    root = show(w)
    page = guarded.page

    curve = root.locator('[data-role="loss-curve"]')
    expect(curve).to_have_attribute("data-points", "5")
    assert curve_vertices(root) == 5
    expect(root.locator('[data-role="step"]')).to_have_text("4")
    loss = root.locator('[data-role="loss"]')
    assert float(loss.get_attribute("data-value")) == w.losses[-1]
    assert loss.text_content() == format_number(w.losses[-1], 4), "the loss is shown at the precision option"
    units = w.boxes
    want = dict(zip((u.id for u in units), neuron_norms([p.grad for p in model.parameters()], units)))
    assert set(shown_grads(root)) == set(want) == {f"layers.{i}.neurons.{j}" for i, n in ((0, 4), (1, 4), (2, 1))
                                                   for j in range(n)}
    assert shown_grads(root) == want

    box = root.locator('[data-neuron="layers.0.neurons.3"]')
    number = box.locator("text").nth(1)
    fill_before = box.locator("polygon").first.get_attribute("fill")
    text_before = number.text_content()
    assert shown_equals(text_before, want["layers.0.neurons.3"])
    page.evaluate("""() => { const r = document.querySelector('.mgw-training');
        r.__line = r.querySelector('[data-role="loss-line"]');
        r.__box = r.querySelector('[data-neuron="layers.0.neurons.3"]');
        r.__svg = r.querySelector('[data-role="model-graph"] svg'); }""")

    before = payload(w)["state"]
    for p in model.layers[0].neurons[3].parameters():  # this box now has the largest norm: full orange
        p.grad = 40.0 * (p.grad or 1.0)
    w.log(7.5)
    push_to_page(page, before, w)

    expect(curve).to_have_attribute("data-points", "6")
    poll(lambda: curve_vertices(root), lambda n: n == 6, "the curve to have 6 points")
    expect(root.locator('[data-role="step"]')).to_have_text("5")
    expect(root.locator('[data-role="loss"]')).to_have_text("7.5000")
    want = dict(zip((u.id for u in units), neuron_norms([p.grad for p in model.parameters()], units)))
    poll(lambda: shown_grads(root), lambda g: g == want, "the boxes to show the new grad norms")
    assert shown_equals(number.text_content(), want["layers.0.neurons.3"])
    assert number.text_content() != text_before
    same = page.evaluate("""() => { const r = document.querySelector('.mgw-training');
        return r.__line === r.querySelector('[data-role="loss-line"]')
            && r.__box === r.querySelector('[data-neuron="layers.0.neurons.3"]')
            && r.__svg === r.querySelector('[data-role="model-graph"] svg'); }""")
    assert same, "the curve or the model picture was rebuilt instead of updated in place"
    scale = grad_scale(want.values())
    fills = root.evaluate("""r => Object.fromEntries([...r.querySelectorAll('[data-neuron]')]
        .map(e => [e.getAttribute('data-neuron'), e.querySelector('polygon').getAttribute('fill')]))""")
    assert fills == {unit: grad_color(norm, ColorScale(scale, 4)) for unit, norm in want.items()}
    assert fills["layers.0.neurons.3"] == POSITIVE_COLOR != fill_before


def test_a_nan_loss_breaks_the_line_and_is_marked(show):
    random.seed(4)
    model = MLP(2, [3, 1])
    w = watch(model, clock=FakeClock())
    for x in (1.0, 0.8, math.nan, 0.5, 0.4):
        w.log(x)
    w.flush()
    root = show(w)
    expect(root.locator('[data-role="loss-curve"]')).to_have_attribute("data-points", "5")
    d = root.locator('[data-role="loss-line"]').get_attribute("d")
    assert d.count("M") == 2 and d.count("L") == 2, f"the NaN at step 2 should split the line in two: {d!r}"
    marks = root.locator('[data-role="nonfinite-marks"]').get_attribute("d")
    assert marks.count("M") == 1, f"one red mark for the one NaN step: {marks!r}"
    expect(root.locator('[data-role="nonfinite"]')).to_contain_text("1 step had a non-finite loss")


def test_numbers_show_at_the_precision_and_the_status_says_when_the_run_finished(show, guarded):
    random.seed(5)
    model = MLP(2, [3, 1])
    w = watch(model, precision=2, clock=FakeClock())
    w.log(0.123456789)
    root = show(w)
    loss = root.locator('[data-role="loss"]')
    expect(loss).to_have_text("0.12")
    assert loss.get_attribute("data-value") == "0.123456789"
    expect(root.locator('[data-role="status"]')).to_have_text("training\u2026")
    before = payload(w)["state"]
    w.log(0.5)
    w.finish()
    push_to_page(guarded.page, before, w)
    expect(root.locator('[data-role="status"]')).to_have_text("finished after 2 steps")
    expect(loss).to_have_text("0.50")


def test_log_scale_toggle_redraws_and_tells_the_model(show, guarded):
    random.seed(5)
    model = MLP(2, [3, 1])
    w = watch(model, clock=FakeClock())
    for k in range(20):
        w.log(10.0 ** (-k / 4))
    w.flush()
    root = show(w)
    line = root.locator('[data-role="loss-line"]')
    linear = line.get_attribute("d")
    toggle = root.locator('input[data-role="log-scale"]')
    expect(toggle).to_have_attribute("data-lm-suppress-shortcuts", "true")
    toggle.check()
    poll(lambda: line.get_attribute("d"), lambda d: d != linear, "the curve to redraw on a log scale")
    ys = [float(p.split(" ")[1]) for p in line.get_attribute("d")[1:].split("L")]
    steps = [b - a for a, b in pairwise(ys)]
    assert max(steps) - min(steps) < 0.2, f"a geometric decay should be a straight line on a log scale: {ys}"
    log = guarded.page.evaluate("() => window.__mgw.log")
    assert ["log_scale", True] in log["set"] and log["save"], f"the toggle did not reach the model: {log}"


def test_clicking_a_box_lists_its_parameters_grads_and_follows_pushes(show, guarded):
    random.seed(6)
    model = MLP(3, [4, 4, 1])
    xs, ys = lecture_data()
    w = watch(model, clock=FakeClock())
    w.log(train_step(model, xs, ys))
    root = show(w)
    root.locator('[data-neuron="layers.1.neurons.2"]').click()
    inspector = root.locator('[data-role="inspector"]')
    expect(inspector).to_be_visible()
    neuron = model.layers[1].neurons[2]
    names = [f"w{k}" for k in range(len(neuron.w))] + ["b"]
    params = [*neuron.w, neuron.b]
    for name, p in zip(names, params):
        row = inspector.locator(f'[data-param="{name}"]')
        for field, x in (("grad", p.grad), ("data", p.data)):
            cell = row.locator(f'[data-field="{field}"]')
            assert float(cell.get_attribute("data-value")) == x
            assert cell.text_content() == format_number(x, 4), f"{name}.{field} is not shown at the precision"
    before = payload(w)["state"]
    neuron.b.grad = -123.25
    w.flush()
    push_to_page(guarded.page, before, w)
    expect(inspector.locator('[data-param="b"] [data-field="grad"]')).to_have_text("-123.2500")


def test_hostile_scope_names_render_as_text(show, guarded):
    from micrograd_widget.engine import Value, scope
    from micrograd_widget.nn import Module

    hostile = "<img src=x onerror=alert(1)>"

    class Odd(Module):
        def __init__(self) -> None:
            with scope(f"{hostile}.neurons.0"):
                self.a = Value(1.0, label="<b>a</b>")

        def parameters(self):
            return [self.a]

    m = Odd()
    m.a.grad = 2.0
    w = watch(m, clock=FakeClock())
    root = show(w)
    assert root.locator("img, script").count() == 0
    assert hostile in root.text_content()
    assert not guarded.log.dialogs


# ---------------------------------------------------------------- JupyterLab, a real kernel


@pytest.mark.jupyterlab
def test_a_training_loop_in_jupyterlab_shows_its_final_step_and_loss(jupyterlab, guarded_lab, notebook_name):
    page = guarded_lab.page
    write_notebook(jupyterlab.notebooks / notebook_name, [TRAIN_CELL])
    open_notebook(page, jupyterlab, notebook_name)
    run_all(page, "lab")
    printed = poll(lambda: marked_json(cell_state(page, 0)["outputs"], "MGW-TRAINED "), lambda p: p is not None,
                   "the training cell to print its final step and loss", timeout_s=60, interval_s=0.25)
    assert not [o for o in cell_state(page, 0)["outputs"] if o.get("output_type") == "error"], \
        stream_text(cell_state(page, 0)["outputs"])
    root = cell_locator(page, 0).locator(ROOT)
    expect(root).to_have_attribute("data-state", "ready", timeout=60_000)
    step = root.locator('[data-role="step"]')
    expect(step).to_have_text(str(printed["step"]), timeout=20_000)
    assert float(root.locator('[data-role="loss"]').get_attribute("data-value")) == printed["loss"]
    expect(root.locator('[data-role="loss"]')).to_have_text(format_number(printed["loss"], 4))
    # A plain loop, no finish(): the end of its cell ends the run, and the view says so.
    expect(root.locator('[data-role="status"]')).to_have_text("finished after 40 steps", timeout=20_000)
    expect(root.locator('[data-role="loss-curve"]')).to_have_attribute("data-points", str(printed["step"] + 1))
    shown = poll(lambda: shown_grads(root), lambda g: set(g) == set(printed["grads"]), "every neuron's box")
    for unit, norm in printed["grads"].items():
        assert math.isclose(shown[unit], norm, rel_tol=1e-12, abs_tol=1e-15), (unit, shown[unit], norm)
    assert printed["step"] == 39, "the cell's loop runs k = 0..39"
