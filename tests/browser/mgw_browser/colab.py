"""The Colab-rules test host (pages/colab/): a bare Jupyter server with one kernel, the host page on one origin and
each output's page on another (two static servers on 127.0.0.1), the outputs' widget manager bundled from
pages/colab/output.js with esbuild (js/node_modules' @jupyter-widgets packages) and anywidget's front end served
from the installed anywidget package, as Colab would fetch that package's JS from a CDN."""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from pathlib import Path
from urllib.parse import urlencode

import anywidget

from .http import PAGES_DIR, StaticServer
from .jupyter import JupyterServer

REPO = Path(__file__).resolve().parents[3]
NODE_MODULES = REPO / "js" / "node_modules"
ANYWIDGET_JS = Path(anywidget.__file__).resolve().parent / "nbextension" / "index.js"


def build_output_bundle(out: Path) -> None:
    """esbuild pages/colab/output.js (and the @jupyter-widgets packages it imports) into the ES module ``out``."""
    esbuild = NODE_MODULES / ".bin" / "esbuild"
    if not esbuild.exists():
        raise RuntimeError(f"{esbuild} is missing: install js/node_modules (`npm --prefix js ci`)")
    if not ANYWIDGET_JS.exists():
        raise RuntimeError(f"{ANYWIDGET_JS} is missing: the installed anywidget ships no front end for Colab to load")
    subprocess.run([str(esbuild), str(PAGES_DIR / "colab" / "output.js"), "--bundle", "--format=esm",
                    f"--outfile={out}", "--log-level=warning"],
                   env={**os.environ, "NODE_PATH": str(NODE_MODULES)}, check=True, timeout=120)


class ColabHost:
    """Start with ``start()``; ``new_kernel()`` gives the host page's address for a new kernel (open it in a page,
    run cells with ``run(page, code)``); ``stop()`` at the end."""

    def __init__(self, home: Path) -> None:
        self.home = Path(home)
        outputs_root = self.home / "outputs"
        (outputs_root / "modules" / "anywidget").mkdir(parents=True)
        build_output_bundle(outputs_root / "colab-output.js")
        shutil.copy(ANYWIDGET_JS, outputs_root / "modules" / "anywidget" / "index.js")
        (self.home / "host").mkdir()
        self.host_pages = StaticServer(self.home / "host")
        self.output_pages = StaticServer(outputs_root)
        self.server = JupyterServer(self.home / "jupyter", kind="server",
                                    extra_args=(f"--ServerApp.allow_origin={self.host_pages.url}",))

    def start(self) -> None:
        """Start the Jupyter server."""
        self.server.start()

    def new_kernel(self) -> str:
        """Start a kernel; return the address of a host page talking to it."""
        kernel = self.server.api("POST", "/api/kernels")
        ws = (f"ws://127.0.0.1:{self.server.port}/api/kernels/{kernel['id']}/channels?"
              + urlencode({"session_id": uuid.uuid4().hex, "token": self.server.token}))
        output = f"{self.output_pages.url}/pages/colab/output.html"
        return f"{self.host_pages.url}/pages/colab/host.html?" + urlencode({"ws": ws, "output": output})

    def stop(self) -> None:
        self.server.stop()
        self.host_pages.close()
        self.output_pages.close()


def run(page, code: str, timeout_s: float = 90.0) -> str:
    """Run ``code`` as the host's next cell; return its text output (failing on an error in the cell)."""
    result = page.evaluate("code => colabHost.run(code)", code)
    if result["status"] != "ok":
        raise AssertionError(f"the cell failed ({result['status']}): {result['text']}")
    return result["text"]


def output_frame(page, cell: int, index: int = 0):
    """The Playwright Frame of output ``index`` of cell ``cell`` (each widget output is its own page)."""
    handle = page.locator(f'section[data-cell="{cell}"] iframe').nth(index).element_handle(timeout=30_000)
    frame = handle.content_frame()
    if frame is None:
        raise AssertionError(f"cell {cell}'s output {index} has no page")
    return frame
