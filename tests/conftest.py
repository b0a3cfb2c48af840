"""Shared fixtures: PyTorch as the float64 reference, and random expression graphs for property tests."""

from __future__ import annotations

import importlib
import math
import os
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import pytest
from hypothesis import strategies as st


@pytest.fixture(scope="session")
def torch() -> Any:
    """PyTorch (float64 reference). Skipped only off CI, where the test extra may lack a wheel."""
    with warnings.catch_warnings():  # torch warns that numpy is missing; these tests do not use numpy
        warnings.filterwarnings("ignore", message="Failed to initialize NumPy", category=UserWarning)
        try:
            torch = importlib.import_module("torch")
        except ImportError:
            if os.environ.get("CI"):
                pytest.fail("torch is required on CI (pip install -e '.[test]'); the reference tests must run there")
            pytest.skip("torch is not installed (pip install -e '.[test]')")
        torch.tensor(1.0, dtype=torch.float64, requires_grad=True).exp().backward()
    return torch


# ---- random expression graphs ----
# A program is (leaf values, steps); a step is (op, i, j, c): op on nodes i and j (indices taken
# modulo the nodes so far) with constant c (the exponent of "pow", the number of the "*_c" ops).
# `resolve` runs it once with guards that swap an op for tanh where it would leave its domain or
# blow up, and returns the steps as taken, so the same graph can be rebuilt for other leaf values,
# with the engine or with PyTorch.

UNARY = ("neg", "exp", "log", "tanh", "relu", "sigmoid", "pow")
BINARY = ("add", "sub", "mul", "div", "powv")
WITH_CONST = ("add_c", "c_sub", "c_mul", "c_div", "div_c", "c_pow")
EXPONENTS = (2, 3, 0.5, -1, -2.5, 1.5, 0, -2)
CONSTANTS = (0.5, 1.5, 2.0, 3.0, -0.75, 2.5, -1.0, 0.25)


@dataclass(frozen=True)
class Program:
    """Leaf values and steps of a random expression graph (see above)."""

    leaves: tuple[float, ...]
    steps: tuple[tuple[str, int, int, float], ...]


def _apply(op: str, a: Any, b: Any, c: float, fns: dict[str, Callable[[Any], Any]]) -> Any:
    """One step on either backend: Values or tensors share the operator syntax."""
    if op == "add":
        return a + b
    if op == "sub":
        return a - b
    if op == "mul":
        return a * b
    if op == "div":
        return a / b
    if op == "powv":
        return a ** b
    if op == "pow":
        return a ** c
    if op == "neg":
        return -a
    if op == "add_c":
        return a + c
    if op == "c_sub":
        return c - a
    if op == "c_mul":
        return c * a
    if op == "c_div":
        return c / a
    if op == "div_c":
        return a / c
    if op == "c_pow":
        return c ** a
    return fns[op](a)


def _safe(op: str, a: float, b: float, c: float) -> bool:
    """Whether ``op`` stays well inside its domain (and away from huge values) at these inputs."""
    if op in ("log",):
        return a > 0.05
    if op == "exp":
        return a < 6
    if op == "div":
        return abs(b) > 0.1 and abs(a / b) < 1e3
    if op == "c_div":
        return abs(a) > 0.1
    if op == "powv":
        return a > 0.1 and abs(b) < 4 and abs(b * math.log(a)) < 8
    if op == "c_pow":
        return c > 0 and abs(a * math.log(c)) < 8
    if op == "pow":
        if a < 0 and c != int(c):
            return False
        if c < 0 and abs(a) < 0.1 or 0 < c < 1 and a == 0:  # no finite slope (and -0.0 signs differ)
            return False
        return abs(a) < 30 or c <= 1
    if op in ("mul", "c_mul"):
        return abs(a * (b if op == "mul" else c)) < 1e4
    return abs(a) + abs(b) < 1e4


_VALUE_FNS = {name: (lambda v, name=name: getattr(v, name)()) for name in ("exp", "log", "tanh", "relu", "sigmoid")}


class Graphs:
    """Builders for random expression graphs on the engine and on PyTorch."""

    Program = Program

    @staticmethod
    def programs(max_leaves: int = 4, max_steps: int = 12) -> st.SearchStrategy[Program]:
        leaf = st.floats(-2.5, 2.5, allow_nan=False).map(lambda x: round(x, 6))
        step = st.tuples(
            st.sampled_from(UNARY + BINARY + WITH_CONST),
            st.integers(0, 10_000),
            st.integers(0, 10_000),
            st.integers(0, len(CONSTANTS) - 1),
        )
        return st.builds(
            Program,
            st.lists(leaf, min_size=1, max_size=max_leaves).map(tuple),
            st.lists(step, min_size=1, max_size=max_steps).map(tuple),
        )

    @staticmethod
    def resolve(program: Program) -> Program:
        """The program with unsafe steps replaced by tanh and pow constants drawn from EXPONENTS."""
        data = list(program.leaves)
        steps = []
        for op, i, j, c in program.steps:
            i, j = i % len(data), j % len(data)
            c = EXPONENTS[int(c)] if op == "pow" else CONSTANTS[int(c)]
            a, b = data[i], data[j]
            if not _safe(op, a, b, c):
                op = "tanh"
            steps.append((op, i, j, c))
            data.append(_float_apply(op, a, b, c))
        return Program(program.leaves, tuple(steps))

    @staticmethod
    def build(program: Program, leaves: Sequence[float] | None = None) -> tuple[list[Any], Any]:
        """(leaf Values, root Value) of a resolved program, for ``leaves`` or its own leaf values."""
        from micrograd_widget.engine import Value

        xs = [Value(x, label=f"x{n}") for n, x in enumerate(program.leaves if leaves is None else leaves)]
        nodes: list[Any] = list(xs)
        for op, i, j, c in program.steps:
            nodes.append(_apply(op, nodes[i], nodes[j], c, _VALUE_FNS))
        return xs, nodes[-1]

    @staticmethod
    def build_torch(torch: Any, program: Program) -> tuple[list[Any], Any]:
        """(leaf tensors requiring grad, root tensor) of a resolved program, in float64."""
        xs = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in program.leaves]
        nodes: list[Any] = list(xs)
        fns = {"exp": torch.exp, "log": torch.log, "tanh": torch.tanh, "relu": torch.relu, "sigmoid": torch.sigmoid}
        for op, i, j, c in program.steps:
            nodes.append(_apply(op, nodes[i], nodes[j], c, fns))
        return xs, nodes[-1]


def _float_apply(op: str, a: float, b: float, c: float) -> float:
    """One step's value, computed by the engine on fresh leaves."""
    from micrograd_widget.engine import Value

    return _apply(op, Value(a), Value(b), c, _VALUE_FNS).data


@pytest.fixture(scope="session")
def graphs() -> type[Graphs]:
    """Random expression graphs: ``graphs.programs()`` (a strategy), ``resolve``, ``build``, ``build_torch``."""
    return Graphs
