"""Value: a scalar autograd engine, micrograd-compatible, with no recursion and no per-node closures.

Each op's forward and local derivative live side by side in the op table (ops.py); a node only
records which row made it (``_code``), its inputs in order (``_prev``) and the row's constant
(``_k``, the exponent of ``x**k``). ``backward()`` walks the graph iteratively, so a chain of a
million nodes backpropagates, and no node holds a reference cycle, so the garbage collector has
nothing to chase.
"""

from __future__ import annotations

import numbers
from contextlib import contextmanager
from typing import Callable, Iterator

from .ops import OPS_BY_NAME, Op, op_symbol

__all__ = ["Value", "topological_order", "scope", "current_scope"]

_ADD, _SUB, _MUL, _DIV = (OPS_BY_NAME[n] for n in ("add", "sub", "mul", "div"))
_NEG, _POW, _POWV = OPS_BY_NAME["neg"], OPS_BY_NAME["pow"], OPS_BY_NAME["powv"]
_EXP, _LOG, _TANH = OPS_BY_NAME["exp"], OPS_BY_NAME["log"], OPS_BY_NAME["tanh"]
_RELU, _SIGMOID = OPS_BY_NAME["relu"], OPS_BY_NAME["sigmoid"]

_current_scope = ""


@contextmanager
def scope(name: str) -> Iterator[str]:
    """Tag every node created inside the block with ``name`` (nested blocks join with '.')."""
    global _current_scope
    outer = _current_scope
    _current_scope = f"{outer}.{name}" if outer and name else (name or outer)
    try:
        yield _current_scope
    finally:
        _current_scope = outer


def current_scope() -> str:
    """The scope new nodes are tagged with ('' outside any ``scope`` block)."""
    return _current_scope


def _check_number(data: object) -> float:
    if type(data) is float:
        return data
    if isinstance(data, Value):
        raise TypeError(
            f"Value() takes a number, got a Value ({data!r}); use that Value directly or pass its .data"
        )
    if isinstance(data, numbers.Real):
        return float(data)
    raise TypeError(f"Value() takes a real number (int or float), got {type(data).__name__}: {data!r}")


class Value:
    """A scalar node of a computational graph: its ``data``, the ``grad`` of a root with respect to it,
    the ``_prev`` inputs that made it, the ``_op`` that made it and a ``label`` for display."""

    __slots__ = ("data", "grad", "_prev", "_op", "label", "_code", "_k", "_scope", "_user_backward", "__weakref__")

    def __init__(self, data: float, _children: tuple = (), _op: str = "", label: str = "") -> None:
        self.data = _check_number(data)
        self.grad = 0.0
        self._prev = tuple(_children)
        for child in self._prev:
            if not isinstance(child, Value):
                raise TypeError(f"Value(_children=...) must hold Values, got {type(child).__name__}: {child!r}")
        self._op = str(_op)
        self.label = str(label)
        self._code: Op | None = None
        self._k: float | None = None
        self._scope = _current_scope
        self._user_backward: Callable[[], None] | None = None

    @classmethod
    def _from_op(cls, code: Op, children: tuple, k: float | None = None) -> "Value":
        """The engine's own constructor: run the op table's forward and record the op."""
        out = object.__new__(cls)
        a = children[0].data
        out.data = code.forward(a, children[1].data if code.arity == 2 else None, k)
        out.grad = 0.0
        out._prev = children
        out._op = op_symbol(code, k) if k is not None else code.symbol
        out.label = ""
        out._code = code
        out._k = k
        out._scope = _current_scope
        out._user_backward = None
        return out

    # ---- the ops: each is one node, named by what the user wrote ----

    def __add__(self, other: "Value | float") -> "Value":
        other = _as_value(other)
        return NotImplemented if other is None else Value._from_op(_ADD, (self, other))

    def __radd__(self, other: float) -> "Value":
        other = _as_value(other)
        return NotImplemented if other is None else Value._from_op(_ADD, (other, self))

    def __sub__(self, other: "Value | float") -> "Value":
        other = _as_value(other)
        return NotImplemented if other is None else Value._from_op(_SUB, (self, other))

    def __rsub__(self, other: float) -> "Value":
        other = _as_value(other)
        return NotImplemented if other is None else Value._from_op(_SUB, (other, self))

    def __mul__(self, other: "Value | float") -> "Value":
        other = _as_value(other)
        return NotImplemented if other is None else Value._from_op(_MUL, (self, other))

    def __rmul__(self, other: float) -> "Value":
        other = _as_value(other)
        return NotImplemented if other is None else Value._from_op(_MUL, (other, self))

    def __truediv__(self, other: "Value | float") -> "Value":
        other = _as_value(other)
        return NotImplemented if other is None else Value._from_op(_DIV, (self, other))

    def __rtruediv__(self, other: float) -> "Value":
        other = _as_value(other)
        return NotImplemented if other is None else Value._from_op(_DIV, (other, self))

    def __neg__(self) -> "Value":
        return Value._from_op(_NEG, (self,))

    def __pos__(self) -> "Value":
        return self

    def __pow__(self, other: "Value | float") -> "Value":
        if isinstance(other, Value):
            return Value._from_op(_POWV, (self, other))
        if isinstance(other, numbers.Real):
            return Value._from_op(_POW, (self,), other if isinstance(other, (int, float)) else float(other))
        return NotImplemented

    def __rpow__(self, other: float) -> "Value":
        other = _as_value(other)
        return NotImplemented if other is None else Value._from_op(_POWV, (other, self))

    def exp(self) -> "Value":
        return Value._from_op(_EXP, (self,))

    def log(self) -> "Value":
        return Value._from_op(_LOG, (self,))

    def tanh(self) -> "Value":
        return Value._from_op(_TANH, (self,))

    def relu(self) -> "Value":
        return Value._from_op(_RELU, (self,))

    def sigmoid(self) -> "Value":
        return Value._from_op(_SIGMOID, (self,))

    @staticmethod
    def apply(op: Op, *inputs: "Value | float") -> "Value":
        """One node of ``op`` (a row from ``ops.define_op``) on ``inputs``."""
        if not isinstance(op, Op):
            raise TypeError(f"Value.apply takes an op from micrograd_widget.ops.define_op, got {type(op).__name__}")
        if len(inputs) != op.arity:
            raise TypeError(f"op {op.name!r} takes {op.arity} input(s), got {len(inputs)}")
        values = tuple(_as_value(x) for x in inputs)
        for x, v in zip(inputs, values):
            if v is None:
                raise TypeError(f"op {op.name!r} takes Values or numbers, got {type(x).__name__}: {x!r}")
        return Value._from_op(op, values)  # type: ignore[arg-type]

    # ---- backpropagation ----

    def backward(self, grad: float = 1.0) -> None:
        """Add d(self)/d(node) * ``grad`` to every node's ``.grad`` in this graph, self included.

        Gradients accumulate, as in micrograd and PyTorch: calling it twice doubles every grad.
        Call ``zero_grad()`` (on this root or on a Module) first for a fresh pass.
        """
        topo = topological_order(self)
        earlier = [v.grad for v in topo]
        for v in topo:
            v.grad = 0.0
        self.grad = float(grad)
        for v in reversed(topo):
            code = v._code
            if code is None:
                if v._user_backward is not None:
                    v._user_backward()
                continue
            g = v.grad
            if code.arity == 2:
                a, b = v._prev
                da, db = code.local_grad(a.data, b.data, v._k, v.data)
                a.grad += da * g
                b.grad += db * g
            else:
                a = v._prev[0]
                a.grad += code.local_grad(a.data, None, v._k, v.data)[0] * g
        if any(earlier):
            for v, before in zip(topo, earlier):
                v.grad += before

    def zero_grad(self) -> None:
        """Set ``grad`` to 0 on every node of the graph that ends here."""
        for v in topological_order(self):
            v.grad = 0.0

    def _local_backward(self) -> None:
        """Push this node's grad one step to its inputs (the lecture's manual ``o._backward()``)."""
        code = self._code
        if code is None:
            return
        inputs = self._prev
        grads = code.local_grad(inputs[0].data, inputs[1].data if code.arity == 2 else None, self._k, self.data)
        for child, d in zip(inputs, grads):
            child.grad += d * self.grad

    @property
    def _backward(self) -> Callable[[], None]:
        """This node's chain-rule step, callable by hand as in the lecture; assignable for custom ops."""
        return self._user_backward if self._user_backward is not None else self._local_backward

    @_backward.setter
    def _backward(self, fn: Callable[[], None]) -> None:
        if not callable(fn):
            raise TypeError(f"_backward must be callable, got {type(fn).__name__}")
        self._user_backward = fn

    @property
    def scope(self) -> str:
        """The module path this node was created in (e.g. 'layers.0.neurons.3'), '' outside any module."""
        return self._scope

    def __repr__(self) -> str:
        return f"Value(data={self.data}, grad={self.grad})"


def _as_value(x: object) -> Value | None:
    """``x`` as a Value: a number becomes a new leaf (as in micrograd); anything else is None."""
    if isinstance(x, Value):
        return x
    if isinstance(x, (int, float)) or isinstance(x, numbers.Real):
        return Value(x)
    return None


def topological_order(root: Value) -> list[Value]:
    """Every node reachable from ``root``, inputs before the nodes that use them, root last.

    Iterative depth-first post-order visiting inputs in order, so the order is the same on every run.
    A node is pushed once to expand it and popped a second time, after its inputs, to emit it.
    """
    topo: list[Value] = []
    expanded: set[Value] = set()
    emitted: set[Value] = set()
    stack = [root]
    push, pop, emit = stack.append, stack.pop, topo.append
    expand, done = expanded.add, emitted.add
    while stack:
        v = pop()
        if v in emitted:
            continue
        if v in expanded:
            done(v)
            emit(v)
            continue
        expand(v)
        push(v)
        prev = v._prev
        for i in range(len(prev) - 1, -1, -1):
            if prev[i] not in expanded:
                push(prev[i])
    return topo
