"""freeze.py, freezing a graph into a Tape's columns: the nodes in topological order, each node's inputs in CSR
form (``starts``, ``flat``), its op row (``op_rows``) and the nodes built by hand (opaque)."""

from __future__ import annotations

import math
from array import array

from builders import tape_graph

from micrograd_widget.core.tape import Tape
from micrograd_widget.engine import Value, topological_order


def test_freezing_records_the_graph_in_topological_order() -> None:
    L, (a, _, _) = tape_graph()
    tape = Tape.from_value(L)
    order = topological_order(L)
    assert tape.values == tuple(order) and tape.root == len(tape) - 1 and tape.values[-1] is L
    assert [tape.values[i] for i in tape.leaves] == [v for v in order if not v._prev]
    for i, v in enumerate(tape.values):
        assert tape.inputs[i] == tuple(tape.index(p) for p in v._prev)
        assert tape.ops[i] is v._code and tape.symbols[i] == v._op
        assert math.isnan(tape.k[i]) if v._k is None else tape.k[i] == v._k
        assert tape.labels[i] == v.label and tape.scopes[i] == v.scope
    assert tape.index(a) == 0 and repr(tape) == f"Tape({len(tape)} nodes, {len(tape.leaves)} leaves)"
    assert isinstance(tape.data, array) and isinstance(tape.leaves, array)
    assert list(tape.ops) == [v._code for v in order]
    assert list(tape.inputs) == [tape.inputs[i] for i in range(len(tape))] and tape.inputs[-1] == tape.inputs[tape.root]


def test_a_node_with_three_inputs_is_kept_in_order_and_opaque() -> None:
    a, b, c = Value(1.0), Value(2.0), Value(3.0)
    s = Value(6.0, (a, b, c), "sum3")
    tape = Tape.from_value(s * 2.0)
    assert tape.inputs[tape.index(s)] == (0, 1, 2) and tape.opaque == (3,)
    assert list(tape.starts) == [0, 0, 0, 0, 3, 3, 5] and list(tape.flat) == [0, 1, 2, 3, 4]
