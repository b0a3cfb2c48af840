"""Tape: a frozen, flat snapshot of one graph that replays forward and backward for new leaf values.

Freezing walks the graph once (iteratively, O(n); freeze.py: one loop into plain lists, typed arrays made once);
nodes are stored in the engine's topological order, so a replay performs the engine's float operations in the
engine's order and reproduces its data and grads exactly (``replay()`` runs both passes on one list of the data).
The tape is array-backed (typed arrays, no per-node Python objects beyond the graph's own): a Python list of
floats would cost four times the memory (a pointer and a float object per entry). ``spec()`` is what the browser
replays (js/core/tape.js): the same arrays as little-endian binary buffers.
"""

from __future__ import annotations

import math
import reprlib
import weakref
from array import array
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from itertools import islice, repeat
from typing import Any, TypeAlias, cast, overload

from micrograd_widget.core import freeze
from micrograd_widget.core.ops import OPS, Op
from micrograd_widget.core.spec import json_safe, spec_to_json, string_table, to_buffer
from micrograd_widget.engine import Value, topological_order

__all__ = ["SPEC_VERSION", "Tape", "TapeReplayError"]

SPEC_VERSION = 2
_BUILTIN = frozenset(map(id, OPS))
_READS_BEFORE_TUPLES = 32  # tape.inputs reads one by one this often before it makes a list of tuples
_LOOKUPS_BEFORE_INDEX = 8  # index() scans this many times before it keeps a dict (an entry per node) for speed


class TapeReplayError(ValueError):
    """The tape cannot replay this graph or these leaf values."""


class _Tuples(list[tuple[int, ...]]):
    """Every node's inputs as tuples: a plain list that the tape can refer to weakly."""

    __slots__ = ("__weakref__",)


class _Inputs(Sequence[tuple[int, ...]]):
    """``tape.inputs[i]``: node i's input ids as a tuple, read from the tape's CSR arrays. A view that is
    read many times (a loop over the graph) turns into a list of tuples after a few reads, so loops run at
    list speed; views alive at the same time share that list, and it goes when the last of them does (the
    tape keeps only a weak reference: its own memory stays the arrays)."""

    __slots__ = ("_reads", "_tape", "_tuples")

    def __init__(self, tape: Tape) -> None:
        self._tape = tape
        self._reads = 0
        self._tuples: _Tuples | None = tape._tuples() if tape._tuples is not None else None

    def __len__(self) -> int:
        return len(self._tape.starts) - 1

    @overload
    def __getitem__(self, i: int) -> tuple[int, ...]: ...
    @overload
    def __getitem__(self, i: slice) -> list[tuple[int, ...]]: ...

    def __getitem__(self, i: int | slice) -> tuple[int, ...] | list[tuple[int, ...]]:
        tuples = self._tuples
        if tuples is None:
            self._reads += 1
            if self._reads <= _READS_BEFORE_TUPLES and not isinstance(i, slice):
                s = self._tape.starts
                if i < 0:
                    i += len(s) - 1
                return tuple(self._tape.flat[s[i]:s[i + 1]])
            tuples = self._as_tuples()
        return tuples[i]

    def __iter__(self) -> Iterator[tuple[int, ...]]:
        return iter(self._tuples if self._tuples is not None else self._as_tuples())

    def _as_tuples(self) -> _Tuples:
        """Every node's inputs as a list of tuples, made once for all the views alive at the same time."""
        tape = self._tape
        tuples = tape._tuples() if tape._tuples is not None else None
        if tuples is None:
            s, flat = tape.starts.tolist(), tuple(tape.flat)     # a slice of a tuple is a tuple, made once
            tuples = _Tuples([flat[a:b] for a, b in zip(s, islice(s, 1, None))])
            tape._tuples = weakref.ref(tuples)
        self._tuples = tuples
        return tuples


class _Ops(Sequence["Op | None"]):
    """``tape.ops[i]``: node i's op-table row, or None for a leaf or a node made outside the op table."""

    __slots__ = ("_rows", "_table")

    def __init__(self, rows: array[int], table: tuple[Op, ...]) -> None:
        self._rows = rows
        self._table: tuple[Op | None, ...] = (*table, None)  # row -1 reads the trailing None

    def __len__(self) -> int:
        return len(self._rows)

    @overload
    def __getitem__(self, i: int) -> Op | None: ...
    @overload
    def __getitem__(self, i: slice) -> list[Op | None]: ...

    def __getitem__(self, i: int | slice) -> Op | list[Op | None] | None:
        if isinstance(i, slice):
            return [self._table[r] for r in self._rows[i]]
        return self._table[self._rows[i]]

    def __iter__(self) -> Iterator[Op | None]:
        return map(self._table.__getitem__, self._rows)


class Tape:
    """Nodes in topological order (inputs first, root last). Per node, as arrays: ``rows`` (its row in
    ``op_table``, -1 for a leaf or a node made outside the op table), inputs in CSR form (``starts``,
    ``flat``: node i's inputs are ``flat[starts[i]:starts[i + 1]]``; ``inputs[i]`` gives them as a tuple),
    ``k`` (the op's constant, NaN where none), and the replayed ``data`` and ``grad`` (``array('d')``:
    indexable, iterable, ``len()``, but not lists); as tuples of the Values' own strings: ``symbols``,
    ``labels``, ``scopes``. ``leaves`` is an ``array('i')`` of node ids."""

    __slots__ = ("values", "op_table", "rows", "starts", "flat", "k", "symbols", "labels", "scopes", "leaves",
                 "root", "data", "grad", "_consts", "_index", "_lookups", "_opaque", "_program", "_tuples")

    def __init__(self, values: Sequence[Value]) -> None:
        """Freeze ``values``, which must be in topological order (use ``Tape.from_value(root)``)."""
        self.values: tuple[Value, ...] = tuple(values)
        values = self.values
        n = len(values)
        if not n:
            raise TapeReplayError("a tape needs at least one node")
        try:
            w = freeze.walk(values)
        except freeze.OrderError as err:
            raise TapeReplayError(f"node {err.at} uses an input that comes later or is missing: "
                                  f"{freeze.ORDER_HINT}") from None
        self.starts, self.flat, self.leaves = array("i", w.starts), array("i", w.flat), array("i", w.leaves)
        self._opaque = tuple(w.opaque)
        # Every other column: one comprehension per column (the Values' slots read fastest there), then an array.
        self.op_table, rows = freeze.op_rows([v._code for v in values])
        self.rows = array("i", rows)
        del rows
        ks = [v._k for v in values]
        self._consts: dict[int, float] = {} if ks.count(None) == n else {
            i: k for i, k in enumerate(ks) if k is not None}
        del ks
        self.k = array("d", [math.nan]) * n
        for i, c in self._consts.items():
            self.k[i] = c
        self.symbols: tuple[str, ...] = tuple([v._op for v in values])
        self.labels: tuple[str, ...] = tuple([v._label for v in values])
        self.scopes: tuple[str, ...] = tuple([v._scope for v in values])
        self.root = n - 1
        self.data = self._numbers([v.data for v in values], "data")
        self.grad = self._numbers([v.grad for v in values], "grad")
        self._index: dict[Value, int] | None = None
        self._lookups = 0
        self._tuples: weakref.ref[_Tuples] | None = None
        self._program = (array("i", w.steps), [op.forward for op in w.step_ops],
                         [op.local_grad for op in w.step_ops], array("i", w.inputs_a), array("i", w.inputs_b))

    def _numbers(self, column: list[float], what: str) -> array[float]:
        """Every node's ``data`` or ``grad`` as an array; a TypeError naming the first node whose is not a number."""
        try:
            return array("d", column)
        except TypeError:
            pass
        for i, x in enumerate(column):
            try:
                array("d", [x])
            except TypeError:
                raise TypeError(f"node {i} ({self._name(i)}) has .{what} = {reprlib.repr(x)}, a {type(x).__name__}: "
                                f"a Value's {what} must be a real number; set it to a float") from None
        raise AssertionError("unreachable: array('d') refused a column of numbers")

    def _name(self, i: int) -> str:
        """How messages name node ``i``: its label, else its op symbol, else 'a leaf'."""
        return repr(self.labels[i] or self.symbols[i]) if self.labels[i] or self.symbols[i] else "a leaf"

    @classmethod
    def from_value(cls, root: Value) -> Tape:
        """Freeze the graph that ends at ``root``."""
        if not isinstance(root, Value):
            raise TypeError(f"Tape.from_value() takes a Value, got {type(root).__name__}")
        return cls(topological_order(root))

    def __len__(self) -> int:
        return len(self.values)

    def __repr__(self) -> str:
        return f"Tape({len(self)} nodes, {len(self.leaves)} leaves)"

    @property
    def inputs(self) -> Sequence[tuple[int, ...]]:
        """Per node, its input ids as a tuple (a view of ``starts``/``flat``; fast loops can read those). While a
        list of them is alive (``shared_inputs``), that list itself: indexed in C, not through a view's method."""
        tuples = self._tuples() if self._tuples is not None else None
        return _Inputs(self) if tuples is None else tuples

    @contextmanager
    def shared_inputs(self) -> Iterator[list[tuple[int, ...]]]:
        """Within the block, ``inputs`` is one list of tuples, made once: for passes that read the inputs of every
        node many times (folding); the list goes after the block."""
        held = _Inputs(self)._as_tuples()
        yield held

    @property
    def ops(self) -> _Ops:
        """Per node, its op-table row (an ``Op``), or None for a leaf or a node made outside the op table."""
        return _Ops(self.rows, self.op_table)

    def index(self, value: Value) -> int:
        """The node id of ``value`` in this tape. The first few calls scan the tape; after that a dict
        (an entry per node) is kept, so that many look-ups stay fast without every tape paying for it."""
        if self._index is None:
            self._lookups += 1
            if self._lookups > _LOOKUPS_BEFORE_INDEX:
                self._index = dict(zip(self.values, range(len(self.values))))
        try:
            if self._index is not None:
                return self._index[value]
            if isinstance(value, Value):
                return self.values.index(value)
        except (KeyError, TypeError, ValueError):
            pass
        raise KeyError(f"{value!r} is not a node of this tape's graph")

    @property
    def opaque(self) -> tuple[int, ...]:
        """Nodes with inputs but no op-table row (built by hand, as in the lecture): not replayable."""
        return self._opaque

    def _check_replayable(self) -> None:
        """A TapeReplayError naming the first opaque node, if there is one."""
        if self._opaque:
            i = self._opaque[0]
            raise TapeReplayError(
                f"node {i} ({self._name(i)}) was built by hand outside the op table; "
                "the tape cannot replay it (make it with micrograd_widget.core.ops.define_op and Value.apply)"
            )

    def _leaf_vector(self, leaf_values: Sequence[float] | Mapping[int, float] | None) -> list[float | None]:
        """The replay's starting data, after checking every new leaf value: the leaves' values (new, or current
        where not given), 0.0 at every op node (a replay writes each before reading it: without opaque nodes
        every node is a leaf or a step) and a None after the last node (``data[-1]``: a unary op's b)."""
        leaves, current = self.leaves, self.data
        data: list[float | None] = [0.0] * len(current)
        data.append(None)
        if isinstance(leaf_values, Mapping) or leaf_values is None:
            for i in leaves:
                data[i] = current[i]
            if leaf_values is None:
                return data
            items = leaf_values.items()
        else:
            if len(leaf_values) != len(leaves):
                raise TapeReplayError(
                    f"expected {len(leaves)} leaf values (one per leaf, in tape.leaves order), got {len(leaf_values)}")
            items = zip(leaves, leaf_values)  # type: ignore[assignment]  # same pairs as a mapping's items
        leaf_set = set(leaves)
        for node, x in items:
            if node not in leaf_set:
                raise TapeReplayError(f"node {node!r} is not a leaf of this tape; leaves are {list(leaves)[:20]}")
            if isinstance(x, bool) or not isinstance(x, (int, float)):
                raise TapeReplayError(f"leaf {node} needs a number, got {type(x).__name__}: {x!r}")
            data[node] = float(x)
        return data

    def _output(self, output: int | None) -> int:
        """``output`` checked as a node id (the root when None)."""
        out = self.root if output is None else output
        if isinstance(out, bool) or not isinstance(out, int) or not 0 <= out < len(self.values):
            raise TapeReplayError(f"output must be a node id from 0 to {len(self.values) - 1}, got {output!r}")
        return out

    def forward(self, leaf_values: Sequence[float] | Mapping[int, float] | None = None) -> array[float]:
        """Recompute every node's data for new leaf values (a sequence in ``leaves`` order, or a mapping
        from leaf node id to value, other leaves keeping their current value); returns and keeps the
        new data (a new ``array('d')``). Raises, leaving the tape as it was, on bad leaf values
        (TapeReplayError), when an op fails (its own error, e.g. ValueError for log of a negative
        number) or when the graph has opaque nodes (TapeReplayError)."""
        self._check_replayable()
        data = self._leaf_vector(leaf_values)
        _run_forward(self._program, self._consts, data)
        data.pop()
        self.data = array("d", data)  # type: ignore[arg-type]  # every entry is a number again
        return self.data

    def backward(self, output: int | None = None) -> array[float]:
        """Fresh grads of node ``output`` (default: the root) with respect to every node, as the
        engine computes them after ``zero_grad()``; returns and keeps them (a new ``array('d')``)."""
        self._check_replayable()
        out = self._output(output)
        self.grad = array("d", _run_backward(self._program, self._consts, self.data.tolist(), out, self.root))
        return self.grad

    def replay(self, leaf_values: Sequence[float] | Mapping[int, float] | None = None, output: int | None = None,
               write_back: bool = False) -> Callable[[], None]:
        """``forward(leaf_values)`` then ``backward(output)`` (then ``write_back()`` if asked), sharing one list of
        the data between them; all or nothing: on any error, a KeyboardInterrupt included, the tape (and the
        Values) stay as they were. Returns a function that puts them back as they were before the replay."""
        self._check_replayable()
        out = self._output(output)
        vector = self._leaf_vector(leaf_values)
        _run_forward(self._program, self._consts, vector)
        vector.pop()
        data = cast("list[float]", vector)  # every entry a number: the None went with pop()
        grad = _run_backward(self._program, self._consts, data, out, self.root)
        new = array("d", data), array("d", grad)
        undo = self.undo_point(values=write_back)
        try:
            self.data, self.grad = new
            if write_back:
                _write(self.values, data, grad)
        except BaseException:
            undo()
            raise
        return undo

    def write_back(self) -> Callable[[], None]:
        """Copy the tape's data and grads into the graph's Value objects, all or nothing (a KeyboardInterrupt
        midway puts back every Value written); returns a function that puts them back as they were before."""
        undo = self.undo_point()
        try:
            _write(self.values, self.data, self.grad)
        except BaseException:
            undo()
            raise
        return undo

    def undo_point(self, values: bool = True) -> Callable[[], None]:
        """A function that puts the tape's numbers (and, with ``values``, the Values' data and grad) back as they
        are now: what makes a replay or a write-back all or nothing."""
        kept = self.data[:], self.grad[:]
        nodes = self.values if values else ()
        data, grad = [v.data for v in nodes], [v.grad for v in nodes]  # comprehensions read slots fastest

        def undo() -> None:
            self.data, self.grad = kept
            _write(nodes, data, grad)

        return undo

    def spec(self) -> dict[str, Any]:
        """What the browser replays (js/core/spec.js ``compileTape``; js/host/spec-contract.md), version 2.

        ``ops``: the op rows used (name, symbol, arity, builtin); per node, as little-endian binary
        buffers (shared with the tape, not copied): ``op`` (Int32 row, -1 for none), ``input_start``
        (Int32, n + 1) and ``inputs`` (Int32, CSR), ``k`` (Float64, NaN where none); ``leaves`` (Int32),
        ``leaf_data`` (Float64: the leaves' data, in ``leaves`` order), ``root``, ``n``; and the Values' own
        strings (made JSON-safe) ``symbol``, ``label``, ``scope``, each as a string table (``string_table``:
        the distinct strings as JSON, an Int32 index per node; js/core/spec.js also reads a plain list of n strings).
        Grads and inner data are not in the spec: the browser replays them, or the kernel sends them.
        """
        # The JSON parts first, then the buffers: ipywidgets sends the buffers apart and puts them back last.
        return {
            "version": SPEC_VERSION,
            "n": len(self.values),
            "root": self.root,
            "ops": [{"name": json_safe(op.name), "symbol": json_safe(op.symbol), "arity": op.arity,
                     "builtin": id(op) in _BUILTIN} for op in self.op_table],
            "symbol": string_table(self.symbols),
            "label": string_table(self.labels),
            "scope": string_table(self.scopes),
            "op": to_buffer(self.rows),
            "input_start": to_buffer(self.starts),
            "inputs": to_buffer(self.flat),
            "k": to_buffer(self.k),
            "leaves": to_buffer(self.leaves),
            "leaf_data": to_buffer(array("d", map(self.data.__getitem__, self.leaves))),
        }

    def to_json(self) -> dict[str, Any]:
        """``spec()`` as plain JSON (``spec.spec_to_json``: buffers as number lists, string tables as lists), for
        files, other tools and the shared vectors (js/host/spec-contract.md, "The JSON form")."""
        return spec_to_json(self.spec())

    @property
    def builtin_only(self) -> bool:
        """True when every op of the graph is a built-in row (the browser can replay it unless opaque)."""
        return all(id(op) in _BUILTIN for op in self.op_table)


# The replay program: per op node in tape order, its id, forward, local_grad, first and second input (-1: none).
_Program: TypeAlias = "tuple[array[int], list[Any], list[Any], array[int], array[int]]"


def _write(values: Sequence[Value], data: Iterable[float], grad: Iterable[float]) -> None:
    """Each Value's data and grad set from ``data`` and ``grad`` (in the same order)."""
    for v, d, g in zip(values, data, grad):
        v.data = d
        v.grad = g


def _run_forward(program: _Program, consts: dict[int, float], data: list[float | None]) -> None:
    """Every op node's data in tape order, written into ``data`` (its leaves set, a None at ``data[-1]``)."""
    steps, forwards, _, inputs_a, inputs_b = program
    if consts:
        for i, forward, a, b, k in zip(steps, forwards, inputs_a, inputs_b, map(consts.get, steps)):
            data[i] = forward(data[a], data[b], k)
    else:  # the same loop without a constant to look up (most graphs have no x**k)
        for i, forward, a, b in zip(steps, forwards, inputs_a, inputs_b):
            data[i] = forward(data[a], data[b], None)


def _run_backward(program: _Program, consts: dict[int, float], data: list[float], out: int, root: int) -> list[float]:
    """Fresh grads of node ``out`` for every node, accumulated in the engine's order (reverse tape order)."""
    grad = [0.0] * len(data)
    grad[out] = 1.0
    steps, _, local_grads, inputs_a, inputs_b = program
    if out != root:  # only the op nodes up to `out` can carry its gradient
        cut = bisect_right(steps, out)
        steps, local_grads, inputs_a, inputs_b = steps[:cut], local_grads[:cut], inputs_a[:cut], inputs_b[:cut]
    ks = map(consts.get, reversed(steps)) if consts else repeat(None)
    for i, local_grad, a, b, k in zip(reversed(steps), reversed(local_grads), reversed(inputs_a), reversed(inputs_b),
                                      ks):
        g = grad[i]
        if b < 0:
            grad[a] += local_grad(data[a], None, k, data[i])[0] * g
        else:
            da, db = local_grad(data[a], data[b], k, data[i])
            grad[a] += da * g
            grad[b] += db * g
    return grad
