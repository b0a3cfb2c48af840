"""training/log.py's loss curve, as the training view sends it: every step drawn below the bucket limit, a long run
thinned to a bounded number of points that keeps each bucket's extremes and first NaN, non-finite losses kept and
counted."""

from __future__ import annotations

import math
import random

from micrograd_widget.nn import Neuron
from micrograd_widget.training.log import MAX_BUCKETS
from micrograd_widget.training.widget import watch


def test_non_finite_losses_are_kept_and_counted(model, clock):
    w = watch(model, clock=clock)
    for x in (1.0, math.nan, math.inf, 0.5, -math.inf):
        w.log(x)
    w.flush()
    assert w.curve["losses"] == [1.0, "NaN", "Infinity", 0.5, "-Infinity"]
    assert w.curve["nonfinite"] == 3 and w.curve["loss"] == "-Infinity"


def test_a_long_run_is_drawn_with_bounded_points_keeping_extremes_and_nans(clock):
    w = watch(Neuron(1), clock=clock)
    rng = random.Random(5)
    losses = [rng.uniform(1.0, 2.0) for _ in range(20_000)]
    losses[12_345] = 0.001
    losses[777] = 50.0
    losses[15_000] = math.nan
    for x in losses:
        w.log(x)
    w.flush()
    curve = w.curve
    assert curve["count"] == 20_000
    assert len(curve["steps"]) <= 3 * MAX_BUCKETS + 2
    assert curve["steps"] == sorted(set(curve["steps"]))
    drawn = dict(zip(curve["steps"], curve["losses"]))
    assert drawn[12_345] == 0.001 and drawn[777] == 50.0 and drawn[15_000] == "NaN"
    assert curve["steps"][0] == 0 and curve["steps"][-1] == 19_999


def test_every_step_is_drawn_below_the_bucket_limit(clock):
    w = watch(Neuron(1), clock=clock)
    for k in range(MAX_BUCKETS - 1):
        w.log(float(k))
    w.flush()
    assert w.curve["steps"] == list(range(MAX_BUCKETS - 1))
