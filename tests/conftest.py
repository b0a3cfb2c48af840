"""Shared fixtures: PyTorch as the float64 reference, random expression graphs for property tests, and a kernel
``dot`` stopped by a tiny time limit."""

from __future__ import annotations

import importlib
import math
import random
import shutil
import subprocess
import warnings
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import pytest
from helpers import DotRuns, FakeClock, make_shell
from hypothesis import strategies as st
from IPython.core.interactiveshell import InteractiveShell

import micrograd_widget
from micrograd_widget.nn import MLP

_INSTALL = {
    "torch": "pip install -e '.[dev]' installs it on Python 3.11 x86_64; elsewhere `pip install torch` yourself",
    "micrograd": "pip install -e '.[dev]' (or `pip install micrograd==0.1.0`)",
}


def _reference(name: str) -> Any:
    """Import a reference package of the test extras. Without it the test fails (a skip would hide that the
    reference never ran), with a message saying what to install; with or without the CI variable."""
    try:
        return importlib.import_module(name)
    except ImportError as err:
        how = _INSTALL[name.split(".")[0]]
        pytest.fail(f"{name} is needed: it is the reference these tests compare against ({err}); {how}",
                    pytrace=False)


@pytest.fixture(scope="session")
def torch() -> Any:
    """PyTorch, the float64 reference for values and gradients."""
    with warnings.catch_warnings():  # torch warns that numpy is missing; these tests do not use numpy
        warnings.filterwarnings("ignore", message="Failed to initialize NumPy", category=UserWarning)
        torch = _reference("torch")
        torch.tensor(1.0, dtype=torch.float64, requires_grad=True).exp().backward()
    return torch


@pytest.fixture(scope="session")
def micrograd() -> Any:
    """The PyPI micrograd package (0.1.0), the behaviour this engine is compatible with."""
    _reference("micrograd.nn")
    return _reference("micrograd")


# ---- random expression graphs ----
# A program is (leaf values, steps); a step is (op, i, j, c): op on nodes i and j with constant c (the
# exponent of "pow", the number of the "*_c" ops). `resolve` picks i among the two newest nodes (so
# graphs grow deep) and j among all nodes so far (so nodes get shared), then adds every node nothing
# uses into the root (so graphs are wide and every leaf matters). It runs the program once with guards
# that swap an op for tanh where it would leave its domain or blow up, and returns the steps as taken,
# so the same graph can be rebuilt for other leaf values, with the engine or with PyTorch.

# Each step as a function of its inputs a, b and constant c; Values and tensors share this syntax.
STEPS: dict[str, Callable[[Any, Any, float], Any]] = {
    "add": lambda a, b, c: a + b, "sub": lambda a, b, c: a - b, "mul": lambda a, b, c: a * b,
    "div": lambda a, b, c: a / b, "powv": lambda a, b, c: a ** b, "pow": lambda a, b, c: a ** c,
    "neg": lambda a, b, c: -a, "add_c": lambda a, b, c: a + c, "c_sub": lambda a, b, c: c - a,
    "c_mul": lambda a, b, c: c * a, "c_div": lambda a, b, c: c / a, "div_c": lambda a, b, c: a / c,
    "c_pow": lambda a, b, c: c ** a,
    **{f: (lambda a, b, c, f=f: getattr(a, f)()) for f in ("exp", "log", "tanh", "relu", "sigmoid")},
}
BINARY = ("add", "sub", "mul", "div", "powv")
EXPONENTS = (2, 3, 0.5, -1, -2.5, 1.5, 0, -2)
CONSTANTS = (0.5, 1.5, 2.0, 3.0, -0.75, 2.5, -1.0, 0.25)


@dataclass(frozen=True)
class Program:
    """Leaf values and steps of a random expression graph (see above)."""

    leaves: tuple[float, ...]
    steps: tuple[tuple[str, int, int, float], ...]


def _safe(op: str, a: float, b: float, c: float) -> bool:
    """Whether ``op`` stays well inside its domain (and away from huge values) at these inputs."""
    if op == "log":
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
        if (a < 0 and c != int(c)) or (c < 0 and abs(a) < 0.1) or (0 < c < 1 and a == 0):
            return False  # not real, or no finite slope (and PyTorch's sign of inf at -0.0 differs)
        return abs(a) < 30 or c <= 1
    if op in ("mul", "c_mul"):
        return abs(a * (b if op == "mul" else c)) < 1e4
    return abs(a) + abs(b) < 1e4


def _run(program: Program, xs: list[Any]) -> Any:
    """The root of a resolved program whose leaves are ``xs`` (Values or tensors)."""
    nodes = list(xs)
    for op, i, j, c in program.steps:
        nodes.append(STEPS[op](nodes[i], nodes[j], c))
    return nodes[-1]


class Graphs:
    """Builders for random expression graphs on the engine and on PyTorch."""

    @staticmethod
    def programs(max_leaves: int = 5, max_steps: int = 14) -> st.SearchStrategy[Program]:
        """A hypothesis strategy for (unresolved) programs; binary ops drawn three times as often as each
        unary one, so that nodes are shared and graphs branch."""
        leaf = st.floats(-2.5, 2.5, allow_nan=False).map(lambda x: round(x, 6))
        step = st.tuples(
            st.sampled_from(sorted(STEPS) + 2 * sorted(BINARY)), st.integers(0, 10_000), st.integers(0, 10_000),
            st.integers(0, len(CONSTANTS) - 1),
        )
        return st.builds(
            Program,
            st.lists(leaf, min_size=2, max_size=max_leaves).map(tuple),
            st.lists(step, min_size=3, max_size=max_steps).map(tuple),
        )

    @staticmethod
    def resolve(program: Program) -> Program:
        """The program with real input indices and constants, and unsafe steps replaced by tanh."""
        from micrograd_widget.engine import Value

        data = list(program.leaves)
        steps: list[tuple[str, int, int, float]] = []

        def take(op: str, i: int, j: int, c: float) -> None:
            if not _safe(op, data[i], data[j], c):
                op = "tanh"
            steps.append((op, i, j, c))
            data.append(STEPS[op](Value(data[i]), Value(data[j]), c).data)

        for op, i, j, c in program.steps:
            i, j = len(data) - 1 - i % 2, j % len(data)
            take(op, i, j, EXPONENTS[int(c)] if op == "pow" else CONSTANTS[int(c)])
        used = {i for op, i, j, c in steps} | {j for op, i, j, c in steps if op in BINARY}
        for unused in [n for n in range(len(data) - 1) if n not in used]:
            take("add", len(data) - 1, unused, 0.0)
        return Program(program.leaves, tuple(steps))

    @staticmethod
    def build(program: Program, leaves: Sequence[float] | None = None) -> tuple[list[Any], Any]:
        """(leaf Values, root Value) of a resolved program, for ``leaves`` or its own leaf values."""
        from micrograd_widget.engine import Value

        xs = [Value(x, label=f"x{n}") for n, x in enumerate(program.leaves if leaves is None else leaves)]
        return xs, _run(program, xs)

    @staticmethod
    def build_torch(torch: Any, program: Program) -> tuple[list[Any], Any]:
        """(leaf tensors requiring grad, root tensor) of a resolved program, in float64."""
        xs = [torch.tensor(x, dtype=torch.float64, requires_grad=True) for x in program.leaves]
        return xs, _run(program, xs)

    @staticmethod
    def shape(program: Program) -> GraphShape:
        """Size, depth, sharing and width of the graph a resolved program builds (what the root depends on)."""
        from micrograd_widget.engine import topological_order

        order = topological_order(Graphs.build(program)[1])
        depth: dict[int, int] = {}
        uses: Counter[int] = Counter()
        for v in order:
            depth[id(v)] = 1 + max((depth[id(p)] for p in v._prev), default=-1)
            uses.update(id(p) for p in v._prev)
        return GraphShape(
            ops=sum(1 for v in order if v._prev), depth=depth[id(order[-1])],
            shared=sum(1 for v in order if uses[id(v)] >= 2), leaves=sum(1 for v in order if not v._prev),
        )

    # What the session's sample of the strategy looked like, printed once at the end (see pytest_terminal_summary).
    summary: str = ""


@dataclass(frozen=True)
class GraphShape:
    """Op nodes, longest leaf-to-root path (in ops), nodes used more than once, and leaves of a random graph."""

    ops: int
    depth: int
    shared: int
    leaves: int


GRAPHS_SUMMARY = "mgw_graphs_summary"  # the key a pytest-xdist worker sends Graphs.summary back under


def pytest_sessionfinish(session: pytest.Session) -> None:
    """On a pytest-xdist worker (tests/run.sh runs two): send the sample's summary to the controller, which prints."""
    sent = getattr(session.config, "workeroutput", None)
    if sent is not None and Graphs.summary:
        sent[GRAPHS_SUMMARY] = Graphs.summary


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook: absent when pytest runs without it (-p no:xdist)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """A worker finished: keep the summary it sampled, if any."""
    Graphs.summary = getattr(node, "workeroutput", {}).get(GRAPHS_SUMMARY) or Graphs.summary


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """Print the random-graph strategy's size/depth distribution once, when a test sampled it."""
    if Graphs.summary:
        terminalreporter.write_sep("-", "random expression graphs")
        terminalreporter.write_line(Graphs.summary)


@pytest.fixture(scope="session")
def graphs() -> type[Graphs]:
    """Random expression graphs: ``graphs.programs()`` (a strategy), ``resolve``, ``build``, ``build_torch``."""
    return Graphs


# ---- dot stopped at its time limit ----


@pytest.fixture
def stopped_dot(monkeypatch: pytest.MonkeyPatch) -> Iterator[DotRuns]:
    """layout.DOT_TIME_LIMIT lowered to 0.01 s (builders.slow_layout_moons' unfolded picture takes dot ~30 times
    longer), every process subprocess starts recorded; any still running at the end (a leak the test reports) is
    killed."""
    from micrograd_widget.picture import layout

    runs = DotRuns()

    class Recorded(subprocess.Popen):  # type: ignore[type-arg]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            runs.started.append(self)

    monkeypatch.setattr(layout, "DOT_TIME_LIMIT", 0.01)
    monkeypatch.setattr(subprocess, "Popen", Recorded)
    yield runs
    for p in runs.started:
        if p.poll() is None:
            p.kill()
            p.wait()


# ---- programs and shells the tests run


@pytest.fixture(scope="session")
def dot_program() -> str:
    """Graphviz's ``dot``; a missing one fails the tests that need it (apt-get install graphviz)."""
    path = shutil.which("dot")
    if path is None:
        pytest.fail("Graphviz's dot is needed to render the pictures these tests check: apt-get install graphviz",
                    pytrace=False)
    return path


@pytest.fixture
def ip(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> Iterator[InteractiveShell]:
    shell = make_shell(tmp_path, monkeypatch)
    yield shell
    micrograd_widget.unload_ipython_extension(shell)
    InteractiveShell.clear_instance()


@pytest.fixture
def model() -> MLP:
    """The training tests' model: MLP(3, [4, 4, 1]) with tanh throughout, under ``random.seed(11)``."""
    random.seed(11)
    return MLP(3, [4, 4, 1], act="tanh", output_nonlin=True)


@pytest.fixture
def clock() -> FakeClock:
    """A clock that stands still until the test moves ``clock.now``."""
    return FakeClock()
