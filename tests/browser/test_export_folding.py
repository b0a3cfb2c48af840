"""Fold boxes without a kernel (issue 9): the page ``save_html`` writes (opened from file://, its own widget host,
no kernel) opens and closes boxes in place as the live widget does, and a widget saved with boxes open
(``w.opened = [...]``) shows them in that page and in its static fallback (the SVG of its display bundle); a
search match deep inside a closed layer is revealed there (the boxes holding it opened, the node drawn and marked).

Every expected picture comes from Python (``dot.graph_view`` for the same open set), every number from Python's
tape for the value the control actually took."""

from __future__ import annotations

import random
import re

import builders
import pytest
from builders import lecture_mlp_loss, picture_view
from playwright.sync_api import expect

from micrograd_widget.core.tape import Tape
from micrograd_widget.engine import Value
from micrograd_widget.graph.widget import GraphWidget
from micrograd_widget.host.export import save_html
from micrograd_widget.nn import MLP
from micrograd_widget.picture import fold_tree
from micrograd_widget.picture.dot import graph_view

from .mgw_browser.dom import WidgetDom, poll
from .mgw_browser.folds import NEURON, drawn, expect_tape_numbers, key_of, open_box

pytestmark = pytest.mark.browser


@pytest.fixture
def open_saved(tmp_path, guarded, widget_bundle):
    """open_saved(root_or_widget) -> WidgetDom: save_html's page for it, opened from file:// (no server, no kernel)."""
    def _open(root_or_widget) -> WidgetDom:
        page = save_html(root_or_widget, tmp_path / "page.html")
        guarded.page.goto(page.as_uri())
        view = WidgetDom(guarded.page)
        view.wait_ready(60)
        return view
    return _open


def expect_pythons_picture(tape: Tape, d: dict) -> None:
    """The drawn picture ``d`` (test_folding.drawn) is Python's picture for the open set it shows (its clusters)."""
    static = graph_view(tape, open_keys=d["clusters"])
    assert sorted(static.shown) == sorted(d["nodes"]), "the page draws other nodes than Python for that open set"
    assert sorted(f.key for f in static.folds) == sorted(d["boxes"]), "the page's closed boxes differ from Python's"


def expect_clean(guarded) -> None:
    assert not guarded.log.outside, f"the exported page asked the network: {guarded.log.outside}"
    assert not guarded.log.console_errors and not guarded.log.page_errors, guarded.log.describe()


def test_the_exported_page_opens_a_neuron_moves_a_weight_in_it_and_closes_it(open_saved, guarded):
    loss = lecture_mlp_loss()
    tape = Tape.from_value(loss)
    view = open_saved(loss)
    default = drawn(view)
    assert NEURON in default["boxes"] and not default["clusters"]
    expect_pythons_picture(tape, default)
    after = open_box(view, NEURON)
    new = sorted(set(after["nodes"]) - set(default["nodes"]))
    assert new and all(tape.scopes[i].startswith(NEURON) for i in new), "opening the neuron drew other nodes"
    assert set(default["boxes"]) - {NEURON} <= set(after["boxes"]), "opening one box closed or moved another"
    expect_pythons_picture(tape, after)
    expect_tape_numbers(view, tape, after["nodes"])
    # a weight inside the opened neuron moves: the page replays the tape and every drawn number follows
    leaf = next(i for i in new if i in set(tape.leaves) and tape.labels[i].startswith("w"))
    view.type_number(key_of(tape, leaf), -1.25)
    tape.forward({leaf: -1.25})
    tape.backward()
    expect_tape_numbers(view, tape, after["nodes"])
    # the inspector of a node inside the opened box offers Collapse: the default picture again
    view.root.locator(f'[data-role="graph"] g.mgw-value#n{leaf}').click()
    view.root.locator('[data-role="inspector"] [data-action="collapse"]').click()
    closed = poll(lambda: drawn(view, settle=False), lambda d: not d["clusters"] and not d["busy"], "the box closed")
    assert sorted(closed["nodes"]) == sorted(default["nodes"]) and sorted(closed["boxes"]) == sorted(default["boxes"])
    # and Expand all that fits opens what the budget allows, as Python's picture of that open set
    view.root.locator('.mgw-fold-controls [data-action="expand-all"]').click()
    full = poll(lambda: drawn(view, settle=False), lambda d: len(d["clusters"]) > 1 and not d["busy"], "expand all")
    expect_pythons_picture(tape, full)
    expect_clean(guarded)


_STATIC_NODES = re.compile(r'<g id="n(\d+)" class="node mgw&#45;value')
_STATIC_FOLDS = re.compile(r'<g id="fold\d+" class="node mgw&#45;fold')
_STATIC_CLUSTER = re.compile(r'<g id="open\d+" class="cluster mgw&#45;cluster">\s*<title>[^<]*</title>\s*'
                             r'<g id="[^"]*"><a xlink:title="([^":]*):')


def test_a_widget_saved_with_a_box_open_shows_it_in_the_page_and_in_its_static_fallback(open_saved, guarded):
    loss = lecture_mlp_loss()
    tape = Tape.from_value(loss)
    widget = GraphWidget(loss)
    widget.opened = [NEURON]
    assert widget.opened == [NEURON]
    python = graph_view(tape, open_keys=widget.opened)
    # the static fallback (what nbconvert, GitHub and viewers without a widget manager show) draws the open box
    data = widget._repr_mimebundle_()
    svg = (data[0] if isinstance(data, tuple) else data)["image/svg+xml"]
    assert _STATIC_CLUSTER.findall(svg) == [NEURON], "the static fallback should draw the opened neuron as a cluster"
    assert sorted(int(i) for i in _STATIC_NODES.findall(svg)) == sorted(python.shown)
    assert len(_STATIC_FOLDS.findall(svg)) == len(python.folds)
    # the exported page starts with the same box open and draws what Python draws for it
    view = open_saved(widget)
    shown = drawn(view)
    assert shown["clusters"] == [NEURON]
    assert sorted(shown["nodes"]) == sorted(python.shown)
    assert sorted(shown["boxes"]) == sorted(f.key for f in python.folds)
    expect_tape_numbers(view, tape, shown["nodes"])
    # and closes it with no kernel: Collapse all draws the default picture
    view.root.locator('.mgw-fold-controls [data-action="collapse-all"]').click()
    closed = poll(lambda: drawn(view, settle=False), lambda d: not d["clusters"] and not d["busy"], "collapse all")
    expect_pythons_picture(tape, closed)
    assert NEURON in closed["boxes"]
    expect_clean(guarded)


def moons_like_loss():
    """micrograd's moons MLP(2, [16, 16, 1]) on 12 random points (~8,000 nodes): each layer folds to one box and a
    layer opens into a few neurons nearest the output, so layers.0.neurons.3 stays closed inside it."""
    random.seed(7)
    model = MLP(2, [16, 16, 1])
    points = [[random.uniform(-1, 2), random.uniform(-1, 1)] for _ in range(12)]
    labels = [random.choice((-1.0, 1.0)) for _ in points]
    scores = [model([Value(a), Value(b)]) for a, b in points]
    out = sum((1 + -y * s).relu() for y, s in zip(labels, scores, strict=True)) * (1.0 / len(points))
    out.label = "loss"
    out.backward()
    return out


def test_the_exported_page_reveals_a_search_match_deep_in_a_closed_layer(open_saved, guarded):
    loss = moons_like_loss()
    tape = Tape.from_value(loss)
    i = next(j for j in tape.leaves if tape.scopes[j] == "layers.0.neurons.3" and tape.labels[j] == "w1")
    widget = GraphWidget(loss)
    assert i not in picture_view(widget)["shown"]
    path = fold_tree.keys_to_reveal(widget._fold_tree(), i)
    # opening the layer alone (what a click on its box does) fills it with the neurons nearest the output
    layer = fold_tree.expand(tape, widget._fold_tree(), [], path[0], widget.node_budget)
    assert path[1] not in layer, "the point of this test: the neuron is not among those the layer opens into"
    view = open_saved(widget)
    box = view.root.locator('input[data-role="search"]')
    box.fill("layers.0.neurons.3.w1")
    box.press("Enter")
    expect(view.root.locator('[data-role="search-status"]')).to_contain_text("its fold boxes opened")
    shown = poll(lambda: drawn(view, settle=False), lambda d: i in d["nodes"] and not d["busy"], f"node {i} drawn")
    assert set(path) <= set(shown["clusters"]), f"the boxes holding it ({path}) should be open: {shown['clusters']}"
    expect_pythons_picture(tape, shown)
    poll(lambda: view.root.evaluate("r => [...r.querySelectorAll('svg g.mgw-match')].map(g => g.id)"),
         lambda m: m == [f"n{i}"], f"n{i} alone marked")
    expect_tape_numbers(view, tape, [i])
    expect_clean(guarded)


def test_expand_all_at_node_budget_2000_on_the_moons_loss_lays_out_in_the_page_with_pythons_numbers(open_saved,
                                                                                                      guarded):
    # At 2000 it opened the regularisation sum (its terms' edges crossing ~130,000 ranks) and ran into the layout
    # worker's 60 s watchdog; the layout cost (fold_fit) stops it before, and the picture lays out in seconds.
    root = builders.moons_like_loss()        # micrograd's moons loss: 65,818 nodes
    tape = Tape.from_value(root)
    assert len(tape) == 65818
    tree = fold_tree.build_tree(tape, 2000)
    python = graph_view(tape, node_budget=2000, open_keys=fold_tree.expand_all_that_fits(tape, tree, [], 2000),
                        tree=tree)
    view = open_saved(GraphWidget(root, node_budget=2000))
    view.root.locator('.mgw-fold-controls [data-action="expand-all"]').click()
    full = poll(lambda: drawn(view, settle=False), lambda d: len(d["clusters"]) > 1 and not d["busy"], "expand all",
                timeout_s=90)
    assert view.root.get_attribute("data-state") == "ready", view.root.inner_text()[:500]
    assert sorted(full["clusters"]) == sorted(python.open), "the page opened other boxes than Python's planner"
    assert sorted(full["nodes"]) == sorted(python.shown) and len(full["nodes"]) + len(full["boxes"]) > 1000
    assert sorted(full["boxes"]) == sorted(f.key for f in python.folds)
    expect_tape_numbers(view, tape, full["nodes"])
    expect_clean(guarded)


def test_a_chain_of_2000_boxes_the_budgets_most_lays_out_in_the_page(open_saved, guarded):
    root = builders.tanh_chain(2000)
    tape = Tape.from_value(root)
    view = open_saved(GraphWidget(root, node_budget=2000))
    shown = drawn(view)
    assert sorted(shown["nodes"]) == list(range(2000)) and not shown["boxes"]
    expect_tape_numbers(view, tape, [0, 999, 1999])
    expect_clean(guarded)


def test_a_polynomial_whose_edges_reach_far_back_lays_out_within_the_planners_limit(open_saved, guarded):
    # Horner's rule: x feeds every step of the chain. Drawn whole (602 nodes, under the budget) its edges cross
    # 79,600 ranks beyond the next and the layout ran into the worker's 60 s watchdog; the planner draws what
    # crosses at most FAR_RANKS_LIMIT and says why, and opening the rest is refused in words (the fit loop's cost).
    root = builders.horner(200)
    tape = Tape.from_value(root)
    python = graph_view(tape, node_budget=2000)
    view = open_saved(GraphWidget(root, node_budget=2000))
    shown = drawn(view)
    assert sorted(shown["nodes"]) == sorted(python.shown) and len(shown["boxes"]) == 1
    expect(view.root.locator('[data-role="status"]')).to_contain_text("which is slow to lay out")
    expect_tape_numbers(view, tape, [tape.root, *python.shown[:3]])
    box = view.root.locator('[data-role="graph"] g.node.mgw-fold').first
    box.click()
    view.root.locator('[data-role="inspector"] [data-action="expand"]').click()
    expect(view.root.locator('[data-role="status"]')).to_contain_text("too slow to lay out")
    assert sorted(drawn(view)["nodes"]) == sorted(python.shown), "the refused opening changed the picture"
    expect_clean(guarded)
