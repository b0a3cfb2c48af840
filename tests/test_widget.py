"""GraphWidget without a kernel: outgoing messages recorded from ``w.comm.send``, front-end messages fed with
``w._handle_msg``. Expected numbers come from the engine (a fresh graph built with the new values)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pytest
import traitlets
from builders import lecture_L, log_graph, picture_view
from helpers import Recorder, assert_values_match, custom_from_browser, from_browser

from micrograd_widget.core.gradcheck import gradcheck
from micrograd_widget.core.ops import define_op
from micrograd_widget.core.spec import from_buffer
from micrograd_widget.core.tape import Tape, TapeReplayError
from micrograd_widget.display import value_mimebundle, with_html
from micrograd_widget.engine import Value, topological_order
from micrograd_widget.graph.widget import GraphWidget, explore
from micrograd_widget.nn import MLP
from micrograd_widget.picture import dot as dot_module


def leaf_values(nodes: dict[str, Value], widget: GraphWidget) -> list[float]:
    return [widget.tape.values[i].data for i in widget.tape.leaves]


# ---------------------------------------------------------------- construction


def test_state_holds_the_tape_spec_a_hierarchy_with_no_groups_and_the_leaf_values() -> None:
    nodes = lecture_L()
    w = GraphWidget(nodes["L"])
    state = w.get_state()
    tape = Tape.from_value(nodes["L"])
    assert state["spec"] == tape.spec()
    assert "dot" not in state and "view" not in state, "the browser writes the picture (js/picture/fold_tree.js)"
    assert state["folds"]["groups"] == [] and bytes(state["folds"]["group_of"]) == b"\xff" * 4 * len(tape)
    assert state["opened"] == []
    assert state["output"] == tape.root
    assert state["leaf_values"] == [tape.data[i] for i in tape.leaves]
    assert (state["precision"], state["rankdir"], state["node_budget"], state["color"]) == (4, "LR", 250, True)
    assert state["data"] == b"" and state["grad"] == b"", "the browser replays this graph: no duplicate numbers"
    assert state["error"] == ""


def test_the_esm_and_css_are_the_built_files() -> None:
    w = explore(lecture_L()["L"])
    static = Path(__file__).resolve().parents[1] / "micrograd_widget" / "static"
    state = w.get_state()
    assert state["_esm"] == (static / "loader.js").read_text(encoding="utf-8")
    assert state["_css"] == "", "the CSS travels in the shared assets model (tests/test_assets.py)"
    assert "render" in state["_esm"]


def test_displaying_does_not_touch_the_values() -> None:
    nodes = lecture_L(backward=False)
    before = {k: (v.data, v.grad) for k, v in nodes.items()}
    w = GraphWidget(nodes["L"])
    assert {k: (v.data, v.grad) for k, v in nodes.items()} == before
    assert w.tape.grad[w.tape.index(nodes["a"])] == 6.0, "the view shows fresh grads of the output"


def test_options_are_checked_and_used_for_the_dot() -> None:
    nodes = lecture_L()
    w = GraphWidget(nodes["L"], precision=2, rankdir="tb", color=False)
    assert (w.precision, w.rankdir, w.color) == (2, "TB", False)
    assert w._drawing().dot == dot_module.graph_view(w.tape, precision=2, rankdir="TB", color=False).dot
    with pytest.raises(ValueError, match="precision"):
        GraphWidget(nodes["L"], precision=99)
    with pytest.raises(TypeError, match="unknown option"):
        GraphWidget(nodes["L"], colour=True)
    with pytest.raises(TypeError, match="takes a Value"):
        GraphWidget(3.0)  # type: ignore[arg-type]


def test_changing_an_option_redraws_and_a_bad_value_changes_nothing() -> None:
    w = GraphWidget(lecture_L()["L"])
    sent = Recorder(w)
    w.rankdir = "TB"
    assert sent.states() == [{"rankdir": "TB"}], "the option alone: the browser lays the picture out again"
    assert w._drawing().dot == dot_module.graph_view(w.tape, rankdir="TB").dot, "the static picture follows"
    with pytest.raises(traitlets.TraitError, match="precision"):
        w.precision = 40
    assert w.precision == 4 and sent.states() == [{"rankdir": "TB"}]


def test_a_large_graph_is_folded_as_dot_py_folds_it() -> None:
    model = MLP(3, [8, 8, 1])
    loss = sum((model([0.5, -1.0, 2.0]) - 1.0) ** 2 for _ in range(3))
    w = GraphWidget(loss, node_budget=60)
    picture = dot_module.graph_view(w.tape, node_budget=60)
    assert picture_view(w)["shown"] == list(picture.shown)
    assert [f["count"] for f in picture_view(w)["folds"]] == [len(f.members) for f in picture.folds]
    assert [f["note"] for f in picture_view(w)["folds"]] == [f.note for f in picture.folds]
    assert all(f.note for f in picture.folds)
    assert picture_view(w)["message"] == picture.message and "fold" in picture.message
    assert len(picture_view(w)["shown"]) < len(w.tape)
    # Which fold box holds each node (the stepper highlights the box when a folded node fires).
    boxes = picture_view(w)["fold_of"]
    assert len(boxes) == len(w.tape)
    for k, f in enumerate(picture.folds):
        assert all(boxes[i] == k for i in f.members)
    assert all(boxes[i] == -1 for i in picture.shown)
    assert sum(x >= 0 for x in boxes) + len(picture.shown) == len(w.tape)


# ---------------------------------------------------------------- browser -> kernel


def test_settled_leaf_values_from_the_browser_are_written_into_the_values() -> None:
    nodes = lecture_L()
    w = GraphWidget(nodes["L"])
    sent = Recorder(w)
    values = leaf_values(nodes, w)
    values[w.tape.leaves.index(w.tape.index(nodes["a"]))] = 0.5
    from_browser(w, leaf_values=values)
    assert_values_match(nodes, lecture_L(a=0.5))
    assert w.leaf_values == values and w.error == ""
    assert not any("leaf_values" in s and s["leaf_values"] != values for s in sent.states())


def test_choosing_the_output_in_the_browser_differentiates_that_node() -> None:
    nodes = lecture_L()
    w = GraphWidget(nodes["L"])
    Recorder(w)
    from_browser(w, output=w.tape.index(nodes["d"]))
    assert nodes["d"].grad == 1.0 and nodes["L"].grad == 0.0
    assert nodes["a"].grad == -3.0 and nodes["b"].grad == 2.0 and nodes["c"].grad == 1.0


def test_values_the_kernel_cannot_apply_are_refused_with_a_message_and_undone() -> None:
    nodes = log_graph()
    w = GraphWidget(nodes["z"])
    sent = Recorder(w)
    before = {k: (v.data, v.grad) for k, v in nodes.items()}
    good = list(w.leaf_values)
    bad = [-1.0 if i == w.tape.index(nodes["x"]) else nodes["k"].data for i in w.tape.leaves]
    from_browser(w, leaf_values=bad)
    assert "log" in w.error
    assert w.leaf_values == good, "the refused values must be put back"
    assert {k: (v.data, v.grad) for k, v in nodes.items()} == before
    assert any(s.get("leaf_values") == good and "log" in s.get("error", "") for s in sent.states())
    from_browser(w, leaf_values=[3.0 for _ in w.tape.leaves])
    assert w.error == "" and nodes["y"].data == math.log(3.0)


@pytest.mark.parametrize("bad", [["1", 2.0], [True, 2.0], [1.0], [None, 1.0], ["Infinity", 1.0], [{"x": 1}, 2.0]])
def test_malformed_leaf_values_from_the_browser_are_refused(bad: Any) -> None:
    nodes = log_graph()
    w = GraphWidget(nodes["z"])
    Recorder(w)
    good = list(w.leaf_values)
    from_browser(w, leaf_values=bad)
    assert w.error, f"no error for {bad!r}"
    assert w.leaf_values == good
    assert (nodes["x"].data, nodes["z"].data) == (2.0, 3.0 * math.log(2.0))


def test_an_unknown_output_node_is_refused() -> None:
    nodes = lecture_L()
    w = GraphWidget(nodes["L"])
    Recorder(w)
    from_browser(w, output=99)
    assert "node id" in w.error and w.output == w.tape.root


# ---------------------------------------------------------------- Python -> browser


def test_set_leaf_by_value_label_or_node_id() -> None:
    nodes = lecture_L()
    w = GraphWidget(nodes["L"])
    sent = Recorder(w)
    w.set_leaf(nodes["a"], 1.0)
    assert_values_match(nodes, lecture_L(a=1.0))
    w.set_leaf("c", 4)
    assert_values_match(nodes, lecture_L(a=1.0, c=4.0))
    w.set_leaf(w.tape.index(nodes["f"]), -1.5)
    assert_values_match(nodes, lecture_L(a=1.0, c=4.0, f=-1.5))
    assert sent.states()[-1]["leaf_values"] == [1.0, -3.0, 4.0, -1.5]


@pytest.mark.parametrize(
    "leaf, value, error, match",
    [
        ("zzz", 1.0, KeyError, "no leaf is labelled"),
        ("e", 1.0, KeyError, "no leaf is labelled"),
        (2, 1.0, KeyError, "not a leaf"),
        (99, 1.0, TapeReplayError, "node id"),
        ("a", "3", TypeError, "real number"),
        ("a", True, TypeError, "real number"),
        (1.5, 1.0, TypeError, "node id"),
    ],
)
def test_set_leaf_rejects_bad_input_and_changes_nothing(leaf: Any, value: Any, error: type, match: str) -> None:
    nodes = lecture_L()
    w = GraphWidget(nodes["L"])
    sent = Recorder(w)
    before = {k: (v.data, v.grad) for k, v in nodes.items()}
    with pytest.raises(error, match=match):
        w.set_leaf(leaf, value)
    assert {k: (v.data, v.grad) for k, v in nodes.items()} == before
    assert sent.states() == []


def test_set_leaf_with_an_ambiguous_label_asks_for_the_value_and_a_failing_op_raises() -> None:
    x, y = Value(1.0, label="w"), Value(2.0, label="w")
    w = GraphWidget(x * y)
    with pytest.raises(KeyError, match="2 leaves are labelled 'w'"):
        w.set_leaf("w", 3.0)
    nodes = log_graph()
    w = GraphWidget(nodes["z"])
    with pytest.raises(ValueError, match="log"):
        w.set_leaf("x", -2.0)
    assert nodes["x"].data == 2.0


def test_refresh_reads_the_leaves_edited_in_python() -> None:
    nodes = lecture_L()
    w = GraphWidget(nodes["L"])
    sent = Recorder(w)
    nodes["b"].data = 0.25
    w.refresh()
    assert_values_match(nodes, lecture_L(b=0.25))
    assert sent.states()[-1]["leaf_values"][1] == 0.25


# ---------------------------------------------------------------- graphs the browser cannot replay


def cube_graph() -> dict[str, Value]:
    cube = define_op("cube", lambda a: a ** 3, lambda a, out: 3 * a * a)
    x = Value(2.0, label="x")
    y = Value.apply(cube, x)
    y.label = "y"
    z = y * Value(0.5, label="h")
    z.label = "z"
    return {v.label: v for v in (x, y, z)}


def test_a_user_defined_op_is_replayed_by_the_kernel_on_request() -> None:
    nodes = cube_graph()
    w = GraphWidget(nodes["z"])
    assert w.spec["ops"][0]["builtin"] is False
    assert len(from_buffer(w.data, "d")) == len(w.tape) and from_buffer(w.data, "d")[w.tape.index(nodes["z"])] == 4.0
    sent = Recorder(w)
    x_pos = w.tape.leaves.index(w.tape.index(nodes["x"]))
    values = list(w.leaf_values)
    values[x_pos] = 3.0
    custom_from_browser(w, {"type": "replay", "seq": 7, "leaf_values": values, "output": w.tape.root})
    (reply,) = sent.customs()
    assert reply["seq"] == 7 and "error" not in reply and reply["buffers"] == ["data", "grad"]
    assert reply["data"][w.tape.index(nodes["z"])] == 13.5
    assert reply["grad"][w.tape.index(nodes["x"])] == pytest.approx(0.5 * 27)
    assert nodes["x"].data == 2.0, "a preview replay must not touch the Values"
    from_browser(w, leaf_values=values)
    assert nodes["z"].data == 13.5 and nodes["x"].grad == pytest.approx(13.5)
    assert from_buffer(w.data, "d")[w.tape.index(nodes["z"])] == 13.5


def test_a_bad_replay_request_gets_an_error_reply() -> None:
    nodes = cube_graph()
    w = GraphWidget(nodes["z"])
    sent = Recorder(w)
    custom_from_browser(w, {"type": "replay", "seq": 1, "leaf_values": [1.0], "output": 0})
    custom_from_browser(w, {"type": "something else"})
    (reply,) = sent.customs()
    assert reply["seq"] == 1 and "leaf values" in reply["error"]


# ---------------------------------------------------------------- gradient check (the inspector asks the kernel)


def cube_bad_graph() -> dict[str, Value]:
    """``z = cube_bad(x) * h`` where cube_bad's local derivative is wrong (2x^2 instead of 3x^2)."""
    cube_bad = define_op("cube_bad", lambda a: a ** 3, lambda a, out: 2 * a * a)
    x = Value(1.5, label="x")
    y = Value.apply(cube_bad, x)
    y.label = "y"
    z = y * Value(0.5, label="h")
    z.label = "z"
    return {v.label: v for v in (x, y, z)}


def gradcheck_request(w: GraphWidget, **fields: Any) -> dict[str, Any]:
    sent = Recorder(w)
    request = {"type": "gradcheck", "seq": 3, "leaf_values": list(w.leaf_values), "output": w.output, **fields}
    custom_from_browser(w, request)
    (reply,) = sent.customs()
    assert reply["type"] == "gradcheck" and reply["seq"] == 3
    return reply


def test_gradcheck_request_is_answered_with_gradcheck_py_rows_and_a_wrong_custom_op_fails() -> None:
    nodes = cube_bad_graph()
    w = GraphWidget(nodes["z"])
    reply = gradcheck_request(w)
    assert "error" not in reply, reply.get("error")
    expected = gradcheck(nodes["z"])
    assert reply["passed"] is False and expected.passed is False
    rows = {r["label"]: r for r in reply["rows"]}
    assert set(rows) == {"x", "h"}
    for row in expected.rows:
        got = rows[row.label]
        assert (got["node"], got["analytic"], got["numeric"], got["rel_error"], got["ok"]) == (
            row.node, row.analytic, row.numeric, row.rel_error, row.ok)
    assert rows["x"]["ok"] is False and rows["h"]["ok"] is True
    assert rows["x"]["analytic"] == pytest.approx(0.5 * 2 * 1.5 ** 2)
    assert rows["x"]["numeric"] == pytest.approx(0.5 * 3 * 1.5 ** 2, rel=1e-6)
    assert (reply["eps"], reply["rtol"], reply["atol"]) == (1e-6, 1e-4, 1e-6)


def test_gradcheck_request_checks_the_leaf_values_and_output_the_view_shows() -> None:
    nodes = cube_graph()
    w = GraphWidget(nodes["z"])
    x_pos = w.tape.leaves.index(w.tape.index(nodes["x"]))
    values = list(w.leaf_values)
    values[x_pos] = 3.0
    y_id = w.tape.index(nodes["y"])
    reply = gradcheck_request(w, leaf_values=values, output=y_id, leaves=[w.tape.index(nodes["x"])], eps=1e-5)
    assert reply["passed"] is True and reply["output"] == y_id and reply["eps"] == 1e-5
    (row,) = reply["rows"]
    assert row["label"] == "x" and row["data"] == 3.0
    assert row["analytic"] == 27.0 and row["numeric"] == pytest.approx(27.0, rel=1e-8)
    assert nodes["x"].data == 3.0 and w.output == y_id, "the checked values were applied, as settling would"


def test_bad_gradcheck_requests_get_an_error_reply_and_change_nothing() -> None:
    nodes = cube_graph()
    w = GraphWidget(nodes["z"])
    for fields, message in (({"leaf_values": [1.0]}, "leaf values"), ({"eps": 0}, "eps"), ({"rtol": "x"}, "rtol"),
                            ({"leaves": [w.tape.index(nodes["y"])]}, "not a leaf"), ({"leaves": 5}, "list"),
                            ({"output": 99}, "output")):
        reply = gradcheck_request(w, **fields)
        assert message in reply["error"], (fields, reply)
        assert "rows" not in reply
    assert nodes["x"].data == 2.0
    hand = Value(3.0, (Value(1.0, label="a"), Value(2.0, label="b")), "+", label="c")
    reply = gradcheck_request(GraphWidget(hand))
    assert "built by hand" in reply["error"]


def test_a_graph_with_hand_built_nodes_shows_but_cannot_be_changed() -> None:
    a, b = Value(1.0, label="a"), Value(2.0, label="b")
    c = Value(3.0, (a, b), "+", label="c")
    w = GraphWidget(c)
    assert from_buffer(w.spec["op"], "i")[w.tape.index(c)] == -1 and from_buffer(w.data, "d")[w.tape.index(c)] == 3.0
    with pytest.raises(TapeReplayError, match="built by hand"):
        w.set_leaf("a", 5.0)
    assert a.data == 1.0


# ---------------------------------------------------------------- display


def test_mimebundle_has_the_widget_view_and_the_static_picture() -> None:
    nodes = lecture_L()
    w = GraphWidget(nodes["L"], precision=2)
    data, _metadata = w._repr_mimebundle_()
    assert data["application/vnd.jupyter.widget-view+json"]["model_id"] == w.model_id
    static = value_mimebundle(nodes["L"], precision=2)
    assert data["image/svg+xml"] == static["image/svg+xml"]
    assert data["text/html"] == with_html(static, "the graph, as the widget draws it")["text/html"]


def test_every_value_node_of_the_graph_is_in_the_tape_order() -> None:
    nodes = lecture_L()
    w = GraphWidget(nodes["L"])
    assert list(w.tape.values) == topological_order(nodes["L"])
