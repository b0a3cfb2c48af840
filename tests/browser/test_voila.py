"""Voilà (`voila examples/02_neuron.ipynb`): the notebook's widgets render on a real kernel, a dragged slider moves
the output, and the kernel's Values follow, read by a client of that kernel as a later cell would."""

from __future__ import annotations

import json
import math
import shutil
import time

import pytest

from .mgw_browser.dom import WidgetDom, expected_numbers, poll
from .mgw_browser.graphs import lecture_neuron, lecture_neuron_spelled_out
from .mgw_browser.voila import REPO, VoilaServer, kernel_prints

pytestmark = [pytest.mark.browser]

NOTEBOOK = REPO / "examples" / "02_neuron.ipynb"
SETTLE_DEBOUNCE_S = 0.5  # crosses the view's ~150 ms settle debounce before the kernel is asked
# Voilà's own lab template links Font Awesome's CSS from jsDelivr (voila/templates/lab/index.html.j2); the test
# answers those two with an empty style sheet so that any other request leaving 127.0.0.1 still fails it.
VOILA_CDN_CSS = "https://cdn.jsdelivr.net/npm/@fortawesome/fontawesome-free@*/css/*.css"
PRINT_NEURON = "import json\nprint('MGW-VOILA ' + json.dumps({'w1': w1.data, 'o': o.data}))\n"


@pytest.fixture
def voila(tmp_path, chromium_browser, widget_bundle):
    shutil.copy(NOTEBOOK, tmp_path / NOTEBOOK.name)
    server = VoilaServer(tmp_path / NOTEBOOK.name, tmp_path / "voila")
    server.start()
    try:
        yield server
    finally:
        server.stop()


def _printed(client):
    text = kernel_prints(client, PRINT_NEURON)
    return json.loads(text.split("MGW-VOILA ", 1)[1]) if "MGW-VOILA " in text else None


def test_voila_shows_the_neuron_and_the_kernel_follows_a_drag(voila, guarded_lab):
    page = guarded_lab.page
    page.set_viewport_size({"width": 1000, "height": 900})
    page.route(VOILA_CDN_CSS, lambda route: route.fulfill(status=200, content_type="text/css", body=""))
    page.goto(voila.url)
    # The notebook's outputs: the neuron (cell 2's bare o), explore(o), the neuron with tanh spelled out (cell 6).
    first, spelled = WidgetDom(page, 1), WidgetDom(page, 2)
    first.wait_ready(timeout_s=90)
    first.expect_numbers(expected_numbers(lecture_neuron()))
    spelled.wait_ready(timeout_s=60)
    o = lecture_neuron_spelled_out()
    spelled.expect_numbers({"o": {"data": o.data, "grad": 1.0}, "w1": {"data": -3.0, "grad": 1.0}})

    x = spelled.move_slider("w1", 0.8)
    assert x != -3.0, "slider w1 did not move"
    moved = lecture_neuron_spelled_out(w1=x)
    assert not math.isclose(moved.data, o.data), "the drag should move o"
    spelled.expect_numbers({"o": {"data": moved.data}, "w1": {"data": x}})

    time.sleep(SETTLE_DEBOUNCE_S)
    client = voila.kernel()
    try:
        printed = poll(lambda: _printed(client),
                       lambda p: p is not None and p["w1"] == x and math.isclose(p["o"], moved.data, rel_tol=1e-12),
                       "the kernel's w1 and o to hold what the view shows", timeout_s=30, interval_s=0.5)
    finally:
        client.stop_channels()
    assert printed["w1"] == x
