"""watch() / TrainingWidget without a kernel: outgoing messages recorded from ``w.comm.send``, time from a fake
clock the test moves. Throttling, the final flushes, what a push carries, bad input, the displays. The model's
picture is test_model_picture.py's, the curve's thinning test_training_log.py's, the static SVG
test_training_static.py's."""

from __future__ import annotations

import itertools
import math
import random
import re
from typing import Any

import pytest
from builders import train_step
from helpers import lecture_run, svg_texts

from micrograd_widget.core.spec import decode_number
from micrograd_widget.engine import Value
from micrograd_widget.nn import MLP, Module, Neuron, lecture_data
from micrograd_widget.training.log import MIN_EVERY
from micrograd_widget.training.widget import TrainingWidget, watch


class Recorder:
    """Patches ``w.comm.send`` and keeps every state update the widget sent."""

    def __init__(self, widget: TrainingWidget, on_send: Any = None) -> None:
        self.states: list[dict[str, Any]] = []
        self.on_send = on_send
        widget.comm.send = self._send  # type: ignore[method-assign]  # record instead of sending: no kernel here

    def _send(self, data: Any = None, metadata: Any = None, buffers: Any = None) -> None:
        if data.get("method") == "update":
            self.states.append(data["state"])
        if self.on_send:
            self.on_send()

    def curves(self) -> list[dict[str, Any]]:
        return [s["curve"] for s in self.states if "curve" in s]


# ---------------------------------------------------------------- throttling and flushing

def test_many_logs_give_few_pushes_at_the_chosen_rate(model, clock):
    w = watch(model, every=0.5, clock=clock)
    rec = Recorder(w)
    for k in range(1024):
        w.log(1.0 / (k + 1))
        clock.now += 1 / 64        # 64 steps a second (exact in binary) for 16 s
    # The first log pushes at once, then the first log at least 0.5 s (32 steps) after each push.
    assert [c["count"] for c in rec.curves()] == [1 + 32 * j for j in range(32)]


def test_a_push_never_comes_sooner_than_every(model, clock):
    w = watch(model, every=0.25, clock=clock)
    rec = Recorder(w)
    times = []
    rec.on_send = lambda: times.append(clock.now)
    rng = random.Random(1)
    for _ in range(500):
        w.log(rng.random())
        clock.now += rng.uniform(0.0, 0.05)
    assert len(times) > 10
    assert all(b - a >= 0.25 for a, b in itertools.pairwise(times))


def test_log_between_pushes_sends_nothing_and_reads_no_grads(clock):
    class Counting(Value):
        reads = 0

        @property  # type: ignore[override]  # a counting grad: a property where Value has a slot
        def grad(self) -> float:
            Counting.reads += 1
            return 0.5

        @grad.setter
        def grad(self, value: float) -> None:
            pass

    class Tiny(Module):
        def __init__(self) -> None:
            self.p = [Counting(1.0), Counting(2.0)]

        def parameters(self) -> list[Value]:
            return self.p

    w = watch(Tiny(), clock=clock)
    rec = Recorder(w)
    w.log(1.0)
    reads_after_first_push = Counting.reads
    for k in range(100):
        w.log(float(k))
    assert len(rec.states) == 1, "logging inside the throttle window sent messages"
    assert Counting.reads == reads_after_first_push, "log() read the parameters' grads without pushing"


def test_finish_flushes_the_last_steps_and_marks_the_view_finished(model, clock):
    w = watch(model, clock=clock)
    rec = Recorder(w)
    xs, ys = lecture_data()
    for _ in range(7):
        loss = train_step(model, xs, ys)
        w.log(loss)
    assert rec.curves()[-1]["count"] == 1
    w.finish()
    last = rec.states[-1]
    assert last["curve"]["count"] == 7 and last["curve"]["step"] == 6
    assert decode_number(last["curve"]["loss"]) == loss.data
    assert last["finished"] is True
    assert [decode_number(g) for g in last["grad"]] == [p.grad for p in model.parameters()]
    w.log(0.5)                     # a later log resumes
    w.flush()
    assert rec.states[-1]["finished"] is False and rec.states[-1]["curve"]["count"] == 8


def test_with_block_flushes_on_exit_even_when_the_loop_raises(model, clock):
    w = watch(model, clock=clock)
    rec = Recorder(w)
    with pytest.raises(KeyboardInterrupt), w:
        for k in range(5):
            w.log(float(k))
        raise KeyboardInterrupt
    assert rec.states[-1]["curve"]["count"] == 5
    assert w.finished


def test_close_flushes_then_closes(model, clock):
    w = watch(model, clock=clock)
    rec = Recorder(w)
    for k in range(3):
        w.log(float(k))
    w.close()
    assert rec.curves()[-1]["count"] == 3
    assert w.comm is None


def test_the_end_of_an_ipython_cell_flushes(model, clock, tmp_path, monkeypatch):
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    InteractiveShell.clear_instance()
    cfg = Config()
    cfg.HistoryManager.hist_file = ":memory:"
    shell = InteractiveShell.instance(config=cfg)
    try:
        w = watch(model, clock=clock)
        rec = Recorder(w)
        shell.user_ns["w"] = w
        result = shell.run_cell("for k in range(9):\n    w.log(1.0 / (k + 1))\n")
        assert result.success, result.error_in_exec
        assert rec.curves()[-1]["count"] == 9, "the cell ended without a final push"
        w.finish()
        assert w._on_cell_end not in shell.events.callbacks["post_run_cell"], "finish() left the cell hook"
        shell.run_cell("w.log(0.25)")
        assert rec.curves()[-1]["count"] == 10
        w.close()
        assert w._on_cell_end not in shell.events.callbacks["post_run_cell"]
    finally:
        InteractiveShell.clear_instance()


def test_the_end_of_the_cell_that_ran_the_loop_marks_the_run_finished(model, clock, tmp_path, monkeypatch):
    """A plain loop, no finish(): the cell's end says the run finished (after its 9 steps) and lets go of the hook;
    a loop in a later cell resumes and ends the same way. The cell that only shows the view leaves it waiting."""
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    InteractiveShell.clear_instance()
    cfg = Config()
    cfg.HistoryManager.hist_file = ":memory:"
    shell = InteractiveShell.instance(config=cfg)
    hooks = shell.events.callbacks["post_run_cell"]
    try:
        shell.user_ns["watch"], shell.user_ns["model"] = watch, model
        assert shell.run_cell("w = watch(model)").success
        w = shell.user_ns["w"]
        rec = Recorder(w)
        assert not w.finished and w._on_cell_end in hooks, "a cell that logged nothing ended the run"
        w._idle_end = 0.01              # no idle end in IPython, however short the span: the cell end is the end
        shell.user_ns["log_state"] = w._log
        assert shell.run_cell("for k in range(9):\n    w.log(1.0 / (k + 1))\n"
                              "during = (w.finished, log_state.idle, log_state.timer)").success
        assert shell.user_ns["during"] == (False, None, None), "a timer ran where the cell end ends the run"
        assert rec.states[-1]["finished"] is True and rec.states[-1]["curve"]["count"] == 9
        assert w._on_cell_end not in hooks, "the finished run kept its cell hook"
        sent = len(rec.states)
        assert shell.run_cell("1 + 1").success
        assert w.finished and len(rec.states) == sent, "a cell without a log() changed the finished run"
        shell.user_ns["hooks"] = hooks
        assert shell.run_cell("w.log(0.5)\nhooked = w._on_cell_end in hooks").success
        assert shell.user_ns["hooked"] is True, "a log() after the end did not resume the run"
        assert w.finished and rec.curves()[-1]["count"] == 10
        assert w._on_cell_end not in hooks
        w.close()
    finally:
        InteractiveShell.clear_instance()


def test_an_expensive_push_spaces_the_next_ones_out(model, clock):
    w = watch(model, every=0.25, clock=clock)
    times = []

    def slow_send() -> None:
        times.append(clock.now)
        clock.now += 0.1           # each push takes 0.1 s: the next may come 20 x 0.1 = 2 s later, not 0.25 s

    Recorder(w, on_send=slow_send)
    for _ in range(400):
        w.log(1.0)
        clock.now += 0.01
    gaps = [b - a for a, b in itertools.pairwise(times)]
    assert gaps and min(gaps) >= 2.0 - 1e-9, gaps


# ---------------------------------------------------------------- what a push carries

def test_a_push_carries_the_losses_and_every_parameters_grad_and_data(model, clock):
    w = watch(model, clock=clock)
    rec = Recorder(w)
    xs, ys = lecture_data()
    losses = []
    for _ in range(12):
        losses.append(train_step(model, xs, ys).data)
        w.log(losses[-1])
    w.flush()
    state = rec.states[-1]
    curve = state["curve"]
    assert curve["steps"] == list(range(12)) and [decode_number(x) for x in curve["losses"]] == losses
    assert curve["count"] == 12 and curve["nonfinite"] == 0
    params = model.parameters()
    assert [decode_number(g) for g in state["grad"]] == [p.grad for p in params]
    assert [decode_number(d) for d in state["data"]] == [p.data for p in params]
    assert w.losses == losses and w.steps == list(range(12))


def test_each_box_holds_its_neurons_parameters(model):
    w = watch(model)
    params = model.parameters()
    units = w.structure["units"]
    assert [u["id"] for u in units] == [f"layers.{i}.neurons.{j}" for i, n in enumerate((4, 4, 1)) for j in range(n)]
    for u in units:
        i, j = map(int, re.findall(r"\d+", u["id"]))
        neuron = model.layers[i].neurons[j]
        assert [params[k] for k in u["params"]] == [*neuron.w, neuron.b]
        assert u["names"] == [f"w{k}" for k in range(len(neuron.w))] + ["b"]
        assert w.structure["groups"][u["group"]]["id"] == f"layers.{i}"
    assert sorted(k for u in units for k in u["params"]) == list(range(len(params)))


def test_log_takes_values_numbers_and_explicit_steps(model, clock):
    w = watch(model, clock=clock)
    w.log(Value(2.5))
    w.log(3)
    w.log(1.5, step=10)
    w.log(0.5)
    assert w.steps == [0, 1, 10, 11] and w.losses == [2.5, 3.0, 1.5, 0.5]


def test_micrograds_own_mlp_and_value_work(micrograd, clock):
    random.seed(2)
    model = micrograd.nn.MLP(2, [3, 1])
    w = watch(model, clock=clock)
    assert [u.id for u in w.boxes] == ["layers.0.neurons.0", "layers.0.neurons.1", "layers.0.neurons.2",
                                       "layers.1.neurons.0"]
    loss = model([micrograd.engine.Value(1.0), micrograd.engine.Value(-1.0)])
    loss.backward()
    w.log(loss)
    assert w.losses == [loss.data]
    assert [decode_number(g) for g in w.grad] == [p.grad for p in model.parameters()]


def test_non_finite_and_non_number_grads_travel_as_strings(clock):
    n = Neuron(2)
    n.w[0].grad = math.nan
    n.w[1].grad = math.inf
    w = watch(n, clock=clock)
    assert w.grad == ["NaN", "Infinity", 0.0]
    n.b.grad = None  # a user's mistake mid-training must not break the push
    w.flush()
    assert w.grad == ["NaN", "Infinity", "NaN"]


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("bad, error, words", [
    (42, TypeError, "parameters() method"),
    (Value(1.0), TypeError, "not a Value"),
    ("MLP", TypeError, "parameters() method"),
])
def test_watch_refuses_what_is_not_a_model(bad, error, words):
    with pytest.raises(error, match=re.escape(words)):
        watch(bad)


def test_watch_refuses_a_model_without_parameters():
    class Empty(Module):
        def parameters(self) -> list[Value]:
            return []

    with pytest.raises(ValueError, match="needs a model with parameters"):
        watch(Empty())


def test_watch_refuses_parameters_that_are_not_values():
    class Strange(Module):
        def parameters(self) -> list[Any]:
            return [1.0, 2.0]

    with pytest.raises(TypeError, match=r"parameter 0 is float"):
        watch(Strange())


@pytest.mark.parametrize("options, words", [
    ({"every": 0.0}, "at least"), ({"every": MIN_EVERY / 2}, "at least"), ({"every": "fast"}, "at least"),
    ({"every": math.nan}, "at least"), ({"precision": 99}, "precision"), ({"log_scale": "yes"}, "log_scale"),
])
def test_watch_refuses_bad_options(model, options, words):
    with pytest.raises((TypeError, ValueError), match=words):
        watch(model, **options)


@pytest.mark.parametrize("loss", ["0.5", None, True, [1.0], object()])
def test_log_refuses_a_loss_that_is_not_a_number_and_changes_nothing(model, clock, loss):
    w = watch(model, clock=clock)
    w.log(1.0)
    with pytest.raises(TypeError, match=r"log\(loss\) takes the loss as a Value or a number"):
        w.log(loss)
    assert w.steps == [0] and w.losses == [1.0]
    w.log(2.0)
    assert w.steps == [0, 1]


@pytest.mark.parametrize("step, error", [(3, ValueError), (2, ValueError), (4.5, TypeError), ("5", TypeError),
                                         (True, TypeError)])
def test_log_refuses_steps_that_do_not_increase_or_are_not_whole(model, clock, step, error):
    w = watch(model, clock=clock)
    w.log(1.0, step=3)
    with pytest.raises(error, match="step"):
        w.log(0.5, step=step)
    assert w.steps == [3]


def test_repr_says_what_was_logged(model, clock):
    w = watch(model, clock=clock)
    assert "0 steps logged" in repr(w)
    w.log(0.25)
    assert repr(w) == f"TrainingWidget({len(model.parameters())} parameters, 1 step logged, last loss 0.25 at step 0)"


# ---------------------------------------------------------------- names and lifetime

def test_a_closed_widget_and_its_model_are_freed(clock):
    import gc
    import weakref

    random.seed(4)
    model = MLP(2, [3, 1])
    w = watch(model, clock=clock)
    w.log(1.0)
    w.close()
    gone_widget, gone_model = weakref.ref(w), weakref.ref(model)
    del w, model
    gc.collect()
    assert gone_widget() is None, "a closed TrainingWidget stayed reachable"
    assert gone_model() is None, "the model of a closed TrainingWidget stayed reachable"


# ---------------------------------------------------------------- the display: static picture, text, refreshes


@pytest.mark.usefixtures("dot_program")
def test_ipython_displays_are_rewritten_at_the_cell_end_and_at_finish(model, tmp_path, monkeypatch):
    """A saved notebook shows the run as it ended: the display (shown with an id) is updated, not stale."""
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets.config import Config

    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    InteractiveShell.clear_instance()
    cfg = Config()
    cfg.HistoryManager.hist_file = ":memory:"
    shell = InteractiveShell.instance(config=cfg)
    published: list[dict[str, Any]] = []

    def publish(data: Any, metadata: Any = None, *, transient: Any = None, update: bool = False, **_: Any) -> None:
        published.append({"data": data, "id": (transient or {}).get("display_id"), "update": update})
    monkeypatch.setattr(shell.display_pub, "publish", publish)
    try:
        w = watch(model)
        shell.user_ns.update(w=w, run=lambda n: lecture_run(w, model, n))
        assert shell.run_cell("w").success
        assert len(published) == 1 and not published[0]["update"] and published[0]["id"]
        first = published[0]
        assert "0 steps logged" in first["data"]["text/plain"]
        assert "application/vnd.jupyter.widget-view+json" in first["data"]
        assert shell.run_cell("run(60)").success                   # the loop's cell ends: rewritten
        assert [p["update"] for p in published] == [False, True] and published[1]["id"] == first["id"]
        assert "60 steps logged" in published[1]["data"]["text/plain"]
        assert "(60 steps logged, finished)" in svg_texts(published[1]["data"]["image/svg+xml"])[0]
        assert shell.run_cell("1 + 1").success                      # nothing changed: not rewritten
        assert len(published) == 2
        w.finish()
        assert published[-1]["update"] and "(60 steps logged, finished)" in svg_texts(
            published[-1]["data"]["image/svg+xml"])[0]
        w.close()
    finally:
        InteractiveShell.clear_instance()


def test_without_cell_events_a_timer_flushes_the_last_steps(model, clock):
    """marimo has no post_run_cell: a log() that does not push arms a timer that sends the rest (the fake
    clock stands still, so no log() after the first is due: only the timer, in real time, can push)."""
    import time

    from micrograd_widget.training import log as training_log
    assert not training_log.in_marimo()
    w = watch(model, every=0.05, clock=clock)
    w._timed = True                 # as in marimo
    rec = Recorder(w)
    for k in range(5):
        w.log(1.0 / (k + 1))
    assert [c["count"] for c in rec.curves()] == [1]    # the first log pushed, the other four wait
    deadline = time.monotonic() + 5
    while rec.curves()[-1]["count"] != 5 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert rec.curves()[-1]["count"] == 5 and rec.curves()[-1]["step"] == 4
    time.sleep(0.2)
    assert len(rec.curves()) == 2, "one timer flush, no more"
    w.close()


class Waiter:
    """Records ``w``'s state updates; ``wait(test)`` blocks (generously) until the last one passes ``test``."""

    def __init__(self, widget: TrainingWidget) -> None:
        import threading
        self.changed = threading.Condition()
        self.rec = Recorder(widget, on_send=self._sent)

    def _sent(self) -> None:
        with self.changed:
            self.changed.notify_all()

    def wait(self, test: Any, what: str) -> dict[str, Any]:
        with self.changed:
            assert self.changed.wait_for(lambda: bool(self.rec.states) and test(self.rec.states[-1]), timeout=20), \
                f"waited for {what}; the last state sent: {self.rec.states[-1] if self.rec.states else None}"
        return self.rec.states[-1]


def timed_watch(model: Any, clock: Any, idle_end: float, every: float = 0.05) -> TrainingWidget:
    """A view as in marimo (no cell events: timers flush and end the run), the idle end after ``idle_end`` s."""
    from micrograd_widget.training import log as training_log
    assert not training_log.in_marimo()
    w = watch(model, every=every, clock=clock)
    w._timed = True
    w._idle_end = idle_end
    return w


def test_without_cell_events_no_log_for_a_while_marks_the_run_finished_and_a_log_resumes_it(model, clock):
    """marimo: a plain loop, no finish(), then nothing: after the idle span the view says finished after its 5
    steps, as a Jupyter cell end does; a later log() resumes it (finished false, 6 steps), and it ends again."""
    w = timed_watch(model, clock, idle_end=0.2)
    waiter = Waiter(w)
    for k in range(5):
        w.log(1.0 / (k + 1))
    assert not w.finished
    waiter.wait(lambda s: s.get("finished") is True, "the idle end")
    assert waiter.rec.curves()[-1]["count"] == 5 and w.finished and w.steps == [0, 1, 2, 3, 4]
    assert w._log.idle is None, "the finished run still checks for its end"
    w.log(0.125)                                # not due (the clock stands still): the flush timer sends it
    waiter.wait(lambda s: s.get("finished") is False, "the resumed run (a log() after the idle end)")
    waiter.wait(lambda s: s.get("finished") is True, "the second idle end")
    assert waiter.rec.curves()[-1]["count"] == 6 and waiter.rec.curves()[-1]["step"] == 5
    w.close()


def test_the_idle_end_waits_for_a_span_with_no_new_step(model, clock):
    """The rule, called by hand (the span too long to fire): a check that sees a new step starts counting again;
    IDLE_TICKS checks in a row with none end the run; a finished or closed view's check does nothing."""
    from micrograd_widget.training.log import IDLE_TICKS
    w = timed_watch(model, clock, idle_end=600)
    w.log(1.0)
    w.log(0.5)
    w._log.cancel()
    w._on_idle(0, IDLE_TICKS - 1)               # step 1 is new since the last check: not idle, checks again
    assert not w.finished and w._log.idle is not None
    w._log.cancel()
    w._on_idle(1, IDLE_TICKS - 2)               # one more quiet check still to come
    assert not w.finished and w._log.idle is not None
    w._log.cancel()
    w._on_idle(1, IDLE_TICKS - 1)
    assert w.finished and w._log.idle is None
    w.log(0.25)
    w.close()
    w._on_idle(2, IDLE_TICKS - 1)
    assert w._log.idle is None and w._log.timer is None, "a closed view armed a check"


@pytest.mark.parametrize("end", ["close", "finish"])
def test_close_and_finish_cancel_the_timers(model, clock, end):
    """No timer thread outlives the run's end: the pending flush and idle check are cancelled, their threads end."""
    w = timed_watch(model, clock, idle_end=600, every=30)
    w.log(1.0)
    w.log(0.5)                                  # not due (the clock stands still): arms the flush timer
    timers = [w._log.timer, w._log.idle]
    assert all(t is not None and t.is_alive() for t in timers)
    getattr(w, end)()
    for t in timers:
        t.join(timeout=10)
    assert not any(t.is_alive() for t in timers), f"{end}() left a timer thread running"
    assert w._log.timer is None and w._log.idle is None
    w.close()


@pytest.mark.usefixtures("dot_program")
def test_a_saved_notebook_shows_the_run_as_it_ended(tmp_path):
    """Executed by nbclient (a real kernel), the saved output of ``w`` (shown before the loop) carries the final
    text and static picture, not the '0 steps logged' it had when it was first shown."""
    import nbformat
    from nbclient import NotebookClient

    cells = ["import random\nfrom micrograd_widget import MLP, watch\nrandom.seed(7)\n"
             "model = MLP(3, [4, 4, 1])\nw = watch(model)\nw",
             "xs = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]\n"
             "ys = [1.0, -1.0, -1.0, 1.0]\nfor k in range(60):\n"
             "    loss = sum((model(x) - y) ** 2 for x, y in zip(xs, ys))\n"
             "    model.zero_grad()\n    loss.backward()\n"
             "    for p in model.parameters():\n        p.data -= 0.05 * p.grad\n    w.log(loss)"]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in cells])
    NotebookClient(nb, timeout=120, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    path = tmp_path / "run.ipynb"
    nbformat.write(nb, str(path))
    outputs = nbformat.read(str(path), as_version=4).cells[0].outputs
    assert len(outputs) == 1
    data = outputs[0]["data"]
    assert "application/vnd.jupyter.widget-view+json" in data
    assert data["text/plain"].startswith("TrainingWidget(") and "60 steps logged" in data["text/plain"]
    assert "(60 steps logged, finished)" in svg_texts(data["image/svg+xml"])[0], "the loop's cell ended the run"
