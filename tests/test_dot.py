"""dot.py: the lecture's draw_dot, stable ids, escaping and colours in the picture (text.py's and colors.py's
functions: test_text.py, test_colors.py; folding: test_fold.py).

Pictures are checked by rendering them with Graphviz's ``dot`` and parsing the SVG, not by
searching the DOT text. The ids, classes and texts checked here pin the SVG contract the JS view relies
on (js/host/svg-contract.md): change them together.
"""

from __future__ import annotations

import math
import random
import re
import shutil
import xml.etree.ElementTree as ET

import graphviz
import pytest
from builders import (
    horner,
    hostile_graph,
    lecture_graph,
    lecture_L,
    moons_like_loss,
    nonfinite_grads,
    saturated_neuron,
    saturated_tanh,
)
from helpers import SVG, XLINK_TITLE, assert_no_markup, classes, render, svg_groups, texts
from hypothesis import given, settings
from hypothesis import strategies as st

from micrograd_widget import Value, draw_dot, trace
from micrograd_widget.core.tape import Tape
from micrograd_widget.engine import scope
from micrograd_widget.host.options import check_option
from micrograd_widget.picture import dot as dot_module
from micrograd_widget.picture.colors import NONFINITE_COLOR, POSITIVE_COLOR, ZERO_COLOR, ColorScale, grad_color
from micrograd_widget.picture.dot import graph_view
from micrograd_widget.picture.fold import Fold
from micrograd_widget.picture.text import MAX_LABEL_CHARS, clean_text, format_number

# ---------------------------------------------------------------- helpers (test_display imports them)


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
    assert "mgw-output-node" in classes(groups["n6"]) and "mgw-leaf" in classes(groups["n0"])
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


def test_non_finite_numbers_are_drawn_and_greyed(dot_program: str) -> None:
    x = Value(math.inf, label="x")
    y = x * 0.0
    y.backward()
    groups = svg_groups(render(graph_view(y)))
    assert texts(groups["n0"]) == ["x", "data inf", "grad 0.0000"]
    assert texts(groups["n2"])[1] == "data nan"
    fills = {el.get("fill") for el in groups["n2"].iter() if el.tag == f"{SVG}polygon"}
    assert fills == {grad_color(1.0, ColorScale(1.0, 4))}
    z = Value(2.0, label="z")
    w = z * 1.0
    w.grad = math.nan
    w._backward()
    fills = {el.get("fill") for el in svg_groups(render(graph_view(w)))["n0"].iter() if el.tag == f"{SVG}path"}
    assert fills == {NONFINITE_COLOR}


def test_box_max_ranks_nan_over_inf_over_finite() -> None:
    """A fold box's largest |grad| (js/host/svg-contract.md "Live fold box"): a nan grad is the largest, then an
    infinite
    one, then the largest finite |grad|, wherever they are in tape order; the first wins a tie; the output is left
    out. js/picture/dot.js boxMax (the browser's DOT and live picture) follows the same rule (tests/vectors/folds/)."""
    box_max, inf, nan = dot_module.box_max, math.inf, math.nan
    assert box_max([1.0, -3.0, 2.0], [0, 1, 2], 9) == 1
    assert box_max([1.0, -inf, 3.0], [0, 1, 2], 9) == 1
    assert box_max([inf, 1.0, nan, -inf], [0, 1, 2, 3], 9) == 2      # before: the first non-finite one, inf
    assert box_max([nan, inf, nan], [0, 1, 2], 9) == 0
    assert box_max([-inf, inf, 2.0], [0, 1, 2], 9) == 0
    assert box_max([nan, 1.0], [0, 1], 0) == 1                        # the differentiated output left out
    assert box_max([nan], [0], 0) is None


def test_a_fold_box_holding_a_non_finite_grad_shows_it_greyed_off_the_colour_scale(dot_program: str) -> None:
    tape = Tape.from_value(nonfinite_grads())
    view = graph_view(tape, node_budget=10)
    groups = svg_groups(render(view))
    by_title = {f.title if f.kind != "leaves" else "leaves": f for f in view.folds}
    assert set(by_title) >= {"mixed", "steep", "leaves", "finite"}, view.message

    def fill(fold: Fold) -> str | None:
        return next(el.get("fill") for el in groups[fold.id].iter() if el.tag == f"{SVG}polygon")
    # an inf grad, then a nan one later in tape order: nan; a -inf among finite grads: inf; every grad inf: inf
    for title, number in (("mixed", "nan"), ("steep", "inf"), ("leaves", "inf")):
        assert texts(groups[by_title[title].id])[2:] == [f"max |grad| {number}"], title
        assert fill(by_title[title]) == NONFINITE_COLOR, title
    # the colour scale stays finite: the largest finite |grad| drawn or shown by a box (the 'finite' module's -3)
    assert view.scale == 3.0
    assert texts(groups["mgw-legend"])[1:] == ["-3.0000", "-0.7500", "0.0000", "0.7500", "3.0000"]
    assert fill(by_title["finite"]) == grad_color(tape.grad[dot_module.box_max(tape.grad, by_title["finite"].members,
                                                                              tape.root)], ColorScale(3.0, 4))


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

def test_colours_leaves_root_and_legend_in_the_picture(dot_program: str) -> None:
    L = lecture_graph()
    svg = render(graph_view(L))
    groups = svg_groups(svg)

    def fill(group: ET.Element) -> str:
        return next(el for el in group.iter() if el.tag in (f"{SVG}polygon", f"{SVG}path")).get("fill")
    assert fill(groups["n0"]) == POSITIVE_COLOR            # a: grad 6.0, the largest
    assert fill(groups["n1"]) == grad_color(-4.0, ColorScale(6.0, 4))     # b: grad -4.0
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
    assert fill(groups["n6"]) == grad_color(1.0, ColorScale(6.0, 4)) != ZERO_COLOR    # L: d L / d L = 1, in scale


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
    assert by_label["x1"] == grad_color(-0.5, ColorScale(1.0, 4))         # half of w1's grad, negative
    assert by_label["o"] == POSITIVE_COLOR                 # the output: clamped to the strongest colour
    scale = max(others)
    assert graph_view(o).scale == scale
    legend = (-scale, -scale / 4, 0.0, scale / 4, scale)
    assert texts(groups["mgw-legend"]) == ["grad", *(format_number(v) for v in legend)]
    assert texts(groups["mgw-legend"])[-1] == "0.0005"


def _fills(svg: str) -> dict[str, str]:
    """Each value node's fill (lower case) by id, and the legend's texts under "mgw-legend"."""
    groups = svg_groups(svg)
    fills = {k: next(el for el in g.iter() if el.tag in (f"{SVG}polygon", f"{SVG}path")).get("fill", "").lower()
             for k, g in groups.items() if re.fullmatch(r"n\d+", k)}
    return {**fills, "mgw-legend": " ".join(texts(groups["mgw-legend"]))}


def test_a_grad_shown_as_zero_is_painted_white_and_the_log_scale_tints_it(dot_program: str) -> None:
    o = saturated_tanh()
    tape = Tape.from_value(o)
    others = [abs(g) for i, g in enumerate(tape.grad) if i != tape.root]
    assert 1e-8 < max(others) < 1e-7 and all(format_number(g) in ("0.0000", "-0.0000") for g in others)
    relative = _fills(render(graph_view(o)))
    root = f"n{tape.root}"
    assert relative[root] == POSITIVE_COLOR        # the output's own grad, 1.0000
    assert {v for k, v in relative.items() if k not in (root, "mgw-legend")} == {ZERO_COLOR}
    assert relative["mgw-legend"] == ("every gradient but the output's own shows as 0.0000: "
                                      "the log colour scale tells them apart")
    log = _fills(render(graph_view(o, color_scale="log")))
    w1 = f"n{tape.labels.index('w1')}"
    # w1's grad x1 * (1 - tanh(n)^2) = 2 * 2.3e-8: 7.34 of 12 decades below 1, t = 0.388; orange 240, 145, 58
    # -> 249.2, 212.3, 178.6 -> f9 d4 b3 (computed from the grad here, checked against the colour by hand).
    t = 1 + math.log10(tape.grad[tape.labels.index("w1")]) / 12
    assert 0.38 < t < 0.40 and log[w1] == "#" + "".join(f"{round(255 + (c - 255) * t):02x}" for c in (240, 145, 58))
    assert log[f"n{tape.labels.index('w2')}"] == ZERO_COLOR        # exactly 0 (x2 = 0)
    assert log["mgw-legend"] == "grad, log scale -1 -1e-6 0 1e-6 1"
    # More decimals show the grads: the relative scale paints them again.
    assert _fills(render(graph_view(o, precision=8)))[w1] != ZERO_COLOR


def test_the_legend_says_when_every_gradient_is_0(dot_program: str) -> None:
    x, w = Value(-2.0, label="x"), Value(1.0, label="w")
    out = (x * w).relu()                 # a dead ReLU, no backward yet: every grad 0, the output's too
    fills = _fills(render(graph_view(out)))
    assert fills.pop("mgw-legend") == "all gradients are 0"
    assert set(fills.values()) == {ZERO_COLOR}
    assert _fills(render(graph_view(out, color_scale="log")))["mgw-legend"] == "all gradients are 0"


def test_colour_scale_falls_back_to_the_output_and_follows_output(dot_program: str) -> None:
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


def test_a_box_holding_the_root_shows_the_roots_numbers_as_the_browser_does() -> None:
    """The root inside a closed box is that box's one output (js/picture/fold_tree.js boxOutputs,
    js/graph/box-numbers.js): it
    shows the root's data and grad, not max |grad|; with another member used outside the box too, max |grad|.
    The planner never boxes the root; a hierarchy made by hand can."""
    from array import array

    from micrograd_widget.picture.fold_tree import FoldTree, Group, picture

    a, b, c = Value(2.0, label="a"), Value(-3.0, label="b"), Value(10.0, label="c")
    d = a * b
    e = d + c
    f = e * e                        # d = -6, e = 4, f = 16
    f.backward()
    tape = Tape.from_value(f)
    order = [tape.index(v) for v in (a, b, c, d, e, f)]
    options = {"precision": 4, "rankdir": "LR", "color": True, "node_budget": 10}
    for members, output in (((3, 4, 5), 5), ((3, 5), None)):   # {d, e, f}: the root only; {d, f}: d feeds e too
        group_of = array("i", [-1] * len(tape))
        for k in members:
            group_of[order[k]] = 0
        tree = FoldTree(len(tape), 10, [Group("box", "scope", "box", "", -1, count=len(members), nodes=len(members))],
                        group_of, "", {"box": 0})
        dot, folds, _ = dot_module.write_dot(tape, tree, picture(tape, tree, []), options, tape.root)
        assert folds[0].output == (None if output is None else order[output])
        line = next(s for s in dot.splitlines() if s.strip().startswith("fold0 "))
        shows = "data 16.0000" in line and "grad 1.0000" in line if output is not None else "max \\|grad\\|" in line
        assert shows, line


def test_draw_dot_stays_a_digraph_and_shows_in_a_notebook_as_the_readable_picture() -> None:
    """The lecture calls .render/.view on draw_dot's result: a graphviz.Digraph still; Jupyter shows it as the
    static picture's HTML (fitted or scrolled to the output), an SVG asked for by name stays an SVG."""
    from helpers import Table

    g = draw_dot(lecture_L()["L"])
    assert isinstance(g, graphviz.Digraph)
    bundle = g._repr_mimebundle_()
    assert set(bundle) == {"text/html"}
    table = Table(bundle["text/html"])
    assert table.tags[0][1]["class"] == "mgw-static" and table.tags[2][0] == "img"
    assert set(g._repr_mimebundle_(include=["image/svg+xml"])) == {"image/svg+xml"}


def test_a_picture_whose_edges_reach_far_is_laid_out_as_a_large_one() -> None:
    """dot.py large_layout, worked by hand: DOT_STYLE["large"] past LARGE_PICTURE_EDGES (1,000) edges or
    FAR_RANKS_LIMIT (3,000) far ranks, with an nslimit of 8 x (1,000 / (edges + far ranks))^2 in hundredths, at least
    0.18."""
    large = dot_module.DOT_STYLE["large"]
    assert dot_module.large_layout(1000, 3000) == {}
    assert dot_module.large_layout(1001, 0) == {**large, "nslimit": "7.98"}    # 8e8 / 1001^2 = 798.4 hundredths
    assert dot_module.large_layout(1000, 3001) == {**large, "nslimit": "0.49"}  # 8e8 / 4001^2 = 49.98
    assert dot_module.large_layout(2000, 2000)["nslimit"] == "0.50"            # 8e8 / 4000^2 = 50
    assert dot_module.large_layout(888, 7804)["nslimit"] == "0.18"             # 10.6, at least 18
    assert dot_module.large_layout(100_000, 0)["nslimit"] == "0.18"            # 0.08, at least 18
    # Horner's rule drawn whole: 6 DOT edges a step (y and x into the product's ellipse, the ellipse to the product,
    # the product and c_k into the sum's ellipse, the ellipse to the sum), x crossing 2d(d - 1) ranks beyond the next
    # (test_far_ranks.py): 2,964 at degree 39, 3,120 at 40: 8e8 / (240 + 3,120)^2 = 70.9 hundredths
    for degree, head in ((39, "graph [bgcolor=white fontname=Helvetica fontsize=11 rankdir=LR]"),
                         (40, "graph [bgcolor=white fontname=Helvetica fontsize=11 mclimit=0.1 newrank=true "
                              "nslimit=0.70 outputorder=edgesfirst rankdir=LR splines=line]")):
        view = graph_view(Tape.from_value(horner(degree)), node_budget=None)
        assert view.dot.count(" -> ") == 6 * degree
        assert view.dot.split("\n")[1] == "\t" + head
