"""The shared assets model: the views' code and Graphviz's WebAssembly, once per kernel, not once per widget.

Every GraphWidget and TrainingWidget (both :class:`AssetsWidget`) carries only a small loader as its ``_esm``
(static/loader.js) and a reference to one :class:`Assets` model (trait ``_mgw_assets``, ``"IPY_MODEL_<id>"``); the
loader fetches the model from the widget manager, imports the views once per page and renders the view named by
``_mgw_view``.
A notebook saved with its widget state thus stores the heavy code once, however many widgets it shows.
js/host/assets-contract.md is the interface (traits, encodings, the fallback message) for the front ends.

Correctness first: a closed assets model (``Widget.close_all()``, a marimo cell re-run) is replaced by a new
one on next use, and a view that cannot reach the model asks its widget (custom message ``{"type":
"assets"}``); the kernel then points the widget at a live assets model and answers with the two buffers, at most
once every :data:`ASK_INTERVAL` seconds per widget (the reply is the whole bundle and its WebAssembly): a request
sooner gets a small refusal naming the digest (another view of the widget on the page may have the views
already) and when to ask again, which the loader does, so a reloaded page's new view still gets its code.
"""

from __future__ import annotations

import gzip
import hashlib
import math
import time
import weakref
from functools import cache
from pathlib import Path
from typing import Any

import anywidget
import ipywidgets
import traitlets

__all__ = ["ASK_INTERVAL", "Assets", "AssetsWidget", "assets_reference", "answer_request", "loader_esm",
           "shared_assets"]

ASK_INTERVAL = 5.0  # seconds: a widget's view is sent the assets at most once in this time

_STATIC = Path(__file__).parent.parent / "static"
VIEWS = _STATIC / "views.js"
WASM = _STATIC / "graphviz.wasm.gz"
CSS = _STATIC / "views.css"


@cache
def _payload() -> tuple[bytes, bytes, str, str]:
    """(gzip of views.js, gzip'd WebAssembly, the views' CSS, digest), read once per process (deterministic)."""
    code = gzip.compress(VIEWS.read_bytes(), compresslevel=9, mtime=0)
    wasm = WASM.read_bytes()
    css = CSS.read_text(encoding="utf-8")
    return code, wasm, css, hashlib.sha256(code + wasm + css.encode()).hexdigest()


@cache
def loader_esm() -> str:
    """Every widget's ``_esm``: the small loader (read once into a string, never a Path: see widget.py)."""
    return (_STATIC / "loader.js").read_text(encoding="utf-8")


class Assets(ipywidgets.Widget):
    """A model with no view holding the front-end code every micrograd-widget view needs.

    ``code``: gzip of static/views.js; ``wasm``: Graphviz's WebAssembly, gzip'd; ``css``: both views' CSS
    (static/views.css); ``digest``: sha256 of the three, the page's cache key. Get the kernel's one instance
    with :func:`shared_assets`."""

    code = traitlets.Bytes().tag(sync=True)
    wasm = traitlets.Bytes().tag(sync=True)
    css = traitlets.Unicode().tag(sync=True)
    digest = traitlets.Unicode().tag(sync=True)

    def __init__(self, **kwargs: Any) -> None:
        code, wasm, css, digest = _payload()
        super().__init__(code=code, wasm=wasm, css=css, digest=digest, **kwargs)

    @property
    def closed(self) -> bool:
        """True once its comm is closed (``close()``, ``Widget.close_all()``, or the front end closed it)."""
        comm = getattr(self, "comm", None)
        return comm is None or bool(getattr(comm, "_closed", False))


_shared: Assets | None = None


def shared_assets() -> Assets:
    """The kernel's one assets model, made on first use and made again when the previous one was closed."""
    global _shared
    if _shared is None or _shared.closed:
        _shared = Assets()
    return _shared


class _AssetsReference(traitlets.Instance[Assets]):
    """A widget's reference to the shared assets model, which it defaults to (made when first read)."""

    def make_dynamic_default(self) -> Assets:
        return shared_assets()


def _to_json(value: Assets | None, widget: Any) -> str | None:
    """``"IPY_MODEL_<id>"`` of the assets model, or of a live one when it was closed (its id is gone)."""
    if value is None:
        return None
    live = shared_assets() if value.closed else value
    return f"IPY_MODEL_{live.model_id}"


def assets_reference() -> Any:
    """The ``_mgw_assets`` trait of a widget class: synced as ``"IPY_MODEL_<id>"`` of :func:`shared_assets`
    (ipywidgets' widget_serialization, except that a closed model is never named)."""
    from_json = ipywidgets.widget_serialization["from_json"]
    return _AssetsReference(Assets).tag(sync=True, to_json=_to_json, from_json=from_json)


_clock = time.monotonic
_answered: weakref.WeakKeyDictionary[Any, float] = weakref.WeakKeyDictionary()  # widget -> when it was sent them


def answer_request(widget: Any, content: Any, _buffers: Any) -> None:
    """A widget's ``on_msg`` handler for its view's ``{"type": "assets"}``: point the widget at a live assets
    model (a closed one is replaced) and send the view the CSS, and the code and the WebAssembly as two buffers;
    within :data:`ASK_INTERVAL` of the last sending to this widget, a refusal saying when to ask again instead."""
    if not (isinstance(content, dict) and content.get("type") == "assets"):
        return
    assets = shared_assets()
    if widget._mgw_assets is not assets:
        widget._mgw_assets = assets
    code, wasm, css, digest = _payload()
    now = _clock()
    last = _answered.get(widget)
    if last is not None and now - last < ASK_INTERVAL:
        wait = math.ceil((ASK_INTERVAL - (now - last)) * 10) / 10
        widget.send({"type": "assets", "digest": digest, "retry_after": wait,
                     "error": f"the assets were sent to this widget {now - last:.1f} s ago; they are sent at most "
                              f"once every {ASK_INTERVAL:g} s per widget: ask again in {wait:g} s"})
        return
    _answered[widget] = now
    widget.send({"type": "assets", "digest": digest, "css": css}, buffers=[code, wasm])


class AssetsWidget(anywidget.AnyWidget):
    """The header GraphWidget and TrainingWidget share: the loader as ``_esm``, the shared assets model, and the
    answer to the view's request for them. A subclass declares ``_mgw_view``, the name of the view it renders."""

    # Read once as strings: a Path would tie every instance to anywidget's class-level file watcher, which never
    # lets go of it (nor of the graph or model it holds).
    _esm = loader_esm()
    _css = ""  # the views' CSS travels with their code in the assets model (the loader adds it to the view)
    _mgw_assets = assets_reference()

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.on_msg(answer_request)
