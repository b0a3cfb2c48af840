"""The training view's cost to the user's loop: micrograd's moons demo with and without ``watch(model)``.

One step = bench_engine.step (zero_grad, forward over 100 points with MLP(2,[16,16,1]), SVM loss + L2,
backward, SGD update): about 65,800 nodes. With the view, each step also calls ``w.log(loss)``. There is no
kernel here, so the widget's comm ``send`` serialises every message to JSON as the kernel's session does
(``json.dumps``, ``allow_nan=False``): the work a push puts in the loop. Short blocks of steps alternate
between the loops, each loop taking every position in turn, so machine noise hits them alike; per loop the
median and min time per step. A second loop without the view measures the noise floor (an A/A ratio). Printed: the
slowdown as ratios against the loop without the view (median and min; target <= 1.10) and the share of the
loop spent inside ``log()``, for the default rate and the fastest allowed one; then what one ``log()``
between pushes and one push cost on their own.
"""

from __future__ import annotations

import json
import random
import statistics
import time
from collections.abc import Callable
from typing import Any

from bench_engine import SEED, make_moons, step
from common import ms

from micrograd_widget.engine import Value
from micrograd_widget.nn import MLP
from micrograd_widget.training.log import DEFAULT_EVERY, MIN_EVERY
from micrograd_widget.training.widget import TrainingWidget, watch

ROUNDS = 12
STEPS_PER_BLOCK = 3
LOG_CALLS = 200_000
PUSHES = 200


class JsonComm:
    """Stands in for the kernel's comm: each message is serialised to JSON (and counted), as a kernel would."""

    def __init__(self, widget: TrainingWidget) -> None:
        self.messages = 0
        self.bytes = 0
        widget.comm.send = self.send  # type: ignore[method-assign]  # record instead of sending: no kernel here

    def send(self, data: Any = None, metadata: Any = None, buffers: Any = None) -> None:
        self.messages += 1
        self.bytes += len(json.dumps(data, allow_nan=False))


def main() -> None:
    X, y = make_moons()
    random.seed(SEED)
    model = MLP(2, [16, 16, 1])
    views = {f"every={DEFAULT_EVERY} s (default)": watch(model, every=DEFAULT_EVERY),
             f"every={MIN_EVERY} s (fastest allowed)": watch(model, every=MIN_EVERY)}
    comms = {name: JsonComm(w) for name, w in views.items()}

    view_time = {name: 0.0 for name in views}

    def plain() -> None:
        step(model, Value, X, y)

    def with_view(name: str, w: TrainingWidget) -> Callable[[], None]:
        def run() -> None:
            loss = step(model, Value, X, y)
            start = time.perf_counter()
            w.log(loss)
            view_time[name] += time.perf_counter() - start
        return run

    loops: dict[str, Callable[[], None]] = {"without the view": plain, "without the view (again)": plain}
    loops.update({name: with_view(name, w) for name, w in views.items()})
    times: dict[str, list[float]] = {name: [] for name in loops}
    plain()  # warm up
    order = list(loops.items())
    for r in range(ROUNDS):
        for name, run in order[r % len(order):] + order[:r % len(order)]:  # each loop takes every position
            for _ in range(STEPS_PER_BLOCK):
                start = time.perf_counter()
                run()
                times[name].append(time.perf_counter() - start)

    base = statistics.median(times["without the view"])
    base_min = min(times["without the view"])
    print(f"moons training loop, MLP(2,[16,16,1]), batch 100; {ROUNDS * STEPS_PER_BLOCK} steps per loop, "
          f"blocks of {STEPS_PER_BLOCK} alternating")
    for name, t in times.items():
        median = statistics.median(t)
        extra = ""
        if name in comms:
            c = comms[name]
            extra = (f"   {c.messages} pushes of {c.bytes / max(c.messages, 1) / 1024:.1f} KiB; "
                     f"time in log() {100 * view_time[name] / sum(t):.2f}% of the loop")
        print(f"  {name:32s} median {ms(median)}  min {ms(min(t))} per step   slowdown median "
              f"{median / base:5.3f}x  min {min(t) / base_min:5.3f}x{extra}")
    print("  (target: slowdown <= 1.10. The ratios carry the machine's noise: 'again' runs the same loop without\n"
          "   the view, its ratio is the noise floor; the time spent inside log() is the view's own cost)")

    # log() between pushes: an append and a clock read.
    w = watch(model, every=DEFAULT_EVERY)
    JsonComm(w)
    start = time.perf_counter()
    for _ in range(LOG_CALLS):
        w.log(0.5)
    per_log = (time.perf_counter() - start) / LOG_CALLS
    # One push on its own: read 337 grads and data, rebuild the curve (up to 1,000 points), serialise.
    w = watch(model, every=DEFAULT_EVERY)
    comm = JsonComm(w)
    params = model.parameters()
    push_times = []
    for k in range(PUSHES):
        w.log(1.0 / (k + 1))
        params[k % len(params)].grad += 1e-3
        start = time.perf_counter()
        w.flush()
        push_times.append(time.perf_counter() - start)
    print(f"  log() between pushes           {per_log * 1e9:8.0f} ns per call ({LOG_CALLS:,} calls)")
    print(f"  one push, {len(params)} parameters       median {ms(statistics.median(push_times))} "
          f"({comm.bytes / comm.messages / 1024:.1f} KiB of JSON)")


if __name__ == "__main__":
    main()
