"""A graph with a user-defined op is replayed by the kernel for every slider frame (issue 12): the view asks with
{"type": "replay"}, GraphWidget answers with every node's data and grad as two Float64 binary buffers (as the
data/grad traits travel), and the view shows those numbers."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from playwright.sync_api import expect

from micrograd_widget.core.ops import define_op
from micrograd_widget.engine import Value
from micrograd_widget.graph.widget import GraphWidget

from .mgw_browser.dom import poll
from .mgw_browser.fake_model import model_log, open_view

pytestmark = pytest.mark.browser

_FIRE = """([reply, buffers]) => {
  const views = buffers.map((b64) => new DataView(Uint8Array.from(atob(b64), (c) => c.charCodeAt(0)).buffer));
  window.__mgw.models[0]._fire('msg:custom', reply, views);
}"""


def cube_widget(name: str) -> tuple[Value, GraphWidget, list[tuple[Any, Any]]]:
    """z = cube(x) * 0.5 at x = 2, cube a user-defined op called ``name``: x, the widget, and what it sends
    (content, buffers)."""
    cube = define_op(name, lambda a: a ** 3, lambda a, out: 3 * a * a)
    x = Value(2.0, label="x")
    y = Value.apply(cube, x)
    y.label = "y"
    z = y * 0.5
    z.label = "z"
    widget = GraphWidget(z)
    sent: list[tuple[Any, Any]] = []
    widget.comm.send = lambda data=None, metadata=None, buffers=None: sent.append((data, buffers))  # type: ignore[method-assign]
    return x, widget, sent


def test_the_kernels_replay_answer_arrives_as_float64_buffers_and_is_shown(guarded, static_server, widget_bundle):
    x, widget, sent = cube_widget("cube_for_replay_view")
    view = open_view(guarded.page, static_server, widget)
    took = view.set_slider("x", 3.0)
    requests = poll(lambda: [m for m in model_log(guarded.page)["send"] if m.get("type") == "replay"], bool,
                    "the view to ask the kernel for a replay")
    widget._handle_msg({"content": {"data": {"method": "custom", "content": requests[-1]}}, "buffers": []})
    reply, buffers = next((d["content"], b) for d, b in sent if d.get("method") == "custom")
    assert reply["buffers"] == ["data", "grad"] and [len(bytes(b)) for b in buffers] == [8 * len(widget.tape)] * 2
    guarded.page.evaluate(_FIRE, [reply, [base64.b64encode(bytes(b)).decode() for b in buffers]])
    expected = {"y": {"data": took ** 3, "grad": 0.5}, "z": {"data": took ** 3 * 0.5, "grad": 1.0},
                "x": {"data": took, "grad": 1.5 * took * took}}
    view.expect_numbers(expected)
    assert x.data == 2.0, "a preview replay does not touch the Values"


def test_step_and_train_on_a_user_op_graph_run_in_the_kernel_and_say_so(guarded, static_server, widget_bundle):
    """Learning on such a graph goes through the kernel (issue 21): a Step down is one learn request, Train sends
    more, each answer's steps counted and its numbers shown; the view says training runs in the kernel."""
    _x, widget, sent = cube_widget("cube_for_learn_view")
    view = open_view(guarded.page, static_server, widget)
    assert "run in the kernel" in (view.root.locator('[data-role="learn-note"]').text_content() or "")

    def answer(nth: int) -> dict[str, Any]:
        """The view's nth learn request (from 1), answered by the widget and its reply fired into the page."""
        asks = poll(lambda: [m for m in model_log(guarded.page)["send"] if m.get("type") == "learn"],
                    lambda m: len(m) >= nth, f"the view to send learn request {nth}")
        sent.clear()
        widget._handle_msg({"content": {"data": {"method": "custom", "content": asks[-1]}}, "buffers": []})
        reply, buffers = next((d["content"], b) for d, b in sent if d.get("method") == "custom")
        guarded.page.evaluate(_FIRE, [reply, [base64.b64encode(bytes(b)).decode() for b in buffers]])
        return asks[nth - 1]

    view.root.locator('[data-action="step-down"]').click()
    ask = answer(1)
    assert (ask["steps"], ask["sign"], ask["step_size"]) == (1, -1, 0.01)
    x1 = 2.0 - 0.01 * 1.5 * 2.0 ** 2      # dz/dx = 1.5 x^2 = 6 at x = 2: x = 1.94, by hand
    view.expect_numbers({"x": {"data": x1, "grad": 1.5 * x1 * x1}, "z": {"data": 0.5 * x1 ** 3, "grad": 1.0}})
    expect(view.root.locator('[data-role="steps"]')).to_have_text("1")
    view.root.locator('[data-action="train"]').click()
    ask = answer(2)
    assert ask["sign"] == -1 and ask["steps"] >= 1
    want = x1
    for _ in range(ask["steps"]):
        want -= 0.01 * 1.5 * want * want
    view.expect_numbers({"x": {"data": want}})
    expect(view.root.locator('[data-role="steps"]')).to_have_text(str(1 + ask["steps"]))
    view.root.locator('[data-action="train"]').click()  # pause (the next request's answer is never sent)
