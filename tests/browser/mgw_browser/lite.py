"""The JupyterLite site as the browser tests and the screenshots drive it: built as ``launch.sh --lite`` builds it
(micrograd_widget.host.lite, its downloads cached between runs), opened on a notebook and run."""

from __future__ import annotations

import json
from pathlib import Path

from micrograd_widget.host.lite import build_site

from .lab import _PANEL_READY, run_all

KERNEL_START_S = 180  # Pyodide and the wheels load in ~30 s here; a loaded machine takes longer


def built_site(into: Path) -> Path:
    """The site built into ``into``; only for driving it, its page config exposes the app as ``window.jupyterapp``
    (what the Lab helpers use)."""
    site = build_site(into)
    config = site / "jupyter-lite.json"
    settings = json.loads(config.read_text())
    settings["jupyter-config-data"]["exposeAppInBrowser"] = True
    config.write_text(json.dumps(settings))
    return site


def open_and_run_all(page, server, name: str) -> None:
    """Open examples/``name`` in the site ``server`` serves, wait for Pyodide's kernel, and Run All."""
    page.goto(f"{server.url}/lab/index.html?path={name}")
    page.wait_for_function(_PANEL_READY, timeout=KERNEL_START_S * 1000, polling=500)
    run_all(page, "lab")
