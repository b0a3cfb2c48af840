"""The leaves panel in Chromium with a fake model: settling (the exact values sent, one update per burst of
slider moves, at once on release), the leaf filter of a graph with many leaves, and the editable slider range.

Expected numbers come from the Python engine or are worked out by hand, never from the view."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from micrograd_widget.spec import encode_number
from micrograd_widget.tape import Tape

from .mgw_browser.dom import WidgetDom, expected_numbers, poll
from .mgw_browser.fake_model import model_log
from .mgw_browser.graphs import chain_graph, lecture_L

pytestmark = pytest.mark.browser

SETTLE_S = 0.15  # the view's settle delay (SETTLE_MS in js/view/leaves.js)
MAX_LEAF_ROWS = 40  # rows the panel lists at most (js/view/leaves.js); more leaves get a filter box

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
    root = chain_graph(200)
    tape = Tape.from_value(root)
    labels = [tape.labels[i] for i in tape.leaves]
    assert labels == [f"x{k}" for k in range(50)], "chain_graph(200) has the 50 leaves x0..x49"
    view = show(root)
    box = view.root.locator('input[data-role="leaf-filter"]')
    expect(box).to_have_count(1)
    expect(box).to_have_attribute("data-lm-suppress-shortcuts", "true")
    assert len(_rows(view)) == MAX_LEAF_ROWS
    assert view.root.locator("input[type=range]").count() == MAX_LEAF_ROWS
    note = view.root.locator('[data-role="leaf-note"]')
    expect(note).to_contain_text(f"Showing {MAX_LEAF_ROWS} of 50 matching leaves (of 50)")

    box.fill("x4")
    want = ["x4"] + [f"x4{d}" for d in range(10)]  # contains "x4"; the exact match first
    poll(lambda: _rows(view), lambda rows: rows[:1] == ["x4"] and sorted(rows) == sorted(want), "rows matching x4")
    expect(note).to_have_text(f"{len(want)} of 50 leaves match.")

    x7 = tape.leaves[7]
    box.fill(f"#{x7}")
    poll(lambda: _rows(view), lambda rows: rows == ["x7"], f"#{x7} to list leaf x7 alone")

    box.fill("no such leaf")
    poll(lambda: _rows(view), lambda rows: rows == [], "no rows for a filter nothing matches")
    expect(note).to_have_text("0 of 50 leaves match.")

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
