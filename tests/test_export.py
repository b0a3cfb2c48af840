"""save_html writes one self-contained page: the widget state, the view, and every script inline (no CDN).
Chromium opening it offline is tested in tests/browser/test_export.py."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from micrograd_widget.engine import Value
from micrograd_widget.export import save_html
from micrograd_widget.widget import GraphWidget


class Page(HTMLParser):
    """The parts of the page the tests look at."""

    def __init__(self) -> None:
        super().__init__()
        self.sources: list[str] = []
        self.scripts: list[tuple[str, str]] = []
        self.title = ""
        self._in: str | None = None
        self._type = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        for key in ("src", "href"):
            if a.get(key):
                self.sources.append(a[key] or "")
        if tag in ("script", "title"):
            self._in, self._type = tag, a.get("type") or ""
            self.scripts.append((self._type, "")) if tag == "script" else None

    def handle_data(self, data: str) -> None:
        if self._in == "script":
            kind, text = self.scripts[-1]
            self.scripts[-1] = (kind, text + data)
        elif self._in == "title":
            self.title += data

    def handle_endtag(self, tag: str) -> None:
        self._in = None


def read(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def graph() -> Value:
    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    out = (a * b).tanh()
    out.label = "out"
    return out


def test_the_page_embeds_the_widget_state_and_view_and_loads_nothing_from_the_network(tmp_path: Path) -> None:
    path = save_html(graph(), tmp_path / "graph.html")
    assert path == tmp_path / "graph.html" and path.is_file()
    page = read(path)
    assert not [s for s in page.sources if s.startswith(("http:", "https:", "//"))], page.sources
    assert all(s.startswith("data:text/javascript;base64,") for s in page.sources)
    states = [json.loads(text) for kind, text in page.scripts if kind == "application/vnd.jupyter.widget-state+json"]
    views = [json.loads(text) for kind, text in page.scripts if kind == "application/vnd.jupyter.widget-view+json"]
    assert len(states) == 1 and len(views) == 1
    models = states[0]["state"]
    model = models[views[0]["model_id"]]
    assert model["model_module"] == "anywidget"
    widget_state = model["state"]
    assert widget_state["spec"]["label"][-1] == "out"
    widget_js = Path(__file__).resolve().parents[1] / "micrograd_widget/static/widget.js"
    assert widget_state["_esm"] == widget_js.read_text(encoding="utf-8")
    assert "digraph" in widget_state["dot"]
    inline = "".join(text for kind, text in page.scripts if not kind)
    assert 'define("anywidget"' in inline, "anywidget's AMD module is not in the page"
    assert "@jupyter-widgets/html-manager" in inline, "ipywidgets' HTML manager is not in the page"
    assert "requirejs" in inline


def test_only_the_exported_widget_is_in_the_page(tmp_path: Path) -> None:
    other = GraphWidget(graph())
    widget = GraphWidget(graph(), precision=2)
    page = read(save_html(widget, tmp_path / "w.html"))
    (state,) = [json.loads(t) for k, t in page.scripts if k == "application/vnd.jupyter.widget-state+json"]
    ids = set(state["state"])
    assert widget.model_id in ids and other.model_id not in ids
    assert {k for k, v in state["state"].items() if v["model_name"] == "AnyModel"} == {widget.model_id}
    assert state["state"][widget.model_id]["state"]["precision"] == 2


def test_titles_are_escaped_and_hostile_labels_stay_inside_the_json(tmp_path: Path) -> None:
    x = Value(1.0, label="</script><script>alert(1)</script>")
    path = save_html(x * 2, tmp_path / "h.html", title="<b>my graph</b>")
    text = path.read_text(encoding="utf-8")
    assert "<script>alert(1)" not in text
    page = read(path)
    assert page.title == "<b>my graph</b>"
    (state,) = [json.loads(t) for k, t in page.scripts if k == "application/vnd.jupyter.widget-state+json"]
    labels = [m["state"]["spec"]["label"] for m in state["state"].values() if "spec" in m["state"]]
    assert labels == [["</script><script>alert(1)</script>", "", ""]]


def test_bad_arguments_are_refused_with_a_clear_message(tmp_path: Path) -> None:
    with pytest.raises(TypeError, match="takes a Value or a GraphWidget"):
        save_html(3.0, tmp_path / "x.html")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="options apply only"):
        save_html(GraphWidget(graph()), tmp_path / "x.html", precision=3)
    with pytest.raises(IsADirectoryError, match="is a folder"):
        save_html(graph(), tmp_path)
    with pytest.raises(ValueError, match="precision"):
        save_html(graph(), tmp_path / "x.html", precision=-1)
    assert not (tmp_path / "x.html").exists()
