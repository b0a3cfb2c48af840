"""Memory over re-runs of a cell ending in micrograd's moons loss (65,818 nodes) with ``%load_ext micrograd_widget``,
through a real IPython InteractiveShell: the same cell (one cell id, as JupyterLab sends it) run RUNS times,
against the baseline of RUNS different cells (every output on screen, so every widget kept), in the same run.

Traced bytes (tracemalloc, after ``gc.collect()``) grown from the first run to the last. IPython's output cache is
off (``cache_size = 0``) and IPython 9's per-output bundle history is cleared after each run: ``Out`` would keep
each run's loss Value (its graph, ~12 MB here), which is IPython's, not the widget's.
"""

from __future__ import annotations

import contextlib
import gc
import io
import os
import sys
import tempfile
import tracemalloc
from pathlib import Path

from IPython.core.interactiveshell import InteractiveShell
from traitlets.config import Config

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT / "tests") not in sys.path:
    sys.path.insert(0, str(ROOT / "tests"))   # the cell imports the browser tests' moons_loss

RUNS = 4
CELL = "from browser.mgw_browser.graphs import moons_loss\nloss = moons_loss()\nloss"


def _growth(shell: InteractiveShell, cell_ids: list[str]) -> float:
    """MB traced after the last of these runs less after the first."""
    traced = []
    for cell_id in cell_ids:
        with contextlib.redirect_stdout(io.StringIO()):
            assert shell.run_cell(CELL, store_history=True, cell_id=cell_id).success
        getattr(shell.history_manager, "outputs", {}).clear()
        gc.collect()
        traced.append(tracemalloc.get_traced_memory()[0])
    return (traced[-1] - traced[0]) / 1e6


def main() -> None:
    os.environ["IPYTHONDIR"] = tempfile.mkdtemp()
    cfg = Config()
    cfg.InteractiveShell.cache_size = 0
    cfg.HistoryManager.hist_file = ":memory:"
    shell = InteractiveShell.instance(config=cfg)
    shell.run_line_magic("load_ext", "micrograd_widget")
    tracemalloc.start()
    try:
        same = _growth(shell, ["the-cell"] * RUNS)
        kept = _growth(shell, [f"cell-{i}" for i in range(RUNS)])
    finally:
        tracemalloc.stop()
        shell.run_line_magic("unload_ext", "micrograd_widget")
        InteractiveShell.clear_instance()
    per_kept = kept / (RUNS - 1)
    print(f"{RUNS} runs of one cell: +{same:.2f} MB; {RUNS} different cells (baseline): +{kept:.1f} MB "
          f"({per_kept:.1f} MB per kept output): a re-run keeps {same / (RUNS - 1) / per_kept:.4f} of an output")


if __name__ == "__main__":
    main()
