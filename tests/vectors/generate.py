"""Writes the shared test vectors tests/vectors/*.json: graphs, leaf values, expected data and grads.

Run ``.venv/bin/python tests/vectors/generate.py`` after changing the op table or the tape format and
commit the result; tests/test_tape.py regenerates them in memory and fails if the files are stale.
The browser replay (js/core/tape.js) must reproduce every case to 1e-12.

Each file is ``{"name", "spec", "cases": [{"leaf_values", "output", "data", "grad"}]}``. ``spec`` is
``Tape.spec()`` with each binary buffer written as its numbers, ``{"int32": [...]}`` or ``{"float64":
[...]}`` (``Tape.to_json()``; the tests turn them back into the exact little-endian bytes, and js/core/tapes.fixture.js
into the DataViews a widget manager hands over). ``leaf_values`` in ``spec["leaves"]`` order, ``output``
the node differentiated (the root or another node id), ``data``/``grad`` per node; every float in the
file is encoded with ``tape.encode_number`` (non-finite ones as "NaN", "Infinity", "-Infinity").
Deterministic: the only randomness is seeded.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from micrograd_widget.core.spec import encode_number
from micrograd_widget.core.tape import Tape
from micrograd_widget.engine import Value
from micrograd_widget.nn import MLP

HERE = Path(__file__).resolve().parent
if str(HERE.parent) not in sys.path:
    sys.path.insert(0, str(HERE.parent))  # tests/builders.py, when this file runs as a script
import builders  # noqa: E402  (importable once tests/ is on the path)

# A graph: its root, and cases as ({leaf label: value}, node to differentiate or None for the root).
# Leaves a case does not name keep their value (numbers written in the expression, unlabelled).
Case = tuple[Mapping[str, float], "Value | None"]
Graph = tuple[Value, list[Case]]


def arithmetic() -> Graph:
    """add, sub, mul, div, neg, with numbers on either side."""
    a, b = Value(1.5, label="a"), Value(-0.75, label="b")
    s = a + b
    root = s * (a - b) + a / b - (-a) * (2 + a) + (3 - b) / 4 + 4 / b
    return root, [({}, None), ({"a": 2.0, "b": 0.5}, None), ({"a": -1.25, "b": 3.0}, None), ({"a": 0.3}, s)]


def powers() -> Graph:
    """pow with int, float, zero and negative exponents (and a negative base), powv, and number ** Value."""
    x, y = Value(1.7, label="x"), Value(0.6, label="y")
    root = x**2 + x**3.0 + x**0.5 + x**-1 + x**-2.5 + x**0 + (y - 3) ** 3 + (y - 3) ** -2 + y**x + 2**y
    return root, [({}, None), ({"x": 0.4, "y": 2.2}, None), ({"x": 3.1, "y": 0.05}, None)]


def sqrt_at_zero() -> Graph:
    """x**0.5 at 0: an infinite slope, and NaN once it meets a zero; the non-finite encodings."""
    x = Value(4.0, label="x")
    r = x**0.5
    root = r * 0.0 + x
    return root, [({}, None), ({"x": 0.0}, r), ({"x": 0.0}, None), ({"x": 2.0}, r)]


def unary() -> Graph:
    """exp, log, tanh, relu and sigmoid, each on both signs of its input in every case."""
    x = Value(0.8, label="x")
    m = -x
    root = (x.exp() + (x * x + 1).log() + x.tanh() * m.tanh() + x.relu() + m.relu() * 2
            + x.sigmoid() + m.sigmoid() * 3)
    return root, [({}, None), ({"x": -1.3}, None), ({"x": 0.0}, None), ({"x": 30.0}, None), ({"x": -400.0}, None)]


def a_plus_a() -> Graph:
    """The same input twice: a+a counts twice, a*a too."""
    a = Value(3.0, label="a")
    d = a + a
    root = d * a + a * a
    return root, [({}, None), ({"a": -0.5}, None), ({"a": 2.0}, d)]


def lecture_L() -> Graph:
    """The lecture's L = (a*b + c) * f."""
    nodes = builders.lecture_L(backward=False)
    return nodes["L"], [({}, None), ({"a": 1.0, "f": 0.5}, None), ({}, nodes["d"])]


def lecture_neuron() -> Graph:
    """The lecture's neuron, tanh written out with exp: o = (e - 1) / (e + 1), e = exp(2n)."""
    nodes = builders.tanh_spelled_out()
    root, n = nodes["o"], nodes["n"]
    return root, [({}, None), ({"x2": 1.0, "w2": -0.5}, None), ({"b": 5.0}, n)]


def micrograd_readme() -> Graph:
    """micrograd's README expression."""
    g = builders.micrograd_readme()[2]
    f = g._prev[0]._prev[0]  # g = f/2 + 10/f: f is the first input of f/2
    return g, [({}, None), ({"a": -3.0, "b": 1.5}, None), ({"a": 1.0, "b": 4.0}, f)]


def chain() -> Graph:
    """A deep-ish chain (~600 nodes): each link is tanh(0.97 v + 0.05), every 10th a sigmoid."""
    x = Value(0.3, label="x")
    v = x
    for i in range(150):
        v = v * 0.97 + 0.05
        v = v.sigmoid() if i % 10 == 9 else v.tanh()
    return v, [({}, None), ({"x": -2.0}, None), ({"x": 5.0}, None)]


def mlp() -> Graph:
    """A small MLP(2, [4, 4, 1]) with its scopes, under a squared-error loss; random cases move every leaf."""
    state = random.getstate()
    try:
        random.seed(20240607)
        model = MLP(2, [4, 4, 1])
        rng = random.Random(7)
    finally:
        random.setstate(state)
    for i, p in enumerate(model.parameters()):
        p.label = f"p{i}"
    x = [Value(0.5, label="x0"), Value(-1.0, label="x1")]
    out = model(x)
    root = (out - 1.0) ** 2
    labels = [p.label for p in model.parameters()] + ["x0", "x1"]
    cases: list[Case] = [({}, None)]
    for _ in range(3):
        cases.append(({label: round(rng.uniform(-1.5, 1.5), 6) for label in labels}, None))
    cases.append(({}, out))
    return root, cases


GRAPHS: dict[str, Callable[[], Graph]] = {
    f.__name__: f
    for f in (arithmetic, powers, sqrt_at_zero, unary, a_plus_a, lecture_L, lecture_neuron, micrograd_readme, chain,
              mlp)
}


def vector(name: str, build: Callable[[], Graph]) -> dict:
    """One vector file's content: the frozen graph's spec and its replayed cases."""
    root, cases = build()
    root.backward()
    tape = Tape.from_value(root)
    spec = tape.to_json()
    if (list(tape.forward()) != [v.data for v in tape.values]
            or list(tape.backward()) != [v.grad for v in tape.values]):
        raise AssertionError(f"{name}: the tape replay differs from the engine")
    labels = tape.labels
    out_cases = []
    for overrides, output in cases:
        unknown = set(overrides) - {labels[i] for i in tape.leaves}
        if unknown:
            raise AssertionError(f"{name}: case names leaves that do not exist: {sorted(unknown)}")
        leaf_values = [overrides.get(labels[i], tape.values[i].data) for i in tape.leaves]
        out = tape.root if output is None else tape.index(output)
        data = tape.forward(leaf_values)
        grad = tape.backward(out)
        out_cases.append({
            "leaf_values": [encode_number(x) for x in leaf_values],
            "output": out,
            "data": [encode_number(x) for x in data],
            "grad": [encode_number(x) for x in grad],
        })
    return {"name": name, "spec": spec, "cases": out_cases}


def to_text(doc: dict) -> str:
    """A vector file's JSON text: one line per spec array and per case, so diffs stay readable."""
    def dump(x: object) -> str:
        return json.dumps(x, allow_nan=False, separators=(",", ":"), ensure_ascii=False)

    spec = ",\n".join(f"  {dump(key)}: {dump(value)}" for key, value in doc["spec"].items())
    cases = ",\n".join(f"  {dump(case)}" for case in doc["cases"])
    return f'{{\n "name": {dump(doc["name"])},\n "spec": {{\n{spec}\n }},\n "cases": [\n{cases}\n ]\n}}\n'


def render() -> dict[str, str]:
    """Every vector file, by file name, as the exact text written to disk."""
    return {f"{name}.json": to_text(vector(name, build)) for name, build in GRAPHS.items()}


def main() -> int:
    """Write tests/vectors/*.json, removing vector files no graph produces any more."""
    files = render()
    for stale in set(p.name for p in HERE.glob("*.json")) - set(files):
        (HERE / stale).unlink()
    for name, text in files.items():
        (HERE / name).write_text(text, encoding="utf-8")
    print(f"wrote {len(files)} vector files to {HERE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
