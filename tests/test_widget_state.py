"""What a widget's state carries: no DOT (the browser writes every live picture, js/fold.js), in the comm state, a
notebook's saved state (ipywidgets' embed format, as nbclient and JupyterLab store it) and the exported page; a
change of the open set or an option from the view plans no picture. The static fallback is planned when asked
for, once per state, and follows what changed since."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from builders import lecture_L
from ipywidgets.embed import embed_data
from ipywidgets.widgets import widget as ipywidget_module

from micrograd_widget import dot as dot_module
from micrograd_widget import fold_tree
from micrograd_widget.display import tape_mimebundle, value_mimebundle
from micrograd_widget.engine import Value
from micrograd_widget.export import save_html
from micrograd_widget.fold_tree import build_tree, picture
from micrograd_widget.nn import MLP
from micrograd_widget.tape import Tape
from micrograd_widget.widget import GraphWidget

_STATE = re.compile(r'<script type="application/vnd.jupyter.widget-state\+json">\s*(.*?)\s*</script>', re.S)


def folded_widget() -> GraphWidget:
    """A widget on an MLP loss folded at budget 60."""
    model = MLP(3, [8, 8, 1])
    loss = sum((model([0.5, -1.0, 2.0]) - 1.0) ** 2 for _ in range(3))
    assert isinstance(loss, Value)
    widget = GraphWidget(loss, node_budget=60)
    assert dot_module.graph_view(widget.tape, node_budget=60).folds, "the graph should be partly folded"
    return widget


def from_view(widget: GraphWidget, state: dict[str, Any]) -> None:
    """``state`` sent by a front end, as the comm hands it to the widget."""
    widget._handle_msg({"content": {"data": {"method": "update", "state": state, "buffer_paths": []}}, "buffers": []})


def holds_no_dot(state: Any) -> bool:
    """True when no string in ``state`` (nested dicts and lists) is or holds a DOT graph."""
    if isinstance(state, str):
        return "digraph" not in state and "->" not in state
    if isinstance(state, dict):
        return all(holds_no_dot(v) for v in state.values())
    if isinstance(state, list):
        return all(holds_no_dot(v) for v in state)
    return True


@pytest.mark.parametrize("folded", [False, True], ids=["whole", "folded"])
def test_no_live_widget_state_holds_a_dot(folded: bool, tmp_path: Path) -> None:
    """The browser writes every live picture (js/fold.js): no DOT in the comm state, after an Expand and an option
    change from the view, in a notebook's saved state or in the state the exported page embeds."""
    widget = folded_widget() if folded else GraphWidget(lecture_L()["L"])
    widget.comm.send = lambda *a, **k: None  # type: ignore[method-assign]  # no kernel here
    key = widget.folds["groups"][0][0] if folded else None
    from_view(widget, {"precision": 3, "opened": [key] if key else []})
    assert widget.error == "" and widget.opened == ([key] if key else [])
    state = {k: v for k, v in widget.get_state().items() if k not in ("_esm", "_css")}
    assert "dot" not in state and "view" not in state and holds_no_dot(state)
    notebook = embed_data(views=[widget])["manager_state"]["state"][widget.model_id]["state"]
    assert "dot" not in notebook and "view" not in notebook and holds_no_dot(
        {k: v for k, v in notebook.items() if k not in ("_esm", "_css")})
    page = save_html(widget, tmp_path / "page.html").read_text(encoding="utf-8")
    match = _STATE.search(page)
    assert match, "the page holds its widget state"
    saved = json.loads(match.group(1))["state"][widget.model_id]["state"]
    assert "dot" not in saved and "view" not in saved and holds_no_dot(
        {k: v for k, v in saved.items() if k not in ("_esm", "_css")})


def test_an_options_or_opened_change_from_the_view_plans_no_picture(monkeypatch: pytest.MonkeyPatch) -> None:
    """A front end's Expand or new drawing option costs the kernel its checks only: no picture is planned (the
    static one is planned when a static output asks for it)."""
    widget = folded_widget()
    widget.comm.send = lambda *a, **k: None  # type: ignore[method-assign]
    key = widget.folds["groups"][0][0]

    def plan(*_: object, **__: object) -> None:
        raise AssertionError("a picture was planned for a change from the view")

    monkeypatch.setattr(dot_module, "graph_view", plan)
    for change in ({"opened": [key]}, {"precision": 2, "rankdir": "TB", "color": False}, {"opened": []}):
        from_view(widget, change)
        assert widget.error == "", change
    assert (widget.opened, widget.precision, widget.rankdir, widget.color) == ([], 2, "TB", False)


# ---------------------------------------------------------------- the static fallback reuses the widget's picture


def fallback_svg(widget: GraphWidget) -> str:
    data, _ = widget._repr_mimebundle_()
    svg: str = data["image/svg+xml"]
    return svg


def test_the_fallback_and_save_svg_plan_the_static_picture_once(monkeypatch: pytest.MonkeyPatch,
                                                                  tmp_path: Path) -> None:
    nodes = lecture_L()
    widget = GraphWidget(nodes["L"], precision=2)
    want = value_mimebundle(nodes["L"], precision=2)["image/svg+xml"]
    planned = []
    real = dot_module.graph_view

    def counted(*args: Any, **kwargs: Any) -> dot_module.GraphView:
        planned.append(1)
        return real(*args, **kwargs)

    with monkeypatch.context() as m:
        m.setattr(dot_module, "graph_view", counted)
        assert planned == [], "a live widget plans no picture until a static output asks for one"
        assert fallback_svg(widget) == want
        assert widget.save_svg(tmp_path / "same.svg").read_text(encoding="utf-8") == want
        assert planned == [1], "planned once, for the fallback; save_svg lays out the same picture"
    widget.precision = 3        # a new picture for the view, and the fallback shows it
    assert fallback_svg(widget) == value_mimebundle(nodes["L"], precision=3)["image/svg+xml"] != want


def test_the_fallback_follows_numbers_output_and_opened_boxes_changed_since() -> None:
    nodes = lecture_L()
    widget = GraphWidget(nodes["L"])
    widget.set_leaf("a", 5.0)       # the Values follow: the static display of L is the reference
    assert nodes["a"].data == 5.0
    assert fallback_svg(widget) == value_mimebundle(nodes["L"])["image/svg+xml"]
    widget.tape.forward([1.0, 1.0, 1.0, 1.0])   # the tape's own numbers, changed behind the widget's back
    widget.tape.backward()
    tape = Tape.from_value(nodes["L"])
    tape.forward([1.0, 1.0, 1.0, 1.0])
    tape.backward()
    assert fallback_svg(widget) == tape_mimebundle(tape)["image/svg+xml"]
    widget.output = widget.tape.index(nodes["d"])
    reference = Tape.from_value(nodes["L"])
    reference.backward(reference.index(nodes["d"]))
    assert fallback_svg(widget) == tape_mimebundle(reference, output=reference.index(nodes["d"]))["image/svg+xml"]


def test_the_fallback_shows_the_boxes_opened_in_the_widget() -> None:
    widget = folded_widget()
    root = widget.tape.values[widget.tape.root]
    before = fallback_svg(widget)
    key = widget.folds["groups"][0][0]
    widget.opened = [key]
    assert widget.opened == [key], "the box fits the budget"
    reference = Tape.from_value(root)
    reference.backward()
    after = fallback_svg(widget)
    assert after == tape_mimebundle(reference, node_budget=60, open_keys=[key])["image/svg+xml"] and after != before


# ---------------------------------------------------------------- several front ends (issue 24: 6 and 9)


class FrontEnd:
    """One browser tab's copy of a widget's leaf values, output and open boxes, kept as ipywidgets 8's front end
    keeps it: it takes every update, and every echo except, while its own change of a trait waits for its echo,
    another's echo of that trait (@jupyter-widgets/base WidgetModel, ``_expectedEchoMsgIds``)."""

    def __init__(self, kernel: Kernel, session: str) -> None:
        self.kernel, self.session = kernel, session
        self.state = {name: kernel.widget.get_state()[name] for name in ("leaf_values", "output", "opened")}
        self.waiting: dict[str, str] = {}     # trait -> the id of this tab's message whose echo it waits for
        self.read = 0                          # how many of the kernel's messages this tab has received

    def send(self, **changes: Any) -> None:
        self.state.update(changes)
        msg_id = f"{self.session}-{len(self.kernel.sent)}-{sorted(changes)}"
        self.waiting.update(dict.fromkeys(changes, msg_id))
        self.kernel.handle(self.session, msg_id, changes)

    def receive(self) -> None:
        """Take the kernel's messages this tab has not received yet, in order."""
        for parent, message in self.kernel.sent[self.read:]:
            state = dict(message.get("state", {}))
            if message.get("method") == "echo_update":
                for name in [n for n in state if n in self.waiting]:
                    if self.waiting[name] == parent:
                        del self.waiting[name]     # its own echo: applied, and others' are taken again
                    else:
                        del state[name]            # another's, sent before this tab's own change arrived
            if message.get("method") in ("update", "echo_update"):
                self.state.update({n: v for n, v in state.items() if n in self.state})
        self.read = len(self.kernel.sent)


class Kernel:
    """A widget's comm with the messages it sent, each with the id of the front end's message it answered."""

    def __init__(self, widget: GraphWidget) -> None:
        self.widget, self.parent = widget, ""
        self.sent: list[tuple[str, dict[str, Any]]] = []
        widget.comm.send = self._send  # type: ignore[method-assign]

    def _send(self, data: Any = None, metadata: Any = None, buffers: Any = None) -> None:
        self.sent.append((self.parent, data))

    def handle(self, session: str, msg_id: str, state: dict[str, Any]) -> None:
        self.parent = msg_id
        try:
            self.widget._handle_msg({"header": {"session": session, "msg_id": msg_id}, "buffers": [],
                                     "content": {"data": {"method": "update", "state": state, "buffer_paths": []}}})
        finally:
            self.parent = ""

    def echoes(self) -> list[dict[str, Any]]:
        return [m["state"] for _, m in self.sent if m.get("method") == "echo_update"]


def moved_leaf(tab: FrontEnd, widget: GraphWidget, leaf: Value, x: float) -> list[Any]:
    values = list(tab.state["leaf_values"])
    values[widget.tape.leaves.index(widget.tape.index(leaf))] = x
    return values


def leaves_of(nodes: dict[str, Value]) -> dict[str, float]:
    return {k: nodes[k].data for k in "abcf"}


def two_tabs() -> tuple[dict[str, Value], GraphWidget, Kernel, FrontEnd, FrontEnd]:
    """The lecture's L in a widget shown in two tabs."""
    nodes = lecture_L()
    widget = GraphWidget(nodes["L"])
    kernel = Kernel(widget)
    return nodes, widget, kernel, FrontEnd(kernel, "tab1"), FrontEnd(kernel, "tab2")


def test_a_change_in_one_tab_reaches_the_other() -> None:
    nodes, widget, kernel, tab1, tab2 = two_tabs()
    tab1.send(leaf_values=moved_leaf(tab1, widget, nodes["a"], 0.5))
    tab1.send(output=widget.tape.index(nodes["d"]))
    tab1.receive()
    tab2.receive()
    assert kernel.echoes(), "an accepted change is echoed"
    assert tab2.state == tab1.state == {name: getattr(widget, name) for name in tab1.state}
    assert tab2.state["leaf_values"][widget.tape.leaves.index(widget.tape.index(nodes["a"]))] == 0.5


def test_the_second_tab_does_not_undo_the_first() -> None:
    nodes, widget, _, tab1, tab2 = two_tabs()
    tab1.send(leaf_values=moved_leaf(tab1, widget, nodes["a"], 0.5))
    tab2.receive()
    tab2.send(leaf_values=moved_leaf(tab2, widget, nodes["b"], 4.0))
    reference = lecture_L(a=0.5, b=4.0)
    assert leaves_of(nodes) == leaves_of(reference)
    assert nodes["L"].data == reference["L"].data and nodes["a"].grad == reference["a"].grad
    # tab 2 moves b again before tab 1's next change reaches it (its own echo still on its way)
    tab1.receive()
    tab2.receive()
    tab1.send(leaf_values=moved_leaf(tab1, widget, nodes["a"], -1.5))
    tab2.send(leaf_values=moved_leaf(tab2, widget, nodes["b"], 6.0))
    tab1.receive()
    tab2.receive()
    reference = lecture_L(a=-1.5, b=6.0)
    assert leaves_of(nodes) == leaves_of(reference) and nodes["L"].data == reference["L"].data
    assert tab1.state == tab2.state == {name: getattr(widget, name) for name in tab1.state}, "every tab agrees"
    assert widget.error == ""


def test_no_echo_when_jupyter_widgets_echo_is_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ipywidget_module, "JUPYTER_WIDGETS_ECHO", False)
    widget = folded_widget()
    kernel = Kernel(widget)
    tab = FrontEnd(kernel, "tab1")
    tab.send(leaf_values=[x + 0.5 if isinstance(x, float) else x for x in tab.state["leaf_values"]])
    assert kernel.echoes() == [] and widget.leaf_values == tab.state["leaf_values"]
    every = [g.key for g in build_tree(widget.tape, 60).groups]
    tab.send(opened=every[::-1])
    tab.receive()
    assert kernel.echoes() == [] and tab.state["opened"] == widget.opened != every[::-1], "trimmed: pushed back"


def test_an_opened_the_kernel_refused_or_trimmed_is_sent_back_to_every_tab() -> None:
    widget = folded_widget()
    kernel = Kernel(widget)
    tab1, tab2 = FrontEnd(kernel, "tab1"), FrontEnd(kernel, "tab2")
    tree = build_tree(widget.tape, 60)
    every = [g.key for g in tree.groups]
    # reference: in tree order, each asked-for box whose parent is open, while the picture fits 60 units
    fits = [k for k in every if len(picture(widget.tape, tree, [k]).shown) + len(picture(widget.tape, tree, [k]).boxes)
            <= 60 and tree.groups[tree.by_key[k]].parent < 0]
    assert len(fits) >= 2, "the test needs two boxes that open on their own"
    for asked, kept in [(fits[1::-1], None), (every[::-1], None), ([fits[0], "no-such-box"], widget.opened)]:
        before = list(widget.opened)
        tab1.send(opened=asked)
        tab1.receive()
        tab2.receive()
        if kept is not None:
            assert widget.opened == before and "no-such-box" in widget.error, "refused: nothing changes"
        else:
            assert widget.opened == [k for k in every if k in widget.opened] and widget.opened != asked
        assert tab1.state["opened"] == tab2.state["opened"] == widget.opened, "every tab shows what the kernel has"


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
