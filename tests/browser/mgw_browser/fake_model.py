"""The widget view without Jupyter: Python's ``GraphWidget(root).get_state()`` (less ``_esm``/``_css``) dumped to
JSON and handed by pages/fake_model.html to the real loader (static/loader.js, every widget's ``_esm``) with a fake
model that records ``save_changes``/``send`` and a fake widget manager whose ``get_model`` serves the shared assets
model (micrograd_widget.host.assets) from the test server (/mgw-assets/<id>.json, see http.py). Trait names come only
from ``get_state()``, never from this file."""

from __future__ import annotations

import base64
import itertools
import json
from pathlib import Path
from typing import Any

from .dom import WidgetDom

_counter = itertools.count()


def widget_payload(root_or_widget: Any, **options: Any) -> dict[str, Any]:
    """The synced state of ``GraphWidget(root, **options)`` (or of a given widget) as the page loads it:
    JSON state with binary buffers split out (base64) at their paths, as a widget manager would deliver them."""
    from micrograd_widget.graph.widget import GraphWidget

    widget = root_or_widget if isinstance(root_or_widget, GraphWidget) else GraphWidget(root_or_widget, **options)
    return _encoded({k: v for k, v in widget.get_state().items() if k not in ("_esm", "_css")})


def _encoded(state: dict[str, Any]) -> dict[str, Any]:
    """``state`` as the page reads it: JSON with its binary buffers split out (base64) at their paths."""
    from ipywidgets.widgets.widget import _remove_buffers

    state, buffer_paths, buffers = _remove_buffers(state)
    return {"state": state, "buffer_paths": buffer_paths,
            "buffers": [base64.b64encode(bytes(b)).decode("ascii") for b in buffers]}


def kernel_message(widget: Any, names: list[str]) -> dict[str, Any]:
    """One update message from the kernel's ``widget`` holding its traits ``names``, for the page's model to take as
    a widget manager does: ``window.__mgw.model._receive(message)`` (pages/fake_model.html)."""
    return _encoded(widget.get_state(names))


_assets_cache: dict[str, bytes] = {}


def assets_json(model_id: str) -> bytes | None:
    """The synced state of the live assets model ``model_id`` (micrograd_widget.host.assets), as JSON with base64
    buffers (the page's fake widget manager serves it to the loader); None when no such model is open."""
    from ipywidgets.widgets.widget import _instances, _remove_buffers

    from micrograd_widget.host.assets import Assets

    widget = _instances.get(model_id)
    if not isinstance(widget, Assets) or widget.closed:
        return None
    if model_id not in _assets_cache:
        state, buffer_paths, buffers = _remove_buffers(widget.get_state())
        _assets_cache[model_id] = json.dumps({
            "state": state, "buffer_paths": buffer_paths,
            "buffers": [base64.b64encode(bytes(b)).decode("ascii") for b in buffers]}).encode()
    return _assets_cache[model_id]


def write_payload(folder: Path, payload: dict[str, Any]) -> str:
    """Write ``payload`` under ``folder`` (the server's root) in a fresh sub-folder; return its URL path."""
    sub = f"view-{next(_counter)}"
    (folder / sub).mkdir(parents=True, exist_ok=True)
    (folder / sub / "state.json").write_text(json.dumps(payload, allow_nan=False))
    return f"/{sub}/state.json"


def open_view(page, server, root_or_widget: Any, theme: str | None = None, wait_ready: bool = True,
              **options: Any) -> WidgetDom:
    """Render the widget for ``root_or_widget`` in ``page`` with a fake model; wait until it is ready."""
    state_url = write_payload(server.root, widget_payload(root_or_widget, **options))
    query = f"state={state_url}" + (f"&theme={theme}" if theme else "")
    page.goto(f"{server.url}/pages/fake_model.html?{query}")
    page.wait_for_function("() => window.__mgw && (window.__mgw.ready || window.__mgw.error)", timeout=60_000)
    error = page.evaluate("() => window.__mgw.error")
    if error:
        raise AssertionError(f"render() failed in the fake-model page: {error}")
    view = WidgetDom(page)
    if wait_ready:
        view.wait_ready()
    return view


def model_log(page) -> dict[str, list]:
    """What the view did to the model so far: {'save': [...], 'send': [...], 'set': [[key, value], ...]}."""
    return page.evaluate("() => window.__mgw.log")
