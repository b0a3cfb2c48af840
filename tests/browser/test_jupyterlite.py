"""End to end in JupyterLite: the site ``launch.sh --lite`` builds (micrograd_widget.host.lite, its downloads cached
between runs), served from 127.0.0.1 with every other request refused and failing the test: the lecture's neuron
(examples/02_neuron.ipynb) runs all its cells in Pyodide, its widgets render, w1 dragged moves o, and the next cell
sees the new w1 in the browser's Python; the other examples run all their cells there (draw_dot's table, the moons
loss folded live, watch() following both training loops)."""

from __future__ import annotations

import math
import time

import pytest
from builders import lecture_neuron_spelled

from micrograd_widget import Value
from micrograd_widget.engine import topological_order

from .mgw_browser.dom import expected_numbers, poll
from .mgw_browser.graphs import KERNEL_STATE_MARKER
from .mgw_browser.http import StaticServer
from .mgw_browser.lab import cell_state, marked_json, run_cell, set_cell_source, widget_in_cell
from .mgw_browser.lite import built_site, open_and_run_all

pytestmark = [pytest.mark.browser]

CODE_CELLS = (1, 2, 4, 6, 7, 8)  # 02_neuron.ipynb's (the others are markdown)
WIDGET_CELLS = (2, 4, 6)  # o (tanh), explore(o), o (tanh spelled out)
NEXT_CELL = 7
LAST_CELL = 8  # gradcheck(o), which the test replaces once the notebook has run
OPEN_WIDGETS = ("import gc, json\nfrom micrograd_widget.graph.widget import GraphWidget\n"
                f"print({KERNEL_STATE_MARKER!r} + json.dumps(sum(isinstance(w, GraphWidget) and w.comm is not None "
                "for w in gc.get_objects())))\n")
PRINT_NEURON = ("import json, sys\n"
                f"print({KERNEL_STATE_MARKER!r} + json.dumps({{'platform': sys.platform, **{{v.label: "
                "{'data': v.data, 'grad': v.grad} for v in (x1, x2, w1, w2, b, n, e, o)}}))\n")


def neuron(w1: float = -3.0) -> dict[str, Value]:
    """The notebook's second neuron (tanh spelled out) built by the engine here, the oracle for the page: its nodes
    by the labels the notebook gives (it labels no products or sums but n)."""
    o = lecture_neuron_spelled(w1)
    return {v.label: v for v in topological_order(o) if v.label in ("x1", "x2", "w1", "w2", "b", "n", "e", "o")}


@pytest.fixture(scope="session")
def lite_site(tmp_path_factory):
    """The site, built as ``launch.sh --lite`` builds it, served alone on 127.0.0.1."""
    with StaticServer(built_site(tmp_path_factory.mktemp("lite") / "site"), mounts=False) as server:
        yield server


def test_the_neuron_runs_in_jupyterlite_and_its_drag_reaches_pyodide(lite_site, guarded_lab):
    page = guarded_lab.page
    page.goto(f"{lite_site.url}/")  # the site's address opens JupyterLab with the examples
    page.locator(".jp-DirListing-item", has_text="02_neuron.ipynb").wait_for(timeout=60_000)
    open_and_run_all(page, lite_site, "02_neuron.ipynb")
    views = [widget_in_cell(page, i, timeout_s=120) for i in WIDGET_CELLS]
    poll(lambda: [cell_state(page, i)["count"] for i in CODE_CELLS], lambda counts: None not in counts,
         "Run All to reach the last cell", timeout_s=120, interval_s=0.5)
    for i in CODE_CELLS:
        errors = [o for o in cell_state(page, i)["outputs"] if o.get("output_type") == "error"]
        assert not errors, f"cell {i} raised in Pyodide: {errors}"
    view = views[-1]
    view.expect_numbers(expected_numbers(neuron()))

    x = view.move_slider("w1", 0.8)
    assert x != -3.0, "slider w1 did not move"
    want = expected_numbers(neuron(w1=x))
    assert math.isclose(want["o"]["data"], math.tanh(2 * x + 6.8813735870195432), rel_tol=1e-12)
    view.expect_numbers(want)

    time.sleep(0.5)  # past the widget's settle debounce before asking Pyodide
    set_cell_source(page, NEXT_CELL, PRINT_NEURON)
    printed = poll(lambda: marked_json(run_cell(page, NEXT_CELL)["outputs"], KERNEL_STATE_MARKER),
                   lambda p: p is not None and p["w1"]["data"] == x, "Pyodide's w1 to hold the dragged value",
                   timeout_s=30, interval_s=0.5)
    assert printed["platform"] == "emscripten"
    for label, fields in want.items():
        for field, value in fields.items():
            assert math.isclose(printed[label][field], value, rel_tol=1e-12, abs_tol=1e-12), (label, field)

    # The view's own tools, in the page beside Pyodide: a step of backprop, search, a step up the gradient.
    root = view.root
    root.locator('button[data-role="step-mode"]').click()
    root.locator('button[data-step="forward"]').click()
    poll(lambda: root.locator('[data-role="step-index"]').text_content() or "", lambda t: t.startswith("1 /"),
         "the stepper's first step")
    root.locator('button[data-role="step-mode"]').click()
    search = root.locator('input[data-role="search"]')
    search.fill("w2")
    search.press("Enter")
    poll(lambda: root.locator("svg .mgw-match").count(), lambda n: n >= 1, "search to mark w2")
    root.locator('[data-action="step-up"]').click()
    poll(lambda: root.locator('[data-role="steps"]').text_content(), lambda t: t == "1", "one step up")
    stepped = float(view.number_box("w1").input_value())
    assert stepped > x, f"a step up moved w1 from {x} to {stepped}, not up its gradient (which is > 0)"

    # Running the first neuron's cell again replaces its output: the widget %load_ext made for the old one is closed
    # (its graph let go), as in JupyterLab, though Pyodide's kernel passes IPython no cell id (the request holds it).
    set_cell_source(page, NEXT_CELL, OPEN_WIDGETS)
    before = marked_json(run_cell(page, NEXT_CELL)["outputs"], KERNEL_STATE_MARKER)
    run_cell(page, WIDGET_CELLS[0])
    widget_in_cell(page, WIDGET_CELLS[0], timeout_s=60)
    after = marked_json(run_cell(page, NEXT_CELL)["outputs"], KERNEL_STATE_MARKER)
    assert before >= 3 and after == before, f"open graph widgets: {before} before the re-run, {after} after"
    # Without the extension a bare Value is the widget in Pyodide: run again, its cell lets go of the old one too.
    set_cell_source(page, LAST_CELL, "%unload_ext micrograd_widget")
    run_cell(page, LAST_CELL)
    set_cell_source(page, LAST_CELL, "o")
    run_cell(page, LAST_CELL)
    widget_in_cell(page, LAST_CELL, timeout_s=60)
    before = marked_json(run_cell(page, NEXT_CELL)["outputs"], KERNEL_STATE_MARKER)
    run_cell(page, LAST_CELL)
    widget_in_cell(page, LAST_CELL, timeout_s=60)
    after = marked_json(run_cell(page, NEXT_CELL)["outputs"], KERNEL_STATE_MARKER)
    assert before >= 1 and after == before, f"open graph widgets, no extension: {before} before a re-run, {after} after"
    assert not guarded_lab.log.outside


# Each other example: its code cells, the cells showing a graph widget, and the training views' last steps.
EXAMPLES = {
    "01_expressions.ipynb": ((1, 3, 5, 7, 8, 10, 12, 14), (7, 10), ()),
    "03_mlp_training.ipynb": ((1, 3, 5, 7, 8, 10, 12, 14, 16, 17), (5, 12, 14), ("39", "14")),
}


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_every_example_runs_all_its_cells_in_jupyterlite(lite_site, guarded_lab, name):
    page = guarded_lab.page
    code, widgets, last_steps = EXAMPLES[name]
    open_and_run_all(page, lite_site, name)
    for i in widgets:
        widget_in_cell(page, i, timeout_s=180)
    poll(lambda: [cell_state(page, i)["count"] for i in code], lambda counts: None not in counts,
         "Run All to reach the last cell", timeout_s=180, interval_s=0.5)
    for i in code:
        errors = [o for o in cell_state(page, i)["outputs"] if o.get("output_type") == "error"]
        assert not errors, f"cell {i} raised in Pyodide: {errors}"
    if name == "01_expressions.ipynb":  # draw_dot: the table a browser's Python draws, saying why
        html = "".join(o["data"].get("text/html", "") for o in cell_state(page, 3)["outputs"] if "data" in o)
        assert "runs in your browser" in html and "install" not in html.lower()
    if name == "03_mlp_training.ipynb":  # Expand: a fold box of the moons loss opens in place
        moons = widget_in_cell(page, 12)
        moons.root.locator("svg g.mgw-fold").first.dblclick()
        moons.root.locator("svg g.mgw-cluster").first.wait_for(timeout=60_000)
    steps = page.locator('.mgw-training[data-state="ready"] [data-role="step"]')
    poll(lambda: tuple(t.strip() for t in steps.all_text_contents()), lambda shown: shown == last_steps,
         "watch() to show each loop's last step", timeout_s=60, interval_s=0.5)
    assert not guarded_lab.log.outside
