"""Writes every picture README.md and docs/ show to examples/images/, from the current build, with the browser-test
harness (Debian's Chromium) in a 1000-px-wide window, as a learner's laptop shows them.

Run from the repository root: ``.venv/bin/python -m tests.browser.screenshots [file.png ...]``. Not a test: the
pictures are committed so the README shows what a user sees; re-run it after changing the view.
tests/test_screenshots.py checks that the README and docs/ name only pictures this script makes (``IMAGES``).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

# tests/ itself, as pytest's rootdir puts it on the path: mgw_browser/graphs.py imports the shared builders.py.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from .mgw_browser.chromium import launch
from .mgw_browser.dom import WidgetDom
from .mgw_browser.fake_model import open_view
from .mgw_browser.graphs import lecture_L, lecture_neuron, moons_loss
from .mgw_browser.http import StaticServer
from .mgw_browser.jupyter import JupyterServer, write_notebook
from .mgw_browser.lab import open_notebook, run_all, widget_in_cell
from .mgw_browser.lite import built_site, open_and_run_all

OUT = Path(__file__).resolve().parents[2] / "examples" / "images"

LECTURE = """%load_ext micrograd_widget
from micrograd_widget import Value
a = Value(2.0, label='a'); b = Value(-3.0, label='b'); c = Value(10.0, label='c'); f = Value(-2.0, label='f')
e = a * b; e.label = 'e'
d = e + c; d.label = 'd'
L = d * f; L.label = 'L'
L"""


WINDOW = {"width": 1000, "height": 900}   # the browser tests' window: what a learner's laptop shows


def folded_graph(page, server, path: Path) -> None:
    """micrograd's moons training loss (~65,800 nodes) folded by module in the live widget."""
    view = open_view(page, server, moons_loss(numbered=False))
    view.wait_ready()
    page.locator(".mgw-root").first.screenshot(path=str(path))


def widget_in_lab(page, lab: JupyterServer, path: Path) -> None:
    """The live widget in JupyterLab after dragging leaf ``a``."""
    write_notebook(lab.notebooks / "screenshot.ipynb", [LECTURE])
    open_notebook(page, lab, "screenshot.ipynb")
    page.evaluate("() => window.jupyterapp.commands.execute('application:toggle-left-area')")
    run_all(page, "lab")
    view = WidgetDom(page)
    view.wait_ready(60)
    view.set_slider("a", 3.0)
    page.wait_for_timeout(400)
    page.screenshot(path=str(path))


def stepper(page, server, path: Path) -> None:
    """The backprop stepper on the lecture's L, three steps into the backward pass."""
    L = lecture_L()["L"]
    open_view(page, server, L)
    page.locator('button[data-role="step-mode"]').click()
    for _ in range(3):
        page.locator('button[data-step="forward"]').click()
    page.wait_for_timeout(300)
    page.locator(".mgw-root").first.screenshot(path=str(path))


def gradcheck_panel(page, server, path: Path) -> None:
    """The inspector's numerical gradient check on the lecture's neuron."""
    open_view(page, server, lecture_neuron()["o"])
    page.locator('button[data-role="gradcheck"]').first.click()
    page.locator('[data-role="gradcheck-table"]').wait_for()
    page.wait_for_timeout(300)
    page.locator(".mgw-root").first.screenshot(path=str(path))


TRAINING = """from micrograd_widget import MLP, watch
import random
random.seed(1337)
xs = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
ys = [1.0, -1.0, -1.0, 1.0]
n = MLP(3, [4, 4, 1], act='tanh', output_nonlin=True)
w = watch(n)
display(w)
for k in range(60):
    ypred = [n(x) for x in xs]
    loss = sum((yout - ygt) ** 2 for ygt, yout in zip(ys, ypred))
    n.zero_grad()
    loss.backward()
    for p in n.parameters():
        p.data -= 0.05 * p.grad
    w.log(loss)"""


def training_in_lab(page, lab: JupyterServer, path: Path) -> None:
    """watch(model) in JupyterLab after training the lecture's MLP."""
    write_notebook(lab.notebooks / "training.ipynb", [TRAINING])
    open_notebook(page, lab, "training.ipynb")
    run_all(page, "lab")
    root = page.locator('.mgw-training[data-state="ready"]').first
    root.wait_for(timeout=60_000)
    page.wait_for_function("() => (document.querySelector('[data-role=step]') || {}).textContent?.includes('59')",
                           timeout=60_000)
    page.wait_for_timeout(500)
    root.screenshot(path=str(path))


def traced_path(page, server, path: Path) -> None:
    """The inspector's Path to output on the lecture's neuron: where o's gradient reaches w1."""
    open_view(page, server, lecture_neuron()["o"])
    page.locator('svg g[data-node="w1"]').first.click()
    page.locator('[data-action="trace-down"]').first.click()
    page.wait_for_timeout(300)
    page.locator(".mgw-root").first.screenshot(path=str(path))


def search_match(page, server, path: Path) -> None:
    """Search in micrograd's moons loss: a parameter found by its full dotted name, its box (or fold box) marked."""
    open_view(page, server, moons_loss(numbered=False))
    box = page.locator('input[data-role="search"]').first
    box.fill("layers.1.neurons.0.w1")
    box.press("Enter")
    page.wait_for_timeout(500)
    page.locator(".mgw-root").first.screenshot(path=str(path))


def opened_neuron(page, server, path: Path) -> None:
    """The lecture's MLP(3, [4, 4, 1]) loss with one neuron opened in place (its ops inside a dashed frame), at the
    zoom the view keeps after opening it."""
    from builders import lecture_mlp_loss

    from .mgw_browser.folds import NEURON

    view = open_view(page, server, lecture_mlp_loss())
    page.locator(f'svg g.mgw-fold[data-fold="{NEURON}"]').first.dblclick()
    page.wait_for_selector(f'svg g.mgw-cluster[data-fold="{NEURON}"]')
    view.wait_ready()
    page.wait_for_timeout(300)
    page.locator('.mgw-root [data-role="graph"]').first.screenshot(path=str(path))


def learning(page, server, path: Path) -> None:
    """Training the lecture's MLP in the page: a few hundred steps of descent, the loss curve beside the picture."""
    from builders import lecture_mlp_loss
    open_view(page, server, lecture_mlp_loss())
    page.locator('input[data-role="step-size"]').fill("0.01")
    page.locator('input[data-role="step-size"]').press("Enter")
    page.locator('[data-action="train"]').click()
    steps = "document.querySelector('[data-role=\"steps\"]').textContent.replace(/,/g, '')"
    page.wait_for_function(f"() => Number({steps}) > 1500")
    page.locator('[data-action="train"]').click()
    page.wait_for_timeout(300)
    page.locator(".mgw-root").first.screenshot(path=str(path))


def examples_in_jupyterlite(page, site: StaticServer, path: Path) -> None:
    """The examples in the JupyterLite site (launch.sh --lite): the neuron run in the browser's Python, w1 dragged."""
    open_and_run_all(page, site, "02_neuron.ipynb")
    view = widget_in_cell(page, 2, timeout_s=180)
    view.set_slider("w1", -1.0)
    view.root.scroll_into_view_if_needed()
    page.wait_for_timeout(600)
    page.screenshot(path=str(path))


# Each picture's file name in examples/images/ and the function that writes it: on the fake-model page (a static
# server), in a real JupyterLab, or in the JupyterLite site.
SHOTS = {"folded.png": folded_graph, "stepper.png": stepper, "gradcheck.png": gradcheck_panel,
         "learning.png": learning, "opened.png": opened_neuron, "trace.png": traced_path, "search.png": search_match}
LAB_SHOTS = {"widget-jupyterlab.png": widget_in_lab, "training.png": training_in_lab}
LITE_SHOTS = {"jupyterlite.png": examples_in_jupyterlite}
IMAGES = frozenset(SHOTS) | frozenset(LAB_SHOTS) | frozenset(LITE_SHOTS)


def main(names: list[str]) -> None:
    """Writes the pictures named (file names from ``IMAGES``), or all of them."""
    from playwright.sync_api import sync_playwright

    unknown = sorted(set(names) - IMAGES)
    if unknown:
        raise SystemExit(f"no screenshot is called {unknown}: choose from {sorted(IMAGES)}")
    wanted = names or sorted(IMAGES)
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp, StaticServer(Path(tmp)) as server, sync_playwright() as pw:
        browser = launch(pw)
        page = browser.new_context(viewport=WINDOW, device_scale_factor=1).new_page()
        for name in wanted:
            if name in SHOTS:
                SHOTS[name](page, server, OUT / name)
        if set(wanted) & set(LAB_SHOTS):
            lab = JupyterServer(Path(tmp) / "lab")
            lab.start()
            try:
                for name in wanted:
                    if name in LAB_SHOTS:
                        LAB_SHOTS[name](page, lab, OUT / name)
            finally:
                lab.stop()
        if set(wanted) & set(LITE_SHOTS):
            with StaticServer(built_site(Path(tmp) / "lite"), mounts=False) as site:
                for name in wanted:
                    if name in LITE_SHOTS:
                        LITE_SHOTS[name](page, site, OUT / name)
        browser.close()
    print("wrote", ", ".join(wanted))


if __name__ == "__main__":
    main(sys.argv[1:])
