"""Copies and pickles of a graph: op rows stay the table's rows (so a copied graph stays replayable in the browser),
shared nodes stay shared, numbers and backward are the original's, and no depth makes them recurse.

Across modules on purpose (engine's copy/pickle, the op table's rows, the tape, nn, the exported page): one
suite for what a copy of a graph must keep, wherever it is used next."""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from builders import lecture_L, seeded_mlp

from micrograd_widget.core.ops import OPS, define_op
from micrograd_widget.core.tape import Tape
from micrograd_widget.engine import Value, topological_order
from micrograd_widget.host.export import save_html
from micrograd_widget.nn import MLP


def mlp_loss() -> tuple[MLP, Value]:
    """An nn.MLP's squared-error loss over two points (ReLU hidden layers), backpropagated."""
    model = seeded_mlp(11, 2, [4, 4, 1])
    loss = sum((model([Value(x), Value(y)]) - t) ** 2 for x, y, t in ((0.5, -1.0, 1.0), (-0.3, 0.8, -1.0)))
    assert isinstance(loss, Value)
    loss.backward()
    return model, loss


def round_trip(x: object) -> object:
    return pickle.loads(pickle.dumps(x))


COPIES: dict[str, Callable[[object], object]] = {"deepcopy": copy.deepcopy, "pickle": round_trip}


@pytest.mark.parametrize("how", COPIES)
@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_a_row_copies_and_pickles_as_itself(how: str, op: object) -> None:
    assert COPIES[how](op) is op and copy.copy(op) is op


@pytest.mark.parametrize("how", COPIES)
@pytest.mark.parametrize("graph", ["lecture L", "MLP loss"])
def test_a_copied_graph_is_builtin_and_backpropagates_as_the_original(how: str, graph: str, tmp_path: Path) -> None:
    root = lecture_L()["L"] if graph == "lecture L" else mlp_loss()[1]
    twin = COPIES[how](root)
    assert isinstance(twin, Value) and twin is not root
    original, copied = topological_order(root), topological_order(twin)
    assert len(original) == len(copied) and not set(map(id, original)) & set(map(id, copied))
    assert [(v.data, v.grad, v.label, v._op, v._k, v.scope) for v in copied] \
        == [(v.data, v.grad, v.label, v._op, v._k, v.scope) for v in original]
    tape = Tape.from_value(twin)
    assert tape.builtin_only and not tape.opaque
    assert Tape.from_value(root).spec()["ops"] == tape.spec()["ops"]
    for graph_root in (root, twin):
        graph_root.zero_grad()
        graph_root.backward()
    assert [v.grad for v in topological_order(twin)] == [v.grad for v in original]
    page = save_html(twin, tmp_path / "copy.html").read_text(encoding="utf-8")
    assert "recomputed in this page (no kernel)" in page and "only a running kernel" not in page


@pytest.mark.parametrize("how", COPIES)
def test_a_model_and_its_loss_copied_together_share_their_parameters(how: str) -> None:
    model, loss = mlp_loss()
    model2, loss2 = COPIES[how]((model, loss))  # type: ignore[misc]
    leaves = {id(v) for v in topological_order(loss2) if not v._prev}
    assert all(id(p) in leaves for p in model2.parameters())
    assert not {id(p) for p in model.parameters()} & leaves


@pytest.mark.parametrize("how", COPIES)
def test_a_deep_chain_copies_without_recursion(how: str) -> None:
    v = x = Value(0.5, label="x")
    for _ in range(20_000):
        v = (v * 0.5).tanh() + x
    twin = COPIES[how](v)
    assert isinstance(twin, Value) and twin.data == v.data
    assert [u.data for u in topological_order(twin)] == [u.data for u in topological_order(v)]


def test_a_define_op_row_copies_and_pickles_as_itself_within_its_process() -> None:
    cube = define_op("cube", lambda a: a ** 3, lambda a, out: 3 * a * a)
    x = Value(2.0, label="x")
    y = Value.apply(cube, x) + x
    for how in COPIES.values():
        twin = how(y)
        assert isinstance(twin, Value) and twin._a is not None and twin._a._code is cube
        twin.backward()
        assert twin.data == 10.0 and twin._a._a is not None and twin._a._a.grad == 13.0


def test_a_define_op_row_loaded_in_another_process_says_to_define_it_again(tmp_path: Path) -> None:
    cube = define_op("cube", lambda a: a ** 3, lambda a, out: 3 * a * a)
    x = Value(2.0, label="x")
    path = tmp_path / "graph.pickle"
    path.write_bytes(pickle.dumps(Value.apply(cube, x) * 2))
    script = (
        "import pickle, sys\n"
        "from micrograd_widget.core.tape import Tape\n"
        "y = pickle.loads(open(sys.argv[1], 'rb').read())\n"
        "print(y.data)\n"
        "try:\n"
        "    Tape.from_value(y).forward()\n"
        "except RuntimeError as err:\n"
        "    print(err)\n"
    )
    done = subprocess.run([sys.executable, "-c", script, str(path)], capture_output=True, text=True, timeout=120,
                          check=True)
    numbers, message = done.stdout.splitlines()
    assert numbers == "16.0"
    assert "'cube'" in message and "another Python process" in message and "define_op again" in message
