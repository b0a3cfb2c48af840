"""A real JupyterLab (or Notebook 7) server for the browser tests, started as shared TESTING.md says: the venv's
``python -m jupyter``, its own process group, temp JUPYTER_*/IPYTHONDIR folders, no news toast, no build check,
a random token, ``window.jupyterapp`` exposed; stopped with POST /api/shutdown, then SIGTERM/SIGKILL."""

from __future__ import annotations

import json
import os
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient

KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM, then SIGKILL, the process group ``proc`` leads (a server started with start_new_session=True),
    waiting up to 10 s after each."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=10)
            return
        except subprocess.TimeoutExpired:
            continue


class AppServer:
    """A server the tests start in its own process group (stdout and stderr to ``log_path``) and stop by PID
    (SIGTERM, then SIGKILL). A subclass gives ``name``, ``command()``, ``environment()``, ``cwd`` and
    ``ready_url`` (polled until it answers 200; a URL that runs nothing), and sets ``url``, the page to open."""

    name = "server"

    def __init__(self, home: Path) -> None:
        self.home = Path(home)
        self.port = free_port()
        self.log_path = self.home / f"{self.name}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    ready_url = ""
    url = ""
    cwd: Path

    def command(self) -> list[str]:
        raise NotImplementedError

    def environment(self) -> dict[str, str]:
        return dict(os.environ)

    def start(self, timeout_s: float = 60.0) -> AppServer:
        """Start the server and wait until ``ready_url`` answers 200; return the server."""
        self.home.mkdir(parents=True, exist_ok=True)
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(self.command(), env=self.environment(), cwd=self.cwd, stdout=log,
                                         stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + timeout_s
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"{self.name} exited with {self.proc.returncode}:\n{self.log_tail()}")
            try:
                with urllib.request.urlopen(self.ready_url, timeout=2) as r:
                    if r.status == 200:
                        return self
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
                pass
            if time.monotonic() > deadline:
                self.stop()
                raise RuntimeError(f"{self.name} did not answer in {timeout_s:.0f} s:\n{self.log_tail()}")
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


def write_notebook(path: Path, cells: list[str]) -> Path:
    """A notebook of code cells with a kernelspec (so no kernel-choice dialog), written with nbformat."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(src) for src in cells])
    nb.metadata["kernelspec"] = KERNELSPEC
    nb.metadata["language_info"] = {"name": "python"}
    nbformat.write(nb, str(path))
    return path


class JupyterServer(AppServer):
    """``jupyter lab`` (kind='lab'), ``jupyter notebook`` (kind='notebook') or a bare ``jupyter server``
    (kind='server': the REST API and kernel websockets, no UI) serving ``home``'s ``notebooks/``; ``extra_args``
    are added to its command line."""

    def __init__(self, home: Path, kind: str = "lab", extra_args: tuple[str, ...] = ()) -> None:
        if kind not in ("lab", "notebook", "server"):
            raise ValueError(f"kind must be 'lab', 'notebook' or 'server', got {kind!r}")
        self.name = f"jupyter {kind}"
        super().__init__(home)
        self.kind = kind
        self.extra_args = tuple(extra_args)
        self.notebooks = self.cwd = self.home / "notebooks"
        self.token = secrets.token_hex(16)
        self.url = f"http://127.0.0.1:{self.port}"
        self.ready_url = f"{self.url}/api/status?token={self.token}"
        self.log_path = self.home / "server.log"

    def environment(self) -> dict[str, str]:
        dirs = {name: self.home / name.lower() for name in (
            "JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "JUPYTERLAB_SETTINGS_DIR",
            "JUPYTERLAB_WORKSPACES_DIR", "IPYTHONDIR")}
        for d in dirs.values():
            d.mkdir(parents=True, exist_ok=True)
        notification = dirs["JUPYTERLAB_SETTINGS_DIR"] / "@jupyterlab" / "apputils-extension"
        notification.mkdir(parents=True, exist_ok=True)
        (notification / "notification.jupyterlab-settings").write_text(
            json.dumps({"fetchNews": "false", "checkForUpdates": False}))
        labconfig = dirs["JUPYTER_CONFIG_DIR"] / "labconfig"
        labconfig.mkdir(parents=True, exist_ok=True)
        (labconfig / "page_config.json").write_text(json.dumps({"buildCheck": False, "buildAvailable": False}))
        env = dict(os.environ)
        env.update({k: str(v) for k, v in dirs.items()})
        env.pop("JUPYTER_PATH", None)
        return env

    def trust(self, path: Path) -> None:
        """Sign notebook ``path`` with this server's notary (as `jupyter trust` would): an untrusted notebook's
        saved widget and SVG outputs are shown as text/plain only."""
        from nbformat.sign import NotebookNotary

        nb = nbformat.read(str(path), as_version=4)
        NotebookNotary(data_dir=str(self.home / "jupyter_data_dir")).sign(nb)

    def command(self) -> list[str]:
        """The server's command line. Notebook 7 has no news_url trait (passing one breaks its extension)."""
        app = {"lab": "LabApp", "notebook": "JupyterNotebookApp"}.get(self.kind)
        news = ["--LabApp.news_url=None"] if self.kind == "lab" else []
        expose = [f"--{app}.expose_app_in_browser=True"] if app else []
        return [sys.executable, "-m", "jupyter", self.kind, "--no-browser", f"--port={self.port}",
                "--ServerApp.port_retries=0", f"--IdentityProvider.token={self.token}", "--ServerApp.ip=127.0.0.1",
                "--allow-root", *news, *expose, f"--ServerApp.root_dir={self.notebooks}", *self.extra_args]

    def start(self, timeout_s: float = 120.0) -> JupyterServer:
        """Start the server and wait until /api/status answers 200."""
        self.notebooks.mkdir(parents=True, exist_ok=True)
        super().start(timeout_s)
        return self

    def api(self, method: str, path: str, timeout_s: float = 10.0) -> Any:
        """Call the server's REST API with the token; return the decoded JSON (or None)."""
        req = urllib.request.Request(f"{self.url}{path}", method=method,
                                     headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(req, timeout=timeout_s) as r:
            body = r.read()
        return json.loads(body) if body else None

    def stop(self) -> None:
        """POST /api/shutdown; if the server is still there, SIGTERM then SIGKILL its process group."""
        if self.proc is None or self.proc.poll() is not None:
            return
        try:
            self.api("POST", "/api/shutdown", timeout_s=10)
            self.proc.wait(timeout=15)
            return
        except (urllib.error.URLError, OSError, subprocess.TimeoutExpired):
            pass
        super().stop()

    def notebook_url(self, name: str) -> str:
        """The URL that opens notebook ``name`` (under ``notebooks/``) in this server's UI."""
        if self.kind == "lab":
            return f"{self.url}/lab/tree/{name}?reset&token={self.token}"
        return f"{self.url}/notebooks/{name}?token={self.token}"


def executed_notebook_of(path: Path, cells: list[str]) -> dict[str, Any]:
    """Write ``cells`` to ``path``, execute them with nbclient storing the widget state; return the state."""
    write_notebook(path, cells)
    nb = nbformat.read(str(path), as_version=4)
    NotebookClient(nb, timeout=120, kernel_name="python3", store_widget_state=True).execute()
    nbformat.write(nb, str(path))
    state: dict[str, Any] = nb.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    return state
