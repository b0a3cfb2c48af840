"""Helpers shared by the bench_*.py modules: timing with GC left on, and a compact report line."""

from __future__ import annotations

import gc
import statistics
import time
import tracemalloc
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def time_runs(fn: Callable[[], object], repeats: int, warmup: int = 1) -> list[float]:
    """Wall-clock seconds of ``repeats`` calls of ``fn`` after a full collection and ``warmup`` calls.

    The garbage collector stays on during the calls, as users run them."""
    if not gc.isenabled():
        raise RuntimeError("benchmarks run with the garbage collector on, as users do; gc is disabled")
    gc.collect()
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return times


def summary(times: list[float]) -> tuple[float, float]:
    """(median, min) of a list of timings."""
    return statistics.median(times), min(times)


def traced_bytes(build: Callable[[], T]) -> tuple[T, int]:
    """What ``build()`` returns and the bytes it left allocated (tracemalloc), measured after a full GC."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        result = build()
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return result, after - before


def ms(seconds: float) -> str:
    """Seconds as a fixed-width millisecond string."""
    return f"{seconds * 1e3:8.1f} ms"
