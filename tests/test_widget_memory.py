"""What an open widget costs beyond the graph it shows (issue 12's Decisions): tracemalloc around building a
GraphWidget on an existing 60,001-node graph (20,000 leaves x_i, ``sum(x*x)``), after ``gc.collect()``.

The bound is ~150 B per node (it was ~440 B with the JSON spec as Python lists); allocations are
deterministic enough for a bound with margin. The saved state (the widget's state as ipywidgets
serializes it: JSON plus binary buffers) is bounded too, and both are checked to scale with the graph.

Across modules on purpose (tape, spec, fold_tree, widget): the cost of a whole open widget.
"""

from __future__ import annotations

import gc
import json
import tracemalloc

import pytest
from builders import sum_of_squares
from ipywidgets.widgets.widget import _remove_buffers

from micrograd_widget.engine import Value
from micrograd_widget.graph.widget import GraphWidget

LEAVES = 20_000
MAX_BYTES_PER_NODE = 150  # issue 12: "an open widget costs at most ~150 B per node beyond the graph"
MAX_STATE_BYTES_PER_NODE = 60  # JSON + buffers: int32/float64 arrays and mostly empty label/scope/symbol lists


def widget_bytes(root: Value) -> tuple[GraphWidget, int]:
    """The widget on ``root`` and the bytes its construction left allocated (tracemalloc, after a full GC)."""
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        widget = GraphWidget(root)
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    return widget, after - before


def saved_state_bytes(widget: GraphWidget) -> tuple[int, int]:
    """(JSON bytes, buffer bytes) of the widget's synced state as ipywidgets sends and saves it (no _esm/_css)."""
    state = {k: v for k, v in widget.get_state().items() if k not in ("_esm", "_css")}
    text, _, buffers = _remove_buffers(state)
    size = len(json.dumps(text, allow_nan=False, ensure_ascii=False).encode("utf-8"))
    return size, sum(memoryview(b).nbytes for b in buffers)


@pytest.fixture(scope="module")
def measured() -> tuple[GraphWidget, int]:
    """The Decisions' widget and the bytes it costs beyond its graph (measured once for this module)."""
    GraphWidget(sum_of_squares(10)).close()  # first-use costs (imports, caches) are not the widget's
    return widget_bytes(sum_of_squares(LEAVES))


def test_an_open_widget_costs_at_most_150_bytes_per_node_beyond_the_graph(measured: tuple[GraphWidget, int]) -> None:
    widget, used = measured
    n = len(widget.tape)
    assert n == 3 * LEAVES + 1
    per_node = used / n
    assert per_node <= MAX_BYTES_PER_NODE, f"an open widget costs {per_node:.0f} B per node beyond the graph"
    assert per_node > 16, f"{per_node:.0f} B per node cannot hold even data and grad: the measurement is broken"


def test_the_cost_grows_with_the_graph_not_faster(measured: tuple[GraphWidget, int]) -> None:
    big_widget, big = measured
    small_widget, small = widget_bytes(sum_of_squares(LEAVES // 4))
    n = len(big_widget.tape)
    ratio = (big / n) / (small / len(small_widget.tape))
    assert 0.6 < ratio < 1.4, f"bytes per node changed {ratio:.2f}x from {len(small_widget.tape)} nodes to {n}"


def test_the_saved_state_is_small_and_binary(measured: tuple[GraphWidget, int]) -> None:
    widget = measured[0]
    n = len(widget.tape)
    text, buffers = saved_state_bytes(widget)
    # int32 op rows, CSR starts and inputs (2 per op node), leaves; float64 k and leaf values; int32 string
    # table indexes (symbol, label, scope: the distinct strings are JSON); the fold hierarchy's innermost group per
    # node (int32, the `folds` trait); the parameters' positions in the leaf list (int32, the `leaf_roles` trait:
    # every leaf here is labelled, so every one is a parameter). No picture: the view writes it from these
    # (js/picture/fold_tree.js).
    expected_buffers = (4 * n + 4 * (n + 1) + 4 * 2 * (2 * LEAVES) + 4 * (LEAVES + 1) + 8 * n + 8 * (LEAVES + 1)
                        + 3 * 4 * n + 4 * n + 4 * LEAVES)
    assert buffers == expected_buffers, "the spec's and the fold tree's arrays are the binary buffers"
    assert (text + buffers) / n <= MAX_STATE_BYTES_PER_NODE, f"saved state {(text + buffers) / n:.0f} B per node"
    assert text < 25 * n, "labels, scopes, symbols as JSON: a few bytes per node"


def test_a_closed_widget_lets_go_of_its_fold_hierarchy() -> None:
    """close() frees the fold hierarchy too, with the fit tables and per-box openings a front end's Expand makes
    on it: after it, the widget keeps almost nothing of what it cost (tracemalloc, after a full GC)."""
    root = sum_of_squares(LEAVES // 4)
    widget, _ = widget_bytes(root)
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        keys = list(widget._fold_tree().by_key)
        # a fit: its base tables and the box's opening are kept on the tree (the box does not fit: it says so)
        with pytest.warns(UserWarning, match="left closed"):
            widget.opened = keys[:1]
        gc.collect()
        grown = tracemalloc.get_traced_memory()[0] - before
        widget.close()
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert grown > 100_000, f"the Expand allocated only {grown:,} B: the measurement is broken"
    assert kept < grown / 10, f"closing kept {kept:,} B of the {grown:,} B the Expand allocated"
