"""THE op table: one row per op, with its forward and its local derivative side by side.

The engine (engine.py), the tape replay (tape.py) and the browser replay (js/core/ops.js, generated
from this table by ``python -m micrograd_widget.core.ops``) all follow it; nothing else lists ops.

Every row has the same calling convention so replays can be a flat loop:
``forward(a, b, k) -> out`` and ``local_grad(a, b, k, out) -> (d out/d a, d out/d b)``
where ``a``/``b`` are the input values (``b`` is ``None`` for unary ops) and ``k`` is the op's
constant (the exponent of ``x**k``; ``None`` for every other op). The ``js_*`` columns are the same
formulas as JavaScript expressions over ``a``, ``b``, ``k`` and ``out``; ``js_domain`` is true exactly
where ``forward`` returns rather than raises (a domain error or a float overflow).
"""

from __future__ import annotations

import json
import math
import numbers
import os
import re
import reprlib
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["Op", "OPS", "OPS_BY_NAME", "ZeroDivisionValueError", "define_op", "op_symbol", "js_module"]


class ZeroDivisionValueError(ZeroDivisionError, ValueError):
    """Division by zero inside the graph: both a ZeroDivisionError and a ValueError."""


@dataclass(frozen=True, slots=True)
class Op:
    """One row of the op table. A copy (``copy``, ``deepcopy``) is the row itself, and a pickled row loads as the
    same row: a built-in one by its name, a ``define_op`` one within the Python process that made it; so a copied
    graph is still made of the table's rows (a Tape matches them by identity)."""

    id: int
    name: str
    symbol: str
    arity: int
    forward: Callable[[float, float | None, float | None], float]
    local_grad: Callable[[float, float | None, float | None, float], tuple[float, ...]]
    js_forward: str
    js_local_grad: tuple[str, ...]
    js_domain: str

    def __copy__(self) -> Op:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Op:
        return self

    def __reduce__(self) -> tuple[Any, ...]:
        if 0 <= self.id < len(OPS) and OPS[self.id] is self:
            return _builtin_row, (self.name,)
        key = (os.getpid(), id(self))
        _PICKLED.setdefault(key, self)  # kept, so that the key finds this row when the pickle is loaded
        return _defined_row, (self.name, self.symbol, self.arity, key)


_PICKLED: dict[tuple[int, int], Op] = {}  # define_op rows that were pickled, by (process, id)


def _builtin_row(name: str) -> Op:
    """A pickled built-in row: the table's row of that name."""
    try:
        return OPS_BY_NAME[name]
    except KeyError:
        raise ValueError(f"the pickle uses the op {name!r}, which this version's op table does not have") from None


def _defined_row(name: str, symbol: str, arity: int, key: tuple[int, int]) -> Op:
    """A pickled ``define_op`` row: the row itself in the process that made it; elsewhere (its functions cannot
    travel) a row that loads the graph's numbers but raises, saying what to do, when it is replayed."""
    row = _PICKLED.get(key)
    if row is not None and row.name == name:
        return row

    def gone(*_: object) -> Any:
        raise RuntimeError(f"op {name!r} was made by define_op in another Python process and cannot be replayed "
                           "here: run its define_op again and rebuild the graph")
    return Op(-1, name, symbol, arity, gone, gone, "", (), "")


_FLOAT_MAX = sys.float_info.max
_SHORT = reprlib.Repr()
_SHORT.maxstring, _SHORT.maxother = 40, 40


def _fmt(x: float) -> str:
    """A number as the error messages show it: a float's repr; an int beyond 15 digits in float notation."""
    if type(x) is int and not -10**15 < x < 10**15:
        return f"{float(x):.6g}"  # the exponent checks (_check_exponent) keep x within a float's range
    return repr(x)


def _check_exponent(k: float) -> None:
    """An int exponent beyond a float's range (Python's ``**`` would raise about converting it) is refused in
    words, without writing out its digits (which may be more than Python converts to text)."""
    if type(k) is int and not -_FLOAT_MAX <= k <= _FLOAT_MAX:
        digits = int(math.log10(abs(k))) + 1  # math.log10 takes an int of any size
        raise OverflowError(f"'**': the exponent, an int of about {digits} digits, is too large; a number exponent "
                            "must be at most about 1.8e308 in size (a float's range)")


# ---- forwards that can fail: each names the op and the offending value ----

def _div(a: float, b: float, k: None) -> float:
    if b == 0:
        raise ZeroDivisionValueError(f"'/': division by zero ({_fmt(a)} / {_fmt(b)}); the divisor must be non-zero")
    return a / b


def _pow_const(a: float, b: None, k: float) -> float:
    _check_exponent(k)
    if a == 0 and k < 0:
        raise ZeroDivisionValueError(
            f"'**{_fmt(k)}': 0 raised to a negative power ({_fmt(a)} ** {_fmt(k)}) is undefined")
    if a < 0 and math.isfinite(k) and k != int(k):  # an infinite or NaN exponent follows IEEE pow, as PyTorch
        raise ValueError(
            f"'**{_fmt(k)}': a negative base ({_fmt(a)}) to a non-integer power ({_fmt(k)}) is not a real number"
        )
    try:
        out: float = a ** k
    except OverflowError:
        raise OverflowError(f"'**{_fmt(k)}': {_fmt(a)} ** {_fmt(k)} overflows a float") from None
    return out


def _pow_or_inf(a: float, e: float) -> float:
    """``a ** e`` for a slope: the infinity JavaScript's ``**`` gives where Python's raises OverflowError."""
    try:
        out: float = a ** e
    except OverflowError:
        return -math.inf if a < 0 and e % 2 == 1 else math.inf
    return out


def _d_pow_const(a: float, k: float) -> float:
    if k == 0:
        return 0.0
    if a == 0 and k < 1:
        return math.inf if k > 0 else math.nan
    return k * _pow_or_inf(a, k - 1)


def _d_pow_value(a: float, b: float) -> float:
    """d(a**b)/da: 0 where the exponent is 0 (PyTorch's rule; it matters only for a NaN or infinite base)."""
    return 0.0 if b == 0 else b * _pow_or_inf(a, b - 1)


def _pow_value(a: float, b: float, k: None) -> float:
    if a <= 0:
        raise ValueError(
            f"'**': a Value exponent needs a positive base, got base {_fmt(a)}; "
            "use a number exponent (x**2) for a non-positive base"
        )
    try:
        out: float = a ** b
    except OverflowError:
        raise OverflowError(f"'**': {_fmt(a)} ** {_fmt(b)} overflows a float") from None
    return out


def _exp(a: float, b: None, k: None) -> float:
    try:
        return math.exp(a)
    except OverflowError:
        raise OverflowError(f"'exp': exp({_fmt(a)}) overflows a float (the largest input is about 709.78)") from None


def _log(a: float, b: None, k: None) -> float:
    if a <= 0:
        raise ValueError(f"'log': log({_fmt(a)}) is undefined; the input must be positive")
    return math.log(a)


def _sigmoid(a: float, b: None, k: None) -> float:
    if a >= 0:
        return 1.0 / (1.0 + math.exp(-a))
    e = math.exp(a)
    return e / (1.0 + e)


# Each row: its name, symbol and arity; then the forward and the local derivative(s) in Python, and below them
# the same formulas in JavaScript; last the JS domain, true exactly when the Python forward returns instead of
# raising (its NaN and infinity cases included), so the browser's replay stops where the kernel would, nowhere else.
_ROWS: list[tuple[Any, ...]] = [
    # name      symbol     arity
    #   forward (Python, then JS)      local derivative(s) (Python, then JS)
    #   JS domain
    ("add",     "+",       2,
        lambda a, b, k: a + b,         lambda a, b, k, out: (1.0, 1.0),
        "a + b",                       ("1", "1"),
        "true"),
    ("sub",     "-",       2,
        lambda a, b, k: a - b,         lambda a, b, k, out: (1.0, -1.0),
        "a - b",                       ("1", "-1"),
        "true"),
    ("mul",     "*",       2,
        lambda a, b, k: a * b,         lambda a, b, k, out: (b, a),
        "a * b",                       ("b", "a"),
        "true"),
    ("div",     "/",       2,
        _div,                          lambda a, b, k, out: (1.0 / b, -(a / b) / b),
        "a / b",                       ("1 / b", "-(a / b) / b"),
        "b !== 0"),
    ("neg",     "neg",     1,
        lambda a, b, k: -a,            lambda a, b, k, out: (-1.0,),
        "-a",                          ("-1",),
        "true"),
    # pow, powv: an infinite or NaN exponent follows IEEE pow (Python's and PyTorch's: 1 ** nan is 1, (-2) ** inf
    # is inf), which JavaScript's ** does not at a base of +-1 (ieeePow mends it); the slope in the base is 0
    # where the exponent is 0 (PyTorch's rule: nan ** 0 has slope 0).
    ("pow",     "**",      1,
        _pow_const,                    lambda a, b, k, out: (_d_pow_const(a, k),),
        "ieeePow(a, k)",               ("k === 0 ? 0 : (a === 0 && k < 1 ? (k > 0 ? Infinity : NaN)"
                                        " : k * ieeePow(a, k - 1))",),
        "!(a === 0 && k < 0) && !(a < 0 && Number.isFinite(k) && !Number.isInteger(k))"
        " && (Number.isFinite(out) || !Number.isFinite(a) || !Number.isFinite(k))"),
    ("powv",    "**",      2,
        _pow_value,                    lambda a, b, k, out: (_d_pow_value(a, b), out * math.log(a)),
        "ieeePow(a, b)",               ("b === 0 ? 0 : b * ieeePow(a, b - 1)", "out * Math.log(a)"),
        "!(a <= 0) && (Number.isFinite(out) || !Number.isFinite(a) || !Number.isFinite(b))"),
    ("exp",     "exp",     1,
        _exp,                          lambda a, b, k, out: (out,),
        "Math.exp(a)",                 ("out",),
        "Number.isFinite(out) || !Number.isFinite(a)"),
    ("log",     "log",     1,
        _log,                          lambda a, b, k, out: (1.0 / a,),
        "Math.log(a)",                 ("1 / a",),
        "!(a <= 0)"),
    ("tanh",    "tanh",    1,
        lambda a, b, k: math.tanh(a),  lambda a, b, k, out: (1.0 - out * out,),
        "Math.tanh(a)",                ("1 - out * out",),
        "true"),
    # relu: NaN passes through (micrograd's and PyTorch's forward; relu(-0.0) is -0.0 as there), and so does its
    # slope: 1 at NaN, as PyTorch's (0 only where a <= 0), so a NaN upstream grad is not hidden either.
    ("relu",    "ReLU",    1,
        lambda a, b, k: 0.0 if a < 0 else a,
                                       lambda a, b, k, out: (0.0 if a <= 0 else 1.0,),
        "a < 0 ? 0 : a",               ("a <= 0 ? 0 : 1",),
        "true"),
    ("sigmoid", "sigmoid", 1,
        _sigmoid,                      lambda a, b, k, out: (out * (1.0 - out),),
        "a >= 0 ? 1 / (1 + Math.exp(-a)) : Math.exp(a) / (1 + Math.exp(a))",
                                       ("out * (1 - out)",),
        "true"),
]

OPS: tuple[Op, ...] = tuple(Op(i, *row) for i, row in enumerate(_ROWS))
OPS_BY_NAME: dict[str, Op] = {op.name: op for op in OPS}


def define_op(
    name: str,
    forward: Callable[..., float],
    local_grad: Callable[..., Sequence[float]],
    *,
    arity: int = 1,
    symbol: str | None = None,
) -> Op:
    """A user-defined op: ``forward(*inputs) -> out`` and ``local_grad(*inputs, out) -> partials``.

    Use it with ``Value.apply(op, x)`` (or ``Value.apply(op, x, y)`` for ``arity=2``). The engine and
    the Python tape replay it like any row; the browser cannot, so the widget asks the kernel.
    """
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"define_op(name=...) needs an identifier such as 'cube', got {name!r}")
    if name in OPS_BY_NAME:
        raise ValueError(f"define_op: {name!r} is a built-in op; pick another name")
    if arity not in (1, 2):
        raise ValueError(f"define_op(arity=...) must be 1 or 2, got {arity!r}")
    if not callable(forward) or not callable(local_grad):
        raise TypeError("define_op needs callables: forward(*inputs) and local_grad(*inputs, out)")
    if arity == 1:
        def fwd(a: float, b: float | None, k: float | None) -> float:
            return _number(forward(a), name, "forward")

        def grad(a: float, b: float | None, k: float | None, out: float) -> tuple[float, ...]:
            return _partials(local_grad(a, out), 1, name)
    else:
        def fwd(a: float, b: float | None, k: float | None) -> float:
            return _number(forward(a, b), name, "forward")

        def grad(a: float, b: float | None, k: float | None, out: float) -> tuple[float, ...]:
            return _partials(local_grad(a, b, out), 2, name)
    return Op(-1, name, symbol or name, arity, fwd, grad, "", (), "")


def _partials(result: object, arity: int, name: str) -> tuple[float, ...]:
    """A custom op's local derivative as a tuple of ``arity`` floats, or a clear error."""
    parts: tuple[Any, ...]
    if isinstance(result, (tuple, list)):
        parts = tuple(result)
    elif arity == 1:
        parts = (result,)
    elif isinstance(result, Iterable):
        parts = tuple(result)
    else:
        raise TypeError(f"op {name!r}: local_grad must return {arity} partials (a tuple), got {type(result).__name__}")
    if len(parts) != arity:
        raise ValueError(f"op {name!r}: local_grad returned {len(parts)} partials, expected {arity}")
    return tuple(_number(p, name, "local_grad") for p in parts)


def _number(result: object, name: str, what: str) -> float:
    """What a custom op's function returned, as a float; anything but a real number (a str such as '2.5'
    included: float() would read it) is a TypeError naming the op and what came back."""
    if type(result) is float:
        return result
    if isinstance(result, numbers.Real):
        return float(result)
    raise TypeError(f"op {name!r}: {what} must return a real number (int or float), "
                    f"got {type(result).__name__}: {_SHORT.repr(result)}")


def op_symbol(op: Op, k: float | None) -> str:
    """The ``_op`` string a node shows: the symbol, with the exponent for ``x**k`` (``'**2'``), as micrograd."""
    return f"**{k}" if op.name == "pow" else op.symbol


def js_module() -> str:
    """The browser's copy of this table as an ES module (written to js/core/ops.js by the build).

    Besides the rows, it holds the replay loops: one forward, one backward and one local-grad switch with
    every row's JS expressions inlined (a call and a partials array per node would make the browser's replay
    several times slower).
    """
    lines = [
        "// Generated from micrograd_widget/core/ops.py by `python -m micrograd_widget.core.ops`; do not edit.",
        "// @ts-check",
        "// forward(a, b, k) and localGrad(a, b, k, out) follow the Python op table row for row;",
        "// domain(a, b, k, out) is true exactly where the Python forward returns instead of raising.",
        "",
        "/** a ** b as IEEE pow (Python's and C's): 1 where JavaScript's ** gives NaN, at a base of 1 or at -1 to an",
        " * infinite power.",
        " * @param {number} a",
        " * @param {number} b",
        " * @returns {number} */",
        "export function ieeePow(a, b) {",
        "  return a === 1 || (a === -1 && (b === Infinity || b === -Infinity)) ? 1 : a ** b;",
        "}",
        "",
        "/**",
        " * One row of the op table (a unary op sees b = 0, a row without a constant k = NaN).",
        " * @typedef {object} OpRow",
        " * @property {number} id the row's code in the replay loops",
        " * @property {string} name",
        " * @property {string} symbol",
        " * @property {1 | 2} arity",
        " * @property {(a: number, b: number, k: number) => number} forward",
        " * @property {(a: number, b: number, k: number, out: number) => number[]} localGrad [d/da] or [d/da, d/db]",
        " * @property {(a: number, b: number, k: number, out: number) => boolean} domain where Python returns",
        " */",
        "",
        "/** @type {readonly OpRow[]} */",
        "export const OPS = [",
    ]
    for op in OPS:
        grads = ", ".join(op.js_local_grad)
        lines.append(
            f"  {{ id: {op.id}, name: {json.dumps(op.name)}, symbol: {json.dumps(op.symbol)}, arity: {op.arity},\n"
            f"    forward: (a, b, k) => {op.js_forward},\n"
            f"    localGrad: (a, b, k, out) => [{grads}],\n"
            f"    domain: (a, b, k, out) => {op.js_domain} }},"
        )
    lines.append("];")
    lines.append("/** @type {Readonly<Record<string, OpRow | undefined>>} */")
    lines.append("export const OPS_BY_NAME = Object.fromEntries(OPS.map((op) => [op.name, op]));")
    lines += _js_loops()
    return "\n".join(lines) + "\n"


def _js_loads(op: Op, expressions: str, a: str, b: str, out: bool = False) -> str:
    """The loads a case needs, only those its expressions name (an add's backward reads no data at all); a unary
    op sees ``b = 0``."""
    sources = {"a": f"data[{a}]", "b": f"data[{b}]" if op.arity == 2 else "0", "k": "konst[i]"}
    if out:
        sources["out"] = "data[i]"
    used = [f"{name} = {source}" for name, source in sources.items() if re.search(rf"\b{name}\b", expressions)]
    return f" const {', '.join(used)};" if used else ""


def _js_loops() -> list[str]:
    """The replay loops over a tape's flat arrays, one ``case`` per row with the row's own JS expressions.

    ``code[i]`` is node i's row id (-1: a leaf); ``inA``/``inB`` its inputs (-1: none), ``konst`` its constant.
    A unary op sees ``b = 0`` and a missing constant NaN, as the rows' functions are called; each partial is
    multiplied by the upstream grad and added in input order, so the floats are those of the rows' functions.
    """
    head = [
        "",
        "// The replay loops: the rows' expressions above, inlined in one switch (same floats, no call per node).",
        "/**",
        " * Every op node's data in node order (leaves set); the first node outside its op's domain, or -1.",
        " * @param {number} n",
        " * @param {Int32Array} code",
        " * @param {Int32Array} inA",
        " * @param {Int32Array} inB",
        " * @param {Float64Array} konst",
        " * @param {Float64Array} data",
        " * @returns {number}",
        " */",
        "export function forwardLoop(n, code, inA, inB, konst, data) {",
        "  let failure = -1;",
        "  for (let i = 0; i < n; i++) {",
        "    const c = code[i];",
        "    if (c < 0) continue;",
        "    let out;",
        "    switch (c) {",
    ]
    fwd = []
    for op in OPS:
        check = "" if op.js_domain == "true" else f" if (failure < 0 && !({op.js_domain})) failure = i;"
        loads = _js_loads(op, f"{op.js_forward} {op.js_domain}", "inA[i]", "inB[i]")
        fwd.append(f"      case {op.id}: {{{loads} out = {op.js_forward}; data[i] = out;{check} }} break;")
    mid = [
        "      default: throw new Error(`op code ${c} at node ${i} is not in the op table`);",
        "    }",
        "  }",
        "  return failure;",
        "}",
        "",
        "/**",
        " * Fresh grads of node `output` into `grad`: reverse node order, each node's partials times its grad.",
        " * @param {number} output",
        " * @param {Int32Array} code",
        " * @param {Int32Array} inA",
        " * @param {Int32Array} inB",
        " * @param {Float64Array} konst",
        " * @param {Float64Array} data",
        " * @param {Float64Array} grad",
        " * @returns {Float64Array}",
        " */",
        "export function backwardLoop(output, code, inA, inB, konst, data, grad) {",
        "  grad.fill(0);",
        "  grad[output] = 1;",
        "  for (let i = output; i >= 0; i--) {",
        "    const c = code[i];",
        "    if (c < 0) continue;",
        "    const g = grad[i], ai = inA[i], bi = inB[i];",
        "    switch (c) {",
    ]
    bwd = []
    for op in OPS:
        adds = " ".join(f"grad[{x}] += ({e}) * g;" for x, e in zip(("ai", "bi"), op.js_local_grad))
        loads = _js_loads(op, " ".join(op.js_local_grad), "ai", "bi", out=True)
        bwd.append(f"      case {op.id}: {{{loads} {adds} }} break;")
    tail = [
        "      default: throw new Error(`op code ${c} at node ${i} is not in the op table`);",
        "    }",
        "  }",
        "  return grad;",
        "}",
        "",
        "/**",
        " * Row `c`'s partials at (a, b, k, out) into `into` ([d/da, d/db]; d/db is NaN for a unary op).",
        " * @template {Float64Array | number[]} T",
        " * @param {number} c",
        " * @param {number} a",
        " * @param {number} b",
        " * @param {number} k",
        " * @param {number} out",
        " * @param {T} into",
        " * @returns {T}",
        " */",
        "export function localGradInto(c, a, b, k, out, into) {",
        "  switch (c) {",
    ]
    one = []
    for op in OPS:
        parts = list(op.js_local_grad) + ["NaN"] * (2 - len(op.js_local_grad))
        one.append(f"    case {op.id}: into[0] = {parts[0]}; into[1] = {parts[1]}; break;")
    end = [
        "    default: throw new Error(`op code ${c} is not in the op table`);",
        "  }",
        "  return into;",
        "}",
    ]
    return head + fwd + mid + bwd + tail + one + end


if __name__ == "__main__":
    sys.stdout.write(js_module())
