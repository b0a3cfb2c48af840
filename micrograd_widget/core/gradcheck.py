"""gradcheck: every leaf's analytic grad beside a central finite-difference estimate.

The lecture checks gradients by nudging an input by hand; this does it for every leaf at once, on a
frozen Tape so the user's Values are never touched. A custom op with a wrong local derivative shows up
as a failing row.
"""

from __future__ import annotations

import math
import warnings
from array import array
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from micrograd_widget.core.tape import Tape
from micrograd_widget.engine import Value

__all__ = ["gradcheck", "check_tape", "check_options", "GradCheck", "GradCheckRow", "LONG_CHECK_EVALUATIONS",
           "GRADCHECK_DEFAULTS"]


@dataclass(frozen=True)
class GradCheckRow:
    """One leaf: its analytic grad, the finite-difference estimate and how far apart they are."""

    node: int
    label: str
    data: float
    analytic: float
    numeric: float
    abs_error: float
    rel_error: float
    ok: bool
    note: str = ""


@dataclass(frozen=True)
class GradCheck:
    """The result of ``gradcheck``: a row per leaf and whether every row is within tolerance."""

    rows: tuple[GradCheckRow, ...]
    eps: float
    rtol: float
    atol: float
    output: int
    passed: bool = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "passed", all(r.ok for r in self.rows))

    def __bool__(self) -> bool:
        return self.passed

    @property
    def failures(self) -> tuple[GradCheckRow, ...]:
        """The rows outside tolerance."""
        return tuple(r for r in self.rows if not r.ok)

    def __str__(self) -> str:
        head = f"{'leaf':<12} {'data':>12} {'analytic':>14} {'numeric':>14} {'rel error':>10}  ok"
        lines = [head, "-" * len(head)]
        for r in self.rows:
            name = (r.label or f"#{r.node}")[:12]
            lines.append(
                f"{name:<12} {r.data:>12.6g} {r.analytic:>14.8g} {r.numeric:>14.8g} {r.rel_error:>10.2e}  "
                f"{'yes' if r.ok else 'NO'}{'  ' + r.note if r.note else ''}"
            )
        verdict = "PASSED" if self.passed else f"FAILED ({len(self.failures)} of {len(self.rows)} leaves)"
        lines.append(f"gradcheck {verdict}: eps={self.eps:g}, rtol={self.rtol:g}, atol={self.atol:g}")
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        from html import escape

        cells = "".join(
            "<tr style='background:{bg}'><td>{name}</td><td>{data:.6g}</td><td>{a:.8g}</td><td>{n:.8g}</td>"
            "<td>{rel:.2e}</td><td>{ok}</td></tr>".format(
                bg="" if r.ok else "rgba(230,97,1,0.25)",
                name=escape(r.label or f"#{r.node}"),
                data=r.data,
                a=r.analytic,
                n=r.numeric,
                rel=r.rel_error,
                ok="yes" if r.ok else escape("NO " + r.note),
            )
            for r in self.rows
        )
        verdict = "passed" if self.passed else f"FAILED: {len(self.failures)} of {len(self.rows)} leaves"
        return (
            "<table><thead><tr><th>leaf</th><th>data</th><th>analytic grad</th><th>numeric grad</th>"
            f"<th>rel. error</th><th>ok</th></tr></thead><tbody>{cells}</tbody></table>"
            f"<p>gradcheck {verdict} (eps={self.eps:g}, rtol={self.rtol:g}, atol={self.atol:g})</p>"
        )


# A check of more than this many node evaluations (two forward replays per leaf, each over every node) warns
# first, its time estimated at _EVALUATIONS_PER_SECOND, a replay's rate on a laptop (docs/benchmarks.md, the row
# "a view's gradcheck request", benchmarks/bench_requests.py): such a check keeps the kernel busy for seconds.
LONG_CHECK_EVALUATIONS = 40_000_000
_EVALUATIONS_PER_SECOND = 4e6
# The check's defaults: the widget's kernel requests and the view's own check (js/core/shared.js) use the same.
GRADCHECK_DEFAULTS: Mapping[str, float] = MappingProxyType({"eps": 1e-6, "rtol": 1e-4, "atol": 1e-6})


def gradcheck(
    root: Value,
    eps: float = GRADCHECK_DEFAULTS["eps"],
    rtol: float = GRADCHECK_DEFAULTS["rtol"],
    atol: float = GRADCHECK_DEFAULTS["atol"],
    leaves: Iterable[Value] | None = None,
    output: Value | None = None,
) -> GradCheck:
    """Compare d(output)/d(leaf) from backprop with ``(f(x+eps) - f(x-eps)) / 2eps`` for every leaf.

    A row passes when ``|analytic - numeric| <= atol + rtol * |numeric|``. ``leaves`` limits the check to
    some leaves (each costs two forward replays of the whole graph: a UserWarning says so first when the
    check is long); ``output`` picks a node other than ``root`` to differentiate. The user's Values are left
    exactly as they were.
    """
    if not isinstance(root, Value):
        raise TypeError(f"gradcheck() takes a Value, got {type(root).__name__}")
    check_options(eps, rtol, atol)
    tape = Tape.from_value(root)
    out = tape.root if output is None else tape.index(output)
    chosen = list(tape.leaves) if leaves is None else _leaf_ids(tape, leaves)
    evaluations = 2 * len(chosen) * len(tape)
    if evaluations > LONG_CHECK_EVALUATIONS:
        warnings.warn(
            f"gradcheck: {len(chosen):,} leaves x 2 forward replays of {len(tape):,} nodes = {evaluations:,} node "
            f"evaluations (~{evaluations / _EVALUATIONS_PER_SECOND:,.0f} s); pass leaves=[...] to check fewer",
            UserWarning, stacklevel=2)
    return check_tape(tape, chosen, out, eps, rtol, atol)


def check_options(eps: float, rtol: float, atol: float) -> None:
    """A ValueError unless eps > 0 and rtol, atol >= 0 are finite numbers."""
    for name, x in (("eps", eps), ("rtol", rtol), ("atol", atol)):
        if isinstance(x, bool) or not isinstance(x, (int, float)) or not math.isfinite(x) or x < 0:
            raise ValueError(f"gradcheck({name}=...) must be a finite number >= 0, got {x!r}")
    if eps == 0:
        raise ValueError("gradcheck(eps=...) must be positive, e.g. 1e-6")


def _leaf_ids(tape: Tape, leaves: Iterable[Value]) -> list[int]:
    """The node ids of ``leaves`` in ``tape``, each checked to be a leaf: one set of the leaves, one dict look-up
    per leaf (``Tape.index``), so O(n + k)."""
    leaf_set = set(tape.leaves)
    chosen = []
    for leaf in leaves:
        i = tape.index(leaf)
        if i not in leaf_set:
            raise ValueError(f"gradcheck(leaves=...): {leaf!r} is not a leaf of this graph")
        chosen.append(i)
    return chosen


def check_tape(tape: Tape, chosen: Sequence[int], out: int, eps: float, rtol: float, atol: float) -> GradCheck:
    """``gradcheck`` on a tape, at its leaves' current data, for the leaf ids ``chosen`` and output node ``out``
    (checked by the caller): one forward and one backward, then two forward replays per leaf (x + eps, x - eps),
    each from the same point. The tape's data and grads are put back as they were, even on an interrupt."""
    check_options(eps, rtol, atol)
    saved = (tape.data, tape.grad)
    try:
        base = tape.forward()
        analytic = tape.backward(out)
        rows = [_row(tape, base, analytic, i, out, eps, rtol, atol) for i in chosen]
    finally:
        tape.data, tape.grad = saved
    return GradCheck(tuple(rows), float(eps), float(rtol), float(atol), out)


def _row(tape: Tape, base: array[float], analytic: array[float], i: int, out: int,
         eps: float, rtol: float, atol: float) -> GradCheckRow:
    """Leaf ``i``'s row: its central difference from two replays, each starting from ``base`` (the point)."""
    x = base[i]
    try:
        plus = tape.forward({i: x + eps})[out]
        tape.data = base  # the next replay's other leaves come from the point, not from x + eps
        minus = tape.forward({i: x - eps})[out]
        numeric = (plus - minus) / (2 * eps)
        note = ""
    except (ArithmeticError, ValueError) as err:
        numeric, note = math.nan, f"f(x±eps) failed: {err}"
    finally:
        tape.data = base
    a = analytic[i]
    diff = abs(a - numeric)
    scale = max(abs(a), abs(numeric))
    rel = math.nan if math.isnan(diff) else (diff / scale if scale > 0 else 0.0)
    ok = bool(diff <= atol + rtol * abs(numeric)) if not note else False
    return GradCheckRow(i, tape.labels[i], x, a, numeric, diff, rel, ok, note)
