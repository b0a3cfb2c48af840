"""A hostile front end (issue 12): random update messages and custom requests fed to one widget. No exception
escapes; after every refused message the Values, tape and leaf values are exactly as before; after every
message the Values agree with the engine on a freshly built graph; a valid move works after each. The same for
the training widget (issue 24): only a true/false ``log_scale`` alone is taken, every refused trait goes back.

Across modules on purpose (widget.py, writes.py, requests.py, training.py): the whole write path of
both widgets under one hostile front end, not one module's checks."""

from __future__ import annotations

import math
import random
from typing import Any

from helpers import Recorder, Sent, custom_from_browser, from_browser, snapshot
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from micrograd_widget.engine import Value, topological_order
from micrograd_widget.graph.widget import GraphWidget
from micrograd_widget.nn import MLP
from micrograd_widget.training.widget import watch

LEAVES = 3


def build(x: float, k: float, h: float) -> list[Value]:
    """``z = log(x) * k + h`` (a domain error for x <= 0): the leaves x, k, h and the root z."""
    vx, vk, vh = Value(x, label="x"), Value(k, label="k"), Value(h, label="h")
    return [vx, vk, vh, vx.log() * vk + vh]


numbers = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10**20, 10**20),
                    st.sampled_from(["NaN", "Infinity", "-Infinity", "1", "", "x" * 500]))
junk = st.recursive(st.one_of(st.none(), st.booleans(), numbers, st.text(max_size=20)),
                    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=5), inner,
                                                                                          max_size=3)),
                    max_leaves=8)
leaf_lists = st.one_of(st.lists(numbers, min_size=LEAVES, max_size=LEAVES), st.lists(numbers, max_size=5), junk)
updates = st.fixed_dictionaries({}, optional={
    "leaf_values": leaf_lists, "output": st.one_of(st.integers(-3, 8), junk),
    "precision": st.one_of(st.integers(-2, 20), junk), "rankdir": st.one_of(st.sampled_from(["LR", "tb", "XY"]), junk),
    "node_budget": st.one_of(st.none(), st.integers(0, 3000), junk), "color": st.one_of(st.booleans(), junk),
    "spec": junk, "dot": junk, "view": junk, "data": junk, "grad": junk, "error": junk, "_esm": junk,
})
requests = st.fixed_dictionaries({"type": st.sampled_from(["replay", "gradcheck", "other"])}, optional={
    "seq": junk, "leaf_values": leaf_lists, "output": st.one_of(st.integers(-3, 8), junk),
    "leaves": st.one_of(st.lists(st.integers(-2, 8), max_size=5), junk), "eps": st.one_of(numbers, junk),
    "rtol": numbers, "atol": numbers,
})
messages = st.lists(st.one_of(updates.map(lambda m: ("update", m)), requests.map(lambda m: ("custom", m))),
                    min_size=1, max_size=6)


def reference(w: GraphWidget) -> list[str]:
    """Every node's data and grad from the engine on a fresh graph, for the leaf values the Values hold and
    the widget's output, in tape order."""
    leaf = {w.tape.labels[i]: w.tape.values[i].data for i in w.tape.leaves}
    order = topological_order(build(leaf["x"], leaf["k"], leaf["h"])[-1])
    order[w.output].backward()
    return [repr((v.data, v.grad)) for v in order]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages)
def test_no_front_end_message_breaks_the_widget(sequence: list[tuple[str, dict[str, Any]]]) -> None:
    nodes = build(2.0, 3.0, 0.5)
    nodes[-1].backward()
    w = GraphWidget(nodes[-1])
    sent = Recorder(w)
    for kind, message in sequence:
        before = snapshot(w)
        replies = len(sent.customs())
        if kind == "update":
            from_browser(w, **message)
            if w.error:
                assert snapshot(w) == before, (message, w.error)
        else:
            custom_from_browser(w, message)
            new = sent.customs()[replies:]
            if message["type"] == "other":
                assert new == []
            else:
                (reply,) = new
                assert reply["type"] == message["type"]
                if "error" in reply:
                    assert len(reply["error"]) <= 300 and snapshot(w) == before, (message, reply)
        assert [repr((v.data, v.grad)) for v in w.tape.values] == reference(w)
        assert w.node_budget is not None and 10 <= w.node_budget <= 2000
        assert math.isfinite(nodes[0].data) and nodes[0].data > 0, "x can never be refused into log's domain error"
        h = w.tape.leaves.index(w.tape.index(nodes[2]))
        values = list(w.leaf_values)
        values[h] = -1.25 if values[h] == 1.25 else 1.25
        from_browser(w, leaf_values=values)
        assert w.error == "" and nodes[2].data == values[h], "a valid move works after every message"


# The training widget's synced traits, written out by hand (ipywidgets' own among them).
TRAINING_TRAITS = ["dot", "structure", "curve", "grad", "data", "precision", "log_scale", "finished", "_esm", "_css",
                   "_mgw_view", "_mgw_assets", "_anywidget_id", "_model_name", "_view_name", "_dom_classes", "layout",
                   "tabbable", "tooltip"]
training_updates = st.dictionaries(st.one_of(st.sampled_from(TRAINING_TRAITS), st.text(max_size=8)),
                                   st.one_of(st.booleans(), st.integers(-20, 20), junk), max_size=4)
training_requests = st.one_of(junk, st.fixed_dictionaries({"type": st.sampled_from(["assets", "replay", "other"])},
                                                          optional={"seq": junk, "log_scale": junk}))
training_messages = st.lists(st.one_of(training_updates.map(lambda m: ("update", m)),
                                       training_requests.map(lambda m: ("custom", m))), min_size=1, max_size=6)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(training_messages)
def test_no_front_end_message_breaks_the_training_widget(sequence: list[tuple[str, Any]]) -> None:
    random.seed(5)
    w = watch(MLP(2, [3, 1]))
    sent = Sent(w)
    for k in range(3):
        w.log(1.0 / (k + 1))
    w.flush()
    for kind, message in sequence:
        before = w.get_state()
        pushes = len(sent.states)
        if kind == "update":
            from_browser(w, **message)
        else:
            custom_from_browser(w, message)
        taken = kind == "update" and set(message) == {"log_scale"} and type(message["log_scale"]) is bool
        after = w.get_state()
        assert {k: repr(v) for k, v in after.items() if k != "log_scale"} == {
            k: repr(v) for k, v in before.items() if k != "log_scale"}, ("a kernel-owned trait changed", message)
        assert after["log_scale"] is (message["log_scale"] if taken else before["log_scale"]), message
        if kind == "update" and not taken:
            pushed = {name: value for state in sent.states[pushes:] for name, value in state.items()}
            assert pushed == {name: before[name] for name in message if name in before}, ("not pushed back", message)
        assert 0 <= w.precision <= 17 and w.precision == 4
    w.log(0.125)
    w.flush()
    assert sent.states[-1]["curve"]["count"] == 4, "the loop's log still reaches the view after every message"
