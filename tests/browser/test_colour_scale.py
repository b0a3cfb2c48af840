"""Honest colour in Chromium (1000 x 900): a saturated tanh's ~1e-8 grads, shown as 0.0000 at the default precision,
are painted white in the live widget and in the exported page, the legend says so in words; the toolbar's colour
scale choice (log) tints them as dot.py's log scale does, and the legend names the scale."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from builders import saturated_tanh

from micrograd_widget.core.tape import Tape
from micrograd_widget.picture.colors import POSITIVE_COLOR, ZERO_COLOR, ColorScale, grad_color
from micrograd_widget.picture.dot import graph_view

from .mgw_browser.dom import WidgetDom, poll
from .mgw_browser.fake_model import open_view

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/colour-shots")
_READ_FILLS = """r => Object.fromEntries([...r.querySelectorAll('g.node.mgw-value')].map(g =>
    [g.id, g.querySelector('polygon, path').getAttribute('fill').toLowerCase()]))"""
_READ_LEGEND = """r => [...r.querySelectorAll('#mgw-legend text')].map(t => t.textContent).join(' ')"""
WORDS = "every gradient but the output's own shows as 0.0000: the log colour scale tells them apart"


def _log_fills(tape: Tape) -> dict[str, str]:
    """Each node's fill on the log scale, by hand: t = 1 + log10|grad| / 12 (full colour at 1), orange or blue."""
    def fill(g: float) -> str:
        t = min(1.0, max(0.0, 1 + math.log10(abs(g)) / 12)) if g else 0.0
        end = (240, 145, 58) if g > 0 else (91, 155, 213)
        return "#" + "".join(f"{round(255 + (c - 255) * t):02x}" for c in end) if t else ZERO_COLOR
    return {f"n{i}": fill(g) for i, g in enumerate(tape.grad)}


def _check_white_then_log(page, view: WidgetDom, tape: Tape, name: str) -> None:
    root = f"n{tape.root}"
    fills = view.root.evaluate(_READ_FILLS)
    assert fills.pop(root) == POSITIVE_COLOR, "the output's own grad, 1.0000"
    assert set(fills.values()) == {ZERO_COLOR}, f"grads shown as 0.0000 painted: {fills}"
    assert view.root.evaluate(_READ_LEGEND) == WORDS
    page.screenshot(path=str(SHOTS / f"{name}-relative.png"))
    view.root.locator('select[data-role="color-scale"]').select_option("log")
    want = _log_fills(tape)
    assert want == {f"n{i}": grad_color(g, ColorScale(graph_view(tape).scale, 4, log=True))
                    for i, g in enumerate(tape.grad)}, "the hand-worked fills are colors.py's"
    tinted = [k for k, v in want.items() if k != root and v != ZERO_COLOR]
    assert len(tinted) >= 5, want
    poll(lambda: view.root.evaluate(_READ_FILLS), lambda got: got == want, "the log scale's fills")
    poll(lambda: view.root.evaluate(_READ_LEGEND), lambda text: text == "grad, log scale -1 -1e-6 0 1e-6 1",
         "the legend names the log scale")
    words = view.root.locator('[data-role="color-scale-words"]').text_content()
    assert "log scale" in words and "12 powers of ten" in words
    page.screenshot(path=str(SHOTS / f"{name}-log.png"))


def test_a_saturated_tanh_is_white_until_the_log_scale_tints_it(guarded, static_server, widget_bundle):
    SHOTS.mkdir(exist_ok=True)
    guarded.page.set_viewport_size({"width": 1000, "height": 900})
    o = saturated_tanh()
    view = open_view(guarded.page, static_server, o)
    _check_white_then_log(guarded.page, view, Tape.from_value(o), "widget")


def test_the_exported_page_paints_the_same(tmp_path, guarded, widget_bundle):
    from micrograd_widget import save_html

    SHOTS.mkdir(exist_ok=True)
    o = saturated_tanh()
    guarded.page.set_viewport_size({"width": 1000, "height": 900})
    guarded.page.goto(save_html(o, tmp_path / "page.html").as_uri())
    view = WidgetDom(guarded.page)
    view.wait_ready(60)
    _check_white_then_log(guarded.page, view, Tape.from_value(o), "export")
