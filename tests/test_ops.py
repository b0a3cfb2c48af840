"""The op table: every row's value and local derivative against PyTorch (float64) and central finite
differences, through the engine's operators; the errors each row raises; define_op; the JS copy."""

from __future__ import annotations

import importlib.util
import json
import math
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from builders import seeded_mlp

from micrograd_widget.core.ops import OPS, OPS_BY_NAME, ZeroDivisionValueError, define_op, js_module, op_symbol
from micrograd_widget.core.spec import decode_number, encode_number
from micrograd_widget.core.tape import Tape
from micrograd_widget.engine import Value

# Per row: how the engine spells it, how PyTorch spells it, and points (a, b, k) to check it at,
# away from kinks so that finite differences are meaningful. Both signs wherever the row allows.
CASES = {
    "add": (lambda a, b, k: a + b, lambda t, a, b, k: a + b, [(1.3, -0.7, None), (-2.1, 0.4, None)]),
    "sub": (lambda a, b, k: a - b, lambda t, a, b, k: a - b, [(1.3, -0.7, None), (-2.1, 0.4, None)]),
    "mul": (lambda a, b, k: a * b, lambda t, a, b, k: a * b, [(1.3, -0.7, None), (-2.1, 0.4, None), (0.0, 3.0, None)]),
    "div": (lambda a, b, k: a / b, lambda t, a, b, k: a / b, [(1.3, -0.7, None), (-2.1, 0.4, None), (0.0, 3.0, None)]),
    "neg": (lambda a, b, k: -a, lambda t, a, b, k: -a, [(1.3, None, None), (-2.1, None, None)]),
    "pow": (
        lambda a, b, k: a ** k,
        lambda t, a, b, k: a ** k,
        [(1.7, None, 2), (-1.3, None, 3), (2.0, None, 0.5), (0.8, None, -1), (1.5, None, -2.5),
         (-2.0, None, -2), (3.0, None, 0), (-0.6, None, 1), (2.2, None, 1.5)],
    ),
    "powv": (lambda a, b, k: a ** b, lambda t, a, b, k: a ** b,
             [(1.7, 2.3, None), (0.4, -1.2, None), (2.5, 0.0, None)]),
    "exp": (lambda a, b, k: a.exp(), lambda t, a, b, k: t.exp(a),
            [(1.3, None, None), (-2.1, None, None), (0.0, None, None)]),
    "log": (lambda a, b, k: a.log(), lambda t, a, b, k: t.log(a),
            [(1.3, None, None), (0.2, None, None), (7.5, None, None)]),
    "tanh": (lambda a, b, k: a.tanh(), lambda t, a, b, k: t.tanh(a),
             [(0.8813735870195432, None, None), (-2.1, None, None), (0.0, None, None)]),
    "relu": (lambda a, b, k: a.relu(), lambda t, a, b, k: t.relu(a), [(1.3, None, None), (-2.1, None, None)]),
    "sigmoid": (lambda a, b, k: a.sigmoid(), lambda t, a, b, k: t.sigmoid(a),
                [(1.3, None, None), (-2.1, None, None), (0.0, None, None)]),
}
POINTS = [(name, a, b, k) for name, (_, _, points) in CASES.items() for a, b, k in points]


def test_the_table_has_the_documented_rows_each_tested_here() -> None:
    assert [op.name for op in OPS] == [
        "add", "sub", "mul", "div", "neg", "pow", "powv", "exp", "log", "tanh", "relu", "sigmoid"
    ]
    assert set(CASES) == set(OPS_BY_NAME), "every op row needs value/gradient cases here"
    assert [op.id for op in OPS] == list(range(len(OPS)))
    for op in OPS:
        assert op.arity in (1, 2)
        assert len(op.js_local_grad) == op.arity


def _engine(name: str, a: float, b: float | None, k: float | None) -> tuple[Value, list[Value]]:
    """The node ``name`` made through the engine's public operators, and its Value inputs."""
    xa = Value(a)
    xb = Value(b) if b is not None else None
    out = CASES[name][0](xa, xb, k)
    assert out._code is OPS_BY_NAME[name], f"{name} must be one node of its own row"
    return out, [x for x in (xa, xb) if x is not None]


@pytest.mark.parametrize("name,a,b,k", POINTS)
def test_value_and_gradient_match_pytorch_float64(torch, name: str, a: float, b: float | None, k: float | None) -> None:
    out, inputs = _engine(name, a, b, k)
    out.backward()
    ta = torch.tensor(a, dtype=torch.float64, requires_grad=True)
    tb = torch.tensor(b, dtype=torch.float64, requires_grad=True) if b is not None else None
    tout = CASES[name][1](torch, ta, tb, k)
    tout.backward()
    assert out.data == pytest.approx(tout.item(), rel=1e-15, abs=1e-15)
    for x, t in zip(inputs, (ta, tb)):
        assert x.grad == pytest.approx(t.grad.item(), rel=1e-13, abs=1e-15), (name, a, b, k)


@pytest.mark.parametrize("name,a,b,k", POINTS)
def test_gradient_matches_central_finite_differences(name: str, a: float, b: float | None, k: float | None) -> None:
    out, inputs = _engine(name, a, b, k)
    out.backward()
    point = [a, b]
    for n, x in enumerate(inputs):
        h = 1e-6 * max(1.0, abs(point[n]))
        hi, lo = list(point), list(point)
        hi[n] += h
        lo[n] -= h
        numeric = (_engine(name, *hi, k)[0].data - _engine(name, *lo, k)[0].data) / (2 * h)
        assert x.grad == pytest.approx(numeric, rel=1e-6, abs=1e-7), (name, a, b, k)


def test_each_node_shows_the_symbol_the_user_wrote() -> None:
    a, b = Value(3.0), Value(2.0)
    assert [(a + b)._op, (a - b)._op, (a * b)._op, (a / b)._op, (-a)._op] == ["+", "-", "*", "/", "neg"]
    assert [(a ** 2)._op, (a ** 0.5)._op, (a ** -1)._op, (a ** b)._op, (2 ** a)._op] \
        == ["**2", "**0.5", "**-1", "**", "**"]
    assert [a.exp()._op, a.log()._op, a.tanh()._op, a.relu()._op, a.sigmoid()._op] \
        == ["exp", "log", "tanh", "ReLU", "sigmoid"]
    assert op_symbol(OPS_BY_NAME["pow"], 3) == "**3" and op_symbol(OPS_BY_NAME["add"], None) == "+"


def test_pow_keeps_an_int_exponent_and_micrograd_s_symbol() -> None:
    x = Value(-2.0)
    node = x ** 3
    assert node.data == -8.0 and node._k == 3 and type(node._k) is int
    assert (x ** 3.0)._op == "**3.0"
    node.backward()
    assert x.grad == 12.0


def test_right_hand_versions_put_the_number_first() -> None:
    x = Value(4.0)
    assert (10 - x).data == 6.0 and (10 / x).data == 2.5 and (2 ** Value(3.0)).data == 8.0
    assert (10 - x)._prev[0].data == 10.0 and (10 - x)._prev[1] is x


@pytest.mark.parametrize("x", [400.0, -400.0, 800.0, -800.0, -1e308, 1e308])
def test_tanh_and_sigmoid_are_stable_far_from_zero(x: float) -> None:
    t = Value(x)
    out = t.tanh()
    out.backward()
    assert out.data == math.copysign(1.0, x) and t.grad == 0.0
    s = Value(x)
    out = s.sigmoid()
    out.backward()
    assert out.data == pytest.approx(1.0 if x > 0 else math.exp(x), rel=1e-15, abs=0.0)
    assert 0.0 <= s.grad <= 1e-16  # the true slope is about exp(-|x|); out * (1 - out) rounds it to 0 for x > 0


def test_relu_at_zero_has_zero_slope_like_pytorch() -> None:
    x = Value(0.0)
    out = x.relu()
    out.backward()
    assert out.data == 0.0 and x.grad == 0.0


def test_sqrt_at_zero_has_an_infinite_slope_and_zero_power_a_zero_slope() -> None:
    x = Value(0.0)
    (x ** 0.5).backward()
    assert x.grad == math.inf
    y = Value(0.0)
    (y ** 0).backward()
    assert y.grad == 0.0


# ---- errors: each names the op and the offending value, and is the documented type ----

@pytest.mark.parametrize(
    "make,kind,words",
    [
        (lambda: Value(710.0).exp(), OverflowError, ["'exp'", "710.0"]),
        (lambda: Value(0.0).log(), ValueError, ["'log'", "0.0"]),
        (lambda: Value(-3.5).log(), ValueError, ["'log'", "-3.5"]),
        (lambda: Value(1.5) / Value(0.0), ZeroDivisionError, ["'/'", "1.5", "0.0"]),
        (lambda: Value(1.5) / 0, ValueError, ["'/'", "1.5"]),
        (lambda: 2 / Value(0.0), ZeroDivisionError, ["'/'", "2.0"]),
        (lambda: Value(0.0) ** -1, ZeroDivisionError, ["'**-1'", "0.0"]),
        (lambda: Value(-8.0) ** 0.5, ValueError, ["'**0.5'", "-8.0"]),
        (lambda: Value(1e300) ** 2, OverflowError, ["'**2'", "1e+300"]),
        (lambda: Value(-2.0) ** Value(2.0), ValueError, ["'**'", "-2.0"]),
        (lambda: Value(10.0) ** Value(400.0), OverflowError, ["'**'", "400.0"]),
    ],
)
def test_bad_inputs_raise_clear_errors(make, kind: type, words: list[str]) -> None:
    with pytest.raises(kind) as err:
        make()
    for word in words:
        assert word in str(err.value)


def test_division_by_zero_is_both_zero_division_and_value_error() -> None:
    assert issubclass(ZeroDivisionValueError, ZeroDivisionError) and issubclass(ZeroDivisionValueError, ValueError)
    for make in (lambda: Value(1.0) / Value(0.0), lambda: Value(1.0) / 0, lambda: 1 / Value(-0.0)):
        with pytest.raises(ZeroDivisionError):
            make()
        with pytest.raises(ValueError):
            make()


# ---- user-defined ops ----

def test_define_op_validates_its_arguments() -> None:
    f, g = (lambda a: a), (lambda a, out: 1.0)
    with pytest.raises(ValueError, match="identifier"):
        define_op("not a name", f, g)
    with pytest.raises(ValueError, match="built-in"):
        define_op("tanh", f, g)
    with pytest.raises(ValueError, match="arity"):
        define_op("cube", f, g, arity=3)
    with pytest.raises(TypeError, match="callables"):
        define_op("cube", f, 1.0)  # type: ignore[arg-type]


def test_a_custom_op_with_the_wrong_number_of_partials_says_so() -> None:
    bad = define_op("bad", lambda a: a * a, lambda a, out: (2 * a, 1.0))
    x = Value(3.0)
    y = Value.apply(bad, x)
    with pytest.raises(ValueError, match=r"'bad'.*2 partials, expected 1"):
        y.backward()


def test_custom_ops_of_both_arities_give_the_right_values_and_grads() -> None:
    cube = define_op("cube", lambda a: a ** 3, lambda a, out: 3 * a * a, symbol="³")
    hyp = define_op("hypot", math.hypot, lambda a, b, out: (a / out, b / out), arity=2)
    x, y = Value(3.0), Value(4.0)
    c = Value.apply(cube, x)
    h = Value.apply(hyp, x, y)
    assert c._op == "³" and c.data == 27.0 and h._op == "hypot" and h.data == 5.0
    (c + h).backward()
    assert x.grad == pytest.approx(27 + 0.6) and y.grad == pytest.approx(0.8)
    with pytest.raises(TypeError, match="takes 2 input"):
        Value.apply(hyp, x)
    with pytest.raises(TypeError, match="define_op"):
        Value.apply("cube", x)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="str"):
        Value.apply(cube, "3")  # type: ignore[arg-type]


# ---- the browser's copy ----

def test_js_module_lists_every_row_in_table_order() -> None:
    js = js_module()
    assert js.startswith("// Generated from micrograd_widget/core/ops.py")
    positions = [js.index(f'name: "{op.name}"') for op in OPS]
    assert positions == sorted(positions)
    for op in OPS:
        assert f"forward: (a, b, k) => {op.js_forward}," in js
        assert f"localGrad: (a, b, k, out) => [{', '.join(op.js_local_grad)}]" in js
        assert f"domain: (a, b, k, out) => {op.js_domain} }}," in js


def test_a_tiny_divisor_gives_an_infinite_slope_not_an_error_in_backward() -> None:
    a, b = Value(1.0), Value(1e-200)
    (a / b).backward()  # b * b underflows to 0; the slope -(a / b) / b is -inf, as PyTorch computes it
    assert b.grad == -math.inf and a.grad == 1e200


@pytest.mark.parametrize("make", [lambda x: x ** -1, lambda x: x ** Value(-1.0)])
def test_a_power_whose_slope_overflows_gives_an_infinite_slope_not_an_error(make) -> None:
    x = Value(1e-200)
    out = make(x)
    assert out.data == pytest.approx(1e200)
    out.backward()  # the slope -x**-2 overflows a float: -inf, as JavaScript's ** gives in the browser
    assert x.grad == -math.inf


# ---- the browser stops exactly where Python raises ----

EDGES = (0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 5e-324, -5e-324, 1e-308, 1e308, -1e308,
         math.inf, -math.inf, math.nan, 709.78, 709.79, -745.2)
EXPONENTS = (0.0, -0.0, 1.0, 2.0, 3.0, -1.0, -2.0, 0.5, -2.5, 5000.0, -5000.0, 5001.0, math.inf, -math.inf, math.nan)
DOMAIN_SCRIPT = """
import { OPS_BY_NAME } from %s;
const num = (x) => (typeof x === "number" ? x : { NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity }[x]);
let text = "";
process.stdin.on("data", (chunk) => (text += chunk));
process.stdin.on("end", () => {
  const verdicts = JSON.parse(text).map(([name, a, b, k]) => {
    const op = OPS_BY_NAME[name];
    const [x, y, z] = [num(a), num(b), num(k)];
    return op.domain(x, y, z, op.forward(x, y, z));
  });
  process.stdout.write(JSON.stringify(verdicts));
});
"""


def _python_raises(op, a: float, b: float | None, k: float | None) -> bool:
    """Whether the Python forward refuses these inputs (a domain error or an overflow)."""
    try:
        op.forward(a, b, k)
    except (ArithmeticError, ValueError):
        return True
    return False


def test_js_domain_agrees_with_where_the_python_forward_raises(tmp_path: Path) -> None:
    """js/core/ops.js's domain(...) is true exactly where the Python forward returns, on a grid of edge inputs."""
    node = shutil.which("node")
    assert node, "node (>= 18) is needed: the JS op table is checked against Python's (apt-get install nodejs)"
    cases = []
    for op in OPS:
        for a in EDGES:
            seconds = EDGES if op.arity == 2 else (None,)
            exponents = EXPONENTS if op.name == "pow" else (None,)
            cases += [(op, a, b, k) for b in seconds for k in exponents]
    ops_js = (Path(__file__).resolve().parents[1] / "js" / "core" / "ops.js").as_uri()
    script = tmp_path / "domain.mjs"
    script.write_text(DOMAIN_SCRIPT % json.dumps(ops_js))
    # The browser replay passes 0 for a unary op's missing input and NaN for a missing constant (js/core/tape.js).
    payload = [[op.name, encode_number(a), encode_number(0.0 if b is None else b),
                encode_number(math.nan if k is None else k)]
               for op, a, b, k in cases]
    result = subprocess.run([node, str(script)], input=json.dumps(payload), capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, f"node failed (stale js/core/ops.js? `npm --prefix js run build`): {result.stderr}"
    verdicts = json.loads(result.stdout)
    assert len(verdicts) == len(cases)
    wrong = [(op.name, a, b, k, "JS flags" if python_ok else "JS misses")
             for (op, a, b, k), js_ok in zip(cases, verdicts)
             if js_ok != (python_ok := not _python_raises(op, a, b, k))]
    assert not wrong, f"{len(wrong)} disagreements, e.g. {wrong[:10]}"
    assert not all(verdicts) and any(verdicts), "the grid must reach both sides of the domain"


# ---- NaN and infinities through every row ----
# NaN and infinities through every op row, as PyTorch float64 carries them: the rows' forward and local derivative,
# the engine's nodes and backward, and the Python tape replay, against tests/vectors/ops/nonfinite.json (PyTorch's
# answers, written by tests/vectors/generate_nonfinite.py; js/core/ops.test.js holds the JS rows to it).

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


NONFINITE_POINTS = [(name, _decode(a), _decode(b), _decode(k), domain, decode_number(out),
                     [decode_number(g) for g in grads])
                    for name, a, b, k, domain, out, grads in json.loads(FILE.read_text(encoding="utf-8"))["points"]]
RETURNING = [p for p in NONFINITE_POINTS if p[4]]


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
        inputs = [x for p in NONFINITE_POINTS if p[0] == op.name for x in p[1:4] if x is not None]
        assert any(math.isnan(x) for x in inputs) and math.inf in inputs and -math.inf in inputs, op.name
        assert any(math.isnan(x) for p in RETURNING if p[0] == op.name for x in p[1:4] if x is not None), op.name
    assert 0 < len(RETURNING) < len(NONFINITE_POINTS), "the grid must reach both sides of the domain"


@pytest.mark.parametrize("name,a,b,k,domain,out,grads", RETURNING)
def test_each_row_gives_pytorchs_value_and_slope(name: str, a: float, b: float | None, k: float | None,
                                                 domain: bool, out: float, grads: list[float]) -> None:
    op = OPS_BY_NAME[name]
    value = op.forward(a, b, k)
    assert same(value, out), (name, a, b, k, value, out)
    local = op.local_grad(a, b, k, value)
    assert all(map(same, local, grads)), (name, a, b, k, local, grads)


@pytest.mark.parametrize("name,a,b,k,domain,out,grads", [p for p in NONFINITE_POINTS if not p[4]])
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
