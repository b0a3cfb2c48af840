"""Search and trace in Chromium (fake model and the exported page): a leaf hidden in a fold box found by its full
dotted name, revealed (the boxes Python says hold it opened in place) and marked, next/previous through the
matches, the inspector's Inputs / Path to output against Python's own walk of the engine's graph, Esc clearing the
marks, and the leaf filter taking the same dotted names.

Expected sets come from the engine's graph (``Value._prev``, walked here) and Python's picture
(``builders.picture_view``), never from the view's code."""

from __future__ import annotations

import random

import pytest
from builders import picture_view
from playwright.sync_api import expect

from micrograd_widget.core.tape import Tape
from micrograd_widget.engine import Value
from micrograd_widget.graph.widget import GraphWidget
from micrograd_widget.nn import MLP
from micrograd_widget.picture import fold_tree
from micrograd_widget.picture.dot import graph_view

from .mgw_browser.dom import WidgetDom, poll
from .mgw_browser.graphs import lecture_L

pytestmark = pytest.mark.browser

# The ids (n<i>) of the value boxes / fold boxes carrying a class, and of the edges carrying it.
_MARKED = """(root, cls) => ({
  nodes: [...root.querySelectorAll(`svg g.node.mgw-value.${cls}`)].map(g => g.id),
  folds: [...root.querySelectorAll(`svg g.node.mgw-fold.${cls}`)].map(g => g.id),
  edges: [...root.querySelectorAll(`svg g.edge.${cls}`)].map(g => g.id),
})"""


def lecture_mlp_loss() -> Value:
    """The lecture's MLP(3, [4, 4, 1]) loss on its four examples (398 nodes; its neurons fold at the default budget)."""
    random.seed(1337)
    model = MLP(3, [4, 4, 1])
    xs = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
    ys = [1.0, -1.0, -1.0, 1.0]
    loss = sum(((model(x) - y) ** 2 for x, y in zip(xs, ys, strict=True)), Value(0.0))
    loss.label = "loss"
    loss.backward()
    return loss


def node_id(tape: Tape, scope: str, label: str) -> int:
    """The one tape node made in ``scope`` with ``label``."""
    found = [i for i in range(len(tape)) if tape.scopes[i] == scope and tape.labels[i] == label]
    assert len(found) == 1, f"expected one node {scope}.{label}, found {found}"
    return found[0]


def depends_on(v: Value) -> set[Value]:
    """Every Value ``v`` depends on (not ``v``), walked here over ``_prev`` without recursion."""
    seen: set[Value] = set()
    stack = [v]
    while stack:
        for child in stack.pop()._prev:
            if child not in seen:
                seen.add(child)
                stack.append(child)
    return seen


def gradient_path(v: Value, output: Value) -> set[Value]:
    """The Values through which ``output``'s gradient reaches ``v``: ``v``, ``output`` and every node that depends
    on ``v`` and that ``output`` depends on."""
    feeds = depends_on(output) | {output}
    if v not in feeds:
        return set()
    return {u for u in feeds if u is v or v in depends_on(u)}


def ids(tape: Tape, values: set[Value]) -> list[str]:
    return sorted(f"n{tape.index(v)}" for v in values)


_CLUSTERS = "r => [...r.querySelectorAll('svg g.mgw-cluster')].map(g => g.getAttribute('data-fold'))"
_BOXES = "r => [...r.querySelectorAll('svg g.node.mgw-fold')].map(g => g.getAttribute('data-fold'))"
# Whether element #id is inside the visible part of the picture's scrolling box (and the page's viewport).
_IN_VIEW = """(r, id) => {
  const el = r.querySelector(`svg g#${id}`), scroller = r.querySelector('[data-role="graph"]');
  const a = el.getBoundingClientRect(), b = scroller.getBoundingClientRect();
  return a.width > 0 && a.left >= b.left - 1 && a.right <= b.right + 1
    && a.top >= b.top - 1 && a.bottom <= b.bottom + 1;
}"""


def search_for(view: WidgetDom, text: str) -> None:
    box = view.root.locator('input[data-role="search"]')
    box.fill(text)
    box.press("Enter")


def marked(view: WidgetDom, cls: str) -> dict[str, list[str]]:
    return view.root.evaluate(_MARKED, cls)


def test_a_folded_leaf_is_found_by_its_dotted_name_revealed_and_marked(show, guarded):
    loss = lecture_mlp_loss()
    tape = Tape.from_value(loss)
    widget = GraphWidget(loss)
    picture = picture_view(widget)
    i = node_id(tape, "layers.0.neurons.3", "w2")
    assert i not in picture["shown"], "the default picture folds the neurons (the point of this test)"
    path = fold_tree.keys_to_reveal(widget._fold_tree(), i)
    assert path, "Python's hierarchy should hold the folded leaf in at least one box"
    view = show(loss)
    box = view.root.locator('input[data-role="search"]')
    expect(box).to_have_attribute("data-lm-suppress-shortcuts", "true")
    search_for(view, "layers.0.neurons.3.w2")
    status = view.root.locator('[data-role="search-status"]')
    expect(status).to_contain_text("Match 1 of 1")
    expect(status).to_contain_text("its fold boxes opened")
    # the boxes on its path (Python's keys_to_reveal) are open, drawn as clusters, and the model was told
    clusters = poll(lambda: view.root.evaluate(_CLUSTERS), lambda c: set(path) <= set(c), f"clusters {path}")
    saved = [s["opened"] for s in guarded.page.evaluate("() => window.__mgw.log.save") if "opened" in s]
    assert saved and set(path) <= set(saved[-1]), f"the view should save the opened boxes {path}: {saved}"
    # Python draws the same picture for that open set: node i is drawn there too, in the same boxes
    static = graph_view(tape, open_keys=saved[-1])
    assert i in static.shown and sorted(f.key for f in static.folds) == sorted(view.root.evaluate(_BOXES))
    assert set(clusters) == set(saved[-1])
    # node i's own box is drawn, marked alone, and scrolled into the picture's visible area
    poll(lambda: marked(view, "mgw-match"), lambda m: m["nodes"] == [f"n{i}"] and m["folds"] == [],
         f"n{i} alone marked")
    assert view.root.evaluate(_IN_VIEW, f"n{i}"), f"n{i} should be scrolled into the picture's visible area"
    inspector = view.root.locator('[data-role="inspector"]')
    expect(inspector.locator('[data-field="name"]')).to_have_text(f"w2 (#{i})")
    expect(inspector.locator('[data-field="scope"]')).to_have_text("layers.0.neurons.3")


def test_next_and_previous_walk_the_matches_in_tape_order(show):
    loss = lecture_mlp_loss()
    tape = Tape.from_value(loss)
    w2 = [i for i in range(len(tape)) if tape.labels[i] == "w2"]
    assert len(w2) == 9, "w2 in the 4 + 4 + 1 neurons that have three or more inputs"
    view = show(loss)
    status = view.root.locator('[data-role="search-status"]')
    inspector_name = view.root.locator('[data-role="inspector"] [data-field="name"]')
    box = view.root.locator('input[data-role="search"]')
    box.fill("W2")
    expect(status).to_contain_text("9 nodes match")
    box.press("Enter")
    expect(status).to_contain_text("Match 1 of 9")
    expect(inspector_name).to_have_text(f"w2 (#{w2[0]})")
    box.press("Enter")
    expect(status).to_contain_text("Match 2 of 9")
    expect(inspector_name).to_have_text(f"w2 (#{w2[1]})")
    box.press("Shift+Enter")
    expect(status).to_contain_text("Match 1 of 9")
    box.press("Shift+Enter")
    expect(status).to_contain_text("Match 9 of 9")
    expect(inspector_name).to_have_text(f"w2 (#{w2[8]})")
    view.root.locator('[data-action="search-next"]').click()
    expect(status).to_contain_text("Match 1 of 9")
    view.root.locator('[data-action="search-prev"]').click()
    expect(status).to_contain_text("Match 9 of 9")
    box.fill("no such node")
    box.press("Enter")
    expect(status).to_contain_text("No node matches")
    box.fill("q" * 100_000)  # a paste: the status quotes its first 59 characters and an ellipsis (issue 24)
    expect(status).to_have_text("No node matches \u201c" + "q" * 59 + "\u2026\u201d.")


def test_inputs_and_path_to_output_match_pythons_walk_and_esc_clears(show, guarded):
    nodes = lecture_L()
    tape = Tape.from_value(nodes["L"])
    view = show(nodes["L"])
    inspector = view.root.locator('[data-role="inspector"]')

    view.root.locator('svg g[data-node="d"]').first.click()
    expect(inspector).to_have_attribute("data-node", "d")
    inspector.locator('[data-action="trace-up"]').click()
    want = ids(tape, depends_on(nodes["d"]))
    assert want == ["n0", "n1", "n2", "n3"], "a, b, e, c by hand"
    poll(lambda: sorted(marked(view, "mgw-path")["nodes"]), lambda got: got == want, f"inputs of d marked: {want}")
    edges = marked(view, "mgw-path")["edges"]
    assert "e_n4_op_n4" in edges and "e_n2_n4_op" in edges and "e_n0_n2_op" in edges, edges
    assert not any(e.endswith("_n6_op") for e in edges), f"no edge into L is on d's inputs: {edges}"

    guarded.page.keyboard.press("Escape")
    poll(lambda: marked(view, "mgw-path"), lambda m: not any(m.values()), "Esc to clear the marks")

    view.root.locator('svg g[data-node="a"]').first.click()
    inspector.locator('[data-action="trace-down"]').click()
    want = ids(tape, gradient_path(nodes["a"], nodes["L"]))
    assert want == ["n0", "n2", "n4", "n6"], "a -> e -> d -> L by hand"
    poll(lambda: sorted(marked(view, "mgw-path")["nodes"]), lambda got: got == want, f"path from a marked: {want}")
    # A new differentiated output (the toolbar's chooser; Python's 'output' trait does the same): the shown path
    # is traced again, to the new output: a -> e -> d.
    view.root.locator('select[data-role="output"]').select_option(value=str(tape.index(nodes["d"])))
    want = ids(tape, gradient_path(nodes["a"], nodes["d"]))
    assert want == ["n0", "n2", "n4"], "a -> e -> d by hand"
    poll(lambda: sorted(marked(view, "mgw-path")["nodes"]), lambda got: got == want, f"path from a to d marked: {want}")
    # Keyboard: the trace button is a button (JupyterLab keeps its shortcuts off it), Esc from it clears.
    expect(inspector.locator('[data-action="trace-down"]')).to_have_attribute("data-lm-suppress-shortcuts", "true")
    inspector.locator('[data-action="trace-down"]').focus()
    guarded.page.keyboard.press("Escape")
    poll(lambda: marked(view, "mgw-path"), lambda m: not any(m.values()), "Esc to clear the marks")


def test_traces_on_a_folded_graph_mark_the_fold_boxes_holding_path_nodes(show, guarded):
    loss = lecture_mlp_loss()
    tape = Tape.from_value(loss)
    i = node_id(tape, "layers.0.neurons.3", "w2")
    want = gradient_path(tape.values[i], loss)
    view = show(loss)
    search_for(view, "layers.0.neurons.3.w2")  # opens the boxes holding w2; the path still crosses closed ones
    expect(view.root.locator('[data-role="search-status"]')).to_contain_text("its fold boxes opened")
    saved = [s["opened"] for s in guarded.page.evaluate("() => window.__mgw.log.save") if "opened" in s]
    picture = graph_view(tape, open_keys=saved[-1])  # Python's picture of the open set the view shows
    shown = set(picture.shown)
    box_of = {j: f.id for f in picture.folds for j in f.members}
    want_nodes = sorted(f"n{tape.index(v)}" for v in want if tape.index(v) in shown)
    want_folds = sorted({box_of[tape.index(v)] for v in want if tape.index(v) not in shown})
    assert want_folds, "the path runs through folded neurons"
    view.root.locator('[data-role="inspector"] [data-action="trace-down"]').click()
    status = view.root.locator('[data-role="search-status"]')
    expect(status).to_contain_text(f"through {len(want):,} nodes")
    got = poll(lambda: marked(view, "mgw-path"), lambda m: bool(m["nodes"] or m["folds"]), "the path marked")
    assert sorted(got["nodes"]) == want_nodes
    assert sorted(got["folds"]) == want_folds


def test_the_leaf_filter_takes_full_dotted_names(show):
    loss = lecture_mlp_loss()
    tape = Tape.from_value(loss)
    view = show(loss)
    box = view.root.locator('input[data-role="leaf-filter"]')
    expect(box).to_have_count(1)
    rows = """r => [...r.querySelectorAll('[data-leaf-row]')].map(e => e.getAttribute('data-leaf-row'))"""
    i = node_id(tape, "layers.1.neurons.0", "w1")
    box.fill("layers.1.neurons.0.w1")
    poll(lambda: view.root.evaluate(rows), lambda got: got == [str(i)], f"leaf #{i} alone")
    neuron = [str(j) for j in tape.leaves if tape.scopes[j] == "layers.1.neurons.0"]
    assert len(neuron) == 5, "w0..w3 and b"
    box.fill("layers.1.neurons.0")
    poll(lambda: sorted(view.root.evaluate(rows)), lambda got: got == sorted(neuron), "the neuron's five leaves")


def test_search_and_trace_in_the_exported_page(tmp_path, guarded, widget_bundle):
    from micrograd_widget import save_html

    nodes = lecture_L()
    tape = Tape.from_value(nodes["L"])
    out = save_html(nodes["L"], tmp_path / "page.html")
    guarded.page.goto(out.as_uri())
    view = WidgetDom(guarded.page)
    view.wait_ready(60)
    search_for(view, "e")
    poll(lambda: marked(view, "mgw-match")["nodes"], lambda got: got == ["n2"], "e marked")
    view.root.locator('[data-role="inspector"] [data-action="trace-down"]').click()
    want = ids(tape, gradient_path(nodes["e"], nodes["L"]))
    poll(lambda: sorted(marked(view, "mgw-path")["nodes"]), lambda got: got == want, f"path from e: {want}")
    guarded.page.keyboard.press("Escape")
    poll(lambda: marked(view, "mgw-path"), lambda m: not any(m.values()), "Esc to clear the path")
