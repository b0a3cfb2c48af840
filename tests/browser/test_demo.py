"""``python -m micrograd_widget.host.demo``: what it writes and says, and the page it writes opened in Chromium
(no kernel, no request leaving 127.0.0.1): a title and what to try above the lecture's neuron with its sliders live."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from micrograd_widget.host.demo import lecture_neuron

from .mgw_browser.dom import WidgetDom, expected_numbers

pytestmark = pytest.mark.browser


def _demo(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "micrograd_widget.host.demo", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


def test_demo_command_writes_the_page_it_names(tmp_path: Path) -> None:
    done = _demo(tmp_path)
    assert done.returncode == 0, done.stderr
    page = tmp_path / "micrograd-widget-demo.html"
    assert page.is_file() and page.stat().st_size > 10_000, "the default page was not written"
    assert str(page.resolve()) in done.stdout and "offline" in done.stdout
    named = _demo(tmp_path, "mine.html")
    assert named.returncode == 0 and (tmp_path / "mine.html").is_file() and "mine.html" in named.stdout
    usage = _demo(tmp_path, "--help")
    assert usage.returncode == 0 and "usage: python -m micrograd_widget.host.demo" in usage.stdout
    wrong = _demo(tmp_path, "a.html", "b.html")
    assert wrong.returncode == 2 and "usage" in wrong.stdout
    assert not (tmp_path / "a.html").exists(), "a refused command wrote a page"


def test_demo_page_opens_offline_with_the_lecture_neuron_live(tmp_path: Path, static_server, guarded, widget_bundle):
    done = _demo(tmp_path, "demo.html")
    assert done.returncode == 0, done.stderr
    served = static_server.root / f"demo-{tmp_path.name}"
    served.mkdir()
    shutil.copy(tmp_path / "demo.html", served / "demo.html")
    guarded.page.goto(f"{static_server.url}/{served.name}/demo.html")
    view = WidgetDom(guarded.page)
    view.wait_ready(60)
    page = guarded.page
    assert page.title() == "micrograd-widget: the lecture's neuron, live"
    heading = page.locator("h1")
    assert heading.inner_text() == page.title() and heading.is_visible()
    intro = page.locator(".mgw-page-intro").inner_text()
    assert "o = tanh(x1*w1 + x2*w2 + b)" in intro and "drag the w1 slider" in intro and "Step through backprop" in intro
    assert page.get_by_role("button", name="Step through backprop").count() == 1, "the intro names a missing button"
    box = page.locator(".mgw-page-intro").bounding_box()
    assert box is not None and box["y"] + box["height"] < 900 / 2, f"the intro takes more than half the window: {box}"
    view.expect_numbers(expected_numbers(lecture_neuron()))
    x = view.move_slider("w1", 0.8)
    assert x != -3.0, "slider w1 did not move"
    view.expect_numbers(expected_numbers(lecture_neuron(w1=x)))
    assert not guarded.log.outside, f"the demo page asked the network: {guarded.log.outside}"
