"""A Value's own display in a real JupyterLab 4: with no setup a bare ``L`` shows its graph (``Value._repr_html_``:
the static picture as an image, numbers as the engine computes them); ``%load_ext`` switches to the live widget with
the picture kept as its fallback, and ``%unload_ext`` back (closing the widgets it made). Reopened from disk (an
untrusted notebook, its HTML sanitized by Lab) the picture still shows."""

from __future__ import annotations

import nbformat
import pytest

from .mgw_browser.dom import poll
from .mgw_browser.graphs import LECTURE_L_SOURCE, lecture_L
from .mgw_browser.jupyter import write_notebook
from .mgw_browser.lab import cell_locator, cell_state, open_notebook, run_cell, stream_text

pytestmark = [pytest.mark.browser, pytest.mark.jupyterlab]

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
CELLS = [LECTURE_L_SOURCE + "L\n", "%load_ext micrograd_widget\nL\n", "%unload_ext micrograd_widget\nL\n"]


def picture_texts(page, cell: int) -> dict[str, list[str]]:
    """The texts of each value box (``g#n<i>``) of the picture shown in ``cell``'s output: the ``<img>``'s SVG,
    decoded from its data URL by the page, once the image has loaded (an empty dict until then)."""
    return cell_locator(page, cell).locator(".jp-OutputArea").evaluate(r"""area => {
        const img = area.querySelector('.mgw-static img');
        if (!img || !img.complete || !img.naturalWidth) return {};
        const svg = new DOMParser().parseFromString(atob(img.src.split(',')[1]), 'image/svg+xml');
        const out = {};
        for (const g of svg.querySelectorAll('g.node'))
          if (/^n\d+$/.test(g.id)) out[g.id] = [...g.querySelectorAll('text')].map(t => t.textContent);
        return out; }""")


def expected_texts() -> dict[str, list[str]]:
    """What the lecture's boxes must say, from the engine (tape order: a b e c d f L)."""
    nodes = lecture_L()
    order = ["a", "b", "e", "c", "d", "f", "L"]
    return {f"n{i}": [name, f"data {nodes[name].data:.4f}", f"grad {nodes[name].grad:.4f}"]
            for i, name in enumerate(order)}


def results(page, cell: int) -> list[set[str]]:
    return [set(o.get("data", {})) for o in cell_state(page, cell)["outputs"] if o.get("output_type") ==
            "execute_result"]


def test_a_bare_value_shows_its_picture_and_the_extension_switches_to_the_widget(jupyterlab, guarded_lab,
                                                                                  notebook_name):
    page = guarded_lab.page
    write_notebook(jupyterlab.notebooks / notebook_name, CELLS)
    open_notebook(page, jupyterlab, notebook_name)
    for cell in (0, 1):
        run_cell(page, cell, timeout_s=90)
    cell_locator(page, 1).locator("div.mgw-root").wait_for(state="attached", timeout=60_000)
    run_cell(page, 2, timeout_s=90)
    # %unload_ext closes the widgets the extension made (README: their graph is let go), so cell 1's view goes.
    cell_locator(page, 1).locator("div.mgw-root").wait_for(state="detached", timeout=60_000)
    poll(lambda: [results(page, i) for i in range(3)], lambda r: all(r), "every cell's result", timeout_s=90)
    assert not any(stream_text(cell_state(page, i)["outputs"]) for i in range(3))
    assert results(page, 0) == [{"text/plain", "text/html"}]
    assert results(page, 1) == [{WIDGET_MIME, "image/svg+xml", "text/html", "text/plain"}]
    assert results(page, 2) == [{"text/plain", "text/html"}]
    want = expected_texts()
    for cell in (0, 2):
        shown = poll(lambda c=cell: picture_texts(page, c), lambda s: len(s) == 7, f"cell {cell}'s picture")
        assert shown == want

    page.evaluate("() => window.jupyterapp.commands.execute('docmanager:save')")
    poll(lambda: page.evaluate("() => window.jupyterapp.shell.currentWidget.context.model.dirty"),
         lambda dirty: dirty is False, "the notebook to be saved")
    # A copy changed outside Lab (a cell added) carries no valid signature: Lab opens it untrusted and sanitizes
    # its HTML outputs, as for a notebook downloaded or received from someone else.
    saved = nbformat.read(str(jupyterlab.notebooks / notebook_name), as_version=4)
    saved.cells.append(nbformat.v4.new_code_cell("1 + 1"))
    copy = "untrusted-" + notebook_name
    nbformat.write(saved, str(jupyterlab.notebooks / copy))
    open_notebook(page, jupyterlab, copy)
    assert page.evaluate("() => window.jupyterapp.shell.currentWidget.content.widgets[0].model.trusted") is False
    shown = poll(lambda: picture_texts(page, 0), lambda s: len(s) == 7, "the reopened notebook's picture",
                 timeout_s=30)
    assert shown == want
