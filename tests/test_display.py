"""display.py: the mimebundle of a Value (SVG from dot), the HTML table without dot, size limits.

Outputs are parsed (xml.etree for SVG, html.parser for HTML), never only searched for substrings; the SVG
ids and texts checked pin js/host/svg-contract.md.
"""

from __future__ import annotations

import re

import graphviz
import pytest
from builders import HOSTILE, hostile_graph, lecture_graph, moons_like_loss, saturated_neuron, slow_layout_moons
from helpers import STOPPED_MESSAGE, SVG, DotRuns, Table, assert_no_markup, parse_svg, picture_in, svg_groups, texts

from micrograd_widget import GraphWidget, Value, display
from micrograd_widget.core.tape import Tape
from micrograd_widget.display import value_html, value_mimebundle
from micrograd_widget.picture.colors import POSITIVE_COLOR, ColorScale, grad_color
from micrograd_widget.picture.dot import graph_view
from micrograd_widget.picture.text import MAX_LABEL_CHARS, clean_text, format_number


@pytest.fixture
def no_dot(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    """A PATH without Graphviz: the graphviz package raises ExecutableNotFound, as on a bare machine."""
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(graphviz.ExecutableNotFound):
        graphviz.Digraph().pipe(format="svg")


@pytest.mark.usefixtures("dot_program")
def test_svg_holds_every_nodes_label_data_and_grad() -> None:
    L = lecture_graph()
    bundle = value_mimebundle(L)
    assert set(bundle) == {"text/plain", "image/svg+xml"}
    assert bundle["text/plain"] == repr(L) == "Value(data=-8.0, grad=1.0)"
    groups = svg_groups(parse_svg(bundle["image/svg+xml"]))
    for i, v in enumerate(Tape.from_value(L).values):
        assert texts(groups[f"n{i}"]) == [v.label, f"data {format_number(v.data)}", f"grad {format_number(v.grad)}"]


@pytest.mark.usefixtures("dot_program")
def test_options_reach_the_picture() -> None:
    bundle = value_mimebundle(lecture_graph(), precision=1, rankdir="TB", color=False)
    groups = svg_groups(parse_svg(bundle["image/svg+xml"]))
    assert texts(groups["n0"]) == ["a", "data 2.0", "grad 6.0"]
    assert "mgw-legend" not in groups


def test_without_dot_a_table_with_the_install_hint(no_dot: None) -> None:
    L = lecture_graph()
    bundle = value_mimebundle(L)
    assert set(bundle) == {"text/plain", "text/html"}
    assert bundle["text/plain"] == repr(L)
    table = Table(bundle["text/html"])
    table.check_no_injection()
    header, *rows = table.rows
    assert header == ["node", "label", "op", "data", "grad"]
    tape = Tape.from_value(L)
    assert rows == [[f"n{i}", tape.labels[i], tape.symbols[i] or "leaf", format_number(tape.data[i]),
                     format_number(tape.grad[i])] for i in range(len(tape))]
    said = " ".join(table.outside)
    for command in ("apt-get install graphviz", "brew install graphviz", "conda install graphviz"):
        assert command in said
    assert "Traceback" not in bundle["text/html"]
    hints = [p for p in bundle["text/html"].split("<p>") if "install" in p]
    assert len(hints) == 1 and "\n" not in hints[0]


def test_table_titles_carry_full_precision(no_dot: None) -> None:
    x = Value(1 / 3, label="third")
    titles = [attrs.get("title") for tag, attrs in Table(value_mimebundle(x * 1.0)["text/html"]).tags if tag == "td"]
    assert repr(1 / 3) in titles


def test_hostile_labels_are_escaped_in_the_table(no_dot: None) -> None:
    root, labels = hostile_graph()
    table = Table(value_mimebundle(root)["text/html"])
    table.check_no_injection()
    cells = [row[1] for row in table.rows[1:]]
    assert cells == [clean_text(label, MAX_LABEL_CHARS * 3) for label in labels]
    assert '<b onclick="x">|{c}' in [row[2] for row in table.rows[1:]]
    assert all(lbl in " ".join(cells) for lbl in HOSTILE[:4])


@pytest.mark.usefixtures("dot_program")
def test_hostile_labels_are_text_in_the_bundles_svg() -> None:
    root, labels = hostile_graph()
    svg = parse_svg(value_mimebundle(root)["image/svg+xml"])
    assert_no_markup(svg)
    assert not list(svg.iter(f"{SVG}script"))
    groups = svg_groups(svg)
    assert [texts(groups[f"n{i}"])[0].strip() for i in range(len(labels))] == \
        [clean_text(label, MAX_LABEL_CHARS) for label in labels]


def test_a_failing_dot_gives_a_table_with_its_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(view: object) -> str:
        raise graphviz.CalledProcessError(1, ["dot", "-Tsvg"], stderr="Error: <b>syntax</b> near line 3")
    monkeypatch.setattr(display, "render_svg", broken)
    table = Table(value_mimebundle(lecture_graph())["text/html"])
    table.check_no_injection()
    said = " ".join(table.outside)
    assert "Error: <b>syntax</b> near line 3" in said and "could not draw" in said
    assert len(table.rows) == 8


@pytest.mark.usefixtures("dot_program")
def test_too_large_a_picture_becomes_a_table_that_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(display, "MAX_SVG_BYTES", 2000)
    bundle = value_mimebundle(lecture_graph())
    assert "image/svg+xml" not in bundle
    said = " ".join(Table(bundle["text/html"]).outside)
    assert "over the 0.0 MB" in said and "node_budget" in said


def test_a_layout_past_the_time_limit_becomes_a_table_that_says_why(stopped_dot: DotRuns) -> None:
    """dot stopped at layout.DOT_TIME_LIMIT: the Value's display and a widget's static fallback show the table
    with a one-line reason (what happened, what to do) instead of freezing the kernel, and dot is killed."""
    root = slow_layout_moons()
    tape = Tape.from_value(root)
    widget = GraphWidget(root, node_budget=None)
    bundle = widget._repr_mimebundle_()[0]
    assert "application/vnd.jupyter.widget-view+json" in bundle
    for shown in (value_mimebundle(root, node_budget=None), bundle, {"text/html": value_html(root, node_budget=None)}):
        assert "image/svg+xml" not in shown
        table = Table(shown["text/html"])
        table.check_no_injection()
        said = re.sub(r"\s+", " ", "".join(table.outside))
        assert re.search(STOPPED_MESSAGE, said), said
        assert "so here is a table" in said and "%config MicrogradWidget.node_budget = 100" in said
        assert [row[0] for row in table.rows[1:]] == [f"n{i}" for i in range(len(tape))]
    widget.close()
    stopped_dot.assert_all_stopped()


@pytest.mark.usefixtures("dot_program")
def test_folded_display_says_what_it_folded(monkeypatch: pytest.MonkeyPatch, tmp_path) -> None:
    root = moons_like_loss(points=10)
    total = len(Tape.from_value(root))
    svg = parse_svg(value_mimebundle(root, node_budget=100)["image/svg+xml"])
    graph_label = "".join(t for el in svg.find(f"{SVG}g") if el.tag == f"{SVG}text" for t in el.itertext())
    assert graph_label.startswith("showing ") and f"of {total:,} nodes;" in graph_label
    assert "one per module" in graph_label
    groups = svg_groups(svg)
    assert len(groups) < 2 * 100 + 1
    folds = [g for g in groups.values() if "mgw-fold" in (g.get("class") or "")]
    counts = [int(texts(g)[1].split()[0].replace(",", "")) for g in folds]
    values = [g for g in groups.values() if "mgw-value" in (g.get("class") or "")]
    assert len(values) + sum(counts) == total

    monkeypatch.setenv("PATH", str(tmp_path))
    table = Table(value_mimebundle(root, node_budget=100)["text/html"])
    table.check_no_injection()
    assert graph_label in table.outside
    folded_rows = [row for row in table.rows[1:] if row[2] == "folded"]
    shown_rows = [row for row in table.rows[1:] if row[2] != "folded"]
    assert len(shown_rows) + sum(int(r[3].split()[0].replace(",", "")) for r in folded_rows) == total


def test_bad_input_is_a_clear_error() -> None:
    with pytest.raises(TypeError, match="takes a Value"):
        value_mimebundle(2.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="node_budget"):
        value_mimebundle(Value(1.0), node_budget=3)


def test_table_colours_leave_the_output_out_of_the_scale() -> None:
    o = saturated_neuron()
    view = graph_view(o)
    tape = view.tape
    styles = [attrs.get("style") for tag, attrs in Table(display.html_table(view)).tags
              if tag == "td" and (attrs.get("style") or "").startswith("background-color")]
    scale = max(abs(g) for g in tape.grad[:-1])
    assert styles == [f"background-color:{grad_color(g, ColorScale(scale, 4))}" for g in tape.grad]
    assert styles[tape.labels.index("x1*w1")] != "background-color:#ffffff"
    assert styles[-1] == f"background-color:{POSITIVE_COLOR}"


# ---------------------------------------------------------------- a Value's own display, no setup

@pytest.mark.usefixtures("dot_program")
def test_a_bare_value_shows_its_graph_as_html_without_the_extension() -> None:
    L = lecture_graph()
    html = L._repr_html_()
    assert html is not None
    groups = svg_groups(parse_svg(picture_in(html)))
    # L = (a*b + c) * f at a=2, b=-3, c=10, f=-2: L = -8, dL/da = b*f = 6, dL/db = a*f = -4, dL/dc = f = -2
    assert texts(groups["n0"]) == ["a", "data 2.0000", "grad 6.0000"]
    assert texts(groups["n1"]) == ["b", "data -3.0000", "grad -4.0000"]
    assert texts(groups["n6"]) == ["L", "data -8.0000", "grad 1.0000"]
    assert repr(L) == "Value(data=-8.0, grad=1.0)"      # text/plain (terminals) unchanged


@pytest.mark.usefixtures("dot_program")
def test_a_bare_values_picture_is_an_image_so_sanitizers_keep_it() -> None:
    """An untrusted notebook's HTML is sanitized (JupyterLab drops inline SVG): the picture is an <img> (no other
    markup: picture_in checks), and hostile labels stay text inside its SVG."""
    root, _ = hostile_graph()
    html = root._repr_html_()
    assert html is not None
    assert_no_markup(parse_svg(picture_in(html)))


def test_a_bare_values_html_without_dot_is_the_table(no_dot: None) -> None:
    html = lecture_graph()._repr_html_()
    assert html is not None
    table = Table(html)
    table.check_no_injection()
    assert table.rows[1][1:] == ["a", "leaf", "2.0000", "6.0000"]
    assert "apt-get install graphviz" in html


def test_a_bare_values_html_is_escaped_and_folded(no_dot: None) -> None:
    html = hostile_graph()[0]._repr_html_()
    assert html is not None
    Table(html).check_no_injection()
    root = moons_like_loss(points=10)
    folded = Table(root._repr_html_() or "")
    total = len(Tape.from_value(root))
    assert any("folded" in text for text in folded.outside) and len(folded.rows) - 1 < total


def test_marimo_display_is_the_live_widget() -> None:
    from micrograd_widget.graph.widget import GraphWidget
    L = lecture_graph()
    w = L._display_()
    assert isinstance(w, GraphWidget)
    assert w.tape.values[w.tape.root] is L and w.output == w.tape.root


# ---------------------------------------------------------------- a widget's static fallback

@pytest.mark.usefixtures("dot_program")
def test_widget_fallback_shows_the_output_chosen_in_the_widget(monkeypatch: pytest.MonkeyPatch) -> None:
    from builders import lecture_L

    from micrograd_widget.graph.widget import explore
    nodes = lecture_L()
    w = explore(nodes["L"], output=nodes["d"])
    tape = w.tape
    ids = {tape.labels[i]: f"n{i}" for i in range(len(tape))}

    def fallback() -> dict[str, list[str]]:
        def from_value(*_: object, **__: object) -> Tape:
            raise AssertionError("the fallback must be drawn from the widget's own tape")
        with monkeypatch.context() as m:
            m.setattr(Tape, "from_value", from_value)
            data, _ = w._repr_mimebundle_()
        assert "application/vnd.jupyter.widget-view+json" in data
        groups = svg_groups(parse_svg(data["image/svg+xml"]))
        return {label: texts(groups[i])[2:] for label, i in ids.items()}

    # d = a*b + c: dd/da = b = -3, dd/db = a = 2, dd/dc = 1; f and L are not inputs of d (grad 0)
    assert fallback() == {"a": ["grad -3.0000"], "b": ["grad 2.0000"], "e": ["grad 1.0000"], "c": ["grad 1.0000"],
                          "d": ["grad 1.0000"], "f": ["grad 0.0000"], "L": ["grad 0.0000"]}
    w.output = tape.root        # chosen again in the widget: the next fallback follows
    assert fallback() == {"a": ["grad 6.0000"], "b": ["grad -4.0000"], "e": ["grad -2.0000"],
                          "c": ["grad -2.0000"], "d": ["grad -2.0000"], "f": ["grad 4.0000"], "L": ["grad 1.0000"]}
    w.close()


def test_with_html_keeps_the_bundle_within_what_a_notebook_output_carries(monkeypatch: pytest.MonkeyPatch) -> None:
    """The HTML (base64: 4/3 of the SVG) is what a notebook shows; the bare SVG rides along only while both fit."""
    from micrograd_widget import display

    svg = value_mimebundle(lecture_graph())["image/svg+xml"]
    assert set(display.with_html({"image/svg+xml": svg})) == {"image/svg+xml", "text/html"}
    monkeypatch.setattr(display, "MAX_SVG_BYTES", len(svg) * 2)
    assert set(display.with_html({"image/svg+xml": svg, "text/plain": "v"})) == {"text/html", "text/plain"}
    table = {"text/html": "<div class='mgw-table'></div>"}
    assert display.with_html(table) == table
