"""writes.py, the write rule: a leaf value written into the Values only where a writer changed it
(``merge_leaves``), so two widgets on one graph and a Python assignment do not undo each other, and -0.0 after
0.0 is a change (``same``)."""

from __future__ import annotations

import math

from builders import lecture_L as lecture
from helpers import Recorder, assert_values_match, from_browser, moved, position

from micrograd_widget.engine import Value
from micrograd_widget.graph.widget import GraphWidget


def test_two_widgets_on_one_graph_do_not_undo_each_other() -> None:
    nodes = lecture()
    w1, w2 = GraphWidget(nodes["L"]), GraphWidget(nodes["L"])
    Recorder(w1)
    sent = Recorder(w2)
    from_browser(w1, leaf_values=moved(w1, nodes["a"], 0.5))
    from_browser(w2, leaf_values=moved(w2, nodes["b"], 4.0))
    assert_values_match(nodes, lecture(a=0.5, b=4.0))
    assert sent.states()[-1]["leaf_values"][position(w2, nodes["a"])] == 0.5, "the merged values go back to the view"
    assert w2.error == ""


def test_a_python_assignment_survives_a_move_in_the_widget_and_set_leaf() -> None:
    nodes = lecture()
    w = GraphWidget(nodes["L"])
    Recorder(w)
    nodes["a"].data = 7.0
    from_browser(w, leaf_values=moved(w, nodes["b"], 1.0))
    assert_values_match(nodes, lecture(a=7.0, b=1.0))
    nodes["c"].data = -2.0
    w.set_leaf("f", 3.0)
    assert_values_match(nodes, lecture(a=7.0, b=1.0, c=-2.0, f=3.0))
    assert w.leaf_values == [7.0, 1.0, -2.0, 3.0]


def test_minus_zero_after_zero_is_a_change() -> None:
    x = Value(0.0, label="x")
    w = GraphWidget(x * 3.0)
    Recorder(w)
    from_browser(w, leaf_values=[-0.0, 3.0])
    assert math.copysign(1.0, x.data) == -1.0 and math.copysign(1.0, w.leaf_values[0]) == -1.0
