"""view_state.py, what a front end may send and how it is checked: an update that is not a mapping, a deeply
nested value, a kernel-owned trait and a bad option are refused with a short error and change nothing (the
kernel's value goes back to the view); one ``opened`` message is checked once."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from builders import lecture_L
from helpers import FrontEnd, Kernel, Recorder, folded_widget, from_browser, moved

from micrograd_widget.graph.widget import GraphWidget
from micrograd_widget.host.export import save_html
from micrograd_widget.picture import fold_tree
from micrograd_widget.picture.fold_tree import build_tree


@pytest.mark.parametrize("data", [[1, 2], None, "leaf_values", 3, [["leaf_values", [1.0]]]])
def test_an_update_that_is_not_a_mapping_is_refused_not_raised(data: Any,
                                                                caplog: pytest.LogCaptureFixture) -> None:
    nodes = lecture_L()
    widget = GraphWidget(nodes["L"])
    before = [v.data for v in nodes.values()], list(widget.leaf_values)
    widget.set_state(data)
    assert "must map trait names to values" in widget.error and len(widget.error) < 300
    assert "refused an update" in caplog.text
    assert ([v.data for v in nodes.values()], list(widget.leaf_values)) == before


@pytest.mark.parametrize("name", ["opened", "leaf_values", "output", "precision", "rankdir", "spec", "node_budget"])
def test_a_deeply_nested_value_gets_a_short_error(name: str) -> None:
    nodes = lecture_L()
    widget = GraphWidget(nodes["L"])
    kernel = Kernel(widget)
    deep: list[Any] = []
    for _ in range(960):
        deep = [deep]

    def at_depth(frames: int, value: Any) -> None:    # a kernel's stack is deep already when a message arrives
        if frames:
            at_depth(frames - 1, value)
        else:
            kernel.handle("tab1", "m1", {name: value})
    before = list(widget.leaf_values)
    for value in (deep, [deep, *before[1:]], [*widget.opened, deep]):
        widget.error = ""
        at_depth(60, value)
        assert widget.error and len(widget.error) < 300
        assert "[[[" in widget.error or "may not change ['spec']" in widget.error
        assert widget.leaf_values == before and nodes["a"].data == 2.0


def test_one_opened_message_is_checked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 24 (5): the check ran twice per message (the view's check, then the trait's validator)."""
    widget = folded_widget()
    Kernel(widget)
    calls: list[int] = []
    check = fold_tree.check_open
    monkeypatch.setattr(fold_tree, "check_open", lambda *a, **k: calls.append(len(a[2])) or check(*a, **k))
    every = [g.key for g in build_tree(widget.tape, 60).groups]
    FrontEnd(Kernel(widget), "tab1").send(opened=every)
    assert calls == [len(every)] and widget.opened and widget.error == ""


@pytest.mark.parametrize("name, value", [("spec", {}), ("dot", "digraph { x }"), ("view", {"shown": []}),
                                         ("data", [1.0]), ("grad", [2.0]), ("error", "hi"), ("_esm", "x"),
                                         ("nonsense", 1)])
def test_kernel_owned_traits_are_read_only_from_the_view(name: str, value: Any, tmp_path: Path,
                                                         caplog: pytest.LogCaptureFixture) -> None:
    nodes = lecture_L()
    w = GraphWidget(nodes["L"])
    sent = Recorder(w)
    state = w.get_state()
    before = {k: repr(v) for k, v in state.items()}
    with caplog.at_level(logging.WARNING):
        from_browser(w, **{name: value}, leaf_values=moved(w, nodes["a"], 0.5))
    assert "kernel's" in w.error and name in w.error
    after = {k: repr(v) for k, v in w.get_state().items()}
    assert {k: v for k, v in after.items() if k != "error"} == {k: v for k, v in before.items() if k != "error"}
    assert nodes["a"].data == 2.0, "a refused message changes nothing"
    assert any(name in r.getMessage() for r in caplog.records)
    if name in w.keys and name != "error":  # error now says why
        pushed = [s for s in sent.states() if name in s and s[name] == state[name]]  # buffers by content
        assert pushed, "the kernel's value is pushed back"
    save_html(w, tmp_path / "page.html")


@pytest.mark.parametrize("name, value, words", [("precision", 99, "precision"), ("rankdir", "XY", "rankdir"),
                                                ("node_budget", None, "only be asked for from Python"),
                                                ("node_budget", 5000, "node_budget"), ("color", "yes", "color")])
def test_bad_options_from_the_view_reach_its_error(name: str, value: Any, words: str) -> None:
    w = GraphWidget(lecture_L()["L"])
    sent = Recorder(w)
    old = getattr(w, name)
    from_browser(w, **{name: value})
    assert words in w.error and getattr(w, name) == old
    assert any(s.get(name) == old for s in sent.states()), "the kernel's option goes back to the view"
    from_browser(w, node_budget=2000)
    assert w.node_budget == 2000 and w.error == ""


def test_a_pin_from_the_view_is_kept_as_view_state_and_saved() -> None:
    """Issue 21: Pin and compare is view state: the pinned leaf values and output and the show-change switch are
    taken from the view (the Values untouched) and saved with the widget state."""
    nodes = lecture_L()
    w = GraphWidget(nodes["L"])
    pinned = {"leaf_values": [2.0, -3.0, 10.0, -2.0], "output": w.output}
    from_browser(w, pin=pinned, show_change=True)
    assert w.error == "" and w.pin == pinned and w.show_change is True
    assert w.get_state(["pin", "show_change"]) == {"pin": pinned, "show_change": True}
    assert [v.data for v in nodes.values()] == [v.data for v in lecture_L().values()], "a pin moves no Value"
    from_browser(w, pin={"leaf_values": ["NaN", 1.0, 2.0, 3.0], "output": 0}, show_change=False)
    assert w.error == "" and w.pin["leaf_values"][0] == "NaN" and w.show_change is False
    from_browser(w, pin={})
    assert w.pin == {} and w.error == ""


@pytest.mark.parametrize("pin, show, words", [
    ({"leaf_values": [1.0], "output": 0}, None, "expected a list of 4 leaf values"),
    ({"leaf_values": [1.0, 2.0, 3.0, 4.0], "output": 99}, None, "pin output must be a node id from 0 to 6"),
    ({"leaf_values": [1.0, 2.0, 3.0, 4.0], "output": "L"}, None, "must be a Value of this graph or a node id"),
    ({"leaf_values": [1.0, 2.0, "x", 4.0], "output": 0}, None, "needs a number"),
    ({"leaf_values": [1.0, 2.0, 3.0, 4.0]}, None, "exactly the keys 'leaf_values' and 'output'"),
    ([2.0, -3.0], None, "pin must be {}"),
    (None, "yes", "show_change must be true or false"),
])
def test_a_bad_pin_from_the_view_is_refused_in_words(pin: Any, show: Any, words: str) -> None:
    w = GraphWidget(lecture_L()["L"])
    sent = Recorder(w)
    update = {"pin": pin} if pin is not None else {"show_change": show}
    from_browser(w, **update)
    assert words in w.error and len(w.error) < 300
    assert w.pin == {} and w.show_change is False
    assert any(s.get(next(iter(update))) in ({}, False) for s in sent.states()), "the kernel's value goes back"


def test_a_pin_set_in_python_is_checked_as_the_views() -> None:
    import traitlets

    w = GraphWidget(lecture_L()["L"])
    w.pin = {"leaf_values": [2, -3, 10, float("inf")], "output": 6}
    assert w.pin == {"leaf_values": [2.0, -3.0, 10.0, "Infinity"], "output": 6}
    with pytest.raises(traitlets.TraitError, match="expected a list of 4 leaf values"):
        w.pin = {"leaf_values": [], "output": 6}
    assert w.pin["output"] == 6
