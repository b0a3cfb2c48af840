"""What a front end may change in the training view (issue 24, defect 2): only its view options (``log_scale``, a
true/false); anything else it writes is refused, logged, and the kernel's values go back to it. The options are
checked from Python too. Front-end messages are fed with ``_handle_msg``; outgoing ones are recorded from
``w.comm.send``. Expected values and allowed ranges are written out here by hand."""

from __future__ import annotations

import logging
import random
from typing import Any

import pytest
import traitlets
from helpers import Sent, from_browser

from micrograd_widget.nn import MLP
from micrograd_widget.training.widget import TrainingWidget, watch


def state_of(w: TrainingWidget) -> dict[str, str]:
    return {name: repr(value) for name, value in w.get_state().items()}


@pytest.fixture
def trained() -> TrainingWidget:
    random.seed(3)
    model = MLP(2, [3, 1])
    w = watch(model)
    for k in range(5):
        w.log(1.0 / (k + 1))
    w.flush()
    return w


@pytest.mark.parametrize("state", [
    {"precision": -5}, {"precision": 6}, {"_esm": "alert(1)"}, {"_mgw_view": "graph"}, {"curve": {"count": 0}},
    {"dot": "digraph { x }"}, {"finished": True}, {"grad": ["NaN"]}, {"nonsense": 1},
    {"precision": 6, "log_scale": True}, {"_esm": "x", "log_scale": True},   # refused whole: log_scale too
    {"log_scale": "yes"}, {"log_scale": 1}, {"log_scale": None}, {"log_scale": ["x" * 10_000]},
])
def test_a_front_end_may_change_only_log_scale(trained: TrainingWidget, state: dict[str, Any],
                                               caplog: pytest.LogCaptureFixture) -> None:
    w = trained
    sent = Sent(w)
    before, kernel = state_of(w), w.get_state()
    with caplog.at_level(logging.WARNING):
        from_browser(w, **state)
    assert state_of(w) == before, "a refused update changed the widget"
    assert w.precision == 4 and w.log_scale is False and w._mgw_view == "training"
    refused = [r.getMessage() for r in caplog.records if "refused an update from the view" in r.getMessage()]
    assert len(refused) == 1 and len(refused[0]) < 300, refused
    assert any(name in refused[0] for name in state), "the warning names what was refused"
    pushed = {name: value for s in sent.states for name, value in s.items()}
    assert pushed == {name: kernel[name] for name in state if name in kernel}, "the kernel's values go back"


def test_log_scale_from_the_front_end_is_taken_and_not_sent_back(trained: TrainingWidget,
                                                                 caplog: pytest.LogCaptureFixture) -> None:
    w = trained
    sent = Sent(w)
    with caplog.at_level(logging.WARNING):
        from_browser(w, log_scale=True)
    assert w.log_scale is True and sent.states == [] and caplog.records == []
    from_browser(w, log_scale=False)
    assert w.log_scale is False and sent.states == []


@pytest.mark.usefixtures("ip")
def test_a_refused_precision_never_breaks_a_later_cell(capfd: pytest.CaptureFixture[str]) -> None:
    """The report: a front end's ``precision=-5`` made every later cell, even ``print(1+1)``, print "Error in
    callback ... ValueError" (the cell-end flush redraws the shown view's model at that precision)."""
    from IPython import get_ipython

    shell = get_ipython()
    random.seed(3)
    w = watch(MLP(2, [3, 1]))
    Sent(w)
    shell.user_ns["w"] = w
    assert shell.run_cell("w.log(0.5)\nw").success and w._handles, "the view is shown, with a display id"
    from_browser(w, precision=-5)
    result = shell.run_cell("w.log(0.25)\nprint(1 + 1)")
    assert result.success, result.error_in_exec
    out, err = capfd.readouterr()
    assert "Error in callback" not in out + err and "2" in out
    assert w.precision == 4


@pytest.mark.parametrize("name, value, words", [
    ("precision", -5, "precision is the number of decimals shown, a whole number from 0 to 17; got -5"),
    ("precision", 18, "a whole number from 0 to 17; got 18"),
    ("precision", "4", "expected an int"),
    ("log_scale", "yes", "expected a boolean"),
    ("log_scale", None, "expected a boolean"),
])
def test_bad_options_from_python_are_refused_saying_what_is_allowed(trained: TrainingWidget, name: str, value: Any,
                                                                    words: str) -> None:
    w = trained
    sent = Sent(w)
    before = state_of(w)
    with pytest.raises(traitlets.TraitError, match=words):
        setattr(w, name, value)
    assert state_of(w) == before and sent.states == []


def test_every_from_python_says_its_lower_limit(trained: TrainingWidget) -> None:
    for bad in (-1, 0.01, float("inf"), "fast", True):
        with pytest.raises(ValueError, match=r"a number of at least 0\.05; got"):
            trained.every = bad
    assert trained.every == 0.25


def test_watch_names_log_scales_allowed_values() -> None:
    random.seed(3)
    with pytest.raises(ValueError, match=r"log_scale turns .* on or off: True or False; got 'yes'"):
        watch(MLP(2, [1]), log_scale="yes")
    assert watch(MLP(2, [1]), log_scale=True).log_scale is True


@pytest.mark.parametrize("state", [[1, 2], None, "log_scale", 3])
def test_an_update_that_is_not_a_mapping_is_refused_not_raised(trained: TrainingWidget, state: Any,
                                                              caplog: pytest.LogCaptureFixture) -> None:
    w = trained
    before = state_of(w)
    with caplog.at_level(logging.WARNING):
        w._handle_msg({"content": {"data": {"method": "update", "state": state, "buffer_paths": []}}, "buffers": []})
    assert state_of(w) == before
    assert "must map trait names to values" in caplog.text
