"""Freezing a graph into a Tape's columns, fast (tape.py builds the Tape from them).

``walk`` numbers every node's inputs in one Python loop that builds plain lists (list appends are the
fastest a per-node loop gets; typed arrays are made from the lists once); ``op_rows`` numbers the ops.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from micrograd_widget.core.ops import Op
from micrograd_widget.engine import Value

ORDER_HINT = "the values must be in topological order (build the tape with Tape.from_value(root))"


class OrderError(Exception):
    """Node ``at`` uses an input that is missing or not before it (tape.py words the TapeReplayError)."""

    def __init__(self, at: int) -> None:
        super().__init__(at)
        self.at = at


class Walk(NamedTuple):
    """What one pass over the nodes finds, as plain lists (tape.py turns them into typed arrays)."""

    starts: list[int]  # CSR: node i's inputs are flat[starts[i]:starts[i + 1]]
    flat: list[int]
    leaves: list[int]
    steps: list[int]  # the nodes a replay computes (inputs and an op row), in order
    step_ops: list[Op]  # their op rows
    inputs_a: list[int]  # their first input
    inputs_b: list[int]  # their second input, -1 for a unary op
    opaque: list[int]  # nodes with inputs but no op row (built by hand): not replayable


def walk(values: Sequence[Value]) -> Walk:
    """One loop over ``values``, which must be in topological order (OrderError names the first node that is
    not). The dict from Value to id lives only here: a kept one would cost every tape an entry per node. Lists,
    appended in the method form (``xs.append(x)``, CPython's fastest), then converted once."""
    index: dict[Value, int] = {}
    w = Walk([0], [], [], [], [], [], [], [])
    starts, flat, leaves, steps, step_ops, inputs_a, inputs_b, opaque = w
    i = 0
    try:
        for i, v in enumerate(values):
            a = v._a
            if a is None:
                leaves.append(i)
            else:
                ia = index[a]
                flat.append(ia)
                ib = -1
                b = v._b
                if b is not None:
                    ib = index[b]
                    flat.append(ib)
                    if v._rest is not None:
                        flat.extend([index[c] for c in v._rest])
                code = v._code
                if code is None:
                    opaque.append(i)
                else:
                    steps.append(i)
                    step_ops.append(code)
                    inputs_a.append(ia)
                    inputs_b.append(ib)
            index[v] = i
            starts.append(len(flat))
    except (KeyError, TypeError):  # TypeError: an input that is not a Value (and not hashable)
        raise OrderError(i) from None
    return w


def op_rows(codes: list[Op | None]) -> tuple[tuple[Op, ...], list[int]]:
    """The ops used, in order of first use (compared by identity: an Op's own hash reads all its fields), and
    each node's row among them (-1 for a leaf or a node made outside the op table)."""
    ids = list(map(id, codes))
    distinct = dict.fromkeys(ids)
    distinct.pop(id(None), None)
    table = tuple(codes[ids.index(key)] for key in distinct)
    row_of = dict(zip(distinct, range(len(distinct))))
    row_of[id(None)] = -1
    return table, list(map(row_of.__getitem__, ids))  # type: ignore[return-value]  # None ids map to -1


