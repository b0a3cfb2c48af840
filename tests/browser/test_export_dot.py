"""The DOT download in Chromium is the picture shown, with the numbers shown now: after a slider moves, another
output is chosen, while stepping, and inside an opened box, it is Python's graph_view for those numbers (the engine's
graph rebuilt, or Python's tape replayed); a picture Graphviz's default ranking drops an edge of is drawn whole."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from builders import lost_edge_moons
from playwright.sync_api import expect

from micrograd_widget import GraphWidget
from micrograd_widget.core.tape import Tape
from micrograd_widget.picture.dot import graph_view
from micrograd_widget.picture.fold_tree import build_tree, expand_all_that_fits
from micrograd_widget.picture.text import format_number

from .mgw_browser.dom import expected_numbers
from .mgw_browser.exports import SVG, download, expand_box, svg_numbers
from .mgw_browser.graphs import lecture_L, lecture_mlp
from .mgw_browser.steps import NOT_REACHED, StepperDom, engine_steps

pytestmark = pytest.mark.browser


def test_export_dot_holds_the_numbers_and_output_shown(show, guarded):
    """After a slider moves, another output is chosen, and while stepping, the DOT is Python's for those numbers
    (the engine's graph rebuilt at the slider's value; Python's tape replayed for another output; the engine's
    partial grads after k steps, a grad not reached yet written as the picture shows it)."""
    view = show(lecture_L()["L"])
    x = view.move_slider("a", 0.8)
    moved = lecture_L(a=x)
    view.expect_numbers(expected_numbers(moved))
    _, dot = download(guarded.page, view, "export-dot")
    assert dot.decode() == graph_view(Tape.from_value(moved["L"])).dot
    tape = Tape.from_value(moved["L"])
    d = tape.index(moved["d"])
    view.root.locator('select[data-role="output"]').select_option(value=str(d))
    tape.backward(d)
    view.expect_numbers({"a": {"grad": tape.grad[tape.index(moved["a"])]}})
    _, dot = download(guarded.page, view, "export-dot")
    assert dot.decode() == graph_view(tape, output=d).dot
    assert 'class="mgw-value mgw-output-node"' in dot.decode().split(f"\tn{d} [")[1].split("\n")[0]
    # The picture on screen and its SVG file mark the new output bold, as Python's static picture does.
    bold = """r => [...r.querySelectorAll('[data-role=graph] g.mgw-output-node')].map(g =>
      [g.getAttribute('data-node'), g.querySelector('polygon, path').getAttribute('stroke-width')])"""
    assert view.root.evaluate(bold) == [["d", "2.5"]]
    _, svg = download(guarded.page, view, "export-svg")
    marked = [g for g in ET.fromstring(svg).iter(f"{SVG}g") if "mgw-output-node" in (g.get("class") or "").split()]
    assert [g.get("id") for g in marked] == [f"n{d}"]
    # Stepping: the engine's partial grads after k steps (its backward pass replayed in Python, node by node); a grad
    # not reached yet is what the picture and its SVG file show, the mark "·" (white, dashed), never a 0.
    stepper = StepperDom(view)
    stepper.open()
    steps, states = engine_steps(tape, d)
    for k in (0, 1, len(steps)):
        while stepper.index()[0] < k:
            stepper.click("forward")
        assert stepper.index() == (k, len(steps))
        _, dot = download(guarded.page, view, "export-dot")
        _, svg = download(guarded.page, view, "export-svg")
        _expect_stepped_dot(dot.decode(), svg, tape, d, states[k])


def _expect_stepped_dot(dot: str, svg: bytes, tape: Tape, output: int, reached: dict[int, float]) -> None:
    """``dot`` is Python's graph_view for the partial grads ``reached`` ({node: grad} of the nodes the stepped pass
    has reached), except that every other node's grad is the mark NOT_REACHED, white and dashed; the exported SVG
    shows the same grad text as the DOT for every node."""
    tape.grad = type(tape.grad)("d", [reached.get(i, 0.0) for i in range(len(tape))])
    want = graph_view(tape, output=output).dot.split("\n")
    got = dot.split("\n")
    assert len(got) == len(want)
    unreached = set(range(len(tape))) - set(reached)
    assert unreached, "a case with grads not reached yet"
    for line, expected in zip(got, want):
        node = re.match(r"\tn(\d+) \[", line)
        if node is None or int(node[1]) not in unreached:
            assert line == expected
            continue
        assert re.search(r"\| grad " + NOT_REACHED + r" }", line), line
        assert 'fillcolor="#ffffff"' in line and 'style="filled,dashed"' in line and " mgw-unreached" in line, line
        assert "grad = " not in line and "grad not reached yet" in line, line
    shown = {name: fields["grad"] for name, fields in svg_numbers(svg).items()}
    fields = re.findall(r"\tn(\d+) \[label=\"\{ [^|]* \| [^|]* \| grad (\S+) \}", dot)
    in_dot = {tape.labels[int(i)]: g for i, g in fields}
    assert shown == in_dot == {tape.labels[i]: NOT_REACHED if i in unreached else format_number(reached[i], 4)
                               for i in range(len(tape))}


def _numbers_apart(dot: str) -> tuple[str, list[float]]:
    """A DOT with its full-precision tooltip numbers ('data = <repr>', 'grad = <repr>') taken out, and them."""
    found = [float(m) for m in re.findall(r"(?:data|grad) = ([^\\\"]+)", dot)]
    return re.sub(r"((?:data|grad) = )[^\\\"]+", r"\1#", dot), found


def test_export_dot_of_an_opened_box_follows_a_slider_inside_it(show, guarded):
    """Open a neuron of the lecture's MLP loss, move one of its weights: the DOT (open box, live fold boxes, colour
    scale) is what Python's graph_view writes after Python's tape replays the same leaf value."""
    loss = lecture_mlp()
    view = show(loss, node_budget=60)
    key = "layers.1.neurons.0"
    opened = expand_box(view, guarded.page, key)
    w = GraphWidget(loss, node_budget=60)
    drawn = graph_view(w.tape, node_budget=60, open_keys=opened).dot
    leaf = next(i for i in w.tape.leaves if w.tape.scopes[i].startswith(key) and f"\tn{i} [" in drawn)
    name = view.root.evaluate("(r, i) => r.querySelector(`[data-role=graph] g#n${i}`).getAttribute('data-node')", leaf)
    x = view.move_slider(name, 0.9)
    w.set_leaf(leaf, x)
    view.expect_numbers({name: {"data": x}})
    _, dot = download(guarded.page, view, "export-dot")
    want = graph_view(w.tape, node_budget=60, open_keys=opened).dot
    assert want != graph_view(Tape.from_value(lecture_mlp()), node_budget=60, open_keys=opened).dot
    (got_text, got), (want_text, wanted) = _numbers_apart(dot.decode()), _numbers_apart(want)
    assert got_text == want_text, "the DOT differs beyond the last digits of its full-precision tooltips"
    assert got == pytest.approx(wanted, rel=1e-12, abs=1e-12)
    w.close()


def test_expand_all_that_graphviz_drops_an_edge_of_is_drawn_with_every_edge(show, guarded):
    """A small moons loss at budget 120: after Expand all that fits, Graphviz's default ranking drops an edge
    between the opened boxes; the view lays it out again (newrank) and draws every edge the DOT holds."""
    root, budget = lost_edge_moons()
    view = show(root, node_budget=budget)
    view.root.locator('[data-action="expand-all"]').click()
    expect(view.root.locator('[data-role="graph"] g.cluster')).to_have_count(5, timeout=30_000)
    tape = Tape.from_value(root)
    opened = guarded.page.evaluate("() => window.__mgw.model.get('opened')")
    assert sorted(opened) == sorted(expand_all_that_fits(tape, build_tree(tape, budget), [], budget))
    edges = sorted(re.findall(r"\[id=(e_[^\]]+)\]", graph_view(tape, node_budget=budget, open_keys=opened).dot))
    drawn = sorted(view.root.evaluate("r => [...r.querySelectorAll('[data-role=graph] g.edge')].map(g => g.id)"))
    assert len(edges) == 353 and drawn == edges
    assert view.error_text() == ""
