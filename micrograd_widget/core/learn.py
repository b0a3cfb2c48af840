"""Learning on a frozen tape: the twin of js/core/learn.js (same names, same sections), for the kernel path (a graph
with a user-defined op, which only the kernel can replay). One step replays forward and backward at the current leaf
values, then moves every parameter at once, ``p += sign * h * dOutput/dp`` (sign +1: the lecture's nudge, the output
rises; -1: a step of gradient descent); inputs, targets and constants never move.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from micrograd_widget.core.tape import Tape
from micrograd_widget.picture.text import short

__all__ = ["read_step_size", "step", "Descent"]


# ------------------------------------------------------------------ the step size

def read_step_size(raw: object) -> float:
    """The step size as a float, or a ValueError saying it must be a finite positive number (as the view's box)."""
    try:
        h = float(str(raw).strip()) if not isinstance(raw, bool) else math.nan
    except ValueError:
        h = math.nan
    if math.isfinite(h) and h > 0:
        return h
    raise ValueError(f"the step size must be a finite positive number such as 0.01 (got {short(raw)})")


# ------------------------------------------------------------------ one step

def step(tape: Tape, values: list[float], params: Sequence[int], sign: int, h: float,
         output: int | None = None) -> float:
    """Replay ``tape`` at ``values`` (leaf values in ``tape.leaves`` order; changed in place) and move each parameter
    (positions ``params`` in ``tape.leaves``) by ``sign * h`` times its grad of ``output``; returns the output's data
    before the move. An op failing on these values raises (values unchanged)."""
    tape.replay(values, output)
    out = tape.root if output is None else output
    leaves, grad = tape.leaves, tape.grad
    scale = sign * h
    for j in params:
        values[j] += scale * grad[leaves[j]]
    return tape.data[out]


# ------------------------------------------------------------------ descent

class Descent:
    """Gradient descent on one tape: the leaf values it moves, its step count and the losses it saw (the output's
    data before each step's move)."""

    def __init__(self, tape: Tape, values: Sequence[float], params: Sequence[int], output: int | None = None) -> None:
        self.tape = tape
        self.values = [float(x) for x in values]
        self.params = tuple(params)
        self.output = output
        self.steps = 0
        self.losses: list[float] = []

    def run(self, count: int, h: float, sign: int = -1) -> float:
        """``count`` steps of size ``h`` (sign -1: descent); returns the loss before the last step."""
        loss = math.nan
        for _ in range(count):
            loss = step(self.tape, self.values, self.params, sign, h, self.output)
            self.losses.append(loss)
            self.steps += 1
        return loss


# ------------------------------------------------------------------ change since the step before
# The Δ beside each number is the view's alone (js/core/learn.js change): the kernel path answers numbers, not Δ.
