"""Tape: replays bitwise equal to the engine (random graphs, random new leaf values), the binary spec's layout,
clear errors that leave the tape unchanged, and the shared vectors in tests/vectors/ (never stale). The codec is
test_spec.py's, the freezing walk test_freeze.py's."""

from __future__ import annotations

import contextlib
import importlib.util
import json
import math
import struct
from pathlib import Path

import pytest
from builders import Interrupting, lecture_L, tape_graph
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from micrograd_widget.core.ops import OPS, define_op
from micrograd_widget.core.spec import SPEC_BUFFERS, decode_number, from_buffer, spec_to_json
from micrograd_widget.core.tape import SPEC_VERSION, Tape, TapeReplayError
from micrograd_widget.engine import Value, topological_order

VECTORS = Path(__file__).resolve().parent / "vectors"


def bits(xs) -> list[bytes]:
    """Exact bit patterns, so that equality is bitwise (NaN included)."""
    return [struct.pack("<d", x) for x in xs]


def decoded_bits(xs) -> list[bytes]:
    """Bit patterns of numbers read back from JSON: "NaN" carries no sign, so every NaN is one NaN."""
    return [b"nan" if math.isnan(x) else struct.pack("<d", x) for x in xs]


# ---- replay == engine ----


def test_index_scans_then_keeps_a_dict_and_answers_the_same() -> None:
    L, _ = tape_graph()
    tape = Tape.from_value(L)
    order = topological_order(L)
    assert tape._index is None
    assert [tape.index(v) for v in order] == list(range(len(order)))  # more look-ups than the scan limit
    assert tape._index is not None and [tape.index(v) for v in order] == list(range(len(order)))
    for stranger in (Value(1.0), 3.0, "a", None):
        with pytest.raises(KeyError, match="not a node"):
            tape.index(stranger)  # type: ignore[arg-type]


def test_replay_equals_engine_bitwise_for_the_same_leaves() -> None:
    L, _ = tape_graph()
    L.backward()
    tape = Tape.from_value(L)
    assert bits(tape.forward()) == bits(v.data for v in tape.values)
    assert bits(tape.backward()) == bits(v.grad for v in tape.values)


def test_backward_is_fresh_while_the_engine_accumulates() -> None:
    L, (a, _, _) = tape_graph()
    L.backward()
    L.backward()
    tape = Tape.from_value(L)
    tape.backward()
    assert tape.grad[tape.index(a)] * 2 == a.grad


def test_backward_of_an_intermediate_output() -> None:
    a, b = Value(2.0), Value(-3.0)
    d = a * b
    L = (d + 1.0).tanh()
    tape = Tape.from_value(L)
    grad = tape.backward(tape.index(d))
    assert grad[tape.index(a)] == -3.0 and grad[tape.index(b)] == 2.0 and grad[tape.root] == 0.0


def test_forward_takes_a_mapping_of_leaf_ids_and_write_back_copies_into_the_values() -> None:
    a, b = Value(2.0), Value(5.0)
    L = a * b
    tape = Tape.from_value(L)
    tape.forward({tape.index(a): 3.0})
    tape.backward()
    assert tape.data[tape.root] == 15.0 and a.data == 2.0 and L.data == 10.0
    tape.write_back()
    assert (a.data, L.data, a.grad, b.grad, L.grad) == (3.0, 15.0, 5.0, 3.0, 1.0)


_PROPERTY = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@_PROPERTY
@given(data=st.data())
def test_random_graphs_replay_bitwise_equal_to_the_engine_for_new_leaf_values(graphs, data) -> None:
    program = graphs.resolve(data.draw(graphs.programs()))
    xs, root = graphs.build(program)
    tape = Tape.from_value(root)
    new = tuple(data.draw(st.floats(-2.5, 2.5, allow_nan=False), label=f"x{n}") for n in range(len(xs)))
    on_tape = set(map(id, tape.values))
    mapping = {tape.index(x): v for x, v in zip(xs, new) if id(x) in on_tape}
    try:
        _, again = graphs.build(program, new)
    except (ArithmeticError, ValueError):
        # A step left its domain. It may lie off the root's graph, which the tape does not hold, so
        # the tape may succeed or fail on another step; it must not fail any other way.
        with contextlib.suppress(ArithmeticError, ValueError):
            tape.forward(mapping)
        return
    twin = Tape.from_value(root)
    data_ = tape.forward(mapping)
    grad = tape.backward()
    fresh = topological_order(again)
    again.backward()
    assert bits(data_) == bits(v.data for v in fresh)
    assert bits(grad) == bits(v.grad for v in fresh)
    twin.replay(mapping, write_back=True)  # both passes on one list of the data, then into the Values
    assert bits(twin.data) == bits(v.data for v in fresh) == bits(v.data for v in twin.values)
    assert bits(twin.grad) == bits(v.grad for v in fresh) == bits(v.grad for v in twin.values)


def test_replay_is_forward_backward_and_write_back_all_or_nothing() -> None:
    a, b = Value(2.0), Value(5.0)
    L = (a * b).tanh() * b
    tape = Tape.from_value(L)
    tape.replay({tape.index(a): 0.5}, tape.index(L._a), write_back=True)  # d tanh(ab) / d node, ab = 2.5
    slope = 1.0 - math.tanh(2.5) ** 2  # by hand: tanh' = 1 - tanh^2
    assert (a.data, L.data) == (0.5, math.tanh(2.5) * 5.0) and L.grad == 0.0
    assert (a.grad, b.grad) == (slope * 5.0, slope * 0.5)
    assert list(tape.data) == [v.data for v in tape.values] and list(tape.grad) == [v.grad for v in tape.values]
    broken = define_op("broken", lambda x: x + 1.0, lambda x, out: 1.0 / 0.0)  # its slope always fails
    x = Value(1.0)
    y = Value.apply(broken, x) * 3.0
    tape = Tape.from_value(y)
    before, values = _snapshot(tape), [(v.data, v.grad) for v in tape.values]
    with pytest.raises(ZeroDivisionError):
        tape.replay([4.0, 3.0], write_back=True)  # the forward succeeds, the backward fails: nothing changes
    assert _snapshot(tape) == before and [(v.data, v.grad) for v in tape.values] == values


def _numbers(tape: Tape) -> tuple[list[str], list[float], list[float]]:
    """Every Value's data and grad (as repr: -0.0 and NaN compare exactly) and the tape's numbers."""
    return [repr((v.data, v.grad)) for v in tape.values], list(tape.data), list(tape.grad)


@pytest.mark.parametrize("how", ["replay", "write_back"])
def test_an_interrupt_midway_through_the_write_back_changes_nothing(how: str) -> None:
    """Defect 7 (issue 24): KeyboardInterrupt in the loop writing data and grad into the Values left the nodes
    before it written and the tape's numbers new. Leaf f is the sixth of the lecture's 7 nodes in tape order."""
    nodes = lecture_L(leaf=Interrupting)
    tape = Tape.from_value(nodes["L"])
    assert tape.values.index(nodes["f"]) == 5
    if how == "write_back":
        tape.forward([5.0, -3.0, 10.0, -2.0])  # the tape's numbers now differ from the Values'
        tape.backward(tape.index(nodes["d"]))
    before = _numbers(tape)
    nodes["f"].arm(1)  # type: ignore[attr-defined]
    with pytest.raises(KeyboardInterrupt):
        if how == "replay":
            tape.replay([5.0, -3.0, 10.0, -2.0], tape.index(nodes["d"]), write_back=True)
        else:
            tape.write_back()
    assert _numbers(tape) == before
    assert [v.data for v in nodes.values()] == [2.0, -3.0, 10.0, -6.0, 4.0, -2.0, -8.0]  # by hand


def test_a_replay_returns_the_undo_of_itself() -> None:
    nodes = lecture_L()
    tape = Tape.from_value(nodes["L"])
    before = _numbers(tape)
    undo = tape.replay([5.0, -3.0, 10.0, -2.0], write_back=True)
    assert nodes["e"].data == -15.0 and nodes["a"].grad == 6.0  # by hand: e = 5 * -3; dL/da = b * f
    undo()
    assert _numbers(tape) == before


def test_custom_ops_replay_and_are_marked_not_builtin() -> None:
    cube = define_op("cube", lambda a: a ** 3, lambda a, out: 3 * a * a)
    x = Value(2.0)
    y = Value.apply(cube, x) * x
    y.backward()
    tape = Tape.from_value(y)
    assert bits(tape.forward()) == bits(v.data for v in tape.values)
    assert bits(tape.backward()) == bits(v.grad for v in tape.values)
    tape.forward([3.0, ])
    assert tape.data[tape.root] == 81.0 and tape.backward()[0] == 108.0
    spec = tape.spec()
    assert {row["name"]: row["builtin"] for row in spec["ops"]} == {"cube": False, "mul": True}
    assert not tape.builtin_only and Tape.from_value(x * x).builtin_only


# ---- errors: clear, and the tape is left as it was ----


def _snapshot(tape: Tape) -> tuple:
    spec = {key: bytes(v) if isinstance(v, memoryview) else v for key, v in tape.spec().items()}
    return list(tape.data), list(tape.grad), spec


@pytest.mark.parametrize(
    "call,words",
    [
        (lambda t: t.forward([1.0]), ["expected 4 leaf values", "leaves order", "got 1"]),
        (lambda t: t.forward({t.root: 1.0}), ["not a leaf", "leaves are"]),
        (lambda t: t.forward({0: "x"}), ["needs a number", "str"]),
        (lambda t: t.forward({0: True}), ["needs a number", "bool"]),
        (lambda t: t.backward(999), ["output must be a node id from 0"]),
        (lambda t: t.backward(-1), ["output must be a node id from 0"]),
    ],
)
def test_bad_replay_requests_are_clear_tape_replay_errors(call, words: list[str]) -> None:
    L, _ = tape_graph()
    tape = Tape.from_value(L)
    tape.backward()
    before = _snapshot(tape)
    with pytest.raises(TapeReplayError) as err:
        call(tape)
    for word in words:
        assert word in str(err.value)
    assert _snapshot(tape) == before
    assert issubclass(TapeReplayError, ValueError)


def test_an_op_failing_during_replay_raises_its_own_error_and_keeps_the_tape() -> None:
    x = Value(2.0)
    L = 1.0 / x + x.log()
    tape = Tape.from_value(L)
    before = _snapshot(tape)
    with pytest.raises(ValueError, match=r"'log'.*-1\.0"):
        tape.forward({tape.index(x): -1.0})
    with pytest.raises(ZeroDivisionError):
        tape.forward({tape.index(x): 0.0})
    assert _snapshot(tape) == before


def test_opaque_hand_made_nodes_cannot_replay_and_say_why() -> None:
    a, b = Value(2.0), Value(3.0)
    out = Value(a.data * b.data, (a, b), "*", label="hand")
    out._backward = lambda: None
    L = out.tanh()
    tape = Tape.from_value(L)
    assert tape.opaque == (tape.index(out),)
    before = _snapshot(tape)
    for call in (lambda: tape.forward(), lambda: tape.backward()):
        with pytest.raises(TapeReplayError, match=r"'hand'.*built by hand.*define_op"):
            call()
    assert _snapshot(tape) == before
    spec = tape.spec()
    assert from_buffer(spec["op"], "i")[tape.index(out)] == -1 and tape.inputs[tape.index(out)] == (0, 1)


def test_construction_errors() -> None:
    with pytest.raises(TypeError, match="takes a Value"):
        Tape.from_value(3.0)  # type: ignore[arg-type]
    a = Value(1.0)
    b = a + 1
    with pytest.raises(TapeReplayError, match=r"node 0 uses an input that comes later.*topological order"):
        Tape([b, a])
    square = a * a
    with pytest.raises(TapeReplayError, match="node 2 uses an input that comes later or is missing"):
        Tape([a, square, square * Value(2.0)])  # the product's second input is not among the values
    with pytest.raises(TapeReplayError, match="at least one node"):
        Tape([])
    with pytest.raises(KeyError, match="not a node"):
        Tape.from_value(b).index(Value(1.0))


# ---- the binary spec ----


def test_spec_is_the_documented_binary_spec() -> None:
    a = Value(0.0, label="a")
    from micrograd_widget.engine import scope

    with scope("layers.0"):
        y = (a ** 2 + 1.0).log()
    z = y * (a ** 0.5)
    z.backward()
    tape = Tape.from_value(z)
    spec = tape.spec()
    assert list(spec) == ["version", "n", "root", "ops", "symbol", "label", "scope",  # JSON, then the buffers
                          "op", "input_start", "inputs", "k", "leaves", "leaf_data"]
    n = len(tape)
    assert spec["version"] == SPEC_VERSION == 2 and spec["root"] == n - 1 and spec["n"] == n
    ints = {key: from_buffer(spec[key], "i") for key in ("op", "input_start", "inputs", "leaves")}
    floats = {key: from_buffer(spec[key], "d") for key in ("k", "leaf_data")}
    assert [len(ints["op"]), len(ints["input_start"]), len(floats["k"])] == [n, n + 1, n]
    for i in range(n):  # the CSR arrays give each node's inputs, in order
        assert tuple(ints["inputs"][ints["input_start"][i]:ints["input_start"][i + 1]]) == tape.inputs[i]
    strings = {key: [spec[key]["strings"][j] for j in from_buffer(spec[key]["index"], "i")]
               for key in ("symbol", "label", "scope")}  # string tables: distinct strings, an index per node
    assert [len(strings[key]) for key in strings] == [n, n, n]
    assert strings["symbol"] == list(tape.symbols) and strings["label"] == list(tape.labels)
    assert all(len(set(spec[key]["strings"])) == len(spec[key]["strings"]) for key in strings)
    for i, row in enumerate(ints["op"]):
        if row == -1:
            assert tape.ops[i] is None and math.isnan(floats["k"][i])
        else:
            op = tape.ops[i]
            assert spec["ops"][row] == {"name": op.name, "symbol": op.symbol, "arity": op.arity, "builtin": True}
    assert floats["k"][tape.index(y._prev[0]._prev[0])] == 2.0 and strings["label"][0] == "a"
    assert floats["k"][tape.index(z._prev[1])] == 0.5 and math.isnan(floats["k"][tape.root])
    assert strings["scope"][tape.index(y)] == "layers.0" and strings["scope"][tape.root] == ""
    assert list(ints["leaves"]) == [i for i in range(n) if not tape.inputs[i]] == list(tape.leaves)
    assert list(floats["leaf_data"]) == [0.0, 1.0] == [tape.data[i] for i in tape.leaves]  # a and the 1.0 added
    # Little-endian bytes, as JavaScript's typed arrays on every browser read them.
    assert bytes(spec["op"])[:4] == struct.pack("<i", ints["op"][0])
    assert bytes(spec["k"])[8:16] == struct.pack("<d", floats["k"][1])


# ---- the shared vectors (tests/vectors/*.json, also replayed by js/core/tape.js) ----


def _generator():
    spec = importlib.util.spec_from_file_location("vectors_generate", VECTORS / "generate.py")
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


@pytest.fixture(scope="module")
def generator():
    return _generator()


def test_committed_vectors_are_exactly_what_the_generator_writes(generator) -> None:
    expected = generator.render()
    committed = {p.name: p.read_text(encoding="utf-8") for p in VECTORS.glob("*.json")}
    assert sorted(committed) == sorted(expected), "run: .venv/bin/python tests/vectors/generate.py"
    for name, text in expected.items():
        assert committed[name] == text, f"{name} is stale; run: .venv/bin/python tests/vectors/generate.py"
    assert generator.render() == expected, "the generator must be deterministic"


def test_vectors_cover_every_op_row_and_the_non_finite_encodings(generator) -> None:
    docs = [json.loads(p.read_text(encoding="utf-8")) for p in VECTORS.glob("*.json")]
    used = {row["name"] for doc in docs for row in doc["spec"]["ops"]}
    assert used == {op.name for op in OPS}
    ks = {doc["spec"]["k"]["float64"][i] for doc in docs for i, row in enumerate(doc["spec"]["op"]["int32"])
          if row >= 0 and doc["spec"]["ops"][row]["name"] == "pow"}
    assert {2.0, 3.0, 0.5, -1.0, -2.5, 0.0} <= ks
    numbers = {x for doc in docs for case in doc["cases"] for x in case["grad"] if isinstance(x, str)}
    assert numbers == {"NaN", "Infinity"}
    assert any(case["output"] != doc["spec"]["root"] for doc in docs for case in doc["cases"])
    assert any("layers.0.neurons." in s for doc in docs for s in doc["spec"]["scope"])
    for doc in docs:
        assert set(doc) == {"name", "spec", "cases"} and doc["cases"]
        for case in doc["cases"]:
            assert set(case) == {"leaf_values", "output", "data", "grad"}
            assert len(case["leaf_values"]) == len(doc["spec"]["leaves"]["int32"])


@pytest.mark.parametrize("path", sorted(VECTORS.glob("*.json")), ids=lambda p: p.stem)
def test_python_replay_reproduces_each_vector_case(generator, path: Path) -> None:
    doc = json.loads(path.read_text(encoding="utf-8"))
    root, _ = generator.GRAPHS[doc["name"]]()
    tape = Tape.from_value(root)
    spec = tape.spec()
    for key, value in doc["spec"].items():  # the very bytes the browser reads, and the same JSON parts
        if key in SPEC_BUFFERS:
            (kind, numbers), = value.items()
            if kind == "int32":
                expected = struct.pack(f"<{len(numbers)}i", *numbers)
            else:
                expected = struct.pack(f"<{len(numbers)}d", *map(decode_number, numbers))
            assert bytes(spec[key]) == expected, key
        else:
            assert spec_to_json({key: spec[key]})[key] == value, key
    for case in doc["cases"]:
        data = tape.forward([decode_number(x) for x in case["leaf_values"]])
        grad = tape.backward(case["output"])
        assert decoded_bits(data) == decoded_bits(decode_number(x) for x in case["data"])
        assert decoded_bits(grad) == decoded_bits(decode_number(x) for x in case["grad"])


def test_inputs_views_read_alike_one_by_one_in_loops_and_in_a_shared_pass() -> None:
    a, b, c = Value(1.0), Value(2.0), Value(3.0)
    tape = Tape.from_value((a * b + c).tanh() + Value(6.0, (a, b, c), "sum3"))
    expected = [tuple(tape.index(p) for p in v._prev) for v in tape.values]
    first = tape.inputs
    assert [first[i] for i in range(len(tape))] == expected  # read one by one, below the list threshold
    looped = tape.inputs
    assert [looped[i % len(tape)] for i in range(200)] == [expected[i % len(tape)] for i in range(200)]
    assert looped[-1] == expected[-1] and looped[1:3] == expected[1:3] and list(tape.inputs) == expected
    with tape.shared_inputs() as held:
        assert held == expected and tape.inputs is held, "inside the block, inputs is the one list"
    del held, looped, first
    assert tape._tuples is not None and tape._tuples() is None, "the list goes with the last view and the block"


