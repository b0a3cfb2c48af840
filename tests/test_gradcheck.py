"""gradcheck: analytic grads against central finite differences, for every op and a broken custom op."""

import math

import pytest

from micrograd_widget.engine import Value
from micrograd_widget.gradcheck import gradcheck
from micrograd_widget.ops import OPS, define_op


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
