"""links.py, linked widgets: two live widgets on one graph follow each other without ``refresh()``. A drag in one
(the write rule) reaches the other's synced state once, checked against numbers worked out by hand and against
PyTorch float64; a widget on another graph does nothing; a closed widget leaves the set and nobody keeps it
alive (weakref, as test_widget_memory does)."""

from __future__ import annotations

import gc
import weakref

import pytest
import torch
from builders import lecture_L as lecture
from helpers import Recorder, from_browser, moved, position

from micrograd_widget.core.ops import define_op
from micrograd_widget.core.spec import from_buffer
from micrograd_widget.engine import Value
from micrograd_widget.graph import links
from micrograd_widget.graph.widget import GraphWidget

# L = (a*b + c) * f at a = 0.5 (b = -3, c = 10, f = -2), by hand: e = -1.5, d = 8.5, L = -17;
# dL/da = b*f = 6, dL/db = a*f = -1, dL/dc = f = -2, dL/de = dL/dd = f = -2, dL/df = d = 8.5.
MOVED_DATA = {"a": 0.5, "b": -3.0, "c": 10.0, "e": -1.5, "d": 8.5, "f": -2.0, "L": -17.0}
MOVED_GRAD_L = {"a": 6.0, "b": -1.0, "c": -2.0, "e": -2.0, "d": -2.0, "f": 8.5, "L": 1.0}
# ... and of d = a*b + c: dd/da = b = -3, dd/db = a = 0.5, dd/dc = dd/de = 1, dd/df = dd/dL = 0.
MOVED_GRAD_D = {"a": -3.0, "b": 0.5, "c": 1.0, "e": 1.0, "d": 1.0, "f": 0.0, "L": 0.0}


def by_label(w: GraphWidget, column: str) -> dict[str, float]:
    """The tape's data or grad per node label (what the widget shows, kernel side)."""
    numbers = getattr(w.tape, column)
    return {label: numbers[i] for i, label in enumerate(w.tape.labels)}


def leaf_updates(sent: Recorder) -> list[list[object]]:
    return [s["leaf_values"] for s in sent.states() if "leaf_values" in s]


def test_a_drag_in_one_widget_reaches_the_other_without_refresh() -> None:
    nodes = lecture()
    w1, w2 = GraphWidget(nodes["L"]), GraphWidget(nodes["L"])
    Recorder(w1)
    sent2 = Recorder(w2)
    from_browser(w1, leaf_values=moved(w1, nodes["a"], 0.5))
    assert w2.leaf_values[position(w2, nodes["a"])] == 0.5
    assert leaf_updates(sent2) == [w2.leaf_values], "the other view hears the new leaves once"
    assert by_label(w2, "data") == MOVED_DATA
    assert by_label(w2, "grad") == MOVED_GRAD_L
    assert w2.error == ""
    from_browser(w2, leaf_values=moved(w2, nodes["f"], 1.0))       # and back the other way
    assert w1.leaf_values[position(w1, nodes["f"])] == 1.0
    assert w1.leaf_values[position(w1, nodes["a"])] == 0.5, "the second drag kept the first one's leaf"
    assert by_label(w1, "data")["L"] == 8.5


def test_a_follower_shows_its_own_outputs_grads_and_the_values_keep_the_writers() -> None:
    nodes = lecture()
    w1, w2 = GraphWidget(nodes["L"]), GraphWidget(nodes["L"], output=nodes["d"])
    Recorder(w1)
    Recorder(w2)
    from_browser(w1, leaf_values=moved(w1, nodes["a"], 0.5))
    assert by_label(w2, "data") == MOVED_DATA
    assert by_label(w2, "grad") == MOVED_GRAD_D
    assert {k: v.data for k, v in nodes.items()} == MOVED_DATA
    assert {k: v.grad for k, v in nodes.items()} == MOVED_GRAD_L, "the follower wrote its grads into the Values"


def test_a_widget_on_a_larger_graph_follows_and_its_own_nodes_data_reach_the_values() -> None:
    """w2 shows L.tanh() on the same leaves; a drag in w1 (on L) moves w2's extra node too (PyTorch float64)."""
    nodes = lecture()
    top = nodes["L"].tanh()
    w1, w2 = GraphWidget(nodes["L"]), GraphWidget(top)
    Recorder(w1)
    Recorder(w2)
    from_browser(w1, leaf_values=moved(w1, nodes["a"], 0.5))
    a, b, c, f = (torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in (0.5, -3.0, 10.0, -2.0))
    out = ((a * b + c) * f).tanh()
    out.backward()
    assert w2.tape.data[w2.tape.root] == pytest.approx(out.item(), rel=1e-15)
    assert top.data == pytest.approx(out.item(), rel=1e-15), "the extra node's Value kept the old data"
    for leaf, t in zip("abcf", (a, b, c, f)):
        assert w2.tape.grad[w2.tape.index(nodes[leaf])] == pytest.approx(t.grad.item(), rel=1e-12, abs=1e-300)


def test_a_kernel_computed_follower_sends_its_numbers_once() -> None:
    """A user-defined op: the browser cannot replay it, so the follower ships data and grad (PyTorch float64)."""
    cube = define_op("linked_cube", lambda x: x ** 3, lambda x, out: (3 * x * x,))
    x, y = Value(1.5, label="x"), Value(-0.5, label="y")
    root = Value.apply(cube, x * y + x)
    w1, w2 = GraphWidget(root), GraphWidget(root)
    Recorder(w1)
    sent2 = Recorder(w2)
    from_browser(w1, leaf_values=moved(w1, y, 2.0))
    tx, ty = (torch.tensor(v, dtype=torch.float64, requires_grad=True) for v in (1.5, 2.0))
    out = (tx * ty + tx) ** 3
    out.backward()
    numbers = [s for s in sent2.states() if "data" in s]
    assert len(numbers) == 1, f"the follower sent its numbers {len(numbers)} times"
    data, grad = (list(from_buffer(numbers[0][k], "d")) for k in ("data", "grad"))
    assert data[w2.tape.root] == pytest.approx(out.item(), rel=1e-14)
    assert grad[w2.tape.index(x)] == pytest.approx(tx.grad.item(), rel=1e-14)
    assert grad[w2.tape.index(y)] == pytest.approx(ty.grad.item(), rel=1e-14)


def test_one_write_updates_each_other_widget_once_and_echoes_nothing_back() -> None:
    nodes = lecture()
    widgets = [GraphWidget(nodes["L"]) for _ in range(3)]
    other = GraphWidget(lecture()["L"])                              # another graph, equal numbers
    sent = [Recorder(w) for w in (*widgets, other)]
    follows: list[int] = []
    for k, w in enumerate((*widgets, other)):
        original = w._follow
        w._follow = (lambda k=k, original=original: (follows.append(k), original())[1])  # type: ignore[method-assign]
    from_browser(widgets[0], leaf_values=moved(widgets[0], nodes["b"], 4.0))
    assert sorted(follows) == [1, 2, 3], "each other widget is told once, the writer never"
    assert [len(leaf_updates(s)) for s in sent[1:]] == [1, 1, 0], "the widget on another graph sent nothing"
    assert len(leaf_updates(sent[0])) == 0, "a follower's update came back to the writer"
    follows.clear()
    widgets[1].set_leaf("c", 1.0)                                    # Python's set_leaf is a write too
    assert sorted(follows) == [0, 2, 3]
    assert widgets[2].leaf_values == widgets[0].leaf_values == [2.0, 4.0, 1.0, -2.0]


def test_a_follower_that_cannot_replay_says_why_and_the_writers_change_stands() -> None:
    x = Value(2.0, label="x")
    y = x * 1.0
    w1, w2 = GraphWidget(y), GraphWidget(y.log())
    Recorder(w1)
    Recorder(w2)
    from_browser(w1, leaf_values=moved(w1, x, -1.0))
    assert x.data == -1.0 and w1.error == ""
    assert "could not follow" in w2.error and "refresh()" in w2.error
    assert w2.leaf_values[position(w2, x)] == 2.0, "the follower kept what it showed"
    from_browser(w1, leaf_values=moved(w1, x, 3.0))
    assert w2.error == "" and w2.leaf_values[position(w2, x)] == 3.0


def test_a_closed_widget_leaves_the_set_and_no_widget_keeps_another_alive() -> None:
    nodes = lecture()
    w1, w2 = GraphWidget(nodes["L"]), GraphWidget(nodes["L"])
    Recorder(w1)
    sent2 = Recorder(w2)
    assert w1 in links.live() and w2 in links.live()
    gone = weakref.ref(w2)
    w2.close()
    assert w2 not in links.live()
    from_browser(w1, leaf_values=moved(w1, nodes["a"], 0.5))
    assert not leaf_updates(sent2), "a closed widget followed"
    del w2, sent2
    gc.collect()
    assert gone() is None, "something keeps a closed linked widget alive"
    graph = lecture()
    root = weakref.ref(graph["L"])
    w3 = GraphWidget(graph["L"])
    w3.close()
    del graph, w3
    gc.collect()
    assert root() is None, "the set of linked widgets keeps a closed widget's graph alive"
    assert w1 in links.live()
    w1.close()
