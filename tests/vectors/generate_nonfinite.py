"""Writes tests/vectors/ops/nonfinite.json: every op-table row at NaN and +-inf inputs, with PyTorch's answers.

Run ``.venv/bin/python tests/vectors/generate_nonfinite.py`` after changing the op table's rows and commit the
result; tests/test_ops.py regenerates it in memory (it fails if the file is stale) and holds the
Python rows and the engine to it, js/core/ops.test.js the JS rows (their forward, localGrad and the replay's switch).

The file is ``{"name", "points": [[op, a, b, k, domain, out, grads], ...]}``: the inputs (``b`` null for a unary
op, ``k`` null but for ``pow``), ``domain`` whether the Python row returns there rather than raising (the engine's
documented domain errors: division by zero, a negative base to a non-integer power, ...), and PyTorch float64's
value and gradient per input (``torch.autograd``). Every float is encoded with ``tape.encode_number``.
"""

from __future__ import annotations

import json
import math
import sys
import warnings
from pathlib import Path
from typing import Any

from micrograd_widget.core.ops import OPS, Op
from micrograd_widget.core.spec import encode_number

HERE = Path(__file__).resolve().parent
OUT = HERE / "ops" / "nonfinite.json"

NON_FINITE = (math.nan, math.inf, -math.inf)
FINITE = (0.0, -0.0, 1.0, -1.0, -2.0, 0.5)  # the companions: zeros of both signs, the bases where pow is special
EXPONENTS = (2, 3, 0.5, -1, 0, -2.5)

# Each row as PyTorch writes it on tensors a, b and the constant k; the engine's Values take the same syntax.
SPELLING = {
    "add": lambda a, b, k: a + b, "sub": lambda a, b, k: a - b, "mul": lambda a, b, k: a * b,
    "div": lambda a, b, k: a / b, "neg": lambda a, b, k: -a, "pow": lambda a, b, k: a ** k,
    "powv": lambda a, b, k: a ** b, "exp": lambda a, b, k: a.exp(), "log": lambda a, b, k: a.log(),
    "tanh": lambda a, b, k: a.tanh(), "relu": lambda a, b, k: a.relu(), "sigmoid": lambda a, b, k: a.sigmoid(),
}


def points(op: Op) -> list[tuple[float, float | None, float | None]]:
    """The inputs ``op`` is checked at: every input non-finite in turn, against every companion."""
    if op.arity == 2:
        xs = NON_FINITE + FINITE
        return [(a, b, None) for a in xs for b in xs if not (a in FINITE and b in FINITE)]
    if op.name == "pow":
        return ([(a, None, k) for a in NON_FINITE for k in EXPONENTS + NON_FINITE]
                + [(a, None, k) for a in FINITE for k in NON_FINITE])
    return [(a, None, None) for a in NON_FINITE]


def python_returns(op: Op, a: float, b: float | None, k: float | None) -> bool:
    """Whether the Python row returns at these inputs (False: it raises one of its domain errors)."""
    try:
        op.forward(a, b, k)
    except (ArithmeticError, ValueError):
        return False
    return True


def torch_answer(torch: Any, name: str, a: float, b: float | None, k: float | None) -> tuple[float, list[float]]:
    """PyTorch float64's value and gradient per input (0.0 for an input the value does not use)."""
    ta = torch.tensor(a, dtype=torch.float64, requires_grad=True)
    tb = None if b is None else torch.tensor(b, dtype=torch.float64, requires_grad=True)
    out = SPELLING[name](ta, tb, k)
    out.backward()
    return out.item(), [0.0 if t.grad is None else t.grad.item() for t in (ta, tb) if t is not None]


def import_torch() -> Any:
    """PyTorch, without its warning that numpy is missing (nothing here uses numpy)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="Failed to initialize NumPy", category=UserWarning)
        import torch
        torch.tensor(1.0, dtype=torch.float64, requires_grad=True).exp().backward()
    return torch


def render(torch: Any) -> str:
    """The vector file's exact text: one line per point."""
    def enc(x: float | None) -> float | str | None:
        return None if x is None else encode_number(float(x))

    rows = []
    for op in OPS:
        for a, b, k in points(op):
            out, grads = torch_answer(torch, op.name, a, b, k)
            rows.append([op.name, enc(a), enc(b), enc(k), python_returns(op, a, b, k), enc(out),
                         [enc(g) for g in grads]])
    lines = ",\n".join("  " + json.dumps(row, allow_nan=False, separators=(",", ":")) for row in rows)
    return f'{{\n "name": "nonfinite",\n "points": [\n{lines}\n ]\n}}\n'


def main() -> int:
    """Write tests/vectors/ops/nonfinite.json."""
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(render(import_torch()), encoding="utf-8")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
