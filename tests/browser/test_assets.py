"""The loader and the shared assets model in Chromium (pages/fake_model.html goes through static/loader.js with a
fake widget manager): several widgets on one page import the views once; a view whose assets model is gone asks
its widget and renders from the kernel's answer (micrograd_widget.assets.answer_request's message and buffers);
with no kernel to answer, it says what to do instead of failing silently."""

from __future__ import annotations

import base64

import pytest
from builders import lecture_L
from playwright.sync_api import expect

from micrograd_widget import assets
from micrograd_widget.nn import MLP
from micrograd_widget.training import watch
from micrograd_widget.widget import GraphWidget, explore

from .mgw_browser.dom import WidgetDom
from .mgw_browser.fake_model import widget_payload, write_payload

pytestmark = pytest.mark.browser


def open_page(page, server, widgets, wait: bool = True, assets_ref: str | None = None) -> None:
    """Render ``widgets`` (their synced state, buffers split out) into one fake-model page, in order;
    ``assets_ref`` replaces their ``_mgw_assets`` (a model the page does not have)."""
    from ipywidgets.widgets.widget import _remove_buffers

    urls = []
    for w in widgets:
        if isinstance(w, GraphWidget):
            payload = widget_payload(w)
        else:
            state = {k: v for k, v in w.get_state().items() if k not in ("_esm", "_css")}
            state, paths, buffers = _remove_buffers(state)
            payload = {"state": state, "buffer_paths": paths,
                       "buffers": [base64.b64encode(bytes(b)).decode("ascii") for b in buffers]}
        if assets_ref is not None:
            payload["state"]["_mgw_assets"] = assets_ref
        urls.append(write_payload(server.root, payload))
    page.goto(f"{server.url}/pages/fake_model.html?" + "&".join(f"state={u}" for u in urls))
    if wait:
        page.wait_for_function("() => window.__mgw && (window.__mgw.ready || window.__mgw.error)", timeout=60_000)
        assert not page.evaluate("() => window.__mgw.error")


def test_three_widgets_of_both_kinds_import_the_views_once(guarded, static_server):
    page = guarded.page
    L = lecture_L()["L"]
    open_page(page, static_server, [explore(L), GraphWidget(L, precision=2), watch(MLP(2, [3, 1]))])
    expect(page.locator(".mgw-root[data-state=ready]")).to_have_count(2, timeout=30_000)
    expect(page.locator(".mgw-training[data-state=ready]")).to_have_count(1, timeout=30_000)
    shared = assets.shared_assets()
    loaded = page.evaluate("""() => ({
        blobModules: window.__mgw.blobModules.length,
        cached: [...globalThis[Symbol.for('micrograd-widget.views')].keys()],
        getModel: window.__mgw.getModel })""")
    assert loaded["blobModules"] == 1, "the views bundle is imported once per page"
    assert loaded["cached"] == [shared.digest]
    assert set(loaded["getModel"]) == {shared.model_id}
    assert not page.locator("[data-role=load-error]").count()


def test_a_view_whose_assets_model_is_gone_renders_from_the_kernels_answer(guarded, static_server):
    page = guarded.page
    widget = explore(lecture_L()["L"])
    assets.shared_assets().close()
    # As a page that lost the model (e.g. after a kernel restart): its widget manager does not have it (404).
    open_page(page, static_server, [widget], wait=False, assets_ref="IPY_MODEL_0123456789abcdef")
    page.wait_for_function("() => window.__mgw.log.send.some((m) => m && m.type === 'assets')", timeout=30_000)
    # What the kernel answers to that message (the widget also points at a live assets model again).
    sent = []
    widget.comm.send = lambda data=None, metadata=None, buffers=None: sent.append((data, buffers))
    widget._handle_msg({"content": {"data": {"method": "custom", "content": {"type": "assets"}}}, "buffers": []})
    (data, buffers), = [(d, b) for d, b in sent if d.get("method") == "custom"]
    page.evaluate("""([msg, b64]) => {
        const views = b64.map((s) => new DataView(Uint8Array.from(atob(s), (c) => c.charCodeAt(0)).buffer));
        window.__mgw.models[0]._fire('msg:custom', msg, views);
    }""", [data["content"], [base64.b64encode(bytes(b)).decode("ascii") for b in buffers]])
    page.wait_for_function("() => window.__mgw.ready || window.__mgw.error", timeout=30_000)
    assert not page.evaluate("() => window.__mgw.error")
    WidgetDom(page).wait_ready()
    assert widget.get_state()["_mgw_assets"] == f"IPY_MODEL_{assets.shared_assets().model_id}"
    assert not page.locator("[data-role=load-error]").count()


def test_with_no_model_and_no_kernel_the_view_says_what_to_do(guarded, static_server):
    page = guarded.page
    widget = watch(MLP(2, [2, 1]))
    open_page(page, static_server, [widget], assets_ref="IPY_MODEL_0123456789abcdef")
    error = page.locator("[data-role=load-error]")
    expect(error).to_have_count(1)
    expect(error).to_have_attribute("role", "alert")
    text = error.text_content() or ""
    assert "could not load its views" in text and "not found" in text and "no kernel answered" in text
    assert "Run the cell" in text and "widget state" in text
    assert not page.locator(".mgw-training").count()
