"""GraphWidget under faults (issue 12): from the front end, from user code, from time. Each test names the
defect it pins; expected numbers come from the engine on a freshly built graph, never from the widget."""

from __future__ import annotations

import gc
import math
import weakref
from pathlib import Path
from typing import Any

import pytest
from builders import Interrupting, log_graph, picture_view
from builders import lecture_L as lecture
from helpers import CELL, Recorder, custom_from_browser, from_browser, make_shell, moved, snapshot
from IPython.core.interactiveshell import InteractiveShell

import micrograd_widget
from micrograd_widget.core.ops import define_op
from micrograd_widget.engine import Value
from micrograd_widget.graph import requests
from micrograd_widget.graph.requests import MAX_ERROR_CHARS, MAX_GRADCHECK_LEAVES
from micrograd_widget.graph.widget import GraphWidget
from micrograd_widget.host import export
from micrograd_widget.host.export import save_html

# ---------------------------------------------------------------- 1. freeing


def test_esm_and_css_are_strings_read_once() -> None:
    """A Path would attach every instance to anywidget's class-level file watcher, which never frees it."""
    assert isinstance(GraphWidget._esm, str) and "render" in GraphWidget._esm
    assert isinstance(GraphWidget._css, str)


def _widget_and_refs() -> tuple[GraphWidget, weakref.ref[Value]]:
    nodes = lecture()
    w = GraphWidget(nodes["L"])
    return w, weakref.ref(nodes["L"])


def test_a_closed_widget_and_its_graph_are_freed() -> None:
    w, root = _widget_and_refs()
    widget = weakref.ref(w)
    w.close()
    gc.collect()
    assert root() is None, "a closed widget must let go of the graph even while the user holds the widget"
    del w
    gc.collect()
    assert widget() is None, "nothing may keep a closed widget alive"


def test_a_widget_shown_by_the_extension_is_freed_after_close(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    ip = make_shell(tmp_path, monkeypatch)
    try:
        ip.run_line_magic("load_ext", "micrograd_widget")
        result = ip.run_cell(CELL)
        assert result.success, result.error_in_exec
        data, _ = ip.display_formatter.format(result.result)
        import ipywidgets.widgets.widget as ipw

        model_id = data["application/vnd.jupyter.widget-view+json"]["model_id"]
        root = weakref.ref(ip.user_ns["b"])
        # The cell's own output and the format() above each made a widget: close them all, as a user would.
        shown = [w for w in list(ipw._instances.values()) if isinstance(w, GraphWidget) and w.tape.values[-1] is root()]
        assert len(shown) == 2 and model_id in {w.model_id for w in shown}
        widgets = [weakref.ref(w) for w in shown]
        for w in shown:
            w.close()
        del shown, w, result, data
        ip.run_line_magic("reset", "-f")
        gc.collect()
        assert root() is None and [ref() for ref in widgets] == [None, None]
    finally:
        micrograd_widget.unload_ipython_extension(ip)
        InteractiveShell.clear_instance()


def test_a_closed_widget_refuses_its_methods_with_a_clear_error(tmp_path: Path) -> None:
    w = GraphWidget(lecture()["L"])
    w.close()
    for call in (lambda: w.set_leaf("a", 1.0), w.refresh, lambda: save_html(w, tmp_path / "x.html"),
                 lambda: w.tape):
        with pytest.raises(RuntimeError, match="this widget is closed; make a new one"):
            call()
    assert not (tmp_path / "x.html").exists()
    w.close()  # closing twice is harmless


def test_save_html_of_a_value_does_not_keep_a_widget_alive(tmp_path: Path) -> None:
    nodes = lecture()
    root = weakref.ref(nodes["L"])
    save_html(nodes.pop("L"), tmp_path / "page.html")
    nodes.clear()
    gc.collect()
    assert root() is None


# ---------------------------------------------------------------- 2. the write rule: test_writes.py


# ---------------------------------------------------------------- 3, 4, 5. user code that raises, error text


def touchy_graph(forward_fails: bool) -> dict[str, Value]:
    """``z = touchy(x) * h``: touchy raises RuntimeError for x > 5, in its forward or in its local derivative."""
    def forward(a: float) -> float:
        if forward_fails and a > 5:
            raise RuntimeError("touchy: x > 5 is not allowed")
        return 2 * a

    def local_grad(a: float, out: float) -> float:
        if not forward_fails and a > 5:
            raise RuntimeError("touchy grad: x > 5 is not allowed")
        return 2.0

    touchy = define_op("touchy_fwd" if forward_fails else "touchy_bwd", forward, local_grad)
    x, h = Value(1.0, label="x"), Value(3.0, label="h")
    y = Value.apply(touchy, x)
    z = y * h
    z.label = "z"
    return {"x": x, "h": h, "y": y, "z": z}


@pytest.mark.parametrize("forward_fails", [True, False])
def test_a_user_op_raising_anything_is_refused_and_changes_nothing(forward_fails: bool) -> None:
    nodes = touchy_graph(forward_fails)
    w = GraphWidget(nodes["z"])
    sent = Recorder(w)
    before = snapshot(w)
    from_browser(w, leaf_values=moved(w, nodes["x"], 6.0))
    assert w.error.startswith("RuntimeError: touchy"), w.error
    assert snapshot(w) == before, "Values, tape and traits must stay as they were"
    assert any("leaf_values" in s for s in sent.states()), "the refused values are pushed back to the view"
    for request in ({"type": "replay", "seq": 1, "leaf_values": moved(w, nodes["x"], 6.0)},
                    {"type": "gradcheck", "seq": 2, "leaf_values": moved(w, nodes["x"], 6.0)}):
        custom_from_browser(w, request)
        reply = sent.customs()[-1]
        assert reply["seq"] == request["seq"] and reply["error"].startswith("RuntimeError: touchy"), reply
        assert snapshot(w) == before
    with pytest.raises(RuntimeError, match="touchy"):
        w.set_leaf("x", 6.0)
    assert snapshot(w) == before
    from_browser(w, leaf_values=moved(w, nodes["x"], 2.0))
    assert w.error == "" and nodes["z"].data == 12.0 and nodes["x"].grad == 6.0


@pytest.mark.parametrize("where", ["writing the Values", "publishing the traits"])
def test_an_interrupt_during_a_write_back_changes_nothing(where: str) -> None:
    """Defect 7 (issue 24): the stop button while a settle writes data and grad into the Values (or while the
    widget then sets its traits) left Values, tape and view out of step; now all go back as they were."""
    nodes = lecture(leaf=Interrupting)
    w = GraphWidget(nodes["L"])
    before, applied = snapshot(w), w._applied
    if where == "writing the Values":
        nodes["f"].arm(1)  # type: ignore[attr-defined]  # f is written after a, b, e, c and d
    else:
        def stop(_change: Any) -> None:
            w.unobserve(stop, "leaf_values")
            raise KeyboardInterrupt

        w.observe(stop, "leaf_values")  # the first trait _publish sets
    with pytest.raises(KeyboardInterrupt):
        w.set_leaf("a", 5.0)
    assert snapshot(w) == before and w._applied == applied and w.error == ""
    assert [v.data for v in nodes.values()] == [2.0, -3.0, 10.0, -6.0, 4.0, -2.0, -8.0]  # by hand
    w.set_leaf("a", 5.0)  # and the widget still works: e = 5 * -3, dL/da = b * f
    assert nodes["e"].data == -15.0 and nodes["a"].grad == 6.0 and w.leaf_values[0] == 5.0


def test_an_interrupt_during_a_change_from_the_view_puts_the_view_back() -> None:
    """The stop button while a front end's slider change is written back: the Values go back (the write-back is all
    or nothing) and so do the traits the view sees, so view, kernel and Values stay in step."""
    nodes = lecture(leaf=Interrupting)
    w = GraphWidget(nodes["L"])
    Recorder(w)
    before, applied = snapshot(w), w._applied
    nodes["f"].arm(1)  # type: ignore[attr-defined]  # f is written after a, b, e, c and d
    with pytest.raises(KeyboardInterrupt):
        from_browser(w, leaf_values=moved(w, nodes["a"], 5.0))
    assert w._applied == applied and snapshot(w) == before
    assert [v.data for v in nodes.values()] == [2.0, -3.0, 10.0, -6.0, 4.0, -2.0, -8.0]  # by hand
    assert w.error.startswith("interrupted")
    from_browser(w, leaf_values=moved(w, nodes["a"], 5.0))  # and the widget still works: e = 5 * -3
    assert nodes["e"].data == -15.0 and nodes["a"].grad == 6.0 and w.error == ""


def test_an_interrupted_gradcheck_puts_everything_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """The stop button during a long gradcheck request, after its leaf values were applied: they are taken back."""
    nodes = lecture()
    w = GraphWidget(nodes["L"])
    Recorder(w)
    before = snapshot(w)

    def stopped(*_args: Any, **_kwargs: Any) -> None:
        assert nodes["a"].data == 5.0, "the leaf values are applied before the check runs"
        raise KeyboardInterrupt

    monkeypatch.setattr(requests, "check_tape", stopped)
    with pytest.raises(KeyboardInterrupt):
        custom_from_browser(w, {"type": "gradcheck", "seq": 1, "leaf_values": moved(w, nodes["a"], 5.0)})
    assert snapshot(w) == before
    assert [v.data for v in nodes.values()] == [2.0, -3.0, 10.0, -6.0, 4.0, -2.0, -8.0]  # by hand


def test_a_gradcheck_that_fails_after_applying_puts_everything_back() -> None:
    nodes = touchy_graph(forward_fails=True)
    w = GraphWidget(nodes["z"])
    sent = Recorder(w)
    before = snapshot(w)
    custom_from_browser(w, {"type": "gradcheck", "seq": 5, "leaf_values": moved(w, nodes["x"], 5.0), "eps": 0.5})
    assert sent.customs()[-1]["error"].startswith("RuntimeError"), "x + eps crosses 5 only inside the check"
    assert snapshot(w) == before


def test_an_overflow_reads_as_its_type_and_message() -> None:
    cube = define_op("cube_overflow", lambda a: a ** 3, lambda a, out: 3 * a * a)
    x = Value(2.0, label="x")
    w = GraphWidget(Value.apply(cube, x))
    Recorder(w)
    from_browser(w, leaf_values=[1e200])
    with pytest.raises(OverflowError) as raised:
        _ = (1e200) ** 3
    assert raised.value.args == (34, "Numerical result out of range")
    assert w.error == "OverflowError: (34, 'Numerical result out of range')"
    assert x.data == 2.0


def test_an_error_with_a_lone_surrogate_reaches_the_view_json_safe() -> None:
    def forward(a: float) -> float:
        if a > 5:
            raise ValueError("bad \ud800 input")
        return a

    odd = define_op("odd_message", forward, lambda a, out: 1.0)
    x = Value(1.0, label="x")
    w = GraphWidget(Value.apply(odd, x))
    sent = Recorder(w)
    from_browser(w, leaf_values=[6.0])
    assert w.error == "ValueError: bad \ufffd input"
    custom_from_browser(w, {"type": "replay", "seq": 1, "leaf_values": [6.0]})
    assert sent.customs()[-1]["error"] == "ValueError: bad \ufffd input"
    w.error.encode("utf-8")


def test_error_text_never_echoes_a_huge_value() -> None:
    nodes = log_graph()
    w = GraphWidget(nodes["z"])
    sent = Recorder(w)
    huge = [1.0] * 1_000_000
    from_browser(w, leaf_values=huge)
    assert w.error and len(w.error) <= MAX_ERROR_CHARS
    from_browser(w, precision=huge)
    assert "precision" in w.error and len(w.error) <= MAX_ERROR_CHARS
    custom_from_browser(w, {"type": "replay", "seq": 1, "leaf_values": huge})
    custom_from_browser(w, {"type": "gradcheck", "seq": 2, "leaves": huge})
    custom_from_browser(w, {"type": "gradcheck", "seq": 3, "eps": "x" * 1_000_000})
    assert [len(r["error"]) <= MAX_ERROR_CHARS for r in sent.customs()] == [True] * 3
    assert sum(len(repr(m)) for m in sent.messages) < 10_000


# ---------------------------------------------------------------- 6. bounded gradcheck requests


def test_gradcheck_requests_are_bounded_and_refuse_duplicates() -> None:
    double = define_op("double_for_bounds", lambda a: 2 * a, lambda a, out: 2.0)
    xs = [Value(0.01 * n, label=f"x{n}") for n in range(MAX_GRADCHECK_LEAVES + 1)]
    w = GraphWidget(sum(Value.apply(double, x) for x in xs))
    sent = Recorder(w)
    ids = [w.tape.index(x) for x in xs]
    custom_from_browser(w, {"type": "gradcheck", "seq": 1, "leaf_values": list(w.leaf_values)})
    assert "at most 256 leaves" in sent.customs()[-1]["error"]
    custom_from_browser(w, {"type": "gradcheck", "seq": 2, "leaf_values": list(w.leaf_values), "leaves": ids})
    assert "at most 256 leaves" in sent.customs()[-1]["error"]
    custom_from_browser(w, {"type": "gradcheck", "seq": 3, "leaf_values": list(w.leaf_values),
                            "leaves": [ids[0], ids[1], ids[0]]})
    assert "distinct" in sent.customs()[-1]["error"] and f"node {ids[0]}" in sent.customs()[-1]["error"]
    custom_from_browser(w, {"type": "gradcheck", "seq": 4, "leaf_values": list(w.leaf_values),
                            "leaves": ids[:MAX_GRADCHECK_LEAVES]})
    reply = sent.customs()[-1]
    assert "error" not in reply and len(reply["rows"]) == MAX_GRADCHECK_LEAVES and reply["passed"] is True


# ---------------------------------------------------------------- 7. non-finite leaves


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_a_non_finite_leaf_is_shown_and_carried_not_fatal(bad: float) -> None:
    nodes = lecture()
    w = GraphWidget(nodes["L"])
    sent = Recorder(w)
    nodes["a"].data = bad
    w.refresh()
    assert w.error == "" and w.leaf_values[0] == {math.inf: "Infinity", -math.inf: "-Infinity"}.get(bad, "NaN")
    from_browser(w, leaf_values=moved(w, nodes["c"], 4.0))
    assert w.error == "" and nodes["c"].data == 4.0
    w.set_leaf("f", 3.0)
    reference = lecture(a=bad, c=4.0, f=3.0)
    assert repr([v.data for v in nodes.values()]) == repr([v.data for v in reference.values()])
    assert sent.states()[-1]["leaf_values"][0] == w.leaf_values[0]
    before = snapshot(w)
    from_browser(w, leaf_values=moved(w, nodes["b"], "Infinity"))
    assert "finite" in w.error and snapshot(w) == before, "a view may not set a leaf to a non-finite number"


# ---------------------------------------------------------------- 8. save_html writes atomically


def test_a_failing_save_leaves_the_existing_file_untouched(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "page.html"
    target.write_text("the old page", encoding="utf-8")
    monkeypatch.setattr(export, "_PAGE", export._PAGE + "\ud800")  # a lone surrogate cannot be written as UTF-8
    with pytest.raises(UnicodeEncodeError):
        save_html(lecture()["L"], target)
    assert target.read_text(encoding="utf-8") == "the old page"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.html"], "no temporary file may be left behind"


def test_a_failure_while_writing_leaves_the_existing_file_untouched(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "page.html"
    target.write_text("the old page", encoding="utf-8")

    def broken(src: Any, dst: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(export.os, "replace", broken)
    with pytest.raises(OSError, match="disk full"):
        save_html(lecture()["L"], target)
    assert target.read_text(encoding="utf-8") == "the old page"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["page.html"]


def test_a_lone_surrogate_label_either_saves_a_readable_page_or_fails_cleanly(tmp_path: Path) -> None:
    a = Value(1.0, label="\ud800")
    target = tmp_path / "page.html"
    target.write_text("the old page", encoding="utf-8")
    try:
        save_html(a * 2.0, target)
    except (UnicodeError, ValueError):
        assert target.read_text(encoding="utf-8") == "the old page"
    else:
        assert "<!DOCTYPE html>" in target.read_text(encoding="utf-8")


# ---------------------------------------------------------------- 9. scale (times: benchmarks/chain_scale.py)


def test_a_huge_chain_is_frozen_once_per_display_and_its_state_is_binary(monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from ipywidgets.widgets.widget import _remove_buffers

    from micrograd_widget.core.tape import Tape

    v = Value(0.5, label="x")
    for _ in range(100_000):
        v = v.tanh()
    frozen: list[int] = []
    original = Tape.from_value.__func__  # type: ignore[attr-defined]
    monkeypatch.setattr(Tape, "from_value", classmethod(lambda cls, root: frozen.append(1) or original(cls, root)))
    w = GraphWidget(v)
    bundle = w._repr_mimebundle_()
    assert bundle is not None and ("image/svg+xml" in bundle[0] or "text/html" in bundle[0])
    assert frozen == [1], "the widget and its static fallback share one tape"
    state = {k: x for k, x in w.get_state().items() if k not in ("_esm", "_css")}
    text, _, buffers = _remove_buffers(state)
    spec_json = len(json.dumps(text["spec"]))
    assert spec_json < 1_000, f"the spec's JSON is {spec_json:,} bytes: per-node strings must travel as tables"
    assert len(picture_view(w)["shown"]) <= w.node_budget and "dot" not in state and "view" not in state
    assert sum(memoryview(b).nbytes for b in buffers) < 50 * len(w.tape)


# ---------------------------------------------------------------- 10. node_budget from Python (from the view:
# test_view_state.py; -0.0: test_writes.py)


def test_node_budget_none_is_still_allowed_from_python() -> None:
    w = GraphWidget(lecture()["L"], node_budget=None)
    assert w.node_budget is None
    w.node_budget = 2000
    w.node_budget = None
    assert w.node_budget is None


def test_set_leaf_by_a_label_given_after_the_widget_was_made_says_labels_were_read_then() -> None:
    """Issue 24 (10): the message did not say that labels are read once, nor how to name the leaf instead."""
    nodes = lecture()
    w = GraphWidget(nodes["L"])
    nodes["a"].label = "AAA"
    with pytest.raises(KeyError) as caught:
        w.set_leaf("AAA", 1.0)
    message = str(caught.value)
    for words in ("read when the widget is made", "'a', 'b', 'c', 'f'", "was 'a'", "Value", "node id", "new widget"):
        assert words in message, words
    assert len(message) < 300
    w.set_leaf(nodes["a"], 1.0)
    assert nodes["L"].data == lecture(a=1.0)["L"].data
