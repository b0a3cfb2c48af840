"""The widgets ``%load_ext`` made, by the cell whose output shows them: closed when that output is replaced.

A front end that sends the cell's id with its execute request (JupyterLab, Notebook 7 and VS Code put ``cellId``
in the request's metadata; ipykernel passes it to IPython's ``pre_run_cell`` event as ``info.cell_id``) clears
the cell's output when it runs the cell again, so the widgets made for that output are off screen: they are
closed then (GraphWidget.close() lets go of the tape and the graph), and all of them when the extension unloads.
A kernel that runs the cell without passing its id on (JupyterLite's Pyodide kernel calls ``run_cell`` with the
code alone) still holds the request it is answering (``kernel.get_parent()``): the id is read from its metadata.
There a bare Value is the live widget even without ``%load_ext`` (engine.py): ``record_bare_display`` closes those
the same way, hooked on the first such display. marimo has no IPython cells: ``close_with_marimo_cell`` hands a bare
Value's widget to the cell's own lifecycle there.

What might still be on screen is never closed: a display with no cell id (plain IPython, a front end that
sends none, a comm callback between cells) and one made while an ipywidgets ``Output`` captures the display
(its output may sit in another cell) are kept until ``%unload_ext``. Widgets the user made with explore() are
not the extension's: only those :meth:`CellOutputs.record` was given are ever closed here. A widget sent into
another cell's output with ``update_display`` belongs to the cell that made it.
"""

from __future__ import annotations

import logging
import weakref
from typing import Any

__all__ = ["CellOutputs", "close_with_marimo_cell", "record_bare_display"]

_log = logging.getLogger(__name__)


class CellOutputs:
    """The extension's widgets in one shell, by cell id; ``attach`` hooks it to the shell's cell events."""

    def __init__(self) -> None:
        self._by_cell: dict[str, list[weakref.ref[Any]]] = {}
        self._kept: list[weakref.ref[Any]] = []   # shown with no cell to replace them: closed only on unload
        self._running: list[tuple[Any, str | None]] = []  # (ExecutionInfo, its cell id): cells run inside cells
        self._shell: Any = None   # the shell followed: its kernel's request holds the cell id when info has none

    def attach(self, shell: Any) -> None:
        """Follow ``shell``'s cells (IPython's ``pre_run_cell``/``post_run_cell`` events)."""
        self._shell = shell
        shell.events.register("pre_run_cell", self._pre_run_cell)
        shell.events.register("post_run_cell", self._post_run_cell)

    def detach(self, shell: Any) -> None:
        """Stop following ``shell``'s cells and close every widget recorded (the extension is unloaded)."""
        for event, callback in (("pre_run_cell", self._pre_run_cell), ("post_run_cell", self._post_run_cell)):
            if callback in shell.events.callbacks.get(event, ()):
                shell.events.unregister(event, callback)
        widgets = [ref for refs in self._by_cell.values() for ref in refs] + self._kept
        self._shell = None
        self._by_cell.clear()
        self._kept.clear()
        self._running.clear()
        _close(widgets)

    def record(self, widget: Any, *, from_request: bool = False) -> None:
        """A widget just made for a display: it belongs to the output of the cell running now, if any. With
        ``from_request``, when no cell start was seen (hooked in mid-cell), the cell of the kernel's request."""
        cell = self._running[-1][1] if self._running else _requested_cell(self._shell) if from_request else None
        ref = weakref.ref(widget)
        if cell is None or _output_widget_capturing():
            self._kept = [r for r in self._kept if r() is not None]
            self._kept.append(ref)
        else:
            self._by_cell.setdefault(cell, []).append(ref)

    def _pre_run_cell(self, info: Any) -> None:
        """A cell starts: the widgets of its previous output are off screen now (the front end cleared it)."""
        cell = getattr(info, "cell_id", None)
        if not (isinstance(cell, str) and cell):
            # the request's cell for a cell the front end ran, not for one a cell runs (run_cell inside a cell)
            cell = None if self._running else _requested_cell(self._shell)
        if cell is not None:
            _close(self._by_cell.pop(cell, []))
        self._running.append((info, cell))

    def _post_run_cell(self, result: Any) -> None:
        """A cell ended (``result`` None when it could not start): displays after it belong to no cell."""
        if result is None:      # IPython could not run it (the cell's start may have been seen): the newest
            del self._running[-1:]
            return
        info = getattr(result, "info", None)
        for depth in range(len(self._running) - 1, -1, -1):
            if self._running[depth][0] is info:
                del self._running[depth:]
                return


# The widgets shown for a bare Value (no %load_ext) in a browser's Python, per shell: hooked on the first such display.
_bare: dict[int, tuple[Any, CellOutputs]] = {}


def record_bare_display(widget: Any) -> None:
    """A widget a bare Value's display made in a browser's Python (Pyodide, as in JupyterLite: engine.py
    ``Value._repr_mimebundle_``): closed when its cell runs again, as the extension's are (there is no unload: they
    all stay until then). Nothing outside IPython (marimo keeps its own outputs)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return
    shell = get_ipython()
    if shell is None:
        return
    entry = _bare.get(id(shell))
    if entry is None or entry[0] is not shell:
        entry = (shell, CellOutputs())
        entry[1].attach(shell)
        _bare[id(shell)] = entry
    entry[1].record(widget, from_request=True)


def close_with_marimo_cell(widget: Any) -> None:
    """In marimo: close ``widget`` when the cell that shows it runs again or is deleted (engine.py
    ``Value._display_``). marimo closes an anywidget's comm then but not the widget, which ipywidgets' registry
    kept, with its tape and graph, for as long as the kernel ran. Outside a marimo cell (or a marimo without its cell
    lifecycle: it is marimo's runtime API, as its own anywidget support uses it), nothing."""
    try:
        from marimo._runtime.cell_lifecycle_item import CellLifecycleItem
        from marimo._runtime.context import ContextNotInitializedError, get_context
    except ImportError:
        return

    shown = weakref.ref(widget)  # the cell's registry keeps the item: not the widget, closed by hand meanwhile

    class _CloseWidget(CellLifecycleItem):
        def create(self, context: Any) -> None:
            del context

        def dispose(self, context: Any, deletion: bool) -> bool:
            del context, deletion
            _close([shown])
            return True

    try:
        get_context().cell_lifecycle_registry.add(_CloseWidget())
    except ContextNotInitializedError:
        return


def _requested_cell(shell: Any) -> str | None:
    """The cell id in the metadata of the request ``shell``'s kernel is answering (``cellId``, as JupyterLab sends
    it), or None: no kernel (plain IPython), no request, or none sent. JupyterLite's Pyodide kernel keeps that request
    as a Python dict, or as a JavaScript proxy (``to_py`` makes it one)."""
    get_parent = getattr(getattr(shell, "kernel", None), "get_parent", None)
    if get_parent is None:
        return None
    try:
        parent = get_parent()
        if hasattr(parent, "to_py"):
            parent = parent.to_py()
        metadata = parent.get("metadata") if isinstance(parent, dict) else None
        cell = metadata.get("cellId") if isinstance(metadata, dict) else None
    except Exception as err:  # a kernel of another shape: its cells are kept, as with no cell id
        _log.debug("micrograd_widget: no cell id in the kernel's request: %r", err)
        return None
    return cell if isinstance(cell, str) and cell else None


def _close(refs: list[weakref.ref[Any]]) -> None:
    """Close the widgets still alive among ``refs``; one that fails to close is logged and the others still closed."""
    for ref in refs:
        widget = ref()
        if widget is not None:
            try:
                widget.close()
            except Exception as err:  # a comm torn down under it: the rest must still be let go
                _log.warning("micrograd_widget: could not close a widget of a replaced output: %r", err)


def _output_widget_capturing() -> bool:
    """Whether an ipywidgets ``Output`` is capturing displays now (ipykernel sets its ``msg_id`` in ``with out:``):
    the display then lands in that widget, which may sit in another cell's output."""
    from ipywidgets import Output
    from ipywidgets.widgets.widget import _instances

    return any(isinstance(w, Output) and w.msg_id for w in list(_instances.values()))
