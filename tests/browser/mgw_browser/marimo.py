"""A real marimo app server for the browser tests, started as shared TESTING.md says: ``marimo run nb.py --headless
--port <free> --host 127.0.0.1`` (cells run on page load; ``marimo edit`` would wait for "Run all"), in its own
process group with a temp HOME/XDG folders, stopped by PID (SIGTERM, then SIGKILL).

A notebook is written as marimo's own .py format from ``Cell``s: each cell's code, the names it defines for later
cells and the names it reads from earlier ones (marimo runs them in dependency order; a cell's last expression is
its output)."""

from __future__ import annotations

import os
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

from .graphs import LECTURE_L_SOURCE
from .jupyter import AppServer

REPO = Path(__file__).resolve().parents[3]


@dataclass(frozen=True)
class Cell:
    """One marimo cell: ``code`` (dedented), the names it ``defines`` for other cells and ``reads`` from them."""

    code: str
    defines: tuple[str, ...] = ()
    reads: tuple[str, ...] = ()


# The lecture's L = (a*b + c) * f as a cell that hands L to the cells after it.
LECTURE_L_CELL = Cell(LECTURE_L_SOURCE, defines=("L",))


def write_marimo_notebook(path: Path, cells: list[Cell]) -> Path:
    """``cells`` as a marimo notebook file (``app = marimo.App()``, one ``@app.cell`` function per cell)."""
    parts = ["import marimo", "", 'app = marimo.App(width="medium")', ""]
    for cell in cells:
        body = textwrap.indent(textwrap.dedent(cell.code).strip("\n"), "    ")
        returns = f"    return ({', '.join(cell.defines)},)" if cell.defines else "    return"
        parts += ["", "@app.cell", f"def _({', '.join(cell.reads)}):", body, returns, ""]
    parts += ["", 'if __name__ == "__main__":', "    app.run()", ""]
    path.write_text("\n".join(parts), encoding="utf-8")
    return path


class MarimoServer(AppServer):
    """``marimo run`` serving one notebook file at ``url`` (its cells run when a page opens it)."""

    name = "marimo"

    def __init__(self, notebook: Path, home: Path) -> None:
        super().__init__(home)
        self.notebook = Path(notebook)
        self.cwd = self.notebook.parent
        self.url = self.ready_url = f"http://127.0.0.1:{self.port}/"

    def environment(self) -> dict[str, str]:
        env = dict(os.environ)
        for name in ("HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME"):
            folder = self.home / name.lower()
            folder.mkdir(parents=True, exist_ok=True)
            env[name] = str(folder)
        env["MARIMO_SKIP_UPDATE_CHECK"] = "1"
        # The package next to these tests, not whichever copy is installed (a worktree tests its own code).
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
        return env

    def command(self) -> list[str]:
        return [sys.executable, "-m", "marimo", "run", str(self.notebook), "--headless", f"--port={self.port}",
                "--host=127.0.0.1"]

    def __enter__(self) -> MarimoServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
