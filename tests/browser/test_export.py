"""The static export: ``save_html`` writes one self-contained page whose sliders work offline (JS replay,
no kernel, no CDN): opened from 127.0.0.1 with every other request recorded and aborted, and from file://."""

from __future__ import annotations

import shutil
from urllib.parse import urlsplit

import pytest

from .mgw_browser.dom import WidgetDom, expected_numbers
from .mgw_browser.graphs import lecture_L

pytestmark = pytest.mark.browser


@pytest.fixture
def exported(tmp_path, static_server, widget_bundle):
    """save_html(L) written to a temp folder, then served alone (no sibling files) from 127.0.0.1."""
    from micrograd_widget import save_html

    out = tmp_path / "page.html"
    save_html(lecture_L()["L"], out)
    assert out.exists() and out.stat().st_size > 0, "save_html wrote nothing"
    served = static_server.root / f"export-{tmp_path.name}"
    served.mkdir()
    shutil.copy(out, served / "page.html")
    return out, f"{static_server.url}/{served.name}/page.html"


def _slide_and_check(page) -> None:
    view = WidgetDom(page)
    view.wait_ready(60)
    view.expect_numbers(expected_numbers(lecture_L()))
    x = view.move_slider("a", 0.75)
    assert x != 2.0, "slider a did not move"
    view.expect_numbers(expected_numbers(lecture_L(a=x)))
    y = view.move_slider("f", 0.1)
    view.expect_numbers(expected_numbers(lecture_L(a=x, f=y)))


def test_exported_page_works_offline_from_127_0_0_1(exported, guarded):
    _, url = exported
    guarded.page.goto(url)
    _slide_and_check(guarded.page)
    assert not guarded.log.outside, f"the exported page asked the network: {guarded.log.outside}"
    own = urlsplit(url).path
    extra = [u for u in guarded.log.requests
             if urlsplit(u).scheme in ("http", "https") and urlsplit(u).path not in (own, "/favicon.ico")]
    assert not extra, f"the page is not self-contained: it loaded {extra}"


def test_exported_page_works_opened_from_disk(exported, guarded):
    path, _ = exported
    guarded.page.goto(path.as_uri())
    _slide_and_check(guarded.page)
    assert not guarded.log.outside, f"the exported page asked the network: {guarded.log.outside}"
