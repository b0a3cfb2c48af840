"""A notebook executed by nbclient (widget state stored, as docs builds and CI do) and reopened in JupyterLab by a
kernel that never ran it: both a GraphWidget and a TrainingWidget render from the saved state alone, their code
coming from the one shared assets model the state holds (stored once, however many widgets)."""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import expect

from .mgw_browser.dom import WidgetDom, expected_numbers
from .mgw_browser.graphs import LECTURE_L_SOURCE, lecture_L
from .mgw_browser.jupyter import executed_notebook_of
from .mgw_browser.lab import cell_locator, open_notebook

pytestmark = [pytest.mark.browser, pytest.mark.jupyterlab]

GRAPH_CELL = LECTURE_L_SOURCE + "from micrograd_widget import explore\nexplore(L)\n"
TRAIN_CELL = """\
import random
from micrograd_widget import MLP, watch
random.seed(3)
model = MLP(2, [3, 1])
w = watch(model)
display(w)
for k in range(5):
    loss = sum((model(x) - y) ** 2 for x, y in [([1.0, -1.0], 1.0), ([0.5, 2.0], -1.0)])
    model.zero_grad()
    loss.backward()
    for p in model.parameters():
        p.data -= 0.05 * p.grad
    w.log(loss)
w.finish()
"""
SECOND_GRAPH_CELL = LECTURE_L_SOURCE + "from micrograd_widget import explore\nexplore(L, precision=2)\n"


def executed_notebook(path) -> dict:
    """Write the three cells to ``path``, execute them with nbclient storing the widget state; return the state."""
    return executed_notebook_of(path, [GRAPH_CELL, TRAIN_CELL, SECOND_GRAPH_CELL])


def test_a_saved_notebook_reopened_without_its_kernel_state_renders_both_widgets(jupyterlab, guarded_lab,
                                                                                notebook_name):
    models = executed_notebook(jupyterlab.notebooks / notebook_name)
    assets = [m for m in models.values() if "digest" in m["state"]]  # its code and wasm are saved as buffers
    assert all(sorted(b["path"] for b in m.get("buffers", [])) == [["code"], ["wasm"]] for m in assets)
    views = [m for m in models.values() if "_mgw_assets" in m["state"]]
    assert len(assets) == 1 and len(views) == 3, "three widgets, one copy of the code"
    (assets_id,) = [k for k, m in models.items() if m is assets[0]]
    assert {m["state"]["_mgw_assets"] for m in views} == {f"IPY_MODEL_{assets_id}"}
    assert all(len(m["state"]["_esm"]) < 20_000 for m in views)
    graphs = [m for m in views if "folds" in m["state"]]   # the hierarchy's group_of is saved as a buffer
    assert len(graphs) == 2 and all(["folds", "group_of"] in [b["path"] for b in m["buffers"]] for m in graphs)
    assert all("dot" not in m["state"] and "view" not in m["state"] for m in graphs), "the view writes the picture"

    jupyterlab.trust(jupyterlab.notebooks / notebook_name)  # as the user who ran it: its outputs are trusted
    page = guarded_lab.page
    open_notebook(page, jupyterlab, notebook_name)  # a fresh kernel: it never made these widgets
    graph = WidgetDom(cell_locator(page, 0))
    graph.wait_ready(timeout_s=90)
    graph.expect_numbers(expected_numbers(lecture_L()))
    WidgetDom(cell_locator(page, 2)).wait_ready(timeout_s=60)
    training = cell_locator(page, 1).locator(".mgw-training")
    expect(training).to_have_attribute("data-state", "ready", timeout=60_000)
    expect(training.locator('[data-role="step"]')).to_contain_text("4")
    assert not page.locator("[data-role=load-error]").count()
    loaded = page.evaluate("() => [...(globalThis[Symbol.for('micrograd-widget.views')] || new Map()).keys()]")
    assert loaded == [assets[0]["state"]["digest"]], json.dumps(loaded)
