"""Learning in the widget (issue 21) in Chromium with a fake model: the lecture's nudge (worked out by hand), the Δ
marks, 25 descent steps on the lecture's MLP loss equal to Python's loop, inputs and targets unchanged, Reset, the
step size's refusal, a slider pausing training, the step count saved in the `learning` trait.

Expected numbers come from Python (Tape.replay and p -= h * grad, parameters only) or by hand, never from the view."""

from __future__ import annotations

import math

import pytest
from builders import lecture_mlp_and_loss
from playwright.sync_api import expect

from micrograd_widget.core.params import leaf_roles
from micrograd_widget.core.spec import decode_number
from micrograd_widget.core.tape import Tape

from .mgw_browser.dom import poll
from .mgw_browser.fake_model import model_log
from .mgw_browser.graphs import lecture_L

pytestmark = pytest.mark.browser

_SET_VALUES = "() => window.__mgw.log.set.filter(([k]) => k === 'leaf_values').map(([, v]) => v)"
_SET_LEARNING = "() => window.__mgw.log.set.filter(([k]) => k === 'learning').map(([, v]) => v)"


def _inspected(view, label: str) -> float:
    inspector = view.root.locator('[data-role="inspector"]')
    view.root.locator(f'[data-node="{label}"][data-field="data"]').first.click()
    text = inspector.locator('[data-field="data"]').text_content() or ""
    return float(text.strip().replace("\u2212", "-"))


def test_step_up_is_the_lectures_nudge_with_its_deltas(show, guarded):
    nodes = lecture_L()
    view = show(nodes["L"])
    view.root.locator('[data-action="step-up"]').click()
    # (2.06 * -3.04 + 9.98) * -1.96 = -7.286496, by hand; the inspector shows full precision.
    assert poll(lambda: _inspected(view, "L"), lambda x: math.isclose(x, -7.286496, rel_tol=1e-12),
                "the inspector to show L = -7.286496") is not None
    assert math.isclose(_inspected(view, "a"), 2.06, rel_tol=1e-15)
    delta = view.root.locator('[data-node="L"][data-field="delta-data"]')
    expect(delta).to_have_text("\u0394 +0.7135")   # -7.286496 - -8 = 0.713504 at the view's 4 digits
    expect(view.root.locator('[data-node="a"][data-field="delta-data"]')).to_have_text("\u0394 +0.0600")  # 0.01 * 6
    expect(view.root.locator('[data-role="steps"]')).to_have_text("1")
    values = poll(lambda: guarded.page.evaluate(_SET_VALUES), bool, "the step's leaf values to be sent")
    assert [decode_number(x) for x in values[-1]] == pytest.approx([2.06, -3.04, 9.98, -1.96], rel=1e-15)
    assert guarded.page.evaluate(_SET_LEARNING)[-1] == {"steps": 1, "step_size": 0.01}
    # A slider move clears the Δ marks: they say what the last step changed, until the next change; the panel's
    # output follows the move: (1.0 * -3.04 + 9.98) * -1.96 = -13.6024, by hand.
    view.set_slider("a", 1.0)
    expect(delta).to_have_count(0)
    expect(view.root.locator('[data-role="learn-loss"]')).to_have_text("-13.6024")


def test_a_bad_step_size_is_refused_in_words(show):
    view = show(lecture_L()["L"])
    box = view.root.locator('input[data-role="step-size"]')
    box.fill("-1")
    box.press("Enter")
    assert "finite positive number" in view.error_text()
    view.root.locator('[data-action="step-up"]').click()
    expect(view.root.locator('[data-role="steps"]')).to_have_text("0")
    box.fill("0.5")
    box.press("Enter")
    assert "step size" not in view.error_text().lower()


def _python_descent(tape: Tape, params: tuple[int, ...], h: float, steps: int) -> list[float]:
    values = [tape.data[i] for i in tape.leaves]
    for _ in range(steps):
        tape.replay(values)
        for j in params:
            values[j] -= h * tape.grad[tape.leaves[j]]
    return values


def test_25_descent_steps_on_the_lecture_mlp_equal_pythons_loop(show, guarded):
    _model, loss = lecture_mlp_and_loss()
    tape = Tape.from_value(loss)
    params = leaf_roles(tape).positions
    start = [tape.data[i] for i in tape.leaves]
    view = show(loss)
    box = view.root.locator('input[data-role="step-size"]')
    box.fill("0.05")
    box.press("Enter")
    down = view.root.locator('[data-action="step-down"]')
    for _ in range(25):
        down.click()
    expect(view.root.locator('[data-role="steps"]')).to_have_text("25")
    sent = [decode_number(x) for x in poll(lambda: guarded.page.evaluate(_SET_VALUES), bool, "leaf values sent")[-1]]
    expected = _python_descent(tape, params, 0.05, 25)
    wrong = [j for j, (a, b) in enumerate(zip(sent, expected)) if not math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)]
    assert not wrong, f"{len(wrong)} leaf values differ from Python's loop, e.g. {wrong[:5]}"
    fixed = [j for j in range(len(start)) if j not in set(params)]
    assert fixed and all(sent[j] == start[j] for j in fixed), "inputs and targets must not move"


def test_train_plays_pauses_resets_and_a_slider_pauses(show, guarded):
    _model, loss = lecture_mlp_and_loss()
    view = show(loss)
    train = view.root.locator('[data-action="train"]')
    steps = view.root.locator('[data-role="steps"]')
    train.click()
    expect(train).to_have_attribute("aria-pressed", "true")
    poll(lambda: int((steps.text_content() or "0").replace(",", "")), lambda n: n > 200, "training to take steps")
    train.click()
    expect(train).to_have_attribute("aria-pressed", "false")
    taken = int((steps.text_content() or "0").replace(",", ""))
    learning = poll(lambda: guarded.page.evaluate(_SET_LEARNING), lambda v: v and v[-1]["steps"] == taken,
                    "the step count to be saved on pause")
    assert learning[-1]["step_size"] == 0.01
    curve = view.root.locator('[data-role="learn-curve"]')
    assert int(curve.get_attribute("data-points") or 0) == taken
    loss_shown = float(view.root.locator('[data-role="learn-loss"]').text_content() or "nan")
    assert loss_shown < loss.data, "training must lower the loss"
    # A slider move pauses training.
    train.click()
    expect(train).to_have_attribute("aria-pressed", "true")
    leaf = view.root.locator('input[type=range][data-leaf]').first
    leaf.fill(leaf.get_attribute("min") or "0")
    expect(train).to_have_attribute("aria-pressed", "false")
    # Reset: the starting parameters and a zero count.
    view.root.locator('button[data-role="reset"]').click()
    expect(steps).to_have_text("0")
    tape = Tape.from_value(loss)
    start = [tape.data[i] for i in tape.leaves]
    sent = [decode_number(x) for x in guarded.page.evaluate(_SET_VALUES)[-1]]
    assert sent == start
    assert model_log(guarded.page)["set"]


def test_learning_state_is_restored(show):
    """A saved `learning` trait reopens with its step count and step size."""
    from micrograd_widget.graph.widget import explore
    w = explore(lecture_L()["L"])
    w.learning = {"steps": 7, "step_size": 0.25}
    view = show(w)
    expect(view.root.locator('[data-role="steps"]')).to_have_text("7")
    expect(view.root.locator('input[data-role="step-size"]')).to_have_value("0.25")
