"""gradcheck: analytic grads against central finite differences, for every op and a broken custom op."""

import math
import warnings
from typing import Any

import pytest

from micrograd_widget.core import tape as tape_module
from micrograd_widget.core.gradcheck import LONG_CHECK_EVALUATIONS, gradcheck
from micrograd_widget.core.ops import OPS, define_op
from micrograd_widget.core.tape import Tape
from micrograd_widget.engine import Value


def _graph_for(op_name: str) -> tuple[Value, list[Value]]:
    """A small graph that passes each op's inputs through something non-trivial."""
    x = Value(0.7, label="x")
    y = Value(1.9, label="y")
    build = {
        "add": lambda: (x + y) * x,
        "sub": lambda: (x - y) * y,
        "mul": lambda: x * y * y,
        "div": lambda: x / y,
        "neg": lambda: -x * y,
        "pow": lambda: x**3 + y**-1.5 + y**0.5,
        "powv": lambda: y**x,
        "exp": lambda: (x * y).exp(),
        "log": lambda: (x * y).log(),
        "tanh": lambda: (x * y - 1).tanh(),
        "relu": lambda: (x - y).relu() + (y - x).relu() * x,
        "sigmoid": lambda: (x * y - 1).sigmoid() + (-x * y).sigmoid(),
    }
    return build[op_name](), [x, y]


@pytest.mark.parametrize("op", [op.name for op in OPS])
def test_every_op_passes(op: str) -> None:
    root, leaves = _graph_for(op)
    before = [(v.data, v.grad) for v in leaves] + [(root.data, root.grad)]
    result = gradcheck(root)
    assert result.passed, str(result)
    assert len(result.rows) >= 2
    for row in result.rows:
        assert row.rel_error < 1e-5
    assert [(v.data, v.grad) for v in leaves] + [(root.data, root.grad)] == before, "gradcheck touched the Values"


def test_gradcheck_agrees_with_backward() -> None:
    root, (x, y) = _graph_for("tanh")
    result = gradcheck(root)
    root.backward()
    by_label = {r.label: r for r in result.rows}
    assert len(result.rows) == 3, "x, y and the constant 1 are the leaves"
    assert [by_label["x"].analytic, by_label["y"].analytic] == [x.grad, y.grad]
    assert by_label["x"].numeric == pytest.approx(x.grad, rel=1e-6)


def test_wrong_custom_op_is_caught() -> None:
    cube_ok = define_op("cube", lambda a: a**3, lambda a, out: 3 * a * a)
    cube_bad = define_op("cube_bad", lambda a: a**3, lambda a, out: 2 * a * a)
    x = Value(1.3, label="x")
    good = gradcheck(Value.apply(cube_ok, x) * 2)
    bad = gradcheck(Value.apply(cube_bad, x) * 2)
    assert good.passed
    assert not bad.passed and not bad
    (row,) = bad.failures
    assert row.label == "x"
    assert row.numeric == pytest.approx(6 * 1.3**2, rel=1e-6)
    assert row.analytic == pytest.approx(4 * 1.3**2)
    assert "FAILED" in str(bad) and "NO" in str(bad)
    assert "FAILED" in bad._repr_html_()


def test_output_and_leaf_subset() -> None:
    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    c = a * b
    L = c + a
    result = gradcheck(L, output=c, leaves=[b])
    assert [r.label for r in result.rows] == ["b"]
    assert result.rows[0].analytic == pytest.approx(2.0)
    assert result.passed


def test_forward_failure_near_a_singularity_is_reported() -> None:
    x = Value(1e-7, label="x")
    result = gradcheck(x.log(), eps=1e-6)
    (row,) = result.rows
    assert not row.ok and "log" in row.note and math.isnan(row.numeric) and math.isnan(row.rel_error)


@pytest.mark.parametrize("kwargs", [{"eps": 0}, {"eps": -1e-3}, {"rtol": math.nan}, {"atol": "1"}])
def test_bad_options_are_clear(kwargs: dict) -> None:
    with pytest.raises(ValueError, match="gradcheck"):
        gradcheck(Value(1.0) * 2, **kwargs)


def test_bad_inputs_are_clear() -> None:
    with pytest.raises(TypeError, match="takes a Value"):
        gradcheck(3.0)  # type: ignore[arg-type]
    a = Value(1.0)
    b = a * 2
    with pytest.raises(ValueError, match="not a leaf"):
        gradcheck(b + 1, leaves=[b])
    with pytest.raises(KeyError, match="not a node"):
        gradcheck(b, leaves=[Value(5.0)])


# ---- the verdict at its boundary ----
# f(x) = 2 x**3 through a user op whose local derivative is off by a factor (1 + skew). The expected
# numbers are worked out here, by hand and by a central difference written in this file, never by gradcheck.py.

X0 = 1.3
EPS = 1e-6  # gradcheck's documented default step


def _f(x: float) -> float:
    return 2 * x**3


def _central_difference(x: float, h: float = EPS) -> float:
    """(f(x+h) - f(x-h)) / 2h, as the lecture nudges an input by hand."""
    return (_f(x + h) - _f(x - h)) / (2 * h)


def _skewed_cube(skew: float) -> tuple[Value, Value]:
    """(2 * cube(x), x) with cube's local derivative 3 x**2 (1 + skew): the analytic grad is off by ``skew``."""
    cube = define_op("skewed_cube", lambda a: a**3, lambda a, out: 3 * a * a * (1 + skew))
    x = Value(X0, label="x")
    return Value.apply(cube, x) * 2, x


@pytest.mark.parametrize(
    ("skew", "rtol", "atol", "passes"),
    [
        (0.0, 1e-4, 1e-6, True),        # exact derivative, defaults
        (5e-5, 1e-4, 1e-6, True),       # within the default rtol
        (2e-4, 1e-4, 1e-6, False),      # just outside the default rtol
        (0.01, 1e-4, 1e-6, False),      # off by 1%: the defaults catch it
        (0.01, 0.0099, 0.0, False),     # rtol just below 1% still catches it
        (0.01, 0.0101, 0.0, True),      # rtol just above 1% lets it through
        (0.01, 0.0, 6 * X0**2 * 0.0099, False),  # atol alone, just below the 1% gap (0.1014)
        (0.01, 0.0, 6 * X0**2 * 0.0101, True),         # atol alone, just above it
        (0.10, 1e-4, 1e-6, False),      # off by 10%
        (0.10, 0.099, 0.0, False),
        (0.10, 0.101, 0.0, True),
        (0.10, 0.0, 6 * X0**2 * 0.099, False),
        (0.10, 0.0, 6 * X0**2 * 0.101, True),
        (-0.10, 0.101, 0.0, True),      # too small a derivative is judged like too large a one
        (-0.10, 0.099, 0.0, False),
    ],
)
def test_verdict_at_the_boundary_of_rtol_and_atol(skew: float, rtol: float, atol: float, passes: bool) -> None:
    exact = 6 * X0**2                      # d(2x^3)/dx by hand
    analytic = exact * (1 + skew)          # what the skewed op backpropagates
    numeric = _central_difference(X0)
    assert numeric == pytest.approx(exact, rel=1e-8), "the test's own central difference is off"
    assert (abs(analytic - numeric) <= atol + rtol * abs(numeric)) is passes, "the table contradicts the rule"

    kwargs = {"rtol": rtol, "atol": atol} if (rtol, atol) != (1e-4, 1e-6) else {}
    root, x = _skewed_cube(skew)
    result = gradcheck(root, leaves=[x], **kwargs)
    (row,) = result.rows
    assert row.analytic == pytest.approx(analytic, rel=1e-12)
    assert row.numeric == pytest.approx(numeric, rel=1e-8)
    assert row.abs_error == pytest.approx(abs(analytic - numeric), rel=1e-6, abs=1e-9)
    rel = abs(analytic - numeric) / max(abs(analytic), abs(numeric))
    assert row.rel_error == pytest.approx(rel, rel=1e-6, abs=1e-9)
    assert row.ok is passes and result.passed is passes and bool(result) is passes
    assert (result.failures == ()) is passes


def test_default_tolerances_and_step_are_the_documented_ones() -> None:
    result = gradcheck(_skewed_cube(0.0)[0])
    assert (result.eps, result.rtol, result.atol) == (EPS, 1e-4, 1e-6)
    assert "eps=1e-06, rtol=0.0001, atol=1e-06" in str(result)


def test_a_bigger_step_changes_the_numeric_estimate_as_the_central_difference_does() -> None:
    # For a cubic the central difference is exact up to 2 h^2: with h = 0.1 it reads 6 x^2 + 0.02.
    root, x = _skewed_cube(0.0)
    (row,) = gradcheck(root, eps=0.1, rtol=0.0, atol=0.019, leaves=[x]).rows
    assert row.numeric == pytest.approx(_central_difference(X0, 0.1), rel=1e-12)
    assert row.numeric == pytest.approx(6 * X0**2 + 2 * 0.1**2, rel=1e-12)
    assert not row.ok, "a 0.02 gap with atol=0.019 must fail"
    assert gradcheck(root, eps=0.1, rtol=0.0, atol=0.021, leaves=[x]).passed


# ---- cost: two replays per leaf, linear validation, a word before a long check (issue 24) ----


def _count_forwards(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts every forward replay a Tape runs (forward() and replay() both go through tape._run_forward)."""
    calls = [0]
    run = tape_module._run_forward

    def counted(*args: Any) -> None:
        calls[0] += 1
        run(*args)

    monkeypatch.setattr(tape_module, "_run_forward", counted)
    return calls


def _neuron(x1: float, x2: float, w1: float, w2: float, b: float) -> float:
    """The lecture's neuron, tanh(x1 w1 + x2 w2 + b), in plain floats: a reference gradcheck never sees."""
    return math.tanh(x1 * w1 + x2 * w2 + b)


@pytest.mark.parametrize("k", [1, 2, 5])
def test_two_forward_replays_per_leaf_and_one_at_the_point(monkeypatch: pytest.MonkeyPatch, k: int) -> None:
    names = ["x1", "x2", "w1", "w2", "b"]
    point = [2.0, 0.0, -3.0, 1.0, 6.8813735870195432]
    leaves = [Value(x, label=name) for x, name in zip(point, names)]
    x1, x2, w1, w2, b = leaves
    root = (x1 * w1 + x2 * w2 + b).tanh()
    calls = _count_forwards(monkeypatch)
    result = gradcheck(root, leaves=leaves[:k])
    assert calls[0] == 2 * k + 1, "x + eps and x - eps per leaf, plus one forward at the point for its grads"
    assert len(result.rows) == k
    for j, row in enumerate(result.rows):
        plus, minus = list(point), list(point)
        plus[j] += EPS
        minus[j] -= EPS
        reference = (_neuron(*plus) - _neuron(*minus)) / (2 * EPS)  # the textbook central difference
        assert row.label == names[j] and row.data == point[j]
        assert row.numeric == pytest.approx(reference, rel=1e-9, abs=1e-12), "each leaf is nudged from the point"


class _CountingLeaves:
    """A tape's ``leaves`` that counts every element it hands out: a scan per asked leaf (``in`` falls back to
    iterating) shows as k x n reads, a set made once as n."""

    def __init__(self, ids: Any) -> None:
        self.ids = list(ids)
        self.reads = 0

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, j: int) -> int:
        self.reads += 1
        return self.ids[j]

    def __iter__(self) -> Any:
        for i in self.ids:
            self.reads += 1
            yield i


class _Validated(Exception):
    """Raised by the first replay: by then the leaves have been validated."""


def test_leaves_are_validated_in_linear_time(monkeypatch: pytest.MonkeyPatch) -> None:
    n = 2000
    xs = [Value(0.001 * i) for i in range(n)]
    root = sum((x * x for x in xs), Value(0.0))
    made: list[_CountingLeaves] = []
    from_value = Tape.from_value

    def counting_tape(cls: type[Tape], value: Value) -> Tape:
        tape = from_value(value)
        made.append(_CountingLeaves(tape.leaves))
        tape.leaves = made[-1]  # type: ignore[assignment]  # a sequence of ints that counts its reads
        return tape

    def stop(*args: Any) -> None:
        raise _Validated

    monkeypatch.setattr(Tape, "from_value", classmethod(counting_tape))
    monkeypatch.setattr(tape_module, "_run_forward", stop)
    with pytest.raises(_Validated):
        gradcheck(root, leaves=xs)
    (leaves,) = made
    assert leaves.reads <= 3 * (len(leaves) + n), f"{leaves.reads:,} reads of {len(leaves):,} leaves for {n:,} asked"


def test_a_long_check_warns_first_saying_how_much_work_and_a_short_one_does_not(
        monkeypatch: pytest.MonkeyPatch) -> None:
    root = sum((Value(0.001 * i) * 2.0 for i in range(3000)), Value(0.0))  # 6,001 leaves (x and each 2.0)
    tape = Tape.from_value(root)
    evaluations = 2 * len(tape.leaves) * len(tape)
    assert evaluations > LONG_CHECK_EVALUATIONS, "the test's graph must be a long check"
    calls = _count_forwards(monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the warning raises, so the long check itself is never run
        with pytest.raises(UserWarning, match="gradcheck") as warned:
            gradcheck(root)
    text = str(warned.value)
    assert f"{len(tape.leaves):,} leaves" in text and f"{len(tape):,} nodes" in text and f"{evaluations:,}" in text
    assert "leaves=[" in text, "the warning says how to check fewer"
    assert calls[0] == 0, "the warning comes before the work"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gradcheck(root, leaves=[tape.values[i] for i in tape.leaves[:3]]).passed
        assert gradcheck(_graph_for("tanh")[0]).passed
