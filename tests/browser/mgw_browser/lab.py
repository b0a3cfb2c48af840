"""Driving a notebook in JupyterLab 4 / Notebook 7 through ``window.jupyterapp`` (exposed by the server's
``expose_app_in_browser``): open, wait for the kernel, run all, run one cell, read a cell's outputs."""

from __future__ import annotations

import json
from typing import Any

from .dom import WidgetDom, poll

_PANEL_READY = """() => {
  const p = window.jupyterapp && window.jupyterapp.shell && window.jupyterapp.shell.currentWidget;
  const kernel = p && p.sessionContext && p.sessionContext.session && p.sessionContext.session.kernel;
  return !!(p && p.content && p.content.widgets && p.content.widgets.length && p.context && p.context.isReady
            && kernel && kernel.connectionStatus === 'connected' && kernel.status === 'idle');
}"""

_CELL = """(i) => {
  const c = window.jupyterapp.shell.currentWidget.content.widgets[i].model;
  return {count: c.executionCount, outputs: c.outputs.toJSON()};
}"""

_RUN_CELL = """async (i) => {
  const nb = window.jupyterapp.shell.currentWidget.content;
  nb.activeCellIndex = i;
  if (nb.deselectAll) nb.deselectAll();
  await window.jupyterapp.commands.execute('notebook:run-cell');
}"""


def open_notebook(page, server, name: str, timeout_s: float = 90.0) -> None:
    """Open notebook ``name`` and wait until its kernel is connected and idle."""
    page.goto(server.notebook_url(name))
    page.wait_for_function(_PANEL_READY, timeout=timeout_s * 1000, polling=250)


def run_all(page, kind: str) -> None:
    """Run every cell: Lab's 'runmenu:run-all' (Notebook 7: 'notebook:run-all-cells')."""
    command = "runmenu:run-all" if kind == "lab" else "notebook:run-all-cells"
    page.evaluate("c => { window.jupyterapp.commands.execute(c); }", command)


def cell_state(page, index: int) -> dict[str, Any]:
    """{'count': execution count or None, 'outputs': nbformat outputs} of cell ``index``."""
    return page.evaluate(_CELL, index)


def run_cell(page, index: int, timeout_s: float = 60.0) -> dict[str, Any]:
    """Run cell ``index`` and wait until it has a new execution count; return its state."""
    before = cell_state(page, index)["count"]
    page.evaluate(_RUN_CELL, index)
    page.wait_for_function(
        """([i, before]) => { const p = window.jupyterapp.shell.currentWidget;
             const c = p.content.widgets[i].model; const k = p.sessionContext.session.kernel;
             return c.executionCount !== null && c.executionCount !== before && k.status === 'idle'; }""",
        arg=[index, before], timeout=timeout_s * 1000, polling=100)
    return cell_state(page, index)


def stream_text(outputs: list[dict[str, Any]]) -> str:
    """Everything a cell printed (stdout/stderr streams and error tracebacks), as one string."""
    parts = []
    for out in outputs:
        if out.get("output_type") == "stream":
            text = out.get("text", "")
            parts.append("".join(text) if isinstance(text, list) else text)
        elif out.get("output_type") == "error":
            parts.append(f"{out.get('ename')}: {out.get('evalue')}")
    return "".join(parts)


def marked_json(outputs: list[dict[str, Any]], marker: str) -> Any | None:
    """The JSON printed after ``marker`` on one line of a cell's output, or None."""
    for line in stream_text(outputs).splitlines():
        if line.startswith(marker):
            return json.loads(line[len(marker):])
    return None


def set_cell_source(page, index: int, source: str) -> None:
    """Replace the code of cell ``index`` (as typing it would)."""
    page.evaluate("([i, src]) => "
                  "window.jupyterapp.shell.currentWidget.content.widgets[i].model.sharedModel.setSource(src)",
                  [index, source])


def cell_locator(page, index: int):
    """The DOM of notebook cell ``index`` (its outputs included)."""
    return page.locator(".jp-Notebook .jp-Cell").nth(index)


def widget_in_cell(page, index: int, timeout_s: float = 90.0) -> WidgetDom:
    """The widget shown in cell ``index``'s output, once ready. Fails at once, with what the cell printed, when
    the cell raised or finished without a widget view in its outputs."""
    view = WidgetDom(cell_locator(page, index))

    def status() -> str | None:
        if view.root.count():
            return "widget"
        cell = cell_state(page, index)
        if any(o.get("output_type") == "error" for o in cell["outputs"]):
            return "error"
        done = cell["count"] is not None and page.evaluate(
            "() => window.jupyterapp.shell.currentWidget.sessionContext.session.kernel.status === 'idle'")
        has_view = any(WIDGET_MIME in o.get("data", {}) for o in cell["outputs"])
        return "no widget" if done and not has_view else None

    seen = poll(status, lambda s: s is not None, f"cell {index} to show a widget", timeout_s=timeout_s, interval_s=0.25)
    if seen != "widget":
        cell = cell_state(page, index)
        mimes = [sorted(o.get("data", {})) for o in cell["outputs"]]
        raise AssertionError(f"cell {index} shows no widget ({seen}); it printed {stream_text(cell['outputs'])!r}, "
                             f"output mime types {mimes}")
    view.wait_ready(timeout_s)
    return view


WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
