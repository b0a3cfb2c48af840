"""The shared assets model (micrograd_widget/host/assets.py): one per kernel, referenced by every GraphWidget and
TrainingWidget, re-created after it is closed, its bytes exactly the built files; each widget's own `_esm` is the
small loader; the view's fallback request is answered with the two buffers. js/host/loader.js states the interface."""

from __future__ import annotations

import gzip
import hashlib
from pathlib import Path
from typing import Any

import ipywidgets
import pytest
from builders import lecture_L

from micrograd_widget.graph.widget import GraphWidget, explore
from micrograd_widget.host import assets
from micrograd_widget.nn import MLP
from micrograd_widget.training.widget import TrainingWidget, watch

STATIC = Path(assets.__file__).resolve().parent.parent / "static"
LOADER_LIMIT = 20_000  # bytes: each widget's `_esm` (the "a few KB")


def reference(widget: Any) -> str:
    return widget.get_state()["_mgw_assets"]


def record_sends(widget: Any) -> list[tuple[Any, list[bytes]]]:
    """What the widget sends to its view from now on: [(content of a custom message, its buffers)]."""
    sent: list[tuple[Any, list[bytes]]] = []

    def send(data: Any = None, metadata: Any = None, buffers: Any = None) -> None:
        if isinstance(data, dict) and data.get("method") == "custom":
            sent.append((data["content"], [bytes(b) for b in buffers or []]))

    widget.comm.send = send
    return sent


def custom(widget: Any, content: dict[str, Any]) -> None:
    """Deliver a custom message from the view, as a front end would."""
    widget._handle_msg({"content": {"data": {"method": "custom", "content": content}}, "buffers": []})


def test_every_widget_of_both_kinds_references_the_one_assets_model() -> None:
    L = lecture_L()["L"]
    first, second = explore(L), GraphWidget(L, precision=2)
    training = watch(MLP(2, [3, 1]))
    shared = assets.shared_assets()
    expected = f"IPY_MODEL_{shared.model_id}"
    assert reference(first) == reference(second) == reference(training) == expected
    assert first._mgw_assets is second._mgw_assets is training._mgw_assets is shared
    assert first.get_state()["_mgw_view"] == "graph" and training.get_state()["_mgw_view"] == "training"
    assert isinstance(shared, ipywidgets.Widget) and shared.get_state()["_view_name"] is None, "a model with no view"


def test_the_assets_carry_the_built_views_and_one_webassembly() -> None:
    shared = assets.shared_assets()
    assert gzip.decompress(shared.code) == (STATIC / "views.js").read_bytes()
    assert shared.wasm == (STATIC / "graphviz.wasm.gz").read_bytes()
    assert gzip.decompress(shared.wasm)[:4] == b"\0asm"
    assert shared.css == (STATIC / "views.css").read_text(encoding="utf-8") and ".mgw-root" in shared.css
    assert ".mgw-training" in shared.css
    assert shared.digest == hashlib.sha256(shared.code + shared.wasm + shared.css.encode()).hexdigest()
    # The views bundle does not inline Graphviz's WebAssembly (it travels once, as the wasm buffer).
    views = (STATIC / "views.js").read_text(encoding="utf-8")
    assert "binaryDecode(" not in views and len(views) < 300_000
    state = shared.get_state()
    assert set(state) >= {"code", "wasm", "css", "digest"} and isinstance(state["wasm"], bytes)


def test_each_widget_esm_is_the_small_loader() -> None:
    loader = (STATIC / "loader.js").read_text(encoding="utf-8")
    assert len(loader.encode()) < LOADER_LIMIT
    for widget in (explore(lecture_L()["L"]), watch(MLP(2, [2, 1]))):
        state = widget.get_state()
        assert state["_esm"] == loader
        assert state["_css"] == "", "the CSS travels once, in the assets model"
        assert len(state["_esm"].encode()) < LOADER_LIMIT
    stale = [name for name in ("widget.js", "training.js", "widget.css", "training.css") if (STATIC / name).exists()]
    assert not stale, f"files of the per-view build: {stale}"
    assert [p.name for p in STATIC.iterdir() if p.name.endswith((".wasm", ".wasm.gz"))] == ["graphviz.wasm.gz"]


def test_both_widgets_share_one_header_and_declare_only_their_view() -> None:
    """The loader, the assets reference and the assets request are declared once (assets.AssetsWidget)."""
    for kind, view in ((GraphWidget, "graph"), (TrainingWidget, "training")):
        assert issubclass(kind, assets.AssetsWidget)
        header = {"_esm", "_css", "_mgw_assets"} & set(vars(kind))
        assert not header, f"{kind.__name__} declares {sorted(header)} again"
        assert kind._mgw_view.default_value == view  # type: ignore[attr-defined]  # a trait read on the class
    for widget in (explore(lecture_L()["L"]), watch(MLP(2, [2, 1]))):
        handlers = widget._msg_callbacks.callbacks
        assert handlers.count(assets.answer_request) == 1, "the assets request is answered once per message"


def test_a_closed_assets_model_is_replaced_on_next_use() -> None:
    before = assets.shared_assets()
    before_id = before.model_id
    old = explore(lecture_L()["L"])
    assert old._mgw_assets is before
    before.close()
    assert before.closed
    new = explore(lecture_L()["L"])
    after = assets.shared_assets()
    assert new._mgw_assets is after and after is not before and not after.closed
    assert reference(new) == f"IPY_MODEL_{after.model_id}" != f"IPY_MODEL_{before_id}"
    assert after.digest == before.digest


def test_close_all_then_new_widgets_get_a_live_assets_model() -> None:
    explore(lecture_L()["L"])
    ipywidgets.Widget.close_all()
    widget = watch(MLP(2, [2, 1]))
    assert not widget._mgw_assets.closed and widget._mgw_assets is assets.shared_assets()


@pytest.mark.parametrize("kind", ["graph", "training"])
def test_the_fallback_request_is_answered_with_both_buffers_and_a_live_reference(kind: str) -> None:
    widget = explore(lecture_L()["L"]) if kind == "graph" else watch(MLP(2, [2, 1]))
    assets.shared_assets().close()  # the view cannot reach it now: it asks the widget
    sent = record_sends(widget)
    custom(widget, {"type": "assets"})
    shared = assets.shared_assets()
    assert widget._mgw_assets is shared and not shared.closed, "the widget points at a live assets model again"
    assert len(sent) == 1
    content, buffers = sent[0]
    assert content == {"type": "assets", "digest": shared.digest, "css": shared.css}
    assert buffers == [shared.code, shared.wasm]


def test_other_custom_messages_are_not_answered_with_assets() -> None:
    widget = explore(lecture_L()["L"])
    sent = record_sends(widget)
    custom(widget, {"type": "nonsense"})
    custom(widget, {"kind": "assets"})
    assert not [c for c, _ in sent if isinstance(c, dict) and c.get("type") == "assets"]


def test_a_training_widget_built_directly_references_the_assets_too() -> None:
    widget = TrainingWidget(MLP(1, [1]))
    assert reference(widget) == f"IPY_MODEL_{assets.shared_assets().model_id}"


def test_a_widget_whose_assets_model_was_closed_still_serializes_naming_a_live_one() -> None:
    widget = explore(lecture_L()["L"])
    assets.shared_assets().close()
    assert reference(widget) == f"IPY_MODEL_{assets.shared_assets().model_id}"
    assert not assets.shared_assets().closed


def test_a_flood_of_assets_requests_gets_the_payload_once_per_interval_and_refusals_saying_when(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Each answer carries ~490 KB: one widget's view is sent them at most once per ASK_INTERVAL; a request sooner
    gets a small refusal naming the digest and when to ask again (js/host/loader.js asks again then)."""
    now = [1000.0]
    monkeypatch.setattr(assets, "_clock", lambda: now[0], raising=False)
    widget, other = explore(lecture_L()["L"]), watch(MLP(2, [2, 1]))
    sent, sent_other = record_sends(widget), record_sends(other)
    shared = assets.shared_assets()
    payload = len(shared.code) + len(shared.wasm)
    assert payload > 400_000
    for _ in range(100):
        custom(widget, {"type": "assets"})
    assert len(sent) == 100, "every request is answered"
    full = [buffers for _, buffers in sent if buffers]
    assert full == [[shared.code, shared.wasm]], "the payload is sent once"
    assert sum(len(b) for _, buffers in sent for b in buffers) == payload
    refusal, buffers = sent[1]
    assert buffers == [] and refusal["type"] == "assets" and refusal["digest"] == shared.digest
    assert refusal["retry_after"] == assets.ASK_INTERVAL
    assert "at most once every 5 s per widget" in refusal["error"] and "ask again in 5 s" in refusal["error"]
    assert len(str(refusal)) < 400
    custom(other, {"type": "assets"})   # another widget's view is not held back by this one's flood
    assert [buffers for _, buffers in sent_other] == [[shared.code, shared.wasm]]

    now[0] += assets.ASK_INTERVAL - 1.25
    custom(widget, {"type": "assets"})
    assert sent[-1][1] == [] and sent[-1][0]["retry_after"] == 1.3, "rounded up: asking then is never too soon"
    now[0] += 1.25
    custom(widget, {"type": "assets"})     # a reloaded page's new view, asking after the wait
    assert sent[-1] == ({"type": "assets", "digest": shared.digest, "css": shared.css}, [shared.code, shared.wasm])
    assert len([b for _, b in sent if b]) == 2
