"""Fold boxes in the live view (issue 9), in Chromium with a fake model: closed boxes are live (filled by their
largest |grad| on the nodes' colour scale, which counts them; their numbers follow the sliders).

Every expected number and colour comes from Python's tape for the value the control actually took."""

from __future__ import annotations

import random

import pytest

from micrograd_widget.dot import grad_color, grad_scale
from micrograd_widget.nn import MLP
from micrograd_widget.tape import Tape
from micrograd_widget.widget import GraphWidget

from .mgw_browser.dom import WidgetDom, poll
from .mgw_browser.fake_model import open_view

pytestmark = pytest.mark.browser

XS = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
YS = [1.0, -1.0, -1.0, 1.0]


def lecture_mlp_loss():
    """The lecture's MLP(3, [4, 4, 1]) on its four examples: the squared-error loss (398 nodes), backpropagated."""
    random.seed(1)
    model = MLP(3, [4, 4, 1], act="tanh", output_nonlin=True)
    loss = sum((model(x) - y) ** 2 for x, y in zip(XS, YS, strict=True))
    loss.backward()
    return loss


@pytest.fixture
def show(guarded, static_server, widget_bundle):
    """show(widget) -> WidgetDom: the widget rendered with a fake model in a guarded page."""
    def _show(widget, **options) -> WidgetDom:
        return open_view(guarded.page, static_server, widget, **options)
    return _show


def expected_fills(tape: Tape, view: dict, output: int) -> dict[str, str]:
    """The fill of every drawn value node and closed fold box, as the view paints them (js/svg-contract.md "Live
    fold box"): a box by its largest-|grad| member (the output left out), on a scale that counts those boxes."""
    grad, n = tape.grad, len(tape)
    best: dict[int, int] = {}
    for i in range(n):
        k = view["fold_of"][i] if view["fold_of"] else -1
        if k < 0 or i == output or not abs(grad[i]) < float("inf"):
            continue
        if k not in best or abs(grad[i]) > abs(grad[best[k]]):
            best[k] = i
    shown = view["shown"]
    others = [grad[i] for i in shown if i != output] + [grad[i] for i in best.values()]
    scale = grad_scale(others, grad[output] if output in shown else None)
    fills = {f"n{i}": grad_color(grad[i], scale) for i in shown}
    for k, fold in enumerate(view["folds"]):
        fills[fold["id"]] = grad_color(grad[best[k]], scale) if k in best else grad_color(0.0, scale)
    return fills


_READ_FILLS = """r => Object.fromEntries([...r.querySelectorAll('g.node.mgw-value, g.node.mgw-fold')].map(g =>
    [g.id, g.querySelector('polygon, path').getAttribute('fill').toLowerCase()]))"""


def test_closed_boxes_are_filled_by_their_largest_grad_on_a_scale_that_counts_them(show):
    loss = lecture_mlp_loss()
    widget = GraphWidget(loss)
    tape = Tape.from_value(loss)
    view = show(widget)
    assert widget.view["folds"], "the lecture's MLP loss should be folded at the default budget"
    want = expected_fills(tape, widget.view, tape.root)
    got = poll(lambda: view.root.evaluate(_READ_FILLS), lambda fills: fills == want, "fills of nodes and fold boxes")
    assert got == want
    # a weight inside a folded neuron moves: the boxes' fills follow, as Python's replay of the same move says
    leaf = next(i for i in tape.leaves if widget.view["fold_of"][i] >= 0 and tape.labels[i] == "w0")
    view.type_number(key_of(tape, leaf), -2.5)
    tape.forward({leaf: -2.5})
    tape.backward()
    want = expected_fills(tape, widget.view, tape.root)
    got = poll(lambda: view.root.evaluate(_READ_FILLS), lambda fills: fills == want, "fills after the move")
    assert got == want


def key_of(tape: Tape, i: int) -> str:
    """The view's key of node i (data-leaf / data-node): its label when no other node has it, else its id."""
    label = tape.labels[i]
    return label if label and tape.labels.count(label) == 1 else str(i)
