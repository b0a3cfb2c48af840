"""Value: a scalar autograd engine, micrograd-compatible, with no recursion and no per-node closures.

Each op's forward and local derivative live side by side in the op table (ops.py); a node only
records which row made it (``_code``), its inputs in order (``_a``, ``_b``, read together as
``_prev``) and the row's constant (``_k``, the exponent of ``x**k``). ``backward()`` walks the graph
iteratively, so a chain of a million nodes backpropagates, and no node holds a reference cycle, so
the garbage collector has little to chase: one tracked object per node.
"""

from __future__ import annotations

import numbers
import weakref
from array import array
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NoReturn

from micrograd_widget.core.ops import OPS_BY_NAME, Op, op_symbol
from micrograd_widget.picture.text import plural, short

__all__ = ["Value", "topological_order", "scope", "current_scope"]

_ADD, _SUB, _MUL, _DIV = (OPS_BY_NAME[n] for n in ("add", "sub", "mul", "div"))
_NEG, _POW, _POWV = OPS_BY_NAME["neg"], OPS_BY_NAME["pow"], OPS_BY_NAME["powv"]
_EXP, _LOG, _TANH = OPS_BY_NAME["exp"], OPS_BY_NAME["log"], OPS_BY_NAME["tanh"]
_RELU, _SIGMOID = OPS_BY_NAME["relu"], OPS_BY_NAME["sigmoid"]
# The table's forwards, bound once: the hot binary ops call them without an attribute lookup.
_add, _sub, _mul, _div = _ADD.forward, _SUB.forward, _MUL.forward, _DIV.forward

_current_scope = ""


class scope:
    """Tag every node created inside ``with scope(name):`` with ``name`` (nested blocks join with '.').

    A small class rather than a generator so that entering a module's scope costs little per call.
    """

    __slots__ = ("name", "_outer")

    def __init__(self, name: str) -> None:
        if not isinstance(name, str):
            raise TypeError(f"scope() takes a str such as 'layers.0', got {type(name).__name__}: {name!r}")
        self.name = name
        self._outer: list[str] = []  # a stack, so one scope object can be entered again inside itself

    def __enter__(self) -> str:
        global _current_scope
        outer = _current_scope
        self._outer.append(outer)
        name = self.name
        _current_scope = f"{outer}.{name}" if outer and name else (name or outer)
        return _current_scope

    def __exit__(self, *exc: object) -> None:
        global _current_scope
        _current_scope = self._outer.pop()


def current_scope() -> str:
    """The scope new nodes are tagged with ('' outside any ``scope`` block)."""
    return _current_scope


def _check_number(data: object, who: str = "Value()") -> float:
    """``data`` as a float, or a TypeError that says what was passed and what to pass instead."""
    if type(data) is float:
        return data
    if isinstance(data, Value):
        raise TypeError(f"{who} takes a number, got a Value ({data!r}); use that Value directly or pass its .data")
    if isinstance(data, numbers.Real):
        return float(data)
    raise TypeError(f"{who} takes a real number (int or float), got {type(data).__name__}: {data!r}")


def _as_label(label: object) -> str:
    """A label as the engine keeps it: a plain str (the picture, the search and the saved page show it as text, and
    the tape looks leaves up by it); anything else is shown as its ``str()``, as the lecture's ``"%s" % label`` did."""
    return label if type(label) is str else str(label)


_new = object.__new__
_POW_SYMBOLS: dict[tuple[type, float], str] = {}


def _pow_symbol(k: float) -> str:
    """``'**2'`` for ``x**2``, shared between nodes (one string per distinct exponent, up to 256)."""
    key = (type(k), k)
    sym = _POW_SYMBOLS.get(key)
    if sym is None:
        sym = op_symbol(_POW, k)
        if len(_POW_SYMBOLS) < 256:
            _POW_SYMBOLS[key] = sym
    return sym


class Value:
    """A scalar node of a computational graph: its ``data``, the ``grad`` of a root with respect to it,
    the ``_prev`` inputs that made it, the ``_op`` that made it and a ``label`` for display."""

    # _a, _b: the first two inputs (None when absent); _rest: inputs beyond two, only for nodes built
    # by hand with Value(x, (p, q, r, ...)). One slot each instead of a tuple keeps a node to a
    # single object for the garbage collector.
    __slots__ = ("data", "grad", "_a", "_b", "_rest", "_op", "_label", "_code", "_k", "_scope",
                 "_user_backward", "__weakref__")

    def __init__(self, data: float, _children: Iterable[Value] = (), _op: str = "", label: str = "") -> None:
        data = _check_number(data)
        children = tuple(_children)
        for child in children:
            if not isinstance(child, Value):
                raise TypeError(f"Value(_children=...) must hold Values, got {type(child).__name__}: {child!r}")
        self.data = data
        self.grad = 0.0
        n = len(children)
        self._a = children[0] if n > 0 else None
        self._b = children[1] if n > 1 else None
        self._rest = children[2:] if n > 2 else None
        self._op = str(_op)
        self._label = _as_label(label)
        self._code: Op | None = None
        self._k: float | None = None
        self._scope = _current_scope
        self._user_backward: Callable[[], None] | None = None

    @property
    def _prev(self) -> tuple[Value, ...]:
        """The inputs that made this node, in order (a+a lists ``a`` twice)."""
        a = self._a
        if a is None:
            return ()
        b = self._b
        if b is None:
            return (a,)
        rest = self._rest
        return (a, b) if rest is None else (a, b, *rest)

    # ---- the ops: each is one node, named by what the user wrote ----

    def __add__(self, other: Value | float) -> Value:
        if type(other) is not Value:
            o = _as_value(other)
            if o is None:
                return NotImplemented
            other = o
        return _node(_add(self.data, other.data, None), self, other, _ADD, "+")

    def __radd__(self, other: float) -> Value:
        o = _as_value(other)
        if o is None:
            return NotImplemented
        return _node(_add(o.data, self.data, None), o, self, _ADD, "+")

    def __sub__(self, other: Value | float) -> Value:
        if type(other) is not Value:
            o = _as_value(other)
            if o is None:
                return NotImplemented
            other = o
        return _node(_sub(self.data, other.data, None), self, other, _SUB, "-")

    def __rsub__(self, other: float) -> Value:
        o = _as_value(other)
        if o is None:
            return NotImplemented
        return _node(_sub(o.data, self.data, None), o, self, _SUB, "-")

    def __mul__(self, other: Value | float) -> Value:
        if type(other) is not Value:
            o = _as_value(other)
            if o is None:
                return NotImplemented
            other = o
        return _node(_mul(self.data, other.data, None), self, other, _MUL, "*")

    def __rmul__(self, other: float) -> Value:
        o = _as_value(other)
        if o is None:
            return NotImplemented
        return _node(_mul(o.data, self.data, None), o, self, _MUL, "*")

    def __truediv__(self, other: Value | float) -> Value:
        if type(other) is not Value:
            o = _as_value(other)
            if o is None:
                return NotImplemented
            other = o
        return _node(_div(self.data, other.data, None), self, other, _DIV, "/")

    def __rtruediv__(self, other: float) -> Value:
        o = _as_value(other)
        if o is None:
            return NotImplemented
        return _node(_div(o.data, self.data, None), o, self, _DIV, "/")

    def __neg__(self) -> Value:
        return _unary(_NEG, self)

    def __pos__(self) -> Value:
        return self

    def __pow__(self, other: Value | float) -> Value:
        if isinstance(other, Value):
            return _node(_POWV.forward(self.data, other.data, None), self, other, _POWV, _POWV.symbol)
        if isinstance(other, numbers.Real):
            k = other if type(other) in (int, float) else float(other)
            return _node(_POW.forward(self.data, None, k), self, None, _POW, _pow_symbol(k), k)
        return NotImplemented

    def __rpow__(self, other: float) -> Value:
        o = _as_value(other)
        if o is None:
            return NotImplemented
        return _node(_POWV.forward(o.data, self.data, None), o, self, _POWV, _POWV.symbol)

    def exp(self) -> Value:
        """e**self as one node; OverflowError past about 709.78."""
        return _unary(_EXP, self)

    def log(self) -> Value:
        """The natural log as one node; ValueError for a non-positive input."""
        return _unary(_LOG, self)

    def tanh(self) -> Value:
        """tanh as one node, stable for any input (tanh(400) is 1.0 with slope 0)."""
        return _unary(_TANH, self)

    def relu(self) -> Value:
        """max(0, self) as one node (micrograd's 'ReLU'; slope 0 at 0, as PyTorch)."""
        return _unary(_RELU, self)

    def sigmoid(self) -> Value:
        """1 / (1 + e**-self) as one node, stable on both signs."""
        return _unary(_SIGMOID, self)

    @staticmethod
    def apply(op: Op, *inputs: Value | float) -> Value:
        """One node of ``op`` (a row from ``ops.define_op``, or a built-in row) on ``inputs``."""
        if not isinstance(op, Op):
            raise TypeError(f"Value.apply takes an op from micrograd_widget.define_op, got {type(op).__name__}")
        if op.name == "pow":
            raise TypeError("Value.apply cannot make 'pow' (it needs a constant exponent): write x ** k")
        if len(inputs) != op.arity:
            raise TypeError(f"op {op.name!r} takes {op.arity} input(s), got {len(inputs)}")
        values: list[Value] = []
        for x in inputs:
            v = _as_value(x)
            if v is None:
                raise TypeError(f"op {op.name!r} takes Values or numbers, got {type(x).__name__}: {x!r}")
            values.append(v)
        if op.arity == 2:
            a, b = values
            return _node(op.forward(a.data, b.data, None), a, b, op, op.symbol)
        return _unary(op, values[0])

    # ---- backpropagation ----

    def backward(self, grad: float = 1.0) -> None:
        """Add d(self)/d(node) * ``grad`` to every node's ``.grad`` in this graph, self included.

        Gradients accumulate, as in micrograd and PyTorch: calling it twice doubles every grad.
        Call ``zero_grad()`` (on this root or on a Module) first for a fresh pass.
        """
        grad = _check_number(grad, "backward(grad=...)")
        topo = topological_order(self)
        earlier = [v.grad for v in topo]
        try:
            array("d", earlier)  # every grad a real number: checked in C before anything changes
        except (TypeError, OverflowError):
            _refuse_grads(topo, earlier)
        # A fresh pass needs zero grads to start from; keep whatever was there and add it back after.
        fresh = not any(earlier)
        try:
            if not fresh:
                for v in topo:
                    v.grad = 0.0
            self.grad = grad
            for v in reversed(topo):
                code = v._code
                if code is None:
                    if v._user_backward is not None:
                        v._user_backward()
                    continue
                g = v.grad
                a = v._a
                b = v._b
                assert a is not None  # a node made by an op always has its first input
                if b is None:
                    a.grad += code.local_grad(a.data, None, v._k, v.data)[0] * g
                else:
                    da, db = code.local_grad(a.data, b.data, v._k, v.data)
                    a.grad += da * g
                    b.grad += db * g
            if not fresh:
                for v, before in zip(topo, earlier):
                    v.grad += before
        except BaseException:
            # A custom op's local_grad raised, a hand-made _backward broke a grad, or the user interrupted:
            # all or nothing, so every grad goes back to what it was.
            for v, before in zip(topo, earlier):
                v.grad = before
            raise

    def zero_grad(self) -> None:
        """Set ``grad`` to 0 on every node of the graph that ends here."""
        for v in topological_order(self):
            v.grad = 0.0

    def _local_backward(self) -> None:
        """Push this node's grad one step to its inputs (the lecture's manual ``o._backward()``)."""
        code = self._code
        if code is None:
            return
        a, b = self._a, self._b
        assert a is not None  # a node made by an op always has its first input
        grads = code.local_grad(a.data, None if b is None else b.data, self._k, self.data)
        a.grad += grads[0] * self.grad
        if b is not None:
            b.grad += grads[1] * self.grad

    @property
    def _backward(self) -> Callable[[], None]:
        """This node's chain-rule step, callable by hand as in the lecture; assignable for custom ops."""
        return self._user_backward if self._user_backward is not None else self._local_backward

    @_backward.setter
    def _backward(self, fn: Callable[[], None]) -> None:
        """Replace this node's chain-rule step by ``fn`` (as the lecture does); the node then no
        longer follows the op table, so a Tape reports it as opaque instead of replaying it."""
        if not callable(fn):
            raise TypeError(f"_backward must be callable, got {type(fn).__name__}")
        self._user_backward = fn
        self._code = None

    @property
    def label(self) -> str:
        """The name the picture shows for this node ('' for none)."""
        return self._label

    @label.setter
    def label(self, text: str) -> None:
        self._label = _as_label(text)

    @property
    def scope(self) -> str:
        """The module path this node was created in (e.g. 'layers.0.neurons.3'), '' outside any module."""
        return self._scope

    def __repr__(self) -> str:
        return f"Value(data={self.data}, grad={self.grad})"

    # ---- copies and pickles: the graph's own rows (ops.Op copies as itself), no recursion at any depth ----

    def __copy__(self) -> Value:
        """A new node with this one's numbers, label, op and inputs (the same input Values)."""
        out = _new(Value)
        out.__setstate__(self._state())
        return out

    def __deepcopy__(self, memo: dict[int, Any]) -> Value:
        """The graph that ends here, copied node by node in topological order (no recursion: a chain of a million
        nodes copies); a node copied earlier in the same ``deepcopy`` call is shared, as ``deepcopy`` does."""
        from copy import deepcopy

        order = topological_order(self)
        for v in order:
            if id(v) in memo:
                continue
            state = v._state()
            a, b, rest, user_backward = state[2], state[3], state[4], state[10]
            out = _new(Value)
            out.__setstate__((*state[:2], None if a is None else memo[id(a)], None if b is None else memo[id(b)],
                              None if rest is None else tuple(memo[id(c)] for c in rest), *state[5:10],
                              None if user_backward is None else deepcopy(user_backward, memo)))
            memo[id(v)] = out
        memo.setdefault(id(memo), []).extend(order)  # the originals outlive the memo that names them by id
        return memo[id(self)]  # type: ignore[no-any-return]  # the memo maps every node of the graph to its copy

    def __reduce_ex__(self, protocol: Any) -> tuple[Any, ...]:
        """For pickle, without recursion at any depth: an inner node first lists the nodes before it (in
        topological order, each written plainly once its inputs are written), then itself; so pickle's memo keeps
        every shared node one object, across every root in the same pickle."""
        if self._a is None or self in _WRITTEN_PLAINLY:
            _WRITTEN_PLAINLY.discard(self)
            return _blank_value, (), self._state()
        before = topological_order(self)
        before.pop()
        _WRITTEN_PLAINLY.update(v for v in before if v._a is not None)
        return _blank_value, (before,), self._state()

    def _state(self) -> tuple[Any, ...]:
        return (self.data, self.grad, self._a, self._b, self._rest, self._op, self._label, self._code, self._k,
                self._scope, self._user_backward)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        (self.data, self.grad, self._a, self._b, self._rest, self._op, self._label, self._code, self._k,
         self._scope, self._user_backward) = state

    def _repr_html_(self) -> str | None:
        """Jupyter's rich display: this node's graph as a static picture (display.py)."""
        from micrograd_widget.display import value_html
        return value_html(self)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> Any:
        """In a browser's Python (Pyodide, as in JupyterLite), where Graphviz's dot cannot run: the live widget, as
        marimo shows a Value (``%load_ext``'s display, when loaded, comes first), closed when its cell runs again;
        elsewhere None, so Jupyter shows ``_repr_html_``'s static picture."""
        from micrograd_widget.picture.layout import in_browser
        if not in_browser():
            return None
        from micrograd_widget.graph.widget import value_widget
        from micrograd_widget.host.cell_outputs import record_bare_display
        widget, bundle = value_widget(self)
        record_bare_display(widget)   # closed when the cell runs again (JupyterLite keeps every widget until closed)
        return bundle

    def _display_(self) -> object:
        """marimo's display: the live widget (widget.py), closed when its cell runs again."""
        from micrograd_widget.graph.widget import explore
        from micrograd_widget.host.cell_outputs import close_with_marimo_cell
        widget = explore(self)
        close_with_marimo_cell(widget)
        return widget


_WRITTEN_PLAINLY: weakref.WeakSet[Value] = weakref.WeakSet()  # inner nodes a pickle writes after their inputs


def _blank_value(*before: list[Value]) -> Value:
    """A new node for pickle to fill in (after the nodes ``before`` it, when it lists them, are loaded)."""
    out: Value = _new(Value)
    return out


def _refuse_grads(topo: list[Value], grads: Sequence[object]) -> NoReturn:
    """The TypeError for a graph with a ``.grad`` that is not a real number, naming the first such node."""
    bad = [i for i, g in enumerate(grads) if not _is_real(g)]
    i = bad[0] if bad else 0
    v = topo[i]
    name = f"node {short(v.label)}" if v.label else (f"a {short(v._op)} node" if v._op else "an unlabelled leaf")
    more = f" ({plural(len(bad) - 1, 'other node')} too)" if len(bad) > 1 else ""
    raise TypeError(f"backward(): {name} (node {i} of {len(topo):,} in topological order, data "
                    f"{short(v.data)}) has grad {short(grads[i])} ({type(grads[i]).__name__}){more}, "
                    "not a real number a float can hold; no grad was changed: set it to a number "
                    "(root.zero_grad() zeroes every grad) and call backward() again")


def _is_real(x: object) -> bool:
    """True when ``x`` converts to a float as a grad must (the check ``backward()`` makes in C for all at once)."""
    try:
        array("d", (x,))  # type: ignore[type-var]  # the check: does array take it as a float
    except (TypeError, OverflowError):
        return False
    return True


def _node(data: float, a: Value, b: Value | None, code: Op, op: str, k: float | None = None) -> Value:
    """A new node whose forward (``data``) the caller computed with ``code``'s table row."""
    out = _new(Value)
    out.data = data
    out.grad = 0.0
    out._a = a
    out._b = b
    out._rest = None
    out._op = op
    out._label = ""
    out._code = code
    out._k = k
    out._scope = _current_scope
    out._user_backward = None
    return out


def _unary(code: Op, a: Value) -> Value:
    """A one-input node of ``code``: forward from the table, then the node."""
    return _node(code.forward(a.data, None, None), a, None, code, code.symbol)


def _leaf(data: float) -> Value:
    """A new leaf holding ``data`` (already a float): the fast path for numbers mixed into ops."""
    out = _new(Value)
    out.data = data
    out.grad = 0.0
    out._a = None
    out._b = None
    out._rest = None
    out._op = ""
    out._label = ""
    out._code = None
    out._k = None
    out._scope = _current_scope
    out._user_backward = None
    return out


def _as_value(x: object) -> Value | None:
    """``x`` as a Value: a number becomes a new leaf (as in micrograd); anything else is None."""
    if type(x) is float:
        return _leaf(x)
    if type(x) is int:
        return _leaf(float(x))
    if isinstance(x, Value):
        return x
    if isinstance(x, numbers.Real):
        return _leaf(float(x))
    return None


_EMIT: Value = _new(Value)  # a sentinel on the stack below a node's inputs: "its inputs are done, emit it"


def topological_order(root: Value) -> list[Value]:
    """Every node reachable from ``root``, inputs before the nodes that use them, root last.

    Iterative depth-first post-order visiting inputs in order, so the order is the same on every run.
    A node is marked when first expanded; in a DAG a marked node popped again is already emitted.
    """
    if not isinstance(root, Value):
        raise TypeError(f"topological_order() takes a Value, got {type(root).__name__}")
    topo: list[Value] = []
    seen: set[Value] = set()
    stack: list[Value] = [root]
    push, pop, emit, mark = stack.append, stack.pop, topo.append, seen.add
    while stack:
        v = pop()
        if v is _EMIT:
            emit(pop())
            continue
        if v in seen:
            continue
        mark(v)
        a = v._a
        if a is None:
            emit(v)
            continue
        push(v)
        push(_EMIT)
        b = v._b
        if b is not None:
            rest = v._rest
            if rest is not None:
                for i in range(len(rest) - 1, -1, -1):
                    push(rest[i])
            push(b)
        push(a)
    return topo
