"""The leaves panel in Chromium with a fake model: parameters first (params.py), constants collapsed and named by
the op they feed, the inspector never narrowing the sliders; settling (the exact values sent, one update per burst
of slider moves, at once on release), the leaf filter of a graph with many leaves (the parameters drawn listed
first, after a box is opened too), and the editable slider range.

Expected numbers come from the Python engine or are worked out by hand, never from the view."""

from __future__ import annotations

import re

import pytest
from builders import LECTURE_XS, LECTURE_YS, lecture_mlp_and_loss, tanh_spelled_out
from playwright.sync_api import expect

from micrograd_widget.core.spec import encode_number
from micrograd_widget.core.tape import Tape
from micrograd_widget.graph.widget import GraphWidget
from micrograd_widget.nn import lecture_mlp, squared_error
from micrograd_widget.picture.dot import graph_view

from .mgw_browser.dom import WidgetDom, expected_numbers, poll
from .mgw_browser.fake_model import model_log
from .mgw_browser.folds import NEURON, key_of, open_box, saved_open
from .mgw_browser.graphs import chain_graph, lecture_L

pytestmark = pytest.mark.browser

SETTLE_S = 0.15  # the view's settle delay (SETTLE_MS in js/graph/leaves.js)
MAX_LEAF_ROWS = 64  # rows the panel lists at most (js/graph/leaves.js); more leaves get a filter box

# Set a leaf's slider to each value in turn, dispatching 'input' as a drag does (no 'change': still held),
# all in one task so no timer can fire in between; report what the view had sent by the end of that task.
_BURST = """(root, [leaf, targets, release]) => {
  const log = window.__mgw.log;
  log.save.length = 0; log.send.length = 0; log.set.length = 0;
  const s = root.querySelector(`input[type=range][data-leaf="${leaf}"]`);
  const taken = [];
  for (const v of targets) {
    s.value = String(v);
    s.dispatchEvent(new Event('input', {bubbles: true}));
    taken.push(Number(s.value));
  }
  if (release) s.dispatchEvent(new Event('change', {bubbles: true}));
  return {taken, saves: log.save.length, sets: log.set.filter(([k]) => k === 'leaf_values').length};
}"""


def _leaf_values(nodes: dict, **moved: float) -> list:
    """``leaf_values`` as the view must send them: every leaf in tape order, encoded, with ``moved`` applied."""
    tape = Tape.from_value(nodes["L"])
    labels = [tape.labels[i] for i in tape.leaves]
    return [encode_number(moved.get(label, nodes[label].data)) for label in labels]


def _burst(view: WidgetDom, leaf: str, fractions: tuple[float, ...], release: bool = False) -> dict:
    lo, hi, _ = view.slider_range(leaf)
    return view.root.evaluate(_BURST, [leaf, [lo + f * (hi - lo) for f in fractions], release])


def test_a_burst_of_slider_moves_sends_one_update_with_the_exact_values_once_they_settle(show, guarded):
    nodes = lecture_L()
    view = show(nodes["L"])
    burst = _burst(view, "a", (0.1, 0.3, 0.45, 0.7, 0.85))
    taken = burst["taken"]
    assert len(set(taken)) == 5 and 2.0 not in taken, f"the slider did not take five new values: {taken}"
    assert burst["saves"] == 0 and burst["sets"] == 0, "values were sent while the slider was still moving"
    want = _leaf_values(nodes, a=taken[-1])
    poll(lambda: model_log(guarded.page)["save"], bool, "the settled values to be saved")
    guarded.page.wait_for_timeout(3 * SETTLE_S * 1000)  # long past the settle delay: a second update would be out
    log = model_log(guarded.page)
    assert log["save"] == [{"leaf_values": want}], f"expected one update with {want}, got {log['save']}"
    assert [v for k, v in log["set"] if k == "leaf_values"] == [want]
    assert log["send"] == [], "settling is a state update, not a custom message"
    view.expect_numbers(expected_numbers(lecture_L(a=taken[-1])))


def test_releasing_the_slider_sends_at_once_and_only_once(show, guarded):
    nodes = lecture_L()
    view = show(nodes["L"])
    burst = _burst(view, "f", (0.2, 0.6), release=True)
    want = _leaf_values(nodes, f=burst["taken"][-1])
    assert burst["saves"] == 1 and burst["sets"] == 1, f"release did not send at once: {model_log(guarded.page)}"
    guarded.page.wait_for_timeout(3 * SETTLE_S * 1000)
    assert model_log(guarded.page)["save"] == [{"leaf_values": want}], "the pending settle sent a second update"


def test_a_typed_exact_value_is_sent_exactly(show, guarded):
    nodes = lecture_L()
    view = show(nodes["L"])
    guarded.page.evaluate("() => { const l = window.__mgw.log; l.save.length = 0; l.set.length = 0; }")
    view.type_number("c", "-4.000000000000001")
    want = _leaf_values(nodes, c=-4.000000000000001)
    poll(lambda: model_log(guarded.page)["save"], lambda saves: saves == [{"leaf_values": want}],
         "the typed value to be saved exactly")


# ---- the leaf filter: a graph with more leaves than the panel lists ----


def _rows(view: WidgetDom) -> list[str]:
    """The data-leaf-row keys of the rows listed, in order."""
    return view.root.evaluate(
        "r => [...r.querySelectorAll('[data-leaf-row]')].map(e => e.getAttribute('data-leaf-row'))")


def test_the_leaf_filter_lists_matching_leaves_exact_match_first(show):
    root = chain_graph(400)
    tape = Tape.from_value(root)
    labels = [tape.labels[i] for i in tape.leaves]
    assert labels == [f"x{k}" for k in range(100)], "chain_graph(400) has the 100 leaves x0..x99"
    view = show(root)
    box = view.root.locator('input[data-role="leaf-filter"]')
    expect(box).to_have_count(1)
    expect(box).to_have_attribute("data-lm-suppress-shortcuts", "true")
    assert len(_rows(view)) == MAX_LEAF_ROWS
    assert view.root.locator("input[type=range]").count() == MAX_LEAF_ROWS
    note = view.root.locator('[data-role="leaf-note"]')
    expect(note).to_contain_text(f"Showing {MAX_LEAF_ROWS} of 100 matching leaves (of 100)")

    box.fill("x4")
    want = ["x4"] + [f"x4{d}" for d in range(10)]  # contains "x4" (x40..x49); the exact match first
    poll(lambda: _rows(view), lambda rows: rows[:1] == ["x4"] and sorted(rows) == sorted(want), "rows matching x4")
    expect(note).to_have_text(f"{len(want)} of 100 leaves match.")

    x7 = tape.leaves[7]
    box.fill(f"#{x7}")
    poll(lambda: _rows(view), lambda rows: rows == ["x7"], f"#{x7} to list leaf x7 alone")

    box.fill("no such leaf")
    poll(lambda: _rows(view), lambda rows: rows == [], "no rows for a filter nothing matches")
    expect(note).to_have_text("0 of 100 leaves match.")

    box.fill("x45")
    poll(lambda: _rows(view), lambda rows: rows == ["x45"], "the row of x45")
    x = view.move_slider("x45", 0.8)
    want_root = tape.forward({tape.leaves[45]: x})[tape.root]
    view.expect_numbers({"out": {"data": want_root}})


# ---- the editable slider range ----

# Worked out by hand from the rule [floor(v - |v| - 1), ceil(v + |v| + 1)] for a=2, b=-3, c=10, f=-2.
HAND_RANGES = {"a": (-1.0, 5.0), "b": (-7.0, 1.0), "c": (-1.0, 21.0), "f": (-5.0, 1.0)}


def _bound(view: WidgetDom, leaf: str, which: str):
    return view.root.locator(f'[data-leaf-row="{leaf}"] input[data-role="{which}"]')


def _set_bound(view: WidgetDom, leaf: str, which: str, value: str) -> None:
    box = _bound(view, leaf, which)
    if not box.is_visible():  # the range sits behind the row's small range button
        toggle = view.root.locator(f'[data-leaf-row="{leaf}"] button[data-role="range-toggle"]')
        expect(toggle).to_have_attribute("aria-label", re.compile(f"edit the slider range of {leaf}$"))
        toggle.click()
    box.fill(value)
    box.dispatch_event("change")


def test_slider_ranges_start_as_documented_and_can_be_edited(show):
    view = show(lecture_L()["L"])
    for leaf, (lo, hi) in HAND_RANGES.items():
        assert view.slider_range(leaf)[:2] == (lo, hi), f"slider {leaf}"
        assert (float(_bound(view, leaf, "min").input_value()), float(_bound(view, leaf, "max").input_value())) \
            == (lo, hi), f"the bounds shown for {leaf}"

    _set_bound(view, "a", "max", "100")
    poll(lambda: view.slider_range("a")[:2], lambda r: r == (-1.0, 100.0), "slider a to reach 100")
    x = view.move_slider("a", 0.9)
    assert x > 5.0, f"the wider range was not used: a = {x}"
    view.expect_numbers(expected_numbers(lecture_L(a=x)))

    _set_bound(view, "b", "min", "3")  # above b's maximum of 1: refused, said, nothing changes
    error = view.root.locator('[data-role="error"]')
    expect(error).to_be_visible()
    expect(error).to_contain_text("minimum below its maximum")
    assert view.slider_range("b")[:2] == HAND_RANGES["b"]
    assert float(_bound(view, "b", "min").input_value()) == HAND_RANGES["b"][0], "the refused bound stays shown"

    _set_bound(view, "b", "min", "-20")
    expect(error).to_be_hidden()
    assert view.slider_range("b")[:2] == (-20.0, 1.0)

    view.type_number("c", "250.5")  # an exact value past the range widens it to whole numbers
    poll(lambda: view.slider_range("c")[:2], lambda r: r == (-1.0, 251.0), "slider c to widen to 251")
    assert float(view.number_box("c").input_value()) == 250.5, "the exact box keeps the typed value"
    view.expect_numbers(expected_numbers(lecture_L(a=x, c=250.5)))


# ---- parameters first: the leaf list that teaches (params.py's rule) ----

_ROWS_IN = """(r, role) => [...r.querySelectorAll(`[data-role="${role}"] [data-leaf-row]`)].map(e => ({
  key: e.getAttribute('data-leaf-row'), name: e.querySelector('.mgw-leaf-name').textContent}))"""


def _slider_width(view: WidgetDom, leaf: str) -> float:
    return view.slider(leaf).bounding_box()["width"]


def test_the_lecture_mlp_loss_lists_its_parameters_first_and_its_constants_collapsed(show, guarded):
    guarded.page.set_viewport_size({"width": 1000, "height": 900})
    model, loss = lecture_mlp_and_loss()
    tape = Tape.from_value(loss)
    params = {tape.index(p) for p in model.parameters()}
    others = len(tape.leaves) - len(params)
    view = show(loss)
    rows = view.root.evaluate(_ROWS_IN, "param-rows")
    assert rows, "no parameter rows"
    keys = {str(i): i for i in params}
    assert rows[0]["key"] in keys, f"the first row {rows[0]} is no parameter of the model"
    assert all(r["key"] in keys for r in rows), "a constant is listed among the parameters"
    assert {r["key"] for r in rows} == set(keys), f"{len(rows)} of the model's {len(keys)} parameters are listed"
    expect(view.root.locator('[data-role="leaf-note"]')).to_have_text("41 of 41 parameters match.")
    assert rows[0]["name"] == tape.labels[keys[rows[0]["key"]]], "a row under its module's heading shows its label"
    group = view.root.locator('[data-role="leaf-group"]').first
    expect(group).to_have_text(tape.scopes[keys[rows[0]["key"]]])
    expect(view.root.locator(".mgw-panel-title").first).to_have_text("Parameters (41)")
    expect(view.root.locator('[data-role="leaf-rule"]')).to_have_text(
        f"Parameters: the weights and biases of nn's neurons (41 of {len(tape.leaves)} leaves); "
        f"the other {others} are inputs and constants.")
    constants = view.root.locator('[data-role="leaf-constants"]')
    expect(constants.locator("summary")).to_have_text(f"Inputs and constants ({others} leaves)")
    assert constants.get_attribute("open") is None, "the inputs and constants start collapsed"
    assert view.root.evaluate(_ROWS_IN, "constant-rows") == []


def test_the_tanh_spelled_out_neuron_names_its_constants_by_the_op_they_feed(show):
    nodes = tanh_spelled_out()
    view = show(nodes["o"])
    rows = view.root.evaluate(_ROWS_IN, "param-rows")
    assert [r["name"] for r in rows] == ["x1", "w1", "x2", "w2", "b"]
    view.root.locator('[data-role="leaf-constants"] summary').click()
    names = poll(lambda: [r["name"] for r in view.root.evaluate(_ROWS_IN, "constant-rows")], lambda n: len(n) == 3,
                 "the three constants listed")
    assert names == ["constant 2.0 (from 2.0 * n)", "constant 1.0 (from \u2026 - 1.0)",
                     "constant 1.0 (from \u2026 + 1.0)"]
    # The gradient check lists what the list lists first: the five parameters, not the constants.
    view.root.locator('button[data-role="gradcheck"]').click()
    checked = poll(lambda: view.root.evaluate(
        "r => [...r.querySelectorAll('[data-role=gradcheck-table] tr[data-leaf]')].map(t => t.dataset.leaf)"),
        lambda t: len(t) > 0, "the gradcheck table")
    assert sorted(checked) == sorted(["x1", "x2", "w1", "w2", "b"])


def test_opening_the_inspector_keeps_the_slider_width_and_values_show_whole(show, guarded):
    guarded.page.set_viewport_size({"width": 1000, "height": 900})  # the learner's window
    whole = -0.26830320342117463
    nodes = lecture_L(a=whole)
    view = show(nodes["L"])
    before = _slider_width(view, "a")
    assert before > 400, f"the slider is only {before:.0f} px wide in a 1000 px window"
    view.root.locator('[data-node="e"][data-field="data"]').first.click()
    expect(view.root.locator('[data-role="inspector"]')).to_be_visible()
    assert _slider_width(view, "a") == pytest.approx(before, abs=1), "opening the inspector squeezed the sliders"
    box = view.number_box("a")
    assert float(box.input_value()) == whole
    fits = box.evaluate("b => b.scrollWidth <= b.clientWidth")
    assert fits, "the value box cuts the number"
    for label in (box.get_attribute("aria-label"), box.get_attribute("title"), view.slider("a").get_attribute("title")):
        assert label and "a" in label


def test_the_exported_page_keeps_the_parameters_first(tmp_path, guarded, widget_bundle):
    from micrograd_widget import save_html

    model, loss = lecture_mlp_and_loss()
    tape = Tape.from_value(loss)
    first = model.layers[0].neurons[0]
    out = save_html(loss, tmp_path / "page.html", params=first.parameters())
    guarded.page.goto(out.as_uri())
    view = WidgetDom(guarded.page)
    view.wait_ready()
    rows = view.root.evaluate(_ROWS_IN, "param-rows")
    assert sorted(r["key"] for r in rows) == sorted(str(tape.index(p)) for p in first.parameters())
    expect(view.root.locator('[data-role="leaf-rule"]')).to_contain_text("the Values given as params= (4 of ")


def test_opening_a_neuron_lists_its_parameters_first_when_there_are_more_leaves_than_rows(show, guarded):
    """With more leaves than the panel lists (it has a filter), the parameters drawn come first: after Expand, once
    the new picture is painted, those of Python's picture of the new open set head the list (the opened neuron's)."""
    model = lecture_mlp(seed=1)
    xs, ys = LECTURE_XS * 2, LECTURE_YS * 2   # 8 examples: 41 parameters, 24 inputs and 8 targets, 73 leaves
    loss = squared_error(model, xs, ys)
    loss.backward()
    tape = Tape.from_value(loss)
    assert len(tape.leaves) > MAX_LEAF_ROWS, "more leaves than the panel lists"
    view = show(GraphWidget(loss))
    assert view.root.locator('input[data-role="leaf-filter"]').count() == 1
    rows = "r => [...r.querySelectorAll('[data-role=param-rows] [data-leaf-row]')].map(e => e.dataset.leafRow)"
    open_box(view, NEURON)
    static = graph_view(tape, open_keys=saved_open(guarded.page))
    index = {id(v): i for i, v in enumerate(tape.values)}
    params = {index[id(p)] for p in model.parameters()}
    first = {key_of(tape, i) for i in static.shown if i in params}
    assert {key_of(tape, index[id(p)]) for p in model.parameters() if tape.scopes[index[id(p)]] == NEURON} <= first
    listed = poll(lambda: view.root.evaluate(rows), lambda r: set(r[:len(first)]) == first,
                  f"the opened neuron's parameters first in the list: {sorted(first)}")
    assert len(listed) > len(first), "the list goes on past the parameters drawn"
    assert not guarded.log.console_errors and not guarded.log.page_errors, guarded.log.describe()
