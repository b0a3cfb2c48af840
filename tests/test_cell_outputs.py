"""The widgets ``%load_ext`` makes for a cell's output (micrograd_widget/host/cell_outputs.py), through a real IPython
InteractiveShell: closed (tape and graph let go) when the same cell (same cell id, as JupyterLab, Notebook 7 and
VS Code send it) runs again and when the extension unloads, so memory stays flat over re-runs; never the ones
that may still be on screen (other cells, no cell id, an Output widget capturing) nor the user's own explore()."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
import tempfile
import tracemalloc
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from helpers import make_shell
from IPython.core.interactiveshell import InteractiveShell
from ipywidgets.widgets.widget import _instances
from traitlets.config import Config

import micrograd_widget
from micrograd_widget.graph.widget import GraphWidget

MOONS = "from builders import small_moons\nloss = small_moons(hidden=4, points=2)\nloss"
RUNS = 10


TESTS = Path(__file__).resolve().parent


@contextmanager
def extension_shell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[InteractiveShell]:
    """A shell with the extension loaded, whose output cache keeps no result (``Out``/``_`` would keep the
    Values a cell showed, by IPython's design: here only what the extension keeps is measured); unloaded after."""
    cfg = Config()
    cfg.InteractiveShell.cache_size = 0
    shell = make_shell(tmp_path, monkeypatch, cfg)
    shell.run_line_magic("load_ext", "micrograd_widget")
    try:
        yield shell
    finally:
        micrograd_widget.unload_ipython_extension(shell)
        InteractiveShell.clear_instance()


@pytest.fixture
def ip(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[InteractiveShell]:
    with extension_shell(tmp_path, monkeypatch) as shell:
        yield shell


def graph_widgets() -> set[GraphWidget]:
    return {w for w in list(_instances.values()) if isinstance(w, GraphWidget)}


def run(shell: InteractiveShell, code: str, cell_id: str | None) -> GraphWidget:
    """Run ``code`` as a front end would (its result shown by the display hook) and return the one widget made."""
    before = graph_widgets()
    result = shell.run_cell(code, store_history=True, cell_id=cell_id)
    assert result.success, result.error_in_exec
    made = graph_widgets() - before
    assert len(made) == 1, made
    return made.pop()


def is_open(widget: GraphWidget) -> bool:
    return widget.comm is not None and widget._tape is not None


def rerun(shell: InteractiveShell, cell_ids: list[str]) -> tuple[list[weakref.ref[Any]], list[weakref.ref[Any]],
                                                                  list[int]]:
    """Run MOONS once per cell id: weakrefs to each run's widget and loss Value, and the bytes traced after each."""
    widgets: list[weakref.ref[Any]] = []
    values: list[weakref.ref[Any]] = []
    traced: list[int] = []
    for cell_id in cell_ids:
        widgets.append(weakref.ref(run(shell, MOONS, cell_id)))
        values.append(weakref.ref(shell.user_ns["loss"]))
        getattr(shell.history_manager, "outputs", {}).clear()   # IPython 9 keeps each output's bundle (its SVG) too
        gc.collect()
        traced.append(tracemalloc.get_traced_memory()[0])
    return widgets, values, traced


def measure_reruns() -> dict[str, Any]:
    """MOONS run again and again in one cell, then once in each of as many cells (their outputs all on screen):
    whether the replaced outputs' widgets and graphs were collected, and the bytes traced after each run."""
    with (tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as monkeypatch,
          extension_shell(Path(tmp), monkeypatch) as shell):
        run(shell, MOONS, "warm-up")      # first-use costs (imports, caches) are not the re-runs'
        tracemalloc.start()
        try:
            widgets, values, same = rerun(shell, ["cell-1"] * RUNS)
            replaced = {"widgets": all(ref() is None for ref in widgets[:-1]),
                        "graphs": all(ref() is None for ref in values[:-1]),
                        "on screen": widgets[-1]() is not None and is_open(widgets[-1]())}
            kept, kept_values, different = rerun(shell, [f"cell-{i}" for i in range(2, RUNS + 2)])
        finally:
            tracemalloc.stop()
        kept_open = all(ref() is not None and is_open(ref()) for ref in kept)
        kept_graphs = all(ref() is not None for ref in kept_values)
    return {"replaced": replaced, "kept": {"widgets": kept_open, "graphs": kept_graphs}, "same": same,
            "different": different}


def test_rerunning_a_cell_frees_its_earlier_widgets_and_graphs_memory_stays_flat(tmp_path: Path) -> None:
    """Measured in a fresh interpreter: what earlier tests left in this one (their shells, caches, a pytest-xdist
    worker's own messages) grew the bytes traced here by 590 KB over the re-runs once, failing a flat extension."""
    out = tmp_path / "measured.json"
    code = f"import json, test_cell_outputs as t; open({str(out)!r}, 'w').write(json.dumps(t.measure_reruns()))"
    path = os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-c", code], cwd=TESTS, capture_output=True, text=True, timeout=600,
                          env={**os.environ, "PYTHONPATH": path})
    assert done.returncode == 0, f"the measurement failed:\n{done.stderr[-4000:]}"
    measured = json.loads(out.read_text())
    replaced, kept, same, different = measured["replaced"], measured["kept"], measured["same"], measured["different"]
    assert replaced["widgets"], "the earlier outputs' widgets are collected"
    assert replaced["graphs"], "and the graphs they held"
    assert replaced["on screen"], "the output on screen keeps its widget"
    # The control: ten different cells each keep their output (all on screen), so memory grows per run.
    assert kept["widgets"] and kept["graphs"], kept
    per_run = (different[-1] - different[1]) / (RUNS - 2)
    assert per_run > 0
    assert same[-1] - same[1] < 2 * per_run, f"re-runs grew {same[-1] - same[1]} B; one kept output is {per_run} B"


def test_unloading_closes_every_widget_the_extension_made_and_none_of_the_users(ip: InteractiveShell) -> None:
    own = "from builders import small_moons\nfrom micrograd_widget import explore\nw = explore(small_moons(2, 1))\nw"
    mine = run(ip, own, "own")
    made = [run(ip, MOONS, "a"), run(ip, MOONS, "b"), run(ip, MOONS, None)]
    again = run(ip, "display(w)\nloss", "shows-w")     # the user's widget shown again, next to a Value
    assert is_open(mine) and all(is_open(w) for w in [*made, again])
    run(ip, "display(w)\nloss", "shows-w")
    assert is_open(mine) and not is_open(again), "only the extension's widget of the replaced output is closed"
    ip.run_line_magic("unload_ext", "micrograd_widget")
    assert not any(is_open(w) for w in made)
    assert is_open(mine) and ip.user_ns["w"] is mine


def test_without_a_cell_id_or_into_an_output_widget_the_widgets_are_kept(ip: InteractiveShell) -> None:
    """No cell id (plain IPython, a front end that sends none): nothing says which output a run replaces, so its
    widgets may still be on screen. Inside an Output widget (ipykernel sets its msg_id while it captures) the
    display lands in that widget, which may be in another cell."""
    first = run(ip, MOONS, None)
    second = run(ip, MOONS, None)
    capture = ("import ipywidgets\nfrom builders import small_moons\nout = ipywidgets.Output()\n"
               "out.msg_id = 'the execute request'\ndisplay(small_moons(hidden=2, points=1))\nout.msg_id = ''")
    captured = run(ip, capture, "captures")
    run(ip, capture, "captures")
    assert is_open(first) and is_open(second) and is_open(captured)


class RequestKernel:
    """A kernel as the shell sees it, answering one request (``get_parent``): JupyterLite's Pyodide kernel runs a cell
    with its code alone (no ``cell_id`` for ``pre_run_cell``) but keeps the execute request, whose metadata JupyterLab
    fills with the cell's id; there the request may also be a JavaScript proxy (``to_py`` gives the dict)."""

    def __init__(self, request: Any) -> None:
        self.request = request

    def get_parent(self) -> Any:
        return self.request


class JsProxy:
    def __init__(self, value: dict[str, Any]) -> None:
        self.value = value

    def to_py(self) -> dict[str, Any]:
        return self.value


def test_a_kernel_that_passes_no_cell_id_on_is_read_from_the_request_it_answers(ip: InteractiveShell) -> None:
    kernel = RequestKernel({"header": {"msg_type": "execute_request"}, "metadata": {"cellId": "lite-cell"}})
    ip.kernel = kernel  # type: ignore[attr-defined]  # IPython's shell has no kernel attribute; a kernel's shell does
    first = run(ip, MOONS, None)
    second = run(ip, MOONS, None)
    assert not is_open(first) and is_open(second), "the same cell ran again: its earlier output's widget is closed"
    kernel.request = JsProxy({"metadata": {"cellId": "another-cell"}})
    third = run(ip, MOONS, None)
    assert is_open(second) and is_open(third), "another cell's output stays"
    # A cell run from inside a cell (run_cell in a cell: the request is the outer cell's) closes nothing of it.
    nested = ("from builders import small_moons\ndisplay(small_moons(hidden=2, points=1))\n"
              "get_ipython().run_cell('loss')")
    before = graph_widgets()
    ip.run_cell(nested, store_history=True)
    made = graph_widgets() - before
    assert len(made) == 2 and all(is_open(w) for w in made), "the outer cell's own display stays open"
    for request in ({"metadata": {}}, {"metadata": {"cellId": ""}}, None, "not a message", JsProxy({"metadata": 3})):
        kernel.request = request
        kept = run(ip, MOONS, None)
        assert is_open(run(ip, MOONS, None)) and is_open(kept), f"no cell id in {request!r}: both kept"


def test_in_a_browsers_python_a_bare_values_widget_is_closed_when_its_cell_runs_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Without %load_ext, a Value shown in Pyodide (JupyterLite) is the live widget (engine.py): it too is closed when
    its cell runs again, the cell id read from the kernel's request (Pyodide's kernel passes IPython none)."""
    import micrograd_widget.picture.layout as layout
    monkeypatch.setattr(layout, "in_browser", lambda: True)
    cfg = Config()
    cfg.InteractiveShell.cache_size = 0
    shell = make_shell(tmp_path, monkeypatch, cfg)
    try:
        kernel = RequestKernel({"metadata": {"cellId": "lite-cell"}})
        shell.kernel = kernel  # type: ignore[attr-defined]  # as Pyodide's shell has one
        first = run(shell, MOONS, None)      # the first display hooks the shell's cell events in, mid-cell
        second = run(shell, MOONS, None)
        assert not is_open(first) and is_open(second), "the cell ran again: its old widget is closed"
        kernel.request = {"metadata": {"cellId": "other-cell"}}
        third = run(shell, MOONS, None)
        assert is_open(second) and is_open(third), "another cell's widget stays"
    finally:
        InteractiveShell.clear_instance()


def test_a_widget_that_fails_to_close_is_logged_and_the_others_are_still_closed(
        ip: InteractiveShell, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    broken, fine = run(ip, MOONS, "a"), run(ip, MOONS, "b")

    def fails() -> None:
        raise OSError("the comm is gone")
    monkeypatch.setattr(broken, "close", fails)
    ip.run_line_magic("unload_ext", "micrograd_widget")
    assert not is_open(fine) and "could not close a widget" in caplog.text and "the comm is gone" in caplog.text
