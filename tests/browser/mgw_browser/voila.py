"""A real Voilà server for the browser tests, as shared TESTING.md says: ``voila nb.ipynb --no-browser --port=<free>
--Voila.ip=127.0.0.1`` (the notebook runs when a page opens it), temp JUPYTER_*/IPYTHONDIR folders, stopped by PID;
and a client of the kernel a page started, so a test reads the kernel's Values as a later cell would."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from jupyter_client import BlockingKernelClient

from .jupyter import AppServer

REPO = Path(__file__).resolve().parents[3]


class VoilaServer(AppServer):
    """``voila`` serving ``notebook`` at ``url``; its kernels' connection files go under ``home``/connections."""

    name = "voila"

    def __init__(self, notebook: Path, home: Path) -> None:
        super().__init__(home)
        self.notebook = Path(notebook)
        self.cwd = self.notebook.parent
        self.connections = self.home / "connections"
        self.url = f"http://127.0.0.1:{self.port}/"
        self.ready_url = f"{self.url}voila/static/voila.js"  # answers without running the notebook

    def environment(self) -> dict[str, str]:
        env = dict(os.environ)
        for name in ("JUPYTER_CONFIG_DIR", "JUPYTER_DATA_DIR", "JUPYTER_RUNTIME_DIR", "IPYTHONDIR"):
            folder = self.home / name.lower()
            folder.mkdir(parents=True, exist_ok=True)
            env[name] = str(folder)
        env.pop("JUPYTER_PATH", None)
        # The package next to these tests, not whichever copy is installed (a worktree tests its own code).
        env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
        return env

    def command(self) -> list[str]:
        self.connections.mkdir(parents=True, exist_ok=True)
        return [sys.executable, "-m", "voila", str(self.notebook), "--no-browser", f"--port={self.port}",
                "--Voila.ip=127.0.0.1", f"--Voila.connection_dir_root={self.connections}"]

    def kernel(self) -> BlockingKernelClient:
        """A client of the one kernel a page opened (fails when there is none or more than one)."""
        files = sorted(self.connections.glob("*/kernel-*.json"))
        if len(files) != 1:
            raise AssertionError(f"expected one Voilà kernel, found connection files {files}")
        client = BlockingKernelClient(connection_file=str(files[0]))
        client.load_connection_file()
        client.start_channels()
        client.wait_for_ready(timeout=30)
        return client


def kernel_prints(client: BlockingKernelClient, code: str, timeout_s: float = 30.0) -> str:
    """Run ``code`` in the kernel as a cell would; return what it printed (failing on an error)."""
    out: list[str] = []

    def hook(msg: dict) -> None:
        if msg["header"]["msg_type"] == "stream":
            out.append(msg["content"]["text"])
        elif msg["header"]["msg_type"] == "error":
            out.append("ERROR " + msg["content"]["ename"] + ": " + msg["content"]["evalue"])

    reply = client.execute_interactive(code, output_hook=hook, timeout=timeout_s, store_history=False)
    text = "".join(out)
    if reply["content"]["status"] != "ok":
        raise AssertionError(f"the kernel refused {code!r}: {text}")
    return text
