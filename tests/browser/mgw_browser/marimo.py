"""A real marimo app server for the browser tests, started as shared TESTING.md says: ``marimo run nb.py --headless
--port <free> --host 127.0.0.1`` (cells run on page load; ``marimo edit`` would wait for "Run all"), in its own
process group with a temp HOME/XDG folders, stopped by PID (SIGTERM, then SIGKILL).

A notebook is written as marimo's own .py format from ``Cell``s: each cell's code, the names it defines for later
cells and the names it reads from earlier ones (marimo runs them in dependency order; a cell's last expression is
its output)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from .graphs import LECTURE_L_SOURCE
from .jupyter import free_port, kill_group

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


class MarimoServer:
    """``marimo run`` serving one notebook file at ``url`` (its cells run when a page opens it)."""

    def __init__(self, notebook: Path, home: Path) -> None:
        self.notebook = Path(notebook)
        self.home = Path(home)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        self.log_path = self.home / "marimo.log"
        self.proc: subprocess.Popen[bytes] | None = None

    def _environment(self) -> dict[str, str]:
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

    def start(self, timeout_s: float = 60.0) -> MarimoServer:
        """Start the server and wait until its page answers 200."""
        self.home.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(self.command(), env=self._environment(), cwd=self.notebook.parent,
                                         stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                         start_new_session=True)
        deadline = time.monotonic() + timeout_s
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"marimo run exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(self.url, timeout=2) as r:
                    if r.status == 200:
                        return self
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"marimo run did not answer in {timeout_s:.0f} s:\n{self.log_tail()}")
            time.sleep(0.2)

    def log_tail(self, lines: int = 60) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return "(no server log)"

    def stop(self) -> None:
        """SIGTERM, then SIGKILL, the server's own process group (it started it)."""
        if self.proc is None or self.proc.poll() is not None:
            return
        kill_group(self.proc)

    def __enter__(self) -> MarimoServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
