"""What a frozen tape holds beyond its graph (tracemalloc, after ``gc.collect()``), so that speed work keeps the
typed arrays (issue 12): data, grad, k (8 B each), rows, CSR inputs, the replay program (4 B each), the Values
and their strings referenced (8 B each), its forward and backward lists (8 B per op node) ~ 90 B per node.
A program kept as Python lists of ints would add ~40 B per node.

Apart from test_tape.py on purpose: tracemalloc bounds, kept out of the fast behaviour tests."""

from __future__ import annotations

import gc
import tracemalloc

from builders import sum_of_squares

from micrograd_widget.core.tape import Tape
from micrograd_widget.engine import Value

LEAVES = 20_000
MAX_BYTES_PER_NODE = 100


def tape_bytes(root: Value) -> tuple[Tape, int]:
    """The replayed tape of ``root`` and the bytes it left allocated."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tape = Tape.from_value(root)
        tape.replay()
        tape.forward()
        tape.backward()
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return tape, after - before


def test_a_replayed_tape_holds_at_most_100_bytes_per_node_beyond_its_graph() -> None:
    Tape.from_value(sum_of_squares(10)).replay()  # first-use costs are not the tape's
    tape, used = tape_bytes(sum_of_squares(LEAVES))
    assert len(tape) == 3 * LEAVES + 1
    per_node = used / len(tape)
    assert 40 < per_node <= MAX_BYTES_PER_NODE, f"a tape holds {per_node:.0f} B per node beyond its graph"
