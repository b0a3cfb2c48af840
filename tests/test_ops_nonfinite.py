"""NaN and infinities through every op row, as PyTorch float64 carries them: the rows' forward and local
derivative, the engine's nodes and backward, and the Python tape replay, against tests/vectors/ops/nonfinite.json
(PyTorch's answers, written by tests/vectors/generate_nonfinite.py; js/ops.test.js holds the JS rows to it)."""

from __future__ import annotations

import importlib.util
import json
import math
from pathlib import Path
from typing import Any

import pytest
from builders import seeded_mlp

from micrograd_widget.engine import Value
from micrograd_widget.ops import OPS, OPS_BY_NAME
from micrograd_widget.spec import decode_number
from micrograd_widget.tape import Tape

VECTORS = Path(__file__).resolve().parent / "vectors"
FILE = VECTORS / "ops" / "nonfinite.json"


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location("vectors_generate_nonfinite", VECTORS / "generate_nonfinite.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


GENERATOR = _generator()


def _decode(x: Any) -> Any:
    return None if x is None else decode_number(x)


POINTS = [(name, _decode(a), _decode(b), _decode(k), domain, decode_number(out), [decode_number(g) for g in grads])
          for name, a, b, k, domain, out, grads in json.loads(FILE.read_text(encoding="utf-8"))["points"]]
RETURNING = [p for p in POINTS if p[4]]


def same(x: float, y: float, signed_zero: bool = True) -> bool:
    """Equal floats, NaN equal to NaN, -0.0 not 0.0 (unless ``signed_zero`` is False)."""
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    return x == y and (not signed_zero or math.copysign(1.0, x) == math.copysign(1.0, y))


def test_the_vector_file_is_what_pytorch_gives_now(torch) -> None:
    assert FILE.read_text(encoding="utf-8") == GENERATOR.render(torch), \
        "stale: run .venv/bin/python tests/vectors/generate_nonfinite.py"


def test_every_row_is_checked_at_nan_and_both_infinities() -> None:
    assert {p[0] for p in RETURNING} == set(OPS_BY_NAME)
    for op in OPS:
        inputs = [x for p in POINTS if p[0] == op.name for x in p[1:4] if x is not None]
        assert any(math.isnan(x) for x in inputs) and math.inf in inputs and -math.inf in inputs, op.name
        assert any(math.isnan(x) for p in RETURNING if p[0] == op.name for x in p[1:4] if x is not None), op.name
    assert 0 < len(RETURNING) < len(POINTS), "the grid must reach both sides of the domain"


@pytest.mark.parametrize("name,a,b,k,domain,out,grads", RETURNING)
def test_each_row_gives_pytorchs_value_and_slope(name: str, a: float, b: float | None, k: float | None,
                                                 domain: bool, out: float, grads: list[float]) -> None:
    op = OPS_BY_NAME[name]
    value = op.forward(a, b, k)
    assert same(value, out), (name, a, b, k, value, out)
    local = op.local_grad(a, b, k, value)
    assert all(map(same, local, grads)), (name, a, b, k, local, grads)


@pytest.mark.parametrize("name,a,b,k,domain,out,grads", [p for p in POINTS if not p[4]])
def test_outside_its_domain_a_row_raises_naming_the_op(name: str, a: float, b: float | None, k: float | None,
                                                       domain: bool, out: float, grads: list[float]) -> None:
    """The engine's documented domain errors (x / 0, log of -inf, a negative base to a non-integer power, a
    Value exponent on a non-positive base) are kept where PyTorch gives inf or NaN: they say which op failed."""
    with pytest.raises((ArithmeticError, ValueError)) as err:
        OPS_BY_NAME[name].forward(a, b, k)
    assert str(err.value).startswith("'"), str(err.value)


def _through_the_engine(name: str, a: float, b: float | None, k: float | None) -> tuple[Value, list[Value]]:
    xa, xb = Value(a), None if b is None else Value(b)
    node = GENERATOR.SPELLING[name](xa, xb, k)
    assert node._code is OPS_BY_NAME[name]
    return node, [x for x in (xa, xb) if x is not None]


@pytest.mark.parametrize("name,a,b,k,domain,out,grads", RETURNING)
def test_the_engine_and_the_tape_carry_them_as_pytorch(name: str, a: float, b: float | None, k: float | None,
                                                       domain: bool, out: float, grads: list[float]) -> None:
    node, inputs = _through_the_engine(name, a, b, k)
    node.backward()
    assert same(node.data, out)
    # backward adds each partial to a grad of 0.0, which turns a -0.0 into 0.0: zeros compare unsigned here
    assert all(same(x.grad, g, signed_zero=False) for x, g in zip(inputs, grads)), (name, a, b, k)
    tape = Tape.from_value(node)
    tape.replay()
    assert same(tape.data[tape.root], out)
    assert all(same(tape.grad[tape.index(x)], g, signed_zero=False) for x, g in zip(inputs, grads))


def test_relu_of_nan_is_nan_so_a_diverging_network_shows_it(torch) -> None:
    x = Value(math.nan)
    y = x.relu()
    y.backward()
    t = torch.tensor(math.nan, dtype=torch.float64, requires_grad=True)
    t.relu().backward()
    assert math.isnan(y.data) and math.isnan(t.relu().item())
    assert x.grad == t.grad.item() == 1.0
    model = seeded_mlp(3, 2, [4, 4, 1])
    loss = (model([Value(math.nan), Value(1.0)]) - 1.0) ** 2  # NaN in, through two ReLU layers
    loss.backward()
    assert math.isnan(loss.data)
    assert any(math.isnan(p.grad) for p in model.parameters())
