"""dot.py: the lecture's draw_dot, stable ids, the one escaping function, colours, folding.

Pictures are checked by rendering them with Graphviz's ``dot`` and parsing the SVG, not by
searching the DOT text. The ids, classes and texts checked here pin the SVG contract the JS view relies
on (js/svg-contract.md): change them together.
"""

from __future__ import annotations

import math
import random
import re
import shutil
import xml.etree.ElementTree as ET

import graphviz
import pytest
from builders import lecture_L
from hypothesis import given, settings
from hypothesis import strategies as st

from micrograd_widget import Value, draw_dot, trace
from micrograd_widget import dot as dot_module
from micrograd_widget.demo import lecture_neuron
from micrograd_widget.dot import (
    DEFAULT_OPTIONS,
    MAX_LABEL_CHARS,
    MAX_NODE_BUDGET,
    MIN_LEAF_GROUP,
    MIN_NODE_BUDGET,
    MIN_SUM_TERMS,
    NEGATIVE_COLOR,
    NONFINITE_COLOR,
    POSITIVE_COLOR,
    ZERO_COLOR,
    GraphView,
    check_option,
    clean_text,
    escape,
    format_number,
    grad_color,
    graph_view,
)
from micrograd_widget.engine import scope
from micrograd_widget.nn import MLP
from micrograd_widget.ops import define_op
from micrograd_widget.tape import Tape

SVG = "{http://www.w3.org/2000/svg}"
XLINK_TITLE = "{http://www.w3.org/1999/xlink}title"

HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    'say "hi" \'there\'',
    "{a|b}<c> | {",
    "back\\slash \\N \\G \\l end\\",
    "two\nlines\r\nand\rmore",
    "&lt;b&gt; &amp; &#60;i&#62;",
    "]]> <!-- --> <![CDATA[x]]>",
    "\x00nul \x1b[31m esc \x7f",
    "lone \ud800 surrogate",
    "",
    "   ",
]


# ---------------------------------------------------------------- helpers (test_display imports them)

@pytest.fixture(scope="session")
def dot_program() -> str:
    """Graphviz's ``dot``; a missing one fails the tests that need it (apt-get install graphviz)."""
    path = shutil.which("dot")
    if path is None:
        pytest.fail("Graphviz's dot is needed to render the pictures these tests check: apt-get install graphviz",
                    pytrace=False)
    return path


def parse_svg(svg: str) -> ET.Element:
    return ET.fromstring(svg.encode("utf-8"))


def svg_groups(root: ET.Element) -> dict[str, ET.Element]:
    """Node groups by id (``n0``, ``n0_op``, ``fold0``, ``mgw-legend``)."""
    return {g.get("id"): g for g in root.iter(f"{SVG}g") if "node" in (g.get("class") or "").split()}


def texts(group: ET.Element) -> list[str]:
    return ["".join(t.itertext()) for t in group.iter(f"{SVG}text")]


def classes(group: ET.Element) -> set[str]:
    return set((group.get("class") or "").split())


def assert_no_markup(root: ET.Element) -> None:
    """Only the elements Graphviz writes, and no event-handler attributes."""
    allowed = {"svg", "g", "title", "polygon", "polyline", "path", "ellipse", "text", "a"}
    for el in root.iter():
        tag = el.tag.rsplit("}", 1)[-1]
        assert tag in allowed, f"unexpected element <{tag}> in the SVG"
        for attr in el.attrib:
            assert not attr.rsplit("}", 1)[-1].lower().startswith("on"), f"event attribute {attr} on <{tag}>"


def render(view_or_graph: GraphView | graphviz.Digraph) -> ET.Element:
    graph = view_or_graph.graph if isinstance(view_or_graph, GraphView) else view_or_graph
    return parse_svg(graph.pipe(format="svg", encoding="utf-8"))


def lecture_graph() -> Value:
    """The lecture's first example: L = (a*b + c) * f, backpropagated (the shared builder's root)."""
    return lecture_L()["L"]


def moons_like_loss(points: int = 100, seed: int = 0) -> Value:
    """The shape of micrograd's moons training loss: MLP(2,[16,16,1]), SVM loss + L2, backpropagated."""
    rng = random.Random(seed)
    random.seed(seed)
    model = MLP(2, [16, 16, 1])
    X = [[rng.uniform(-1, 2), rng.uniform(-1, 1)] for _ in range(points)]
    y = [rng.choice((-1.0, 1.0)) for _ in range(points)]
    scores = [model([Value(a), Value(b)]) for a, b in X]
    losses = [(1 + -yi * si).relu() for yi, si in zip(y, scores)]
    total = sum(losses) * (1.0 / len(losses)) + 1e-4 * sum(p * p for p in model.parameters())
    total.backward()
    return total


def chain(n: int) -> Value:
    """A graph of about ``n`` nodes with no scopes."""
    x = Value(0.5, label="x")
    for _ in range(n // 4):
        x = (x * Value(1.01) + 0.01).tanh()
    x.backward()
    return x


def edges_of(view: GraphView) -> list[tuple[str, str]]:
    out = []
    for line in view.graph.body:
        if "->" in line:
            tail, rest = line.strip().split(" -> ", 1)
            out.append((tail.strip('"'), rest.split(" [", 1)[0].strip('"')))
    return out


# ---------------------------------------------------------------- the lecture's API

def test_draw_dot_returns_the_lectures_digraph(dot_program: str) -> None:
    L = lecture_graph()
    g = draw_dot(L)
    assert isinstance(g, graphviz.Digraph)
    assert g.format == "svg" and g.graph_attr["rankdir"] == "LR"
    groups = svg_groups(render(g))
    nodes, _ = trace(L)
    tape = Tape.from_value(L)
    for i, v in enumerate(nodes):
        assert texts(groups[f"n{i}"]) == [v.label, f"data {v.data:.4f}", f"grad {v.grad:.4f}"]
        assert tape.values[i] is v
        if v._op:
            assert texts(groups[f"n{i}_op"]) == [v._op]
            assert "mgw-op" in classes(groups[f"n{i}_op"])
    assert texts(groups["n6"]) == ["L", "data -8.0000", "grad 1.0000"]
    assert "mgw-root" in classes(groups["n6"]) and "mgw-leaf" in classes(groups["n0"])
    edges = {g.get("id"): classes(g) for g in render(g).iter(f"{SVG}g") if "edge" in classes(g)}
    assert set(edges) == {"e_n0_n2_op", "e_n1_n2_op", "e_n2_op_n2", "e_n2_n4_op", "e_n3_n4_op", "e_n4_op_n4",
                          "e_n4_n6_op", "e_n5_n6_op", "e_n6_op_n6"}
    assert all("mgw-edge" in c for c in edges.values())


def test_draw_dot_format_and_rankdir() -> None:
    g = draw_dot(lecture_graph(), rankdir="TB", format="png")
    assert g.format == "png" and g.graph_attr["rankdir"] == "TB"
    with pytest.raises(ValueError, match="rankdir must be 'LR'"):
        draw_dot(lecture_graph(), rankdir="sideways")
    with pytest.raises(TypeError, match="takes a Value"):
        draw_dot(3.0)  # type: ignore[arg-type]


def test_trace_is_deterministic_and_lists_each_edge_once() -> None:
    a = Value(3.0, label="a")
    b = a + a
    nodes, edges = trace(b)
    assert nodes == [a, b]
    assert edges == [(a, b)]
    L = lecture_graph()
    nodes, edges = trace(L)
    assert [v.label for v in nodes] == ["a", "b", "e", "c", "d", "f", "L"]
    assert len(edges) == len(set(edges)) == 6


def test_ids_are_stable_across_runs() -> None:
    nodes = lecture_L()
    source = draw_dot(nodes["L"]).source
    # Ids are positions in the tape (inputs first, in order), never Python's id(): fixed, whatever the run.
    ids = dict(re.findall(r'^\s*(n\d+) \[label="\{ (\w+) \|', source, flags=re.M))
    assert ids == {"n0": "a", "n1": "b", "n2": "e", "n3": "c", "n4": "d", "n5": "f", "n6": "L"}
    assert not any(str(id(v)) in source or hex(id(v)) in source for v in nodes.values())
    assert draw_dot(lecture_L()["L"]).source == source, "a second, separately built graph (other id()s)"
    random.seed(3)
    first = graph_view(moons_like_loss(points=3), node_budget=60).dot
    random.seed(3)
    assert graph_view(moons_like_loss(points=3), node_budget=60).dot == first
    assert "id=n0 " in first and "0x" not in first


# ---------------------------------------------------------------- numbers, layout options

def test_precision_and_full_precision_tooltip(dot_program: str) -> None:
    x = Value(1 / 3, label="third")
    y = x * 2.0
    y.backward()
    groups = svg_groups(render(graph_view(y, precision=2)))
    assert texts(groups["n0"]) == ["third", "data 0.33", "grad 2.00"]
    tip = next(a for a in groups["n0"].iter(f"{SVG}a")).get(XLINK_TITLE)
    assert repr(1 / 3) in tip and "grad = 2.0" in tip
    assert texts(svg_groups(render(graph_view(y, precision=0)))["n0"])[1] == "data 0"


def test_format_number() -> None:
    assert format_number(2.0) == "2.0000"
    assert format_number(-1e-9) == "-0.0000"
    assert format_number(1234567.0, 2) == "1.23e+06"
    assert [format_number(x) for x in (math.nan, math.inf, -math.inf)] == ["nan", "inf", "-inf"]


def test_non_finite_numbers_are_drawn_and_greyed(dot_program: str) -> None:
    x = Value(math.inf, label="x")
    y = x * 0.0
    y.backward()
    groups = svg_groups(render(graph_view(y)))
    assert texts(groups["n0"]) == ["x", "data inf", "grad 0.0000"]
    assert texts(groups["n2"])[1] == "data nan"
    fills = {el.get("fill") for el in groups["n2"].iter() if el.tag == f"{SVG}polygon"}
    assert fills == {grad_color(1.0, 1.0)}
    z = Value(2.0, label="z")
    w = z * 1.0
    w.grad = math.nan
    w._backward()
    fills = {el.get("fill") for el in svg_groups(render(graph_view(w)))["n0"].iter() if el.tag == f"{SVG}path"}
    assert fills == {NONFINITE_COLOR}


def test_rankdir_tb_keeps_three_fields(dot_program: str) -> None:
    view = graph_view(lecture_graph(), rankdir="tb")
    assert view.options["rankdir"] == "TB" and view.graph.graph_attr["rankdir"] == "TB"
    groups = svg_groups(render(view))
    assert texts(groups["n0"]) == ["a", "data 2.0000", "grad 6.0000"]


def test_empty_label_still_has_three_texts(dot_program: str) -> None:
    y = Value(1.0) + Value(2.0)
    for rankdir in ("LR", "TB"):
        groups = svg_groups(render(graph_view(y, rankdir=rankdir)))
        assert [t.strip() for t in texts(groups["n0"])] == ["", "data 1.0000", "grad 0.0000"]


@pytest.mark.parametrize("name, value, message", [
    ("precision", 18, "from 0 to 17"),
    ("precision", -1, "from 0 to 17"),
    ("precision", 2.5, "whole number"),
    ("precision", True, "whole number"),
    ("rankdir", "XY", "'LR' .* or 'TB'"),
    ("node_budget", 5, "from 10 to 2000"),
    ("node_budget", 10**6, "from 10 to 2000"),
    ("color", "yes", "True or False"),
    ("colour", True, "unknown option"),
])
def test_bad_options_say_what_is_allowed(name: str, value: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        check_option(name, value)


def test_graph_view_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="from 0 to 17"):
        graph_view(lecture_graph(), precision=99)
    with pytest.raises(TypeError, match="Tape or a Value"):
        graph_view([1, 2])  # type: ignore[arg-type]


# ---------------------------------------------------------------- colours, leaves, root

def test_grad_colour_scale() -> None:
    assert grad_color(0.0, 5.0) == ZERO_COLOR
    assert grad_color(5.0, 5.0) == POSITIVE_COLOR and grad_color(-5.0, 5.0) == NEGATIVE_COLOR
    assert grad_color(math.nan, 1.0) == NONFINITE_COLOR == grad_color(-math.inf, 1.0)
    assert grad_color(3.0, 0.0) == ZERO_COLOR

    def whiteness(c: str) -> int:
        return sum(int(c[k:k + 2], 16) for k in (1, 3, 5))
    strengths = [whiteness(grad_color(g, 4.0)) for g in (0.01, 0.5, 1.0, 2.0, 4.0, 8.0)]
    assert strengths == sorted(strengths, reverse=True) and strengths[-1] == strengths[-2]
    pos, neg = grad_color(1.0, 4.0), grad_color(-1.0, 4.0)
    assert int(pos[1:3], 16) > int(pos[5:7], 16) and int(neg[5:7], 16) > int(neg[1:3], 16)


def test_colours_leaves_root_and_legend_in_the_picture(dot_program: str) -> None:
    L = lecture_graph()
    svg = render(graph_view(L))
    groups = svg_groups(svg)

    def fill(group: ET.Element) -> str:
        return next(el for el in group.iter() if el.tag in (f"{SVG}polygon", f"{SVG}path")).get("fill")
    assert fill(groups["n0"]) == POSITIVE_COLOR            # a: grad 6.0, the largest
    assert fill(groups["n1"]) == grad_color(-4.0, 6.0)     # b: grad -4.0
    assert any(el.tag == f"{SVG}path" for el in groups["n0"].iter())       # leaves are rounded (Mrecord)
    assert not any(el.tag == f"{SVG}path" for el in groups["n6"].iter())
    root_pen = next(el for el in groups["n6"].iter(f"{SVG}polygon")).get("stroke-width")
    assert float(root_pen) > 1
    legend = groups["mgw-legend"]
    assert texts(legend) == ["grad", "-6.0000", "-1.5000", "0.0000", "1.5000", "6.0000"]

    plain = svg_groups(render(graph_view(L, color=False)))
    assert "mgw-legend" not in plain
    assert {fill(plain[f"n{i}"]).lower() for i in range(7)} == {ZERO_COLOR}
    assert graph_view(L).scale == 6.0 == max(abs(v.grad) for v in Tape.from_value(L).values[:-1])
    assert fill(groups["n6"]) == grad_color(1.0, 6.0) != ZERO_COLOR      # L: d L / d L = 1, within the scale


def saturated_neuron() -> Value:
    """The lecture's neuron with w1 = -1: o = tanh(n) = 0.99988..., every other grad 0.0002-0.0005."""
    return lecture_neuron(w1=-1.0)["o"]


def test_the_output_grad_does_not_wash_out_the_colours(dot_program: str) -> None:
    o = saturated_neuron()
    tape = Tape.from_value(o)
    others = [abs(g) for i, g in enumerate(tape.grad) if i != tape.root]
    assert tape.grad[tape.root] == 1.0 and max(others) < 1e-3
    groups = svg_groups(render(graph_view(o)))

    def fill(group: ET.Element) -> str:
        return next(el for el in group.iter() if el.tag in (f"{SVG}polygon", f"{SVG}path")).get("fill").lower()
    by_label = {tape.labels[i]: fill(groups[f"n{i}"]) for i in range(len(tape))}
    for label in ("x1*w1", "x2*w2", "x1*w1 + x2*w2", "n", "b", "x1", "x2", "w1"):
        assert by_label[label] != ZERO_COLOR, f"{label} looks white next to the output"
    assert by_label["w2"] == ZERO_COLOR                    # its grad is exactly 0 (x2 = 0)
    assert by_label["w1"] == POSITIVE_COLOR                # the largest |grad| but the output's
    assert by_label["x1"] == grad_color(-0.5, 1.0)         # half of w1's grad, negative
    assert by_label["o"] == POSITIVE_COLOR                 # the output: clamped to the strongest colour
    scale = max(others)
    assert graph_view(o).scale == scale
    legend = (-scale, -scale / 4, 0.0, scale / 4, scale)
    assert texts(groups["mgw-legend"]) == ["grad", *(format_number(v) for v in legend)]
    assert texts(groups["mgw-legend"])[-1] == "0.0005"


def test_colour_scale_falls_back_to_the_output_and_follows_output(dot_program: str) -> None:
    assert dot_module.grad_scale([], 1.0) == 1.0                    # only the output drawn
    assert dot_module.grad_scale([0.0, -0.0, math.nan], -2.0) == 2.0    # no other grad: the output's
    assert dot_module.grad_scale([0.0, math.inf], None) == 0.0
    assert dot_module.grad_scale([0.25, -0.5, math.inf], 1.0) == 0.5
    x = Value(3.0, label="x")
    y = x * 1.0
    y.backward()                      # x.grad = 1, the constant's grad = 3: the constant sets the scale
    assert graph_view(y).scale == 3.0
    lone = Value(2.0, label="lone")
    lone.backward()
    groups = svg_groups(render(graph_view(lone)))
    assert texts(groups["mgw-legend"])[-1] == "1.0000"
    # The grads of an inner node: that node is the one left out, not the root.
    L = lecture_graph()
    tape = Tape.from_value(L)
    d = tape.labels.index("d")
    tape.backward(d)                 # d d / d e = 1 = d d / d c, d d / d a = b = -3, d d / d b = a = 2
    view = graph_view(tape, output=d)
    assert view.output == d and view.scale == 3.0
    assert graph_view(tape).scale == 3.0          # the root L (grad 0 now) left out instead: d's 1 counts
    with pytest.raises(ValueError, match="output"):
        graph_view(tape, output=len(tape))


# ---------------------------------------------------------------- escaping

def hostile_graph() -> tuple[Value, list[str]]:
    cube = define_op("cube", lambda a: a ** 3, lambda a, out: 3 * a * a, symbol='<b onclick="x">|{c}')
    leaves = []
    for k, label in enumerate(HOSTILE):
        with scope(f"evil<{k}>\"|{{}}\\"):
            leaves.append(Value(float(k), label=label))
    total = Value.apply(cube, sum(leaves[1:], leaves[0]))
    total.label = HOSTILE[0]
    total.backward()
    return total, [v.label for v in Tape.from_value(total).values]


def test_hostile_labels_are_text_in_the_svg(dot_program: str) -> None:
    root, labels = hostile_graph()
    svg = render(graph_view(root))
    assert_no_markup(svg)
    groups = svg_groups(svg)
    for i, label in enumerate(labels):
        shown = texts(groups[f"n{i}"])
        assert len(shown) == 3, (label, shown)
        assert shown[0].strip() == clean_text(label, MAX_LABEL_CHARS)
    op = [g for g in groups.values() if "mgw-op" in classes(g) and texts(g) != ["+"]]
    assert [texts(g) for g in op] == [['<b onclick="x">|{c}']]
    tooltips = [a.get(XLINK_TITLE) for a in svg.iter(f"{SVG}a")]
    assert any('evil<3>"|{}\\' in t for t in tooltips)


def test_hostile_labels_in_draw_dot_and_folded_titles(dot_program: str) -> None:
    with scope('<script>alert("s")</script>'):
        xs = [Value(float(i)) * 2 for i in range(20)]
    with scope("<img src=x onerror=alert(1)>"):
        ys = [x + 1 for x in xs]
    root = sum(ys[1:], ys[0])
    view = graph_view(root, node_budget=30)
    titles = [f.title for f in view.folds]
    assert '<script>alert("s")</script>' in titles and "<img src=x onerror=alert(1)>" in titles
    svg = render(view)
    assert_no_markup(svg)
    groups = svg_groups(svg)
    assert texts(groups["fold0"])[0] == '<script>alert("s")</script>'
    assert_no_markup(render(draw_dot(root)))


@settings(max_examples=25, deadline=None)
@given(st.lists(st.text(min_size=0, max_size=60), min_size=1, max_size=6))
def test_any_label_renders_as_its_clean_text(labels: list[str]) -> None:
    assert shutil.which("dot"), "Graphviz's dot is needed to render the labels: apt-get install graphviz"
    leaves = [Value(float(k), label=s) for k, s in enumerate(labels)]
    root = sum(leaves[1:], leaves[0]) if len(leaves) > 1 else leaves[0] * 1.0
    svg = render(graph_view(root))
    assert_no_markup(svg)
    groups = svg_groups(svg)
    for i, v in enumerate(Tape.from_value(root).values):
        # Compared without spaces: Graphviz 2.43's record parser drops a space that follows a
        # non-ASCII first character ('é 0' shows as 'é0'); Graphviz 12+ keeps it.
        assert texts(groups[f"n{i}"])[0].replace(" ", "") == clean_text(v.label, MAX_LABEL_CHARS).replace(" ", "")


def test_escape_targets() -> None:
    assert escape('<a href="x">&</a>', "html") == "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;"
    assert escape("a|b{c}<d>", "record") == "a\\|b\\{c\\}\\<d\\>"
    assert escape('q"\\', "dot") == 'q\\"\\\\'
    assert escape("two\nlines") == "two \u21b5 lines"
    assert clean_text("x" * 50, 10) == "x" * 9 + "\u2026"
    with pytest.raises(ValueError, match="'record', 'dot' or 'html'"):
        escape("x", "js")  # type: ignore[arg-type]


# ---------------------------------------------------------------- folding

def check_partition(view: GraphView) -> None:
    """Every tape node is drawn in full or in exactly one fold; ids and edges are consistent."""
    members = [i for f in view.folds for i in f.members]
    assert sorted(list(view.shown) + members) == list(range(view.total))
    assert view.tape.root in view.shown
    assert [f.id for f in view.folds] == [f"fold{k}" for k in range(len(view.folds))]
    edges = edges_of(view)
    assert len(edges) == len(set(edges)), "duplicate edges"
    names = {f"n{i}" for i in view.shown} | {f"n{i}_op" for i in view.shown if view.tape.symbols[i]}
    names |= {f.id for f in view.folds}
    assert all(t in names and h in names for t, h in edges)
    assert not any(t == h for t, h in edges)


def test_small_graphs_are_not_folded() -> None:
    view = graph_view(lecture_graph())
    assert view.shown == tuple(range(7)) and view.folds == () and view.message == ""
    assert graph_view(chain(1000), node_budget=None).folds == ()


def test_folding_by_distance_without_scopes(dot_program: str) -> None:
    root = chain(400)
    tape = Tape.from_value(root)
    view = graph_view(tape, node_budget=50)
    check_partition(view)
    assert len(view.shown) + len(view.folds) <= 50
    assert [f.kind for f in view.folds] == ["distance"]
    # the nodes kept are the ones nearest the root
    dist = {tape.root: 0}
    for i in range(tape.root, -1, -1):
        for c in tape.inputs[i]:
            dist[c] = min(dist.get(c, math.inf), dist[i] + 1)
    assert max(dist[i] for i in view.shown) <= min(dist[i] for i in view.folds[0].members)
    assert view.message == f"showing {len(view.shown)} of {len(tape)} nodes; the {len(view.folds[0].members)} " \
        "farthest from the output folded into one box"
    groups = svg_groups(render(view))
    assert texts(groups["fold0"]) == ["farther from the output", f"{len(view.folds[0].members):,} nodes"]
    assert "mgw-fold" in classes(groups["fold0"])
    label = "".join(t for el in render(view).find(f"{SVG}g") if el.tag == f"{SVG}text" for t in el.itertext())
    assert label == view.message


def test_folding_by_module(dot_program: str) -> None:
    random.seed(0)
    model = MLP(3, [8, 8, 1])
    out = model([Value(0.5, label="x0"), Value(-1.0, label="x1"), Value(2.0, label="x2")])
    out.backward()
    tape = Tape.from_value(out)
    assert len(tape) > 250
    view = graph_view(tape)
    check_partition(view)
    assert {f.kind for f in view.folds} == {"scope"}
    assert sorted(f.title for f in view.folds) == sorted(f"layers.{i}.neurons.{j}" for i, n in ((0, 8), (1, 8), (2, 1))
                                                         for j in range(n))
    assert all(tape.scopes[i].startswith(f.title) for f in view.folds for i in f.members)
    assert "folded by module into 17 boxes" in view.message
    groups = svg_groups(render(view))
    box = view.folds[9]
    assert texts(groups[box.id]) == [box.title, f"{len(box.members)} nodes"]
    # a budget too small for one box per neuron folds one level up: one box per layer
    coarse = graph_view(tape, node_budget=12)
    check_partition(coarse)
    assert sorted(f.title for f in coarse.folds) == ["layers.0", "layers.1", "layers.2"]


def fold_counts_in_svg(svg: ET.Element) -> tuple[int, int]:
    """(value boxes drawn, nodes the fold boxes say they hold), read from the picture."""
    groups = svg_groups(svg)
    values = sum(1 for g in groups.values() if "mgw-value" in classes(g))
    folded = sum(int(texts(g)[1].split()[0].replace(",", "")) for g in groups.values() if "mgw-fold" in classes(g))
    return values, folded


def svg_size(svg: ET.Element) -> tuple[float, float]:
    """The picture's width and height in points."""
    return float(svg.get("width").removesuffix("pt")), float(svg.get("height").removesuffix("pt"))


@pytest.fixture(scope="module")
def moons_tape() -> Tape:
    return Tape.from_value(moons_like_loss())


def test_folding_the_moons_training_loss(dot_program: str, moons_tape: Tape) -> None:
    tape = moons_tape
    assert 65_000 < len(tape) < 66_500
    view = graph_view(tape, node_budget=250)
    check_partition(view)
    kinds = ("scope", "sum", "terms", "leaves", "distance")
    by_kind = {kind: [f for f in view.folds if f.kind == kind] for kind in kinds}
    # inputs -> layers -> per-sample losses -> sum -> mean, and the regularisation branch: one box each
    assert [f.title for f in by_kind["scope"]] == ["layers.2", "layers.1", "layers.0"]
    assert sorted(f.title.replace("\u00a0", " ") for f in by_kind["sum"]) == ["\u03a3 sum of 101 terms",
                                                                              "\u03a3 sum of 338 terms"]
    assert sorted(f.title for f in by_kind["terms"]) == ["101 terms: 100 ReLU, 1 leaf", "338 terms: 337 '*', 1 leaf"]
    assert [(f.title, len(f.members)) for f in by_kind["leaves"]] == [("leaves", 200)]
    assert by_kind["distance"] == []
    assert len(view.shown) + len(view.folds) <= 20
    assert len(edges_of(view)) <= 30
    assert view.message == (
        f"showing {len(view.shown)} of {len(tape):,} nodes; "
        f"{sum(len(f.members) for f in by_kind['scope']):,} folded by module into 3 boxes, "
        "2 long sums (101 and 338 terms) drawn as \u03a3 boxes, "
        f"their terms ({sum(len(f.members) for f in by_kind['terms']):,} nodes) folded into 2 boxes, "
        "200 leaves folded into 1 box")
    svg = render(view)
    groups = svg_groups(svg)
    assert {f"n{i}" for i in view.shown} <= set(groups)
    assert fold_counts_in_svg(svg) == (len(view.shown), len(tape) - len(view.shown))
    # A screen shows it at a readable scale (it was 13,123 x 7,989 pt before sums were folded).
    width, height = svg_size(svg)
    assert width <= 2000 and height <= 600, (width, height)


def test_a_small_budget_keeps_the_moons_structure(moons_tape: Tape) -> None:
    view = graph_view(moons_tape, node_budget=20)
    check_partition(view)
    assert [f.kind for f in view.folds].count("sum") == 2 and not any(f.kind == "distance" for f in view.folds)
    assert len(view.shown) + len(view.folds) <= 20


def long_sum(terms: int, label: str = "total") -> Value:
    """``sum(tanh(x_i * w_i))`` over ``terms`` products of leaves, no scopes, backpropagated."""
    xs = [Value(0.1 * k, label=f"x{k}") * Value(1.0 - 0.01 * k, label=f"w{k}") for k in range(terms)]
    total = sum((x.tanh() for x in xs[1:]), xs[0].tanh())
    total.label = label
    total.backward()
    return total


def unit_edges(view: GraphView) -> set[tuple[str, str]]:
    """The edges between the boxes drawn (value nodes and folds, op ellipses counted with their node),
    computed from the partition alone: what the node budget limits besides the boxes."""
    name = {i: f"n{i}" for i in view.shown}
    for f in view.folds:
        name.update((i, f.id) for i in f.members)
    return {(name[c], name[i]) for i, ins in enumerate(view.tape.inputs) for c in ins if name[c] != name[i]}


def test_long_sums_fold_only_above_the_budget(dot_program: str) -> None:
    root = long_sum(60)
    tape = Tape.from_value(root)
    n = len(tape)
    full = graph_view(tape, node_budget=None)
    assert full.folds == () and len(full.shown) == n
    assert graph_view(tape, node_budget=MAX_NODE_BUDGET).folds == ()

    view = graph_view(tape, node_budget=50)
    check_partition(view)
    sums = [f for f in view.folds if f.kind == "sum"]
    assert len(sums) == 1
    box = sums[0]
    assert box.title == "\u03a3\u00a0sum of 60 terms" and box.total == tape.root
    assert sorted(box.members) == sorted(i for i in range(n - 1) if tape.symbols[i] == "+")
    # The budget left after folding draws the terms nearest the output in full (4 nodes each: x, w,
    # '*', tanh): 11 of them fit in 50 boxes with the total, the Σ box and the other terms' box.
    terms = [f for f in view.folds if f.kind == "terms"]
    assert [f.title for f in terms] == ["49 more terms: 49 tanh"] and len(terms[0].members) == 4 * 49
    tanh = [i for i in range(n) if tape.symbols[i] == "tanh"]
    assert sorted(i for i in view.shown if tape.symbols[i] == "tanh") == tanh[-11:]
    assert len(view.shown) == 1 + 4 * 11 and len(view.shown) + len(view.folds) <= 50
    assert len(unit_edges(view)) <= 50
    assert view.message == f"showing {1 + 4 * 11} of {n} nodes; 1 long sum (60 terms) drawn as a \u03a3 box, " \
        f"11 of its terms (those nearest the output) drawn in full, the other terms ({4 * 49} nodes) folded into 1 box"
    svg = render(view)
    groups = svg_groups(svg)
    # The total keeps its live numbers; the Σ box stands in for its '+'.
    assert texts(groups[f"n{tape.root}"]) == ["total", f"data {format_number(root.data)}",
                                              f"grad {format_number(root.grad)}"]
    assert f"n{tape.root}_op" not in groups
    assert texts(groups[box.id]) == ["\u03a3\u00a0sum of 60 terms", f"{len(box.members)} nodes"]
    edge_ids = {g.get("id") for g in svg.iter(f"{SVG}g") if "edge" in classes(g)}
    assert {f"e_{terms[0].id}_{box.id}", f"e_{box.id}_n{tape.root}"} <= edge_ids
    assert {f"e_n{i}_{box.id}" for i in tanh[-11:]} <= edge_ids
    assert fold_counts_in_svg(svg) == (1 + 4 * 11, n - 1 - 4 * 11)

    # The smallest budget has room for one term next to the three boxes.
    tight = graph_view(tape, node_budget=MIN_NODE_BUDGET)
    check_partition(tight)
    assert [f.title for f in tight.folds if f.kind == "terms"] == ["59 more terms: 59 tanh"]
    assert len(tight.shown) + len(tight.folds) == 1 + 4 + 2 <= MIN_NODE_BUDGET


def neighbour_products_sum(n_nodes: int, seed: int = 7) -> Value:
    """``x0 + tanh(x1*x0) + tanh(x2*x1) + ...`` of about ``n_nodes`` nodes (the browser tests' chain graph):
    neighbouring terms share a leaf, no scopes, backpropagated."""
    rng = random.Random(seed)
    leaves = [Value(rng.uniform(-1, 1), label=f"x{i}") for i in range(max(2, n_nodes // 4))]
    acc = leaves[0]
    for i in range(1, len(leaves)):
        acc = acc + (leaves[i] * leaves[i - 1]).tanh()
    acc.label = "out"
    acc.backward()
    return acc


def test_a_long_sum_spends_the_spare_budget_on_its_terms(dot_program: str) -> None:
    tape = Tape.from_value(neighbour_products_sum(1000))
    n = len(tape)
    assert n == 997
    view = graph_view(tape, node_budget=250)
    check_partition(view)
    boxes = len(view.shown) + len(view.folds)
    assert 100 <= boxes <= 250, boxes          # it was 3: the total, a Σ box and a box of all 748 term nodes
    assert len(unit_edges(view)) <= 250
    by_kind = {f.kind: f for f in view.folds}
    assert set(by_kind) == {"sum", "terms"}
    drawn = sorted(i for i in view.shown if tape.symbols[i] == "tanh")
    tanh = [i for i in range(n) if tape.symbols[i] == "tanh"]
    assert drawn == tanh[-len(drawn):], "the terms drawn are the ones nearest the output"
    left = 250 - len(drawn)
    assert by_kind["terms"].title == f"{left} more terms: {left - 1} tanh, 1 leaf"
    assert view.message == (
        f"showing {len(view.shown)} of {n} nodes; 1 long sum (250 terms) drawn as a \u03a3 box, "
        f"{len(drawn)} of its terms (those nearest the output) drawn in full, "
        f"the other terms ({len(by_kind['terms'].members)} nodes) folded into 1 box")
    assert f"({len(drawn)} terms are drawn in full)" in by_kind["terms"].note
    svg = render(view)
    assert fold_counts_in_svg(svg) == (len(view.shown), n - len(view.shown))
    assert graph_view(tape, node_budget=250).dot == view.dot, "deterministic"


def test_terms_that_all_fit_are_all_drawn() -> None:
    leaves = [Value(0.1 * k, label=f"x{k}") for k in range(60)]
    root = sum(leaves[1:], leaves[0])
    root.backward()
    tape = Tape.from_value(root)
    view = graph_view(tape, node_budget=100)        # 119 nodes: 60 leaves, 59 '+'
    check_partition(view)
    assert [f.kind for f in view.folds] == ["sum"]
    assert sorted(view.shown) == sorted([tape.index(x) for x in leaves] + [tape.root])
    assert view.message == "showing 61 of 119 nodes; 1 long sum (60 terms) drawn as a \u03a3 box, " \
        "60 of its terms (those nearest the output) drawn in full"


def test_short_sums_and_sums_inside_modules_are_not_sum_boxes() -> None:
    short = long_sum(MIN_SUM_TERMS - 1)
    deep = chain(400)
    root = short * deep               # (short + deep would be a sum of MIN_SUM_TERMS terms)
    view = graph_view(root, node_budget=60)
    check_partition(view)
    assert not any(f.kind in ("sum", "terms") for f in view.folds)
    random.seed(1)
    model = MLP(12, [1])
    out = model([Value(float(k)) for k in range(12)])       # b + w0*x0 + ... + w11*x11 inside one neuron
    out = out * 1.0
    for _ in range(60):
        out = out.tanh()
    view = graph_view(out, node_budget=40)
    check_partition(view)
    assert {f.kind for f in view.folds} <= {"scope", "leaves", "distance"}


def test_leaves_feeding_the_same_boxes_fold_into_one() -> None:
    # 30 inputs all feeding the same two modules: interchangeable in the picture, so one box.
    random.seed(2)
    model = MLP(30, [2, 1])
    xs = [Value(0.1 * k, label=f"in{k}") for k in range(30)]
    out = model(xs)
    out.backward()
    view = graph_view(out, node_budget=MIN_NODE_BUDGET)
    check_partition(view)
    leaves = [f for f in view.folds if f.kind == "leaves"]
    assert [(f.title, f.members) for f in leaves] == [("leaves", tuple(Tape.from_value(out).index(x) for x in xs))]
    assert "30 leaves folded into 1 box" in view.message
    # fewer than MIN_LEAF_GROUP stay drawn
    few = MLP(MIN_LEAF_GROUP - 1, [2, 1])
    out = few([Value(0.1 * k) for k in range(MIN_LEAF_GROUP - 1)])
    view = graph_view(out, node_budget=MIN_NODE_BUDGET)
    check_partition(view)
    assert not any(f.kind == "leaves" for f in view.folds)


def test_densely_wired_modules_fold_by_layer_until_the_budget_allows_neurons() -> None:
    random.seed(0)
    model = MLP(2, [16, 16, 1])
    out = (model([Value(0.5), Value(-0.25)]) - 1.0) ** 2
    tape = Tape.from_value(out)
    view = graph_view(tape)               # 16 x 16 neuron-to-neuron edges: more than 250
    check_partition(view)
    assert sorted(f.title for f in view.folds if f.kind == "scope") == ["layers.0", "layers.1", "layers.2"]
    wide = graph_view(tape, node_budget=500)
    check_partition(wide)
    assert len([f for f in wide.folds if f.kind == "scope"]) == 33
    assert len(edges_of(wide)) > 250


def test_folded_pictures_stack_fields_across_the_flow(dot_program: str) -> None:
    def rows(view: GraphView, node: str) -> int:
        ys = {float(t.get("y")) for t in svg_groups(render(view))[node].iter(f"{SVG}text")}
        return len(ys)
    assert rows(graph_view(lecture_graph()), "n0") == 1          # the lecture's look: one row, left to right
    assert rows(graph_view(lecture_graph(), rankdir="TB"), "n0") == 1
    root = long_sum(60)
    total = f"n{Tape.from_value(root).root}"
    assert rows(graph_view(root, node_budget=50), total) == 3
    assert rows(graph_view(root, node_budget=50, rankdir="TB"), total) == 1
    # stacked numbers start at the box's left edge: a number that grows a digit does not shift its row
    folded = svg_groups(render(graph_view(root, node_budget=50)))[total]
    anchors = [t.get("text-anchor") for t in folded.iter(f"{SVG}text")]
    assert anchors == ["middle", "start", "start"]
    assert {t.get("text-anchor") for t in svg_groups(render(graph_view(lecture_graph())))["n0"].iter(f"{SVG}text")} \
        == {"middle"}


def test_draw_dot_never_folds(dot_program: str) -> None:
    root = long_sum(80)
    n = len(Tape.from_value(root))
    assert n > DEFAULT_OPTIONS["node_budget"]
    svg = render(draw_dot(root))
    groups = svg_groups(svg)
    assert not any("mgw-fold" in classes(g) for g in groups.values())
    assert sum(1 for g in groups.values() if "mgw-value" in classes(g)) == n


def test_fold_titles_go_through_the_one_escaping_function(dot_program: str, monkeypatch: pytest.MonkeyPatch) -> None:
    symbol = '<b onclick="x">|{c}'
    cube = define_op("cube", lambda a: a ** 3, lambda a, out: 3 * a * a, symbol=symbol)
    xs = [Value.apply(cube, Value(0.1 * k) * 2.0) for k in range(40)]
    root = sum(xs[1:], xs[0])
    root.backward()
    escaped: list[str] = []
    real = dot_module.escape

    def spy(text: object, target: str = "record") -> str:
        escaped.append(str(text))
        return real(text, target)  # type: ignore[arg-type]
    monkeypatch.setattr(dot_module, "escape", spy)
    view = graph_view(root, node_budget=30)
    check_partition(view)
    titles = {f.title for f in view.folds}
    assert f"34 more terms: 34 '{symbol}'" in titles       # the 6 nearest the output are drawn in full
    assert all(clean_text(title, MAX_LABEL_CHARS) in escaped for title in titles)
    svg = render(view)
    assert_no_markup(svg)
    shown = {texts(g)[0] for g in svg_groups(svg).values() if "mgw-fold" in classes(g)}
    assert shown == {clean_text(title, MAX_LABEL_CHARS) for title in titles}


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(1, 30)), min_size=1, max_size=6), st.integers(10, 60))
def test_any_sum_of_sums_partitions_cleanly(parts: list[tuple[int, int]], budget: int) -> None:
    """Sums of terms (leaves, products, shared inputs, nested sums) folded at any budget: every node drawn
    or in exactly one fold, no duplicate edges, at most ``budget`` boxes."""
    shared = Value(0.5, label="shared")
    totals = []
    for kind, k in parts:
        if kind == 0:
            terms = [Value(float(j)) for j in range(k)]
        elif kind == 1:
            terms = [Value(float(j)) * shared for j in range(k)]
        elif kind == 2:
            terms = [(Value(float(j)) * Value(2.0)).relu() for j in range(k)]
        else:
            terms = totals[-1:] * k if totals else [shared] * k
        totals.append(sum(terms[1:], terms[0]) if len(terms) > 1 else terms[0] + 0.0)
    root = sum(totals[1:], totals[0]) * 1.0
    root.backward()
    view = graph_view(root, node_budget=budget)
    check_partition(view)
    if view.folds:
        assert len(view.shown) + len(view.folds) <= budget
        assert all(f.total is None or f.total in view.shown for f in view.folds)
