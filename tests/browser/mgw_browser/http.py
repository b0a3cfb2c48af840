"""A tiny static HTTP server on 127.0.0.1 (a free port): a working folder at /, the package's built
static/ folder at /static/ and the test pages at /pages/. ES modules need http (Chromium refuses file://)."""

from __future__ import annotations

import shutil
import threading
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import micrograd_widget

STATIC_DIR = Path(micrograd_widget.__file__).resolve().parent / "static"
PAGES_DIR = Path(__file__).resolve().parent.parent / "pages"
ASSETS_PREFIX = "/mgw-assets/"


class _Handler(SimpleHTTPRequestHandler):
    """Serves three folders by URL prefix, never cached, without log noise."""

    extensions_map: ClassVar[dict[str, str]] = {
        **SimpleHTTPRequestHandler.extensions_map, ".js": "text/javascript", ".mjs": "text/javascript",
        ".wasm": "application/wasm", ".json": "application/json", ".css": "text/css",
        ".html": "text/html; charset=utf-8"}
    mounts: ClassVar[dict[str, Path]] = {}

    def translate_path(self, path: str) -> str:
        clean = path.split("?", 1)[0].split("#", 1)[0]
        for prefix, folder in self.mounts.items():
            if clean.startswith(prefix):
                inner = super().translate_path("/" + path[len(prefix):])
                return str(folder / Path(inner).relative_to(Path(self.directory)))
        return super().translate_path(path)

    def do_GET(self) -> None:
        # /mgw-assets/<model id>.json: the state of a live micrograd_widget.host.assets.Assets model of this process,
        # which the fake widget manager of pages/fake_model.html hands to the loader (404 once it is closed).
        clean = self.path.split("?", 1)[0]
        if clean.startswith(ASSETS_PREFIX):
            from .fake_model import assets_json

            body = assets_json(clean[len(ASSETS_PREFIX):].removesuffix(".json"))
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body or b"")))
            self.end_headers()
            self.wfile.write(body or b"")
            return
        super().do_GET()

    def end_headers(self) -> None:
        self.send_header("Cache-Control", "no-store")
        super().end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


class StaticServer:
    """Serves ``root`` at http://127.0.0.1:<free port>/ (plus /static/ and /pages/, unless ``mounts=False``: a
    site of its own, such as the JupyterLite site, with its own static/) from a daemon thread."""

    def __init__(self, root: Path, mounts: bool = True) -> None:
        self.root = Path(root)
        folders = {"/static/": STATIC_DIR, "/pages/": PAGES_DIR} if mounts else {}
        handler = type("Handler", (_Handler,), {"mounts": folders})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), partial(handler, directory=str(self.root)))
        self._httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="mgw-static-server", daemon=True)
        self._thread.start()

    def serve_alone(self, page: Path, folder: str) -> str:
        """The URL of a copy of ``page`` alone in a new folder ``folder`` of the root (an exported page as a
        learner would put it on a web server: nothing beside it)."""
        served = self.root / folder
        served.mkdir()
        shutil.copy(page, served / page.name)
        return f"{self.url}/{folder}/{page.name}"

    def close(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> StaticServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
