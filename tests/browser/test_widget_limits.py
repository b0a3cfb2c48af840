"""The view at its limits (issue 12): a picture too deep for Graphviz-WASM is refused before layout with words
(not "Maximum call stack size exceeded"), while the sliders keep working; hostile and huge labels in the
output chooser and the leaf list are cleaned and cut; the number box never sends a non-finite value."""

from __future__ import annotations

import pytest
from builders import horner

from micrograd_widget.engine import Value

from .mgw_browser.dom import poll
from .mgw_browser.fake_model import model_log, open_view

pytestmark = pytest.mark.browser

MAX_LAYOUT_BOXES = 5000  # js/graph/picture.js


def _tanh_chain(n: int) -> Value:
    """x -> tanh -> tanh ... : n nodes, as deep as a graph of n nodes can be."""
    v = Value(0.5, label="x")
    for _ in range(n - 1):
        v = v.tanh()
    return v


def test_a_picture_too_deep_for_the_browser_is_refused_in_words_and_the_sliders_still_work(guarded, static_server,
                                                                                            widget_bundle):
    # 7,500 drawn nodes overflowed Graphviz-WASM's stack ("Maximum call stack size exceeded", its recursion on
    # the graph's depth); only Python can ask for every node to be drawn.
    root = _tanh_chain(MAX_LAYOUT_BOXES + 1)
    view = open_view(guarded.page, static_server, root, node_budget=None, wait_ready=False)
    poll(lambda: view.root.get_attribute("data-state"), lambda s: s == "error", "the view refused the layout")
    text = view.error_text()
    assert "5,001 boxes" in text and "at most 5,000" in text and "node budget" in text, text
    assert "call stack" not in text, text
    slider = view.slider("x")
    slider.fill("0.25")
    poll(lambda: model_log(guarded.page)["save"], lambda saves: len(saves) >= 1, "the settled slider reached the model")
    assert not guarded.log.page_errors


def test_a_whole_picture_whose_edges_reach_far_back_is_refused_in_words_and_lays_out_within_a_budget(
        guarded, static_server, widget_bundle):
    # Horner's rule of degree 100 drawn whole (302 nodes): its edges cross 19,800 ranks beyond the next
    # (4d(d + 1) - 6d, by hand) and the layout worker's 60 s watchdog stopped it; it is refused before layout now,
    # as the kernel refuses it (picture/layout.py layout_refusal), and the sliders still work.
    root = horner(100)
    view = open_view(guarded.page, static_server, root, node_budget=None, wait_ready=False)
    poll(lambda: view.root.get_attribute("data-state"), lambda s: s == "error", "the view refused the layout",
         timeout_s=10)
    text = view.error_text()
    assert "cross 19,800 ranks beyond the next" in text and "12,000" in text and "node_budget=250" in text, text
    view.slider("x").fill("0.25")
    poll(lambda: model_log(guarded.page)["save"], lambda saves: len(saves) >= 1, "the settled slider reached the model")
    assert open_view(guarded.page, static_server, root, node_budget=250).root.get_attribute("data-state") == "ready"
    assert not guarded.log.page_errors


def test_the_same_graph_under_the_budget_lays_out(guarded, static_server, widget_bundle):
    view = open_view(guarded.page, static_server, _tanh_chain(MAX_LAYOUT_BOXES + 1), node_budget=250)
    assert view.root.get_attribute("data-state") == "ready"


def test_a_huge_or_hostile_label_is_cleaned_and_cut_in_the_output_chooser_and_the_leaf_list(guarded, static_server,
                                                                                             widget_bundle):
    a = Value(1.0, label="\u202e" + "w" * 10_000)
    b = Value(2.0, label="nul\x00here\u2066")
    out = (a * b).tanh()
    out.label = "y" * 10_000
    view = open_view(guarded.page, static_server, out)
    chooser = view.root.locator('select[data-role="output"]')
    texts = chooser.locator("option").all_text_contents()
    assert texts, "the output chooser is empty"
    for text in texts:
        assert len(text) <= 80, f"an output option is {len(text)} characters long"
        assert not any(c in text for c in "\x00\u202e\u2066"), repr(text)
    assert chooser.bounding_box()["width"] < 1000
    names = view.root.locator(".mgw-leaf-name").all_text_contents()
    assert len(names) == 2
    for name in names:
        assert len(name) <= 60 and not any(c in name for c in "\x00\u202e\u2066"), repr(name)
    assert "nul\ufffdhere\ufffd" in names


def test_the_number_box_refuses_a_non_finite_value_in_words_and_sends_nothing(guarded, static_server, widget_bundle):
    a = Value(1.0, label="a")
    b = Value(2.0, label="b")
    view = open_view(guarded.page, static_server, (a * b).tanh())
    before = len(model_log(guarded.page)["save"])
    for typed in ("1e400", "-1e999"):
        view.type_number("a", typed)
        poll(view.error_text, lambda t: "finite number" in t, "the view said why it refused the value")
    assert len(model_log(guarded.page)["save"]) == before, "a non-finite value reached the model"
    assert float(view.number_box("b").input_value()) == 2.0
