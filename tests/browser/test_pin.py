"""Pin and compare (issue 21) in Chromium: Pin keeps the numbers, Show change paints each node's change from them
(Δdata, Δgrad, filled by Δdata on the diverging scale: blue decrease, orange increase, white none) live as a leaf
moves, and back; Unpin forgets; a pin set in Python travels in the saved state and the exported page opens pinned.
Every expected number below is the lecture's L = (a*b + c) * f (b=-3, c=10, f=-2) worked out by hand."""

from __future__ import annotations

from pathlib import Path

import pytest
from builders import lecture_mlp_loss, picture_view
from playwright.sync_api import expect

from micrograd_widget.core.tape import Tape
from micrograd_widget.graph.widget import GraphWidget
from micrograd_widget.picture.text import format_number

from .mgw_browser.a11y import axe_problems
from .mgw_browser.dom import WidgetDom, expected_numbers, poll
from .mgw_browser.fake_model import model_log, open_view
from .mgw_browser.folds import key_of
from .mgw_browser.graphs import LECTURE_L_SOURCE, lecture_L
from .mgw_browser.jupyter import executed_notebook_of
from .mgw_browser.lab import cell_locator, open_notebook

pytestmark = pytest.mark.browser

SHOTS = Path("/tmp/pin-shots")
WINDOW = {"width": 1000, "height": 900}  # the learner's laptop
_READ_FILLS = """r => Object.fromEntries([...r.querySelectorAll('g.node.mgw-value')].map(g =>
    [g.getAttribute('data-node'), g.querySelector('polygon, path').getAttribute('fill').toLowerCase()]))"""

# Pinned at a=2: e=-6, d=4, L=-8; grads a 6, b -4, c -2, f 4, e -2, d -2. At a=3: e=-9, d=1, L=-2; grads b -6, f 1.
CHANGE_AT_3 = {"a": {"data": 1, "grad": 0}, "b": {"data": 0, "grad": -2}, "c": {"data": 0, "grad": 0},
               "f": {"data": 0, "grad": -3}, "e": {"data": -3, "grad": 0}, "d": {"data": -3, "grad": 0},
               "L": {"data": 6, "grad": 0}}
# Filled by Δdata, full colour at the largest |Δdata| (6): t = sqrt(|Δ| / 6) of the way from white to orange #f0913a
# or blue #5b9bd5 per channel (+1: t = 0.4082 -> #f9d2af; -3: t = 0.7071 -> #8bb8e1).
FILLS_AT_3 = {"a": "#f9d2af", "b": "#ffffff", "c": "#ffffff", "f": "#ffffff", "e": "#8bb8e1", "d": "#8bb8e1",
              "L": "#f0913a"}
# At a=4: e=-12, d=-2, L=4: ΔL = +12, Δa = +2; grads b = -8 (Δ -4), f = -2 (Δ -6).
CHANGE_AT_4 = {"a": {"data": 2}, "L": {"data": 12}, "e": {"data": -6}, "b": {"grad": -4}, "f": {"grad": -6}}


def button(view: WidgetDom, action: str):
    return view.root.locator(f'[data-action="{action}"]')


def texts(view: WidgetDom, node: str) -> list[str]:
    return view.root.locator(f'g.node[data-node="{node}"] text[data-field]').all_text_contents()


def test_pin_then_a_slider_shows_each_nodes_change_from_the_pin_and_back(guarded, static_server, widget_bundle):
    page = guarded.page
    page.set_viewport_size(WINDOW)
    view = open_view(page, static_server, lecture_L()["L"])
    pin, show, unpin = button(view, "pin"), button(view, "show-change"), button(view, "unpin")
    expect(show).to_be_disabled()
    expect(unpin).to_be_disabled()
    pin.focus()
    page.keyboard.press("Enter")                # keyboard operable
    expect(show).to_be_enabled()
    assert ["pin", {"leaf_values": [2.0, -3.0, 10.0, -2.0], "output": 6}] in model_log(page)["set"]
    view.type_number("a", 3)
    show.focus()
    page.keyboard.press(" ")
    expect(show).to_have_attribute("aria-pressed", "true")
    view.expect_numbers(CHANGE_AT_3)
    assert texts(view, "a") == ["\u0394data +1.0000", "\u0394grad 0.0000"]
    assert texts(view, "L") == ["\u0394data +6.0000", "\u0394grad 0.0000"]
    assert view.root.evaluate(_READ_FILLS) == FILLS_AT_3
    legend = view.root.locator('[data-role="legend"]')
    expect(legend).to_contain_text("Showing change from the pin")
    expect(legend.locator('[data-role="change-range"]')).to_contain_text("range from -6.0000 to +6.0000")
    assert view.root.locator("#mgw-legend").get_attribute("display") == "none", "the grad legend is hidden"
    SHOTS.mkdir(exist_ok=True)
    page.screenshot(path=str(SHOTS / "change.png"))
    assert axe_problems(page, "document.querySelector('.mgw-root')") == []

    view.set_slider("a", 4)                     # a drag shows the change live
    view.expect_numbers(CHANGE_AT_4)

    stepper = view.root.locator('[data-role="step-mode"]')
    stepper.click()                             # the backprop stepper's picture wins while it is on
    expect(show).to_be_disabled()
    poll(lambda: texts(view, "a")[0], lambda got: got == "data 4.0000", "the stepper shows the numbers")
    expect(legend).not_to_contain_text("change from the pin")
    stepper.click()
    expect(show).to_be_enabled()
    view.expect_numbers(CHANGE_AT_4)

    show.click()                                # back to the grad picture, the live numbers
    expect(show).to_have_attribute("aria-pressed", "false")
    view.expect_numbers(expected_numbers(lecture_L(a=4)))
    assert texts(view, "a") == ["data 4.0000", "grad 6.0000"]
    fills = view.root.evaluate(_READ_FILLS)
    # the grad picture's fills: b's grad -8 is the largest (full blue); a's 6: t = sqrt(6/8) = 0.8660 towards orange
    assert (fills["b"], fills["a"]) == ("#5b9bd5", "#f2a054")
    expect(legend).not_to_contain_text("change from the pin")
    assert view.root.locator("#mgw-legend").get_attribute("display") is None

    unpin.click()
    expect(show).to_be_disabled()
    expect(pin).to_be_focused()
    assert ["pin", {}] in model_log(page)["set"]


def pinned_widget() -> GraphWidget:
    """The lecture's L pinned at a=2 in Python, a then set to 3, showing change: what a saved state holds."""
    nodes = lecture_L()
    w = GraphWidget(nodes["L"])
    w.pin = {"leaf_values": [2.0, -3.0, 10.0, -2.0], "output": w.output}
    w.show_change = True
    w.set_leaf("a", 3.0)
    return w


def test_a_saved_pin_reopens_pinned_showing_change(guarded, static_server, widget_bundle):
    guarded.page.set_viewport_size(WINDOW)
    view = open_view(guarded.page, static_server, pinned_widget())
    view.expect_numbers(CHANGE_AT_3)
    assert view.root.evaluate(_READ_FILLS) == FILLS_AT_3
    expect(button(view, "show-change")).to_have_attribute("aria-pressed", "true")


def test_the_exported_page_opens_pinned_and_compares(tmp_path, guarded, widget_bundle):
    from micrograd_widget import save_html

    out = save_html(pinned_widget(), tmp_path / "page.html")
    page = guarded.page
    page.set_viewport_size(WINDOW)
    page.goto(out.as_uri())
    view = WidgetDom(page)
    view.wait_ready(60)
    view.expect_numbers(CHANGE_AT_3)
    assert view.root.evaluate(_READ_FILLS) == FILLS_AT_3
    view.set_slider("a", 4)
    view.expect_numbers(CHANGE_AT_4)
    button(view, "show-change").click()
    view.expect_numbers(expected_numbers(lecture_L(a=4)))
    button(view, "pin").click()                 # pin again at a=4: nothing changed since
    button(view, "show-change").click()
    poll(lambda: texts(view, "L"), lambda got: got == ["\u0394data 0.0000", "\u0394grad 0.0000"], "no change")
    assert set(view.root.evaluate(_READ_FILLS).values()) == {"#ffffff"}
    expect(view.root.locator('[data-role="change-range"]')).to_have_count(1)
    assert not guarded.log.console_errors and not guarded.log.page_errors, guarded.log.describe()


_READ_BOX_TEXTS = """r => Object.fromEntries(
  [...r.querySelectorAll('[data-role="graph"] g.mgw-fold text[data-field="max-grad"]')]
    .map(el => [el.getAttribute('data-fold'), el.textContent]))"""


def test_a_fold_box_shows_its_largest_change_from_the_pin(guarded, static_server, widget_bundle):
    """The lecture's MLP loss, folded into neuron boxes: pinned, one weight moved, each box shows max |Δdata|, its
    members' largest change, worked out from two replays of Python's tape."""
    loss = lecture_mlp_loss()
    widget = GraphWidget(loss)
    tape = Tape.from_value(loss)
    tape.forward()
    pinned = list(tape.data)
    page = guarded.page
    page.set_viewport_size(WINDOW)
    view = open_view(page, static_server, widget)
    boxes = picture_view(widget)
    listed = view.root.evaluate("r => [...r.querySelectorAll('input[type=range]')].map(e => e.dataset.leaf)")
    leaf = next(i for i in tape.leaves if key_of(tape, i) == listed[0])
    button(view, "pin").click()
    view.type_number(listed[0], -2.5)
    button(view, "show-change").click()
    tape.forward({leaf: -2.5})
    want = {}
    for k, box in enumerate(boxes["folds"]):
        members = [i for i in range(len(tape)) if boxes["fold_of"][i] == k]
        largest = max(abs(tape.data[i] - pinned[i]) for i in members)
        want[box["key"]] = "max |\u0394data| " + format_number(largest, 4)
    assert len(set(want.values())) > 1, f"the move changes some boxes and not others: {want}"
    poll(lambda: view.root.evaluate(_READ_BOX_TEXTS), lambda got: got == want, "each box's largest change")
    page.screenshot(path=str(SHOTS / "folded.png"))
    expect(view.root.locator('[data-role="fold-legend"]')).to_contain_text("max |\u0394data|, the largest change")


PINNED_CELL = LECTURE_L_SOURCE + """\
from micrograd_widget import explore
w = explore(L)
w.pin = {"leaf_values": [2.0, -3.0, 10.0, -2.0], "output": w.output}
w.show_change = True
w.set_leaf("a", 3.0)
w
"""


@pytest.mark.jupyterlab
def test_a_saved_notebook_reopens_pinned_without_its_kernel(jupyterlab, guarded_lab, notebook_name):
    models = executed_notebook_of(jupyterlab.notebooks / notebook_name, [PINNED_CELL])
    (graph,) = [m["state"] for m in models.values() if "folds" in m["state"]]
    assert graph["pin"] == {"leaf_values": [2.0, -3.0, 10.0, -2.0], "output": 6} and graph["show_change"] is True
    jupyterlab.trust(jupyterlab.notebooks / notebook_name)
    page = guarded_lab.page
    page.set_viewport_size(WINDOW)
    open_notebook(page, jupyterlab, notebook_name)  # a fresh kernel: it never made this widget
    view = WidgetDom(cell_locator(page, 0))
    view.wait_ready(timeout_s=90)
    view.expect_numbers(CHANGE_AT_3)
    assert view.root.evaluate(_READ_FILLS) == FILLS_AT_3
    expect(button(view, "show-change")).to_have_attribute("aria-pressed", "true")


def test_a_graph_the_browser_cannot_replay_says_why_it_cannot_pin(guarded, static_server, widget_bundle):
    """A user-defined op is replayed by the kernel: nothing replays the pinned numbers in the page, so Pin is off
    and says why, and a pin in the saved state is not shown as a change (no number the page could not compute)."""
    from micrograd_widget.core.ops import define_op
    from micrograd_widget.engine import Value

    cube = define_op("cube_for_pin_view", lambda a: a ** 3, lambda a, out: 3 * a * a)
    x = Value(2.0, label="x")
    y = Value.apply(cube, x)
    y.label = "y"
    widget = GraphWidget(y)
    widget.pin = {"leaf_values": [1.0], "output": widget.output}
    widget.show_change = True
    view = open_view(guarded.page, static_server, widget)
    expect(button(view, "pin")).to_be_disabled()
    assert "replays the graph in the browser" in (button(view, "pin").get_attribute("title") or "")
    expect(button(view, "show-change")).to_be_disabled()
    view.expect_numbers({"x": {"data": 2.0, "grad": 12.0}, "y": {"data": 8.0, "grad": 1.0}})
