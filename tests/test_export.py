"""save_html writes one self-contained page: the saved widget state (with every model it references and its binary
buffers), the view spec, and our own small widget host inline (no CDN, no ipywidgets manager, no require.js).
Chromium opening it offline from file:// and http://127.0.0.1 is tested in tests/browser/test_export.py."""

from __future__ import annotations

import base64
import json
import struct
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from builders import lecture_L, slow_layout_moons
from helpers import STOPPED_MESSAGE, DotRuns

from micrograd_widget.core.ops import define_op
from micrograd_widget.engine import Value
from micrograd_widget.graph.widget import GraphWidget
from micrograd_widget.host import export
from micrograd_widget.host.export import save_html

STATIC = Path(__file__).resolve().parents[1] / "micrograd_widget" / "static"


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


def saved_state(page: Page) -> dict[str, Any]:
    (state,) = [json.loads(t) for k, t in page.scripts if k == "application/vnd.jupyter.widget-state+json"]
    return state  # type: ignore[no-any-return]


def references(value: object) -> set[str]:
    """Every model id a saved state value references as "IPY_MODEL_<id>" (at any depth)."""
    if isinstance(value, str):
        return {value[len("IPY_MODEL_"):]} if value.startswith("IPY_MODEL_") else set()
    if isinstance(value, dict):
        return set().union(*(references(v) for v in value.values()))
    if isinstance(value, list):
        return set().union(*(references(v) for v in value))
    return set()


def test_the_page_holds_the_state_the_view_and_its_own_host_and_loads_nothing(tmp_path: Path) -> None:
    root = graph()
    widget = GraphWidget(root)
    esm = widget.get_state()["_esm"]
    path = save_html(widget, tmp_path / "graph.html")
    assert path == tmp_path / "graph.html" and path.is_file()
    page = read(path)
    assert [s for s in page.sources if not s.startswith("data:")] == [], "the page loads nothing: all is inline"
    views = [json.loads(text) for kind, text in page.scripts if kind == "application/vnd.jupyter.widget-view+json"]
    assert views == [{"version_major": 2, "version_minor": 0, "model_id": widget.model_id}]
    models = saved_state(page)["state"]
    model = models[widget.model_id]
    assert model["model_module"] == "anywidget"
    widget_state = model["state"]
    assert widget_state["spec"]["label"]["strings"][-1] == "out"  # the spec's string table: distinct labels
    assert widget_state["_esm"] == esm
    assert "dot" not in widget_state and widget_state["folds"]["version"] == 1, "the page's view writes the picture"
    (host,) = [text for kind, text in page.scripts if kind == "module"]
    assert host.strip() == (STATIC / "host.js").read_text(encoding="utf-8").strip()
    assert len(page.scripts) == 3, [kind for kind, _ in page.scripts]
    text = path.read_text(encoding="utf-8")
    for gone in ("@jupyter-widgets/html-manager", "requirejs", "define(\"anywidget\""):
        assert gone not in text, f"{gone} is still in the page"


def test_every_reference_in_the_saved_state_resolves_to_a_saved_model(tmp_path: Path) -> None:
    page = read(save_html(graph(), tmp_path / "graph.html"))
    models = saved_state(page)["state"]
    referenced = set().union(*(references(m["state"]) for m in models.values()))
    assert referenced, "the widget references its layout (and the shared assets model) by IPY_MODEL_ ids"
    assert referenced <= set(models), f"the page lacks models {referenced - set(models)}"


def test_binary_buffers_are_saved_at_their_paths_as_base64_and_nowhere_else(tmp_path: Path) -> None:
    root = graph()
    widget = GraphWidget(root)
    page = read(save_html(widget, tmp_path / "graph.html"))
    model = saved_state(page)["state"][widget.model_id]
    buffers = {tuple(b["path"]): b for b in model["buffers"]}
    assert ("spec", "leaf_data") in buffers and ("spec", "op") in buffers
    assert all(b["encoding"] == "base64" for b in buffers.values())
    leaf_data = base64.b64decode(buffers[("spec", "leaf_data")]["data"])
    assert struct.unpack("<2d", leaf_data) == (2.0, -3.0), "the leaves' float64s, little-endian"
    for path in buffers:
        holder = model["state"]
        for key in path[:-1]:
            holder = holder[key]
        assert path[-1] not in holder, f"{path} is kept both as a buffer and as JSON"


def test_the_lectures_page_weighs_at_most_1_5_MB(tmp_path: Path) -> None:
    path = save_html(lecture_L()["L"], tmp_path / "L.html")
    size = path.stat().st_size
    print(f"\nsave_html(lecture L): {size:,} bytes")
    assert size <= 1_500_000, f"{size:,} bytes"


def test_the_host_is_small_and_inline(tmp_path: Path) -> None:
    host = (STATIC / "host.js").read_text(encoding="utf-8")
    assert len(host.encode("utf-8")) < 20_000, "the page's host should stay a few KB"
    assert "</script" not in host.lower() and "<!--" not in host, "the host must fit inline in a <script>"
    assert "http://" not in host and "https://" not in host


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
    labels = [m["state"]["spec"]["label"]["strings"] for m in state["state"].values() if "spec" in m["state"]]
    assert labels == [["</script><script>alert(1)</script>", ""]]


def test_an_intro_puts_the_title_as_a_heading_and_its_paragraphs_escaped_above_the_widget(tmp_path: Path) -> None:
    text = save_html(graph(), tmp_path / "i.html", title="<i>T</i>", intro=["one <b>", "two & three"]).read_text(
        encoding="utf-8")
    body = text[text.index("<body>"):]
    assert body.index('<header class="mgw-page-intro">') < body.index('<p class="mgw-page-note">') \
        < body.index('type="application/vnd.jupyter.widget-view+json"'), "the intro is not above the widget"
    assert "<h1>&lt;i&gt;T&lt;/i&gt;</h1>" in body
    assert "<p>one &lt;b&gt;</p>" in body and "<p>two &amp; three</p>" in body
    plain = save_html(graph(), tmp_path / "p.html").read_text(encoding="utf-8")
    assert "<h1>" not in plain and "<header" not in plain, "a page without an intro grew a heading"
    with pytest.raises(TypeError, match="list of paragraphs"):
        save_html(graph(), tmp_path / "s.html", intro="one string")  # type: ignore[arg-type]  # the wrong type on purpose
    assert not (tmp_path / "s.html").exists()


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


def test_a_layout_past_the_time_limit_raises_and_writes_no_page(tmp_path: Path, stopped_dot: DotRuns) -> None:
    """The page's static picture stopped at layout.DOT_TIME_LIMIT: save_html raises (the page's own view would be
    stopped laying out the same picture), leaves the old file as it was and kills dot."""
    target = tmp_path / "p.html"
    target.write_text("the old page", encoding="utf-8")
    root = slow_layout_moons()
    widget = GraphWidget(root, node_budget=None)
    for what, options in ((root, {"node_budget": None}), (widget, {})):
        with pytest.raises(TimeoutError, match=STOPPED_MESSAGE):
            save_html(what, target, **options)
    widget.close()
    assert target.read_text(encoding="utf-8") == "the old page"
    assert [p.name for p in tmp_path.iterdir()] == ["p.html"], "a partial or temporary file was left"
    stopped_dot.assert_all_stopped()


def test_the_note_says_what_the_page_can_do_without_a_kernel(tmp_path: Path) -> None:
    def note(root: Value) -> str:
        text = save_html(root, tmp_path / "n.html").read_text(encoding="utf-8")
        start = text.index('<p class="mgw-page-note">') + len('<p class="mgw-page-note">')
        return text[start:text.index("</p>", start)]

    assert note(graph()) == ("Drag a slider: every value and gradient is recomputed in this page (no kernel). "
                             "4 nodes, 2 leaves.")
    assert note(Value(1.0)).endswith(" 1 node, 1 leaf."), "a count of one is singular (issue 19)"
    cube = define_op("cube", lambda x: x ** 3, lambda x, out: 3 * x * x)
    assert note(Value.apply(cube, Value(1.5))).startswith("Numbers as saved: this graph uses an op defined in Python")
    a, b = Value(2.0), Value(3.0)
    by_hand = Value(6.0, (a, b), "*")
    assert note(by_hand).startswith("Numbers as saved: this graph has a node built by hand outside the op table")


def test_a_host_that_cannot_be_inlined_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    static = tmp_path / "static"
    static.mkdir()
    (static / "host.js").write_text('const s = "</script>";', encoding="utf-8")
    monkeypatch.setattr(export, "_STATIC", static)
    with pytest.raises(ValueError, match="cannot be inlined"):
        save_html(graph(), tmp_path / "x.html")
    (static / "host.js").unlink()
    with pytest.raises(FileNotFoundError, match="npm --prefix js run build"):
        save_html(graph(), tmp_path / "x.html")
    assert not (tmp_path / "x.html").exists()


def _noscript(text: str) -> str:
    """What the page's one <noscript> holds, up to the first end tag after it (where a browser ends it)."""
    assert text.count("<noscript>") == 1
    return text.split("<noscript>")[1].split("</noscript>")[0]


def test_with_scripts_off_the_page_shows_the_static_picture_save_svg_writes(tmp_path: Path) -> None:
    """The <noscript> holds an <img> of exactly the SVG GraphWidget.save_svg writes for the same widget (its numbers
    after a leaf moved, its output, an opened box), and nothing else that loads or runs."""
    import random

    from micrograd_widget.nn import MLP

    random.seed(1)
    model = MLP(3, [4, 4, 1])
    xs = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
    loss = sum((model(x) - y) ** 2 for x, y in zip(xs, [1.0, -1.0, -1.0, 1.0], strict=True))
    assert isinstance(loss, Value)
    loss.backward()
    widget = GraphWidget(loss, node_budget=60)
    widget.opened = ["layers.1.neurons.0"]
    widget.set_leaf(widget.tape.leaves[0], 0.25)
    widget.output = len(widget.tape) - 2
    static = _noscript(save_html(widget, tmp_path / "p.html").read_text(encoding="utf-8"))
    page = Page()
    page.feed(static)
    (src,) = page.sources
    assert src.startswith("data:image/svg+xml;base64,")
    svg = base64.b64decode(src.split(",", 1)[1]).decode("utf-8")
    assert svg == widget.save_svg(tmp_path / "w.svg").read_text(encoding="utf-8")
    marked = f'id="n{len(widget.tape) - 2}" class="node mgw-value mgw-output-node"'
    assert 'class="cluster' in svg and marked in svg.replace("&#45;", "-"), "the opened box, the output chosen"
    assert page.scripts == [] and "Scripts are off" in static


def test_without_graphviz_the_noscript_holds_the_table(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No dot on PATH: the page is still written, its <noscript> the fallback's table with the engine's numbers."""
    x = Value(1.0, label="</noscript><script>alert(1)</script>")
    out = x * 2
    out.label = "out"
    out.backward()
    empty = tmp_path / "bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    static = _noscript(save_html(out, tmp_path / "t.html").read_text(encoding="utf-8"))
    assert "<table>" in static and "data:" not in static and "<script" not in static.lower()
    assert "&lt;/noscript&gt;&lt;script&gt;" in static and ">2.0000<" in static
