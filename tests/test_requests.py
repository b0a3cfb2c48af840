"""requests.py: what a front end may ask the kernel to compute is bounded by its cost (issue 24, 5). Work is
counted in replays (calls of the tape's forward and backward loops), never timed."""

from __future__ import annotations

from typing import Any

import pytest
from helpers import Recorder, custom_from_browser, snapshot

from micrograd_widget.core import tape as tape_module
from micrograd_widget.core.ops import define_op
from micrograd_widget.engine import Value
from micrograd_widget.graph import requests
from micrograd_widget.graph.requests import MAX_ERROR_CHARS, MAX_GRADCHECK_LEAVES, MAX_GRADCHECK_WORK
from micrograd_widget.graph.widget import GraphWidget

DOUBLE = define_op("double_for_cost", lambda a: 2 * a, lambda a, out: 2.0)  # user-defined: the kernel checks


def doubled_sum(n: int) -> tuple[GraphWidget, list[int]]:
    """A widget on sum(double(x_i)) for n leaves (about 3n nodes) and the leaves' node ids."""
    xs = [Value(0.01 * i, label=f"x{i}") for i in range(n)]
    w = GraphWidget(sum((Value.apply(DOUBLE, x) for x in xs), Value(0.0, label="zero")))
    return w, [w.tape.index(x) for x in xs]


def count_replays(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts [forward, backward] loops the tapes run (every replay, settle and check goes through them)."""
    calls = [0, 0]
    forward, backward = tape_module._run_forward, tape_module._run_backward

    def counted_forward(*args: Any) -> None:
        calls[0] += 1
        forward(*args)

    def counted_backward(*args: Any) -> list[float]:
        calls[1] += 1
        return backward(*args)

    monkeypatch.setattr(tape_module, "_run_forward", counted_forward)
    monkeypatch.setattr(tape_module, "_run_backward", counted_backward)
    return calls


def test_a_gradcheck_request_over_the_work_limit_is_refused_in_words_before_any_replay(
        monkeypatch: pytest.MonkeyPatch) -> None:
    w, ids = doubled_sum(8000)
    n = len(w.tape)
    assert MAX_GRADCHECK_LEAVES * n > MAX_GRADCHECK_WORK, "the test's graph must be too large for 256 leaves"
    sent = Recorder(w)
    before = snapshot(w)
    calls = count_replays(monkeypatch)
    moved = list(w.leaf_values)
    moved[0] = 5.0  # a request that would also apply new leaf values: refused, they are not applied either
    custom_from_browser(w, {"type": "gradcheck", "seq": 7, "leaf_values": moved, "leaves": ids[:MAX_GRADCHECK_LEAVES]})
    reply = sent.customs()[-1]
    assert calls == [0, 0], "refused before any replay"
    assert snapshot(w) == before
    assert reply["seq"] == 7 and "rows" not in reply
    error = reply["error"]
    fits = MAX_GRADCHECK_WORK // n
    assert f"{MAX_GRADCHECK_LEAVES} leaves x {n:,} nodes = {MAX_GRADCHECK_LEAVES * n:,}" in error, error
    assert f"{MAX_GRADCHECK_WORK:,}" in error and "MAX_GRADCHECK_WORK" in error, "the limit is named"
    assert f"at most {fits:,} leaves" in error and "gradcheck(root, leaves=[...]) in Python" in error, "what to do"
    assert len(error) <= MAX_ERROR_CHARS


def test_a_default_request_for_every_leaf_is_bounded_by_work_too(monkeypatch: pytest.MonkeyPatch) -> None:
    w, _ = doubled_sum(10)
    leaves, n = len(w.tape.leaves), len(w.tape)
    assert leaves <= MAX_GRADCHECK_LEAVES
    monkeypatch.setattr(requests, "MAX_GRADCHECK_WORK", 5 * n)  # few leaves, but too many for this limit
    sent = Recorder(w)
    calls = count_replays(monkeypatch)
    custom_from_browser(w, {"type": "gradcheck", "seq": 1, "leaf_values": list(w.leaf_values)})
    assert calls == [0, 0]
    error = sent.customs()[-1]["error"]
    assert f"{leaves} leaves x {n} nodes = {leaves * n}" in error and "at most 5 leaves" in error, error


def test_a_request_at_the_limit_is_answered_with_two_forwards_per_leaf(monkeypatch: pytest.MonkeyPatch) -> None:
    w, ids = doubled_sum(60)
    n = len(w.tape)
    monkeypatch.setattr(requests, "MAX_GRADCHECK_WORK", 40 * n)  # the rule, on a graph small enough to run
    sent = Recorder(w)
    calls = count_replays(monkeypatch)
    custom_from_browser(w, {"type": "gradcheck", "seq": 1, "leaf_values": list(w.leaf_values), "leaves": ids[:41]})
    assert calls == [0, 0] and "40 leaves" in sent.customs()[-1]["error"]
    custom_from_browser(w, {"type": "gradcheck", "seq": 2, "leaf_values": list(w.leaf_values), "leaves": ids[:40]})
    reply = sent.customs()[-1]
    assert "error" not in reply and len(reply["rows"]) == 40 and reply["passed"] is True
    assert [r["numeric"] for r in reply["rows"]] == pytest.approx([2.0] * 40, rel=1e-8), "d(2x)/dx by hand"
    assert calls == [2 * 40 + 1, 1], "two forwards per leaf, one forward and one backward at the point"



# ------------------------------------------------------------------ learn requests (issue 21)

SQUARE = define_op("square_for_learn", lambda a: a * a, lambda a, out: 2 * a)  # user-defined: the kernel steps


def square_loss() -> tuple[GraphWidget, list[Value]]:
    """A widget on (square(w*x + b) - t)**2 ... summed over three points, w and b labelled (the parameters), the
    data and targets unlabelled; the Values w, b."""
    w, b = Value(0.3, label="w"), Value(-0.2, label="b")
    points = [(1.0, 2.0), (-0.5, 0.5), (2.0, 3.0)]
    loss = sum(((Value.apply(SQUARE, w * x + b) - t) ** 2 for x, t in points), Value(0.0))
    return GraphWidget(loss), [w, b]


def by_hand(steps: int, h: float, sign: int) -> tuple[list[float], list[float]]:
    """The same loss in plain floats, its gradient by the chain rule: the parameters after ``steps`` updates
    ``p += sign * h * dL/dp`` and the loss before each."""
    w, b, losses = 0.3, -0.2, []
    for _ in range(steps):
        loss = dw = db = 0.0
        for x, t in ((1.0, 2.0), (-0.5, 0.5), (2.0, 3.0)):
            z = w * x + b
            r = z * z - t
            loss += r * r
            dz = 2 * r * 2 * z
            dw, db = dw + dz * x, db + dz
        losses.append(loss)
        w, b = w + sign * h * dw, b + sign * h * db
    return [w, b], losses


@pytest.mark.parametrize("sign", [-1, 1])
def test_a_learn_request_runs_k_steps_as_the_loop_by_hand_and_leaves_the_values(sign: int) -> None:
    widget, (w, b) = square_loss()
    sent = Recorder(widget)
    before = snapshot(widget)
    custom_from_browser(widget, {"type": "learn", "seq": 3, "leaf_values": list(widget.leaf_values),
                                 "step_size": 0.01, "steps": 40, "sign": sign})
    reply = sent.customs()[-1]
    assert "error" not in reply, reply
    assert reply["seq"] == 3 and reply["steps"] == 40
    want, losses = by_hand(40, 0.01, sign)
    tape = widget.tape
    got = dict(zip(tape.leaves, reply["leaf_values"], strict=True))
    assert [got[tape.index(w)], got[tape.index(b)]] == pytest.approx(want, rel=1e-12)
    assert reply["losses"] == pytest.approx(losses, rel=1e-12)
    # The numbers at the new values: the loss (the root's data) and the parameters' grads, by hand.
    after = by_hand(41, 0.01, sign)[1][-1]
    assert reply["data"][tape.root] == pytest.approx(after, rel=1e-12)
    inputs = [j for j, i in enumerate(tape.leaves) if i not in (tape.index(w), tape.index(b))]
    assert inputs and all(reply["leaf_values"][j] == widget.tape.data[tape.leaves[j]] for j in inputs)
    assert snapshot(widget) == before and (w.data, b.data) == (0.3, -0.2), "a learn request moves no Value"


def test_a_learn_request_on_a_large_graph_takes_fewer_steps_and_says_how_many(monkeypatch: pytest.MonkeyPatch) -> None:
    widget, _ = doubled_sum(2000)
    n = len(widget.tape)
    sent = Recorder(widget)
    calls = count_replays(monkeypatch)
    custom_from_browser(widget, {"type": "learn", "seq": 1, "leaf_values": list(widget.leaf_values),
                                 "step_size": 0.1, "steps": requests.MAX_LEARN_STEPS})
    reply = sent.customs()[-1]
    fits = requests.MAX_LEARN_WORK // n
    assert 1 <= fits < requests.MAX_LEARN_STEPS and reply["steps"] == fits
    assert calls == [fits + 1, fits + 1], "one forward and backward per step, and one at the new values"


@pytest.mark.parametrize(("change", "words"), [
    ({"steps": 0}, "steps must be a whole number from 1"),
    ({"steps": requests.MAX_LEARN_STEPS + 1}, "steps must be a whole number from 1"),
    ({"steps": True}, "steps must be a whole number"),
    ({"sign": 2}, "sign must be 1 (up) or -1"),
    ({"step_size": -0.5}, "finite positive number"),
    ({"step_size": "0.1"}, "step_size needs a real number"),
    ({"leaf_values": [1.0]}, "one per leaf"),
])
def test_a_bad_learn_request_is_refused_in_words_and_changes_nothing(change: dict[str, Any], words: str) -> None:
    widget, _ = square_loss()
    sent = Recorder(widget)
    before = snapshot(widget)
    content = {"type": "learn", "seq": 9, "leaf_values": list(widget.leaf_values), "step_size": 0.01, **change}
    custom_from_browser(widget, content)
    reply = sent.customs()[-1]
    assert reply["seq"] == 9 and words in reply["error"] and "leaf_values" not in reply.get("buffers", [])
    assert snapshot(widget) == before
