"""Tape: a frozen, flat snapshot of one graph that replays forward and backward for new leaf values.

Freezing walks the graph once (iteratively, O(n)); nodes are stored in the engine's topological
order, so a replay performs the engine's float operations in the engine's order and reproduces its
data and grads exactly. ``to_json()`` is the spec the browser replays (js/tape.js).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from operator import attrgetter
from typing import Any, Mapping, Sequence

from .engine import Value, topological_order
from .ops import OPS, Op

__all__ = ["Tape", "TapeReplayError", "SPEC_VERSION", "encode_number", "decode_number"]

SPEC_VERSION = 1


class TapeReplayError(ValueError):
    """The tape cannot replay this graph or these leaf values."""


def encode_number(x: float) -> float | str:
    """A float as JSON can carry it: non-finite values become the strings JavaScript's Number() reads."""
    if math.isfinite(x):
        return x
    return "NaN" if math.isnan(x) else ("Infinity" if x > 0 else "-Infinity")


def decode_number(x: float | int | str) -> float:
    """The inverse of ``encode_number``."""
    return float(x) if not isinstance(x, str) else {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[x]


class Tape:
    """Nodes in topological order (inputs first, root last) with, per node: its op row (``None`` for a
    leaf or for a node made outside the op table), input indices, constant, symbol, label, scope,
    and the current replayed ``data`` and ``grad``."""

    __slots__ = ("values", "ops", "inputs", "k", "symbols", "labels", "scopes", "leaves", "root",
                 "data", "grad", "_index", "_opaque", "_steps")

    def __init__(self, values: Sequence[Value]) -> None:
        """Freeze ``values``, which must be in topological order (use ``Tape.from_value(root)``)."""
        self.values: tuple[Value, ...] = tuple(values)
        if not self.values:
            raise TapeReplayError("a tape needs at least one node")
        index: dict[Value, int] = {}
        inputs: list[tuple[int, ...]] = []
        for i, v in enumerate(self.values):
            a = v._a
            try:
                if a is None:
                    ins: tuple[int, ...] = ()
                elif v._b is None:
                    ins = (index[a],)
                elif v._rest is None:
                    ins = (index[a], index[v._b])
                else:
                    ins = tuple(index[c] for c in v._prev)
            except KeyError:
                raise TapeReplayError(
                    f"node {i} uses an input that comes later or is missing: the values must be in "
                    "topological order (build the tape with Tape.from_value(root))"
                ) from None
            index[v] = i
            inputs.append(ins)
        self._index = index
        values = self.values
        self.inputs: tuple[tuple[int, ...], ...] = tuple(inputs)
        self.ops: tuple[Op | None, ...] = tuple(map(attrgetter("_code"), values))
        self.k: tuple[float | None, ...] = tuple(map(attrgetter("_k"), values))
        self.symbols: tuple[str, ...] = tuple(map(attrgetter("_op"), values))
        self.labels: tuple[str, ...] = tuple(map(attrgetter("label"), values))
        self.scopes: tuple[str, ...] = tuple(map(attrgetter("_scope"), values))
        self.leaves: tuple[int, ...] = tuple(i for i, ins in enumerate(self.inputs) if not ins)
        self.root = len(values) - 1
        self.data: list[float] = list(map(attrgetter("data"), values))
        self.grad: list[float] = list(map(attrgetter("grad"), values))
        self._opaque = tuple(i for i, (op, ins) in enumerate(zip(self.ops, self.inputs)) if op is None and ins)
        # The replay program, as parallel lists (no per-node objects for the garbage collector to
        # chase): for each op node in order, its id, forward, local_grad, input a, input b or None, constant.
        steps = [i for i, op in enumerate(self.ops) if op is not None]
        ops, ins, ks = self.ops, self.inputs, self.k
        self._steps = (
            steps,
            [ops[i].forward for i in steps],  # type: ignore[union-attr]
            [ops[i].local_grad for i in steps],  # type: ignore[union-attr]
            [ins[i][0] for i in steps],
            [ins[i][1] if ops[i].arity == 2 else None for i in steps],  # type: ignore[union-attr]
            [ks[i] for i in steps],
        )

    @classmethod
    def from_value(cls, root: Value) -> "Tape":
        """Freeze the graph that ends at ``root``."""
        if not isinstance(root, Value):
            raise TypeError(f"Tape.from_value() takes a Value, got {type(root).__name__}")
        return cls(topological_order(root))

    def __len__(self) -> int:
        return len(self.values)

    def __repr__(self) -> str:
        return f"Tape({len(self)} nodes, {len(self.leaves)} leaves)"

    def index(self, value: Value) -> int:
        """The node id of ``value`` in this tape."""
        try:
            return self._index[value]
        except (KeyError, TypeError):
            raise KeyError(f"{value!r} is not a node of this tape's graph") from None

    @property
    def opaque(self) -> tuple[int, ...]:
        """Nodes with inputs but no op-table row (built by hand, as in the lecture): not replayable."""
        return self._opaque

    def _check_replayable(self) -> None:
        """A TapeReplayError naming the first opaque node, if there is one."""
        if self._opaque:
            i = self._opaque[0]
            raise TapeReplayError(
                f"node {i} ({self.labels[i] or self.symbols[i]!r}) was built by hand outside the op table; "
                "the tape cannot replay it (make it with micrograd_widget.ops.define_op and Value.apply)"
            )

    def _leaf_vector(self, leaf_values: Sequence[float] | Mapping[int, float] | None) -> list[float]:
        """A copy of the current data with the new leaf values in place, after checking every one."""
        data = list(self.data)
        if leaf_values is None:
            return data
        if isinstance(leaf_values, Mapping):
            items = leaf_values.items()
        else:
            if len(leaf_values) != len(self.leaves):
                raise TapeReplayError(
                    f"expected {len(self.leaves)} leaf values (one per leaf, in tape.leaves order), got {len(leaf_values)}"
                )
            items = zip(self.leaves, leaf_values)
        leaf_set = set(self.leaves)
        for node, x in items:
            if node not in leaf_set:
                raise TapeReplayError(f"node {node!r} is not a leaf of this tape; leaves are {list(self.leaves)[:20]}")
            if isinstance(x, bool) or not isinstance(x, (int, float)):
                raise TapeReplayError(f"leaf {node} needs a number, got {type(x).__name__}: {x!r}")
            data[node] = float(x)
        return data

    def forward(self, leaf_values: Sequence[float] | Mapping[int, float] | None = None) -> list[float]:
        """Recompute every node's data for new leaf values (a sequence in ``leaves`` order, or a mapping
        from leaf node id to value, other leaves keeping their current value); returns and keeps the
        new data. Raises, leaving the tape as it was, on bad leaf values (TapeReplayError), when an op
        fails (its own error, e.g. ValueError for log of a negative number) or when the graph has
        opaque nodes (TapeReplayError)."""
        self._check_replayable()
        data = self._leaf_vector(leaf_values)
        nodes, forwards, _, inputs_a, inputs_b, ks = self._steps
        for i, forward, a, b, k in zip(nodes, forwards, inputs_a, inputs_b, ks):
            data[i] = forward(data[a], None if b is None else data[b], k)
        self.data = data
        return data

    def backward(self, output: int | None = None) -> list[float]:
        """Fresh grads of node ``output`` (default: the root) with respect to every node, as the
        engine computes them after ``zero_grad()``; returns and keeps them."""
        self._check_replayable()
        out = self.root if output is None else output
        if isinstance(out, bool) or not isinstance(out, int) or not 0 <= out < len(self.values):
            raise TapeReplayError(f"output must be a node id from 0 to {len(self.values) - 1}, got {output!r}")
        data = self.data
        grad = [0.0] * len(data)
        grad[out] = 1.0
        nodes, _, local_grads, inputs_a, inputs_b, ks = self._steps
        if out != self.root:  # only the op nodes up to `output` can carry its gradient
            cut = bisect_right(nodes, out)
            nodes, local_grads, inputs_a, inputs_b, ks = (x[:cut] for x in (nodes, local_grads, inputs_a, inputs_b, ks))
        for i, local_grad, a, b, k in zip(reversed(nodes), reversed(local_grads), reversed(inputs_a),
                                          reversed(inputs_b), reversed(ks)):
            g = grad[i]
            if b is None:
                grad[a] += local_grad(data[a], None, k, data[i])[0] * g
            else:
                da, db = local_grad(data[a], data[b], k, data[i])
                grad[a] += da * g
                grad[b] += db * g
        self.grad = grad
        return grad

    def write_back(self) -> None:
        """Copy the tape's data and grads into the graph's Value objects."""
        for v, d, g in zip(self.values, self.data, self.grad):
            v.data = d
            v.grad = g

    def to_json(self) -> dict[str, Any]:
        """The spec the browser replays: op rows used, per-node arrays, leaves and root.

        Non-finite numbers are encoded as the strings "NaN", "Infinity", "-Infinity".
        """
        rows: dict[int, int] = {}
        op_ids = []
        for op in self.ops:
            if op is None:
                op_ids.append(-1)
            else:
                op_ids.append(rows.setdefault(id(op), len(rows)))
        by_id = {id(op): op for op in self.ops if op is not None}
        used = sorted(rows, key=rows.__getitem__)
        builtin = {id(op) for op in OPS}
        return {
            "version": SPEC_VERSION,
            "ops": [
                {"name": by_id[r].name, "symbol": by_id[r].symbol, "arity": by_id[r].arity, "builtin": r in builtin}
                for r in used
            ],
            "op": op_ids,
            "inputs": [list(ins) for ins in self.inputs],
            "k": [None if c is None else encode_number(float(c)) for c in self.k],
            "symbol": list(self.symbols),
            "label": list(self.labels),
            "scope": list(self.scopes),
            "leaves": list(self.leaves),
            "root": self.root,
            "data": [encode_number(x) for x in self.data],
            "grad": [encode_number(x) for x in self.grad],
        }
