"""Fixtures for the browser tests: Debian's Chromium (a failure when it is missing), a static server on
127.0.0.1, a per-test browser context that fails the test if any request leaves 127.0.0.1, and JupyterLab /
Notebook 7 servers and the Colab-rules host shared by the tests of a session (each start costs ~10 s)."""

from __future__ import annotations

import itertools
import shutil
from pathlib import Path

import pytest

from .mgw_browser.chromium import PageLog, guard_context, launch, missing_chromium_reason
from .mgw_browser.colab import ColabHost
from .mgw_browser.dom import WidgetDom
from .mgw_browser.fake_model import open_view
from .mgw_browser.http import STATIC_DIR, StaticServer
from .mgw_browser.jupyter import JupyterServer

_nb_counter = itertools.count()


@pytest.fixture(scope="session")
def chromium_browser():
    """Debian's headless Chromium driven by Playwright's sync API. Missing Chromium fails the browser tests (a skip
    would hide that the view was never checked), saying what to install; deselect them with `-m "not browser"`."""
    reason = missing_chromium_reason()
    if reason:
        pytest.fail(f"the browser tests need Chromium: {reason}", pytrace=False)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = launch(pw)
        yield browser
        browser.close()


@pytest.fixture(scope="session")
def widget_bundle() -> Path:
    """The built loader the pages import (the views and Graphviz come through it); a clear failure when the
    browser side has not been built."""
    for name in ("loader.js", "views.js", "graphviz.wasm.gz"):
        if not (STATIC_DIR / name).exists():
            pytest.fail(f"{STATIC_DIR / name} is missing: build it with `npm --prefix js run build`")
    return STATIC_DIR / "loader.js"


@pytest.fixture(scope="session")
def static_server(tmp_path_factory):
    """http://127.0.0.1:<port>/ serving a temp folder (tests write pages there), /static/ and /pages/."""
    with StaticServer(tmp_path_factory.mktemp("www")) as server:
        yield server


class GuardedPage:
    """A fresh browser context + page whose requests, page errors and dialogs are recorded in ``log``."""

    def __init__(self, browser) -> None:
        self.context = browser.new_context(viewport={"width": 1400, "height": 1000})
        self.context.set_default_timeout(30_000)
        self.log: PageLog = guard_context(self.context)
        self.page = self.context.new_page()

    def close(self) -> None:
        self.context.close()


def _guarded(chromium_browser, strict_errors: bool):
    guarded = GuardedPage(chromium_browser)
    yield guarded
    guarded.close()
    assert not guarded.log.outside, f"requests left 127.0.0.1 (aborted):\n{guarded.log.describe()}"
    if strict_errors:
        assert not guarded.log.page_errors, f"uncaught errors in the page:\n{guarded.log.describe()}"


@pytest.fixture
def guarded(chromium_browser):
    """A page for our own pages (fake model, static export): no request may leave 127.0.0.1 and no uncaught error."""
    yield from _guarded(chromium_browser, strict_errors=True)


@pytest.fixture
def guarded_lab(chromium_browser):
    """A page for JupyterLab / Notebook 7: no request may leave 127.0.0.1 (Jupyter's own page errors are reported,
    not failed on)."""
    yield from _guarded(chromium_browser, strict_errors=False)


def _serving(server):
    """Start ``server``, yield it, then stop it and remove its folder."""
    server.start()
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(server.home, ignore_errors=True)


def _server(tmp_path_factory, kind: str):
    yield from _serving(JupyterServer(tmp_path_factory.mktemp(f"jupyter-{kind}"), kind=kind))


@pytest.fixture(scope="session")
def jupyterlab(tmp_path_factory, chromium_browser, widget_bundle):
    """A JupyterLab 4 server shared by the session's Lab tests."""
    yield from _server(tmp_path_factory, "lab")


@pytest.fixture(scope="session")
def jupyter_notebook(tmp_path_factory, chromium_browser, widget_bundle):
    """A Notebook 7 server (same settings) for the smoke test."""
    yield from _server(tmp_path_factory, "notebook")


@pytest.fixture(scope="session")
def colab_host(tmp_path_factory, chromium_browser, widget_bundle):
    """The Colab-rules host (mgw_browser/colab.py): a bare Jupyter server; each page gets a kernel of its own."""
    yield from _serving(ColabHost(tmp_path_factory.mktemp("colab")))


@pytest.fixture
def notebook_name(request) -> str:
    """A unique notebook file name per test (Lab autosaves; tests never share a notebook)."""
    return f"{request.node.name.replace('[', '-').replace(']', '')}-{next(_nb_counter)}.ipynb"


@pytest.fixture
def show(guarded, static_server, widget_bundle):
    """show(root_or_widget, **options) -> WidgetDom: the widget rendered with a fake model in a guarded page."""
    def _show(root, **options) -> WidgetDom:
        return open_view(guarded.page, static_server, root, **options)
    return _show
