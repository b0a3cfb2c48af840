"""A graph with a user-defined op is replayed by the kernel for every slider frame (issue 12): the view asks with
{"type": "replay"}, GraphWidget answers with every node's data and grad as two Float64 binary buffers (as the
data/grad traits travel), and the view shows those numbers."""

from __future__ import annotations

import base64
from typing import Any

import pytest

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


def test_the_kernels_replay_answer_arrives_as_float64_buffers_and_is_shown(guarded, static_server, widget_bundle):
    cube = define_op("cube_for_replay_view", lambda a: a ** 3, lambda a, out: 3 * a * a)
    x = Value(2.0, label="x")
    y = Value.apply(cube, x)
    y.label = "y"
    z = y * 0.5
    z.label = "z"
    widget = GraphWidget(z)
    sent: list[tuple[Any, Any]] = []
    widget.comm.send = lambda data=None, metadata=None, buffers=None: sent.append((data, buffers))  # type: ignore[method-assign]
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
