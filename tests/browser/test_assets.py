"""The loader and the shared assets model in Chromium (pages/fake_model.html goes through static/loader.js with a
fake widget manager): several widgets on one page import the views once; a view whose assets model is gone asks
its widget and renders from the kernel's answer (micrograd_widget.host.assets.answer_request's message and buffers);
with no kernel to answer, it says what to do instead of failing silently."""

from __future__ import annotations

import base64

import pytest
from builders import lecture_L
from playwright.sync_api import expect

from micrograd_widget.graph.widget import GraphWidget, explore
from micrograd_widget.host import assets
from micrograd_widget.nn import MLP
from micrograd_widget.training.widget import watch

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


def kernel_answer(widget) -> tuple[dict, list[bytes]]:
    """What the kernel sends ``widget``'s views for one ``{"type": "assets"}`` request: (content, buffers)."""
    sent = []
    widget.comm.send = lambda data=None, metadata=None, buffers=None: sent.append((data, buffers))
    widget._handle_msg({"content": {"data": {"method": "custom", "content": {"type": "assets"}}}, "buffers": []})
    (data, buffers), = [(d, b) for d, b in sent if d.get("method") == "custom"]
    return data["content"], [bytes(b) for b in buffers or []]


def deliver(page, index: int, answer: tuple[dict, list[bytes]]) -> None:
    """Hand the page's model ``index`` a custom message from the kernel, its buffers as DataViews."""
    page.evaluate("""([i, msg, b64]) => {
        const views = b64.map((s) => new DataView(Uint8Array.from(atob(s), (c) => c.charCodeAt(0)).buffer));
        window.__mgw.models[i]._fire('msg:custom', msg, views);
    }""", [index, answer[0], [base64.b64encode(b).decode("ascii") for b in answer[1]]])


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
    deliver(page, 0, kernel_answer(widget))
    page.wait_for_function("() => window.__mgw.ready || window.__mgw.error", timeout=30_000)
    assert not page.evaluate("() => window.__mgw.error")
    WidgetDom(page).wait_ready()
    assert widget.get_state()["_mgw_assets"] == f"IPY_MODEL_{assets.shared_assets().model_id}"
    assert not page.locator("[data-role=load-error]").count()


def test_a_refused_assets_request_is_asked_again_or_served_from_the_pages_views(guarded, static_server, monkeypatch):
    """The kernel sends a widget the assets at most once per ASK_INTERVAL; a view refused sooner asks again after
    retry_after (here 0.3 s) and renders from that answer; a view refused while the page already holds the views
    (another widget's answer) renders from them, without asking again."""
    page = guarded.page
    first, second = explore(lecture_L()["L"]), explore(lecture_L()["L"])
    now = [100.0]
    monkeypatch.setattr(assets, "_clock", lambda: now[0])
    early = kernel_answer(first)    # a view of the first widget was sent them just before this page asked
    open_page(page, static_server, [first, second], wait=False, assets_ref="IPY_MODEL_0123456789abcdef")
    asked = "(n) => window.__mgw.log.send.filter((m) => m && m.type === 'assets').length === n"
    page.wait_for_function(asked, arg=1, timeout=30_000)
    now[0] += assets.ASK_INTERVAL - 0.3
    refusal = kernel_answer(first)
    assert refusal[1] == [] and refusal[0]["retry_after"] == 0.3 and early[1]
    deliver(page, 0, refusal)
    page.wait_for_function(asked, arg=2, timeout=30_000)
    now[0] += 0.3
    deliver(page, 0, kernel_answer(first))
    page.wait_for_function("() => window.__mgw.models.length === 2 && "
                           "window.__mgw.models[1]._listeners.includes('msg:custom')", timeout=30_000)
    kernel_answer(second)
    refused = kernel_answer(second)
    assert refused[1] == [] and refused[0]["digest"] == assets.shared_assets().digest
    deliver(page, 1, refused)       # the page has the views from the first widget's answer
    page.wait_for_function("() => window.__mgw.ready || window.__mgw.error", timeout=30_000)
    assert not page.evaluate("() => window.__mgw.error")
    expect(page.locator(".mgw-root[data-state=ready]")).to_have_count(2, timeout=30_000)
    assert page.evaluate("() => window.__mgw.blobModules.length") == 1
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
