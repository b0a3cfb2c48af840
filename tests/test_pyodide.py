"""A browser's Python (Pyodide, as in JupyterLite), emulated by ``sys.platform == "emscripten"``, with this machine's
``dot`` installed (dot_program) to show that nothing tries to run it there: a bare Value is the live widget, and
every picture that would need ``dot`` says what to do in a browser, never to install Graphviz."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator

import pytest
from builders import lecture_graph
from helpers import Table
from IPython.core.interactiveshell import InteractiveShell

from micrograd_widget import MLP, draw_dot, explore, save_svg, watch
from micrograd_widget.display import value_html

WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
# The words of an install hint (apt-get/brew/conda install graphviz), which a browser user cannot follow.
INSTALL_WORDS = re.compile(r"install|apt-get|brew|conda", re.IGNORECASE)
SAID = "runs in your browser"  # what each message says instead


@pytest.fixture
def browser(monkeypatch: pytest.MonkeyPatch, dot_program: None) -> Iterator[None]:
    """Pyodide's sys.platform; ``dot`` is still on PATH, so a picture made here would be an SVG."""
    monkeypatch.setattr(sys, "platform", "emscripten")
    yield


def test_a_bare_value_is_the_live_widget_in_a_browser(ip: InteractiveShell, browser: None) -> None:
    L = lecture_graph()
    data, _ = ip.display_formatter.format(L)
    assert WIDGET_MIME in data, sorted(data)
    assert data["text/plain"] == repr(L)
    assert not INSTALL_WORDS.search(data["text/html"]) and SAID in data["text/html"]  # its fallback, for viewers


def test_a_bare_value_is_the_static_picture_outside_a_browser(ip: InteractiveShell, dot_program: None) -> None:
    data, _ = ip.display_formatter.format(lecture_graph())
    assert WIDGET_MIME not in data and "<img" in data["text/html"]


def test_the_static_picture_in_a_browser_is_a_table_that_says_so(browser: None) -> None:
    L = lecture_graph()
    table = Table(value_html(L) or "")
    assert {"L", "a", "b"} <= {row[1] for row in table.rows[1:]}
    said = " ".join(table.outside)
    assert SAID in said and not INSTALL_WORDS.search(said), said


def test_draw_dot_in_a_browser_shows_a_table_not_a_traceback(browser: None) -> None:
    L = lecture_graph()
    bundle = draw_dot(L)._repr_mimebundle_()
    table = Table(str(bundle["text/html"]))
    assert len(table.rows) - 1 == 7  # the lecture's L = (a*b + c) * f: every node, never folded
    said = " ".join(table.outside)
    assert SAID in said and not INSTALL_WORDS.search(said), said


def test_save_svg_in_a_browser_points_at_the_widgets_download(browser: None, tmp_path) -> None:
    with pytest.raises(RuntimeError, match="Download") as err:
        save_svg(lecture_graph(), tmp_path / "L.svg")
    assert not INSTALL_WORDS.search(str(err.value)) and not (tmp_path / "L.svg").exists()


def test_a_widgets_and_a_training_views_fallbacks_in_a_browser(browser: None) -> None:
    w = explore(lecture_graph())
    data, _ = w._repr_mimebundle_()
    assert "image/svg+xml" not in data and SAID in data["text/html"] and not INSTALL_WORDS.search(data["text/html"])
    t = watch(MLP(2, [3, 1]))
    svg = t._repr_mimebundle_()[0]["image/svg+xml"]
    said = " ".join(re.findall(r"<text[^>]*>([^<]*)</text>", svg))
    assert "runs in your browser" in said and not INSTALL_WORDS.search(said), said
    w.close()
    t.close()
