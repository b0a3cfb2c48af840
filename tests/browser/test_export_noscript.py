"""The exported page in Chromium with scripts off shows its static picture (the <noscript>: an image of the SVG
GraphWidget.save_svg writes, decoded and drawn); with scripts on it shows the live widget and not the picture too."""

from __future__ import annotations

import shutil

import pytest

from micrograd_widget import GraphWidget, save_html

from .mgw_browser.dom import WidgetDom
from .mgw_browser.graphs import lecture_L

pytestmark = pytest.mark.browser

# Every image in the page that the browser drew, with its natural size (0 x 0: not decoded).
_IMAGES = "() => [...document.images].map(i => [i.complete, i.naturalWidth, i.naturalHeight])"


def _page(tmp_path, static_server) -> tuple[str, tuple[float, float]]:
    """save_html of the lecture's L served over http; the URL and the size (pt) of the SVG save_svg writes."""
    widget = GraphWidget(lecture_L()["L"])
    svg = widget.save_svg(tmp_path / "L.svg").read_text(encoding="utf-8")
    width, height = (float(svg.split(f'{side}="')[1].split("pt")[0]) for side in ("width", "height"))
    served = static_server.root / f"noscript-{tmp_path.name}"
    served.mkdir()
    shutil.copy(save_html(widget, tmp_path / "page.html"), served / "page.html")
    widget.close()
    return f"{static_server.url}/{served.name}/page.html", (width, height)


def test_with_scripts_off_the_static_picture_is_shown(tmp_path, static_server, chromium_browser):
    url, (width, height) = _page(tmp_path, static_server)
    context = chromium_browser.new_context(java_script_enabled=False)
    try:
        page = context.new_page()
        page.goto(url)
        page.wait_for_load_state("load")
        [[complete, w, h]] = page.evaluate(_IMAGES)
        assert complete and w > 0 and h > 0, "the static picture was not decoded"
        # Graphviz sizes its SVG in pt; drawn as an <img> it is width * 96/72 CSS px.
        assert (w, h) == (pytest.approx(width * 96 / 72, abs=1), pytest.approx(height * 96 / 72, abs=1))
        assert page.locator(".mgw-static img").is_visible()
        assert "Scripts are off" in page.inner_text("body")
        assert page.locator(".mgw-root").count() == 0
    finally:
        context.close()


def test_with_scripts_on_the_widget_is_shown_and_not_the_static_picture(tmp_path, static_server, guarded,
                                                                          widget_bundle):
    url, _ = _page(tmp_path, static_server)
    page = guarded.page
    page.goto(url)
    WidgetDom(page).wait_ready(60)
    assert page.evaluate(_IMAGES) == [], "the static picture is drawn beside the widget"
    assert page.locator(".mgw-static").count() == 0 and "Scripts are off" not in page.inner_text("body")
    assert page.locator(".mgw-root svg g.node").count() > 0
