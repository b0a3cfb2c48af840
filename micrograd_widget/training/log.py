"""What the training view keeps of the user's loop: the model's parameters and each ``log()``'s loss and step,
checked; the loss curve drawn, thinned as it grows; when the next push is due, and marimo's timers (the flush
of steps no push sent, and the idle end of a run).

training.py's TrainingWidget holds one ``Log`` and one ``Curve`` and sends what they give (its docstring says
when it pushes). Nothing here knows of widgets or traits.
"""

from __future__ import annotations

import math
import numbers
import sys
import threading
from collections.abc import Callable
from typing import Any, SupportsFloat, SupportsIndex

from micrograd_widget.core.spec import encode_number
from micrograd_widget.engine import Value

__all__ = ["Log", "Curve", "parameters_of", "loss_number", "step_number", "float_or_nan", "encode_numbers",
           "in_marimo", "DEFAULT_EVERY", "MIN_EVERY", "COST_FACTOR", "MAX_BUCKETS", "IDLE_END", "IDLE_TICKS"]

DEFAULT_EVERY = 0.25       # seconds between pushes, at most 4 a second
MIN_EVERY = 0.05           # the fastest allowed: the browser and the comm stay responsive
COST_FACTOR = 20           # pushes are spaced to >= 20x what the last one cost (<= ~5% of the loop's time)
MAX_BUCKETS = 1000         # the curve sends every step up to this many, then merges pairs of buckets
IDLE_END = 3.0             # marimo: no log() for 3 s ends the run (longer than a step, the view ends soon after)
IDLE_TICKS = 4             # the idle end is checked every IDLE_END / 4 s: it comes at most 25% late

_INF = math.inf


# ---------------------------------------------------------------- numbers from the user's loop

def parameters_of(model: object) -> list[Any]:
    """``model.parameters()`` as a list, checked: a clear error for a loss, a non-module or no parameters."""
    if isinstance(model, Value):
        raise TypeError("watch() takes the model (e.g. MLP(2, [16, 16, 1])), not a Value: pass the model, "
                        "then call w.log(loss) in your loop")
    method = getattr(model, "parameters", None)
    if not callable(method):
        raise TypeError(f"watch() takes a model with a parameters() method, such as MLP(2, [16, 16, 1]); "
                        f"got {type(model).__name__}: {model!r:.60}")
    params = method()
    try:
        params = list(params)
    except TypeError:
        raise TypeError(f"{type(model).__name__}.parameters() must return a list of Values, "
                        f"got {type(params).__name__}") from None
    if not params:
        raise ValueError(f"watch() needs a model with parameters; {type(model).__name__}.parameters() is empty")
    for k, p in enumerate(params):
        for attr in ("data", "grad"):
            x = getattr(p, attr, None)
            if isinstance(x, bool) or not isinstance(x, numbers.Real):
                raise TypeError(f"{type(model).__name__}.parameters() must return Values with number .data and "
                                f".grad; parameter {k} is {type(p).__name__} with .{attr} = {x!r:.40}")
    return params


def loss_number(loss: object) -> float:
    """The loss as a float: a number, a Value (ours or micrograd's: its ``.data``), or a one-number tensor/array;
    else a TypeError that says what to pass."""
    if isinstance(loss, (str, bytes, bool)) or loss is None:
        raise TypeError(f"log(loss) takes the loss as a Value or a number, got {type(loss).__name__}: {loss!r:.60}")
    if isinstance(loss, numbers.Real):
        return float(loss)
    data = getattr(loss, "data", None)
    if isinstance(data, numbers.Real) and not isinstance(data, bool):
        return float(data)
    if isinstance(loss, (SupportsFloat, SupportsIndex)):
        try:
            return float(loss)
        except (TypeError, ValueError):
            pass
    raise TypeError(f"log(loss) takes the loss as a Value or a number, got {type(loss).__name__}: {loss!r:.60}")


def step_number(step: object) -> int:
    """A ``log(step=...)`` that is not an int: a whole number (numpy's too) as an int, else a TypeError."""
    if isinstance(step, bool) or not isinstance(step, numbers.Integral):
        raise TypeError(f"log(step=...) takes a whole number (int), got {type(step).__name__}: {step!r:.60}")
    return int(step)


def float_or_nan(x: object) -> float:
    """``x`` as a float, or nan when it is not a number (a grad someone set to None)."""
    if isinstance(x, (SupportsFloat, SupportsIndex)):
        try:
            return float(x)
        except (TypeError, ValueError):
            pass
    return math.nan


def encode_numbers(values: list[Any]) -> list[float | str]:
    """Numbers for JSON: finite floats as they are, the rest as encode_number's strings; a grad that is not a
    number at all (someone set ``p.grad = None``) travels as 'NaN' rather than breaking the push."""
    try:
        return [x if x - x == 0.0 else encode_number(x) for x in values]
    except TypeError:
        out: list[float | str] = []
        for x in values:
            try:
                f = float(x)
            except (TypeError, ValueError):
                f = math.nan
            out.append(encode_number(f))
        return out


# ---------------------------------------------------------------- the loss curve drawn

def _reduce(points: list[tuple[int, float]]) -> list[tuple[int, float]]:
    """A bucket of (step, loss) in step order drawn by at most three: its lowest and highest finite losses
    and its first non-finite one."""
    if len(points) <= 2:
        return points
    lo = hi = bad = None
    for p in points:
        x = p[1]
        if x - x == 0.0:
            if lo is None or x < lo[1]:
                lo = p
            if hi is None or x > hi[1]:
                hi = p
        elif bad is None:
            bad = p
    keep = {p[0]: p for p in (lo, hi, bad) if p is not None}
    return [keep[s] for s in sorted(keep)]


class Curve:
    """The drawn loss curve, built incrementally at each push from the new entries only: buckets of ``width``
    consecutive steps (1 at first), merged in pairs (width doubles) when they reach ``MAX_BUCKETS``; the first
    and the last step logged are always drawn."""

    def __init__(self) -> None:
        self.width = 1
        self.done: list[list[tuple[int, float]]] = []
        self.seen = 0
        self.counted = 0
        self.nonfinite = 0

    def update(self, steps: list[int], losses: list[float]) -> tuple[list[int], list[float]]:
        """The points to draw for all entries so far."""
        n = len(losses)
        for x in losses[self.counted:n]:
            if x - x != 0.0:
                self.nonfinite += 1
        self.counted = n
        while self.seen + self.width <= n:
            a, b = self.seen, self.seen + self.width
            self.done.append(_reduce(list(zip(steps[a:b], losses[a:b]))))
            self.seen = b
            if len(self.done) >= MAX_BUCKETS:
                self.done = [_reduce(self.done[i] + self.done[i + 1]) for i in range(0, len(self.done), 2)]
                self.width *= 2
        tail = _reduce(list(zip(steps[self.seen:n], losses[self.seen:n])))
        points = [p for bucket in self.done for p in bucket] + tail
        if points and points[0][0] != steps[0]:      # the axis spans the first and the last step logged
            points.insert(0, (steps[0], losses[0]))
        if points and points[-1][0] != steps[n - 1]:
            points.append((steps[n - 1], losses[n - 1]))
        return [p[0] for p in points], [p[1] for p in points]


# ---------------------------------------------------------------- the log and when to push

class Log:
    """What ``log()`` touches, in slots: attribute access on a widget (a deep traitlets class) costs
    about three times as much, and ``log()`` runs once per training step."""

    __slots__ = ("steps", "losses", "last", "due", "finished", "clock", "timed", "timer", "idle")

    def __init__(self, clock: Callable[[], float]) -> None:
        self.steps: list[int] = []
        self.losses: list[float] = []
        self.last = -1               # the last step logged
        self.due = -_INF             # the clock time from which the next log() pushes
        self.finished = False
        self.clock = clock
        self.timed = False           # no cell events (marimo): the timers below flush and end the run
        self.timer: threading.Timer | None = None   # marimo: the pending flush of steps no push has sent
        self.idle: threading.Timer | None = None    # marimo: the pending check for the idle end of the run

    def pushed(self, start: float, end: float, every: float) -> None:
        """A push ran from ``start`` to ``end`` (clock times): the next is due ``every`` seconds after it, or
        ``COST_FACTOR`` times what it cost when that is longer."""
        self.due = end + max(every, COST_FACTOR * (end - start))

    def arm(self, flush: Callable[[], None], every: float) -> None:
        """Call ``flush`` from a daemon thread when the next push is due (at most ``4 * every`` from now):
        marimo has no cell end to flush on."""
        delay = min(max(self.due - self.clock(), 0.0), 4 * every)
        timer = threading.Timer(delay, flush)
        timer.daemon = True
        self.timer = timer
        timer.start()

    def arm_idle(self, check: Callable[[int, int], None], seen: int, quiet: int, span: float) -> None:
        """Call ``check(seen, quiet)`` from a daemon thread in ``span / IDLE_TICKS`` seconds (real time, not
        ``clock``): ``seen`` is the last step logged at the previous check, ``quiet`` how many checks in a row
        found no new step. ``IDLE_TICKS`` quiet checks in a row: no log() for at least ``span``."""
        timer = threading.Timer(span / IDLE_TICKS, check, (seen, quiet))
        timer.daemon = True
        self.idle = timer
        timer.start()

    def cancel(self) -> None:
        """Cancel the pending timers (their threads end at once): the run is finished or its widget closed."""
        timer, idle, self.timer, self.idle = self.timer, self.idle, None, None
        for t in (timer, idle):
            if t is not None:
                t.cancel()


def in_marimo() -> bool:
    """Whether this runs in a marimo notebook (which has no cell events to flush on)."""
    marimo = sys.modules.get("marimo")
    try:
        return marimo is not None and bool(marimo.running_in_notebook())
    except Exception:  # an old or partial marimo: no timer, finish() still flushes
        return False
