"""core/learn.py and its twin js/core/learn.js: the step (the lecture's nudge, worked out by hand), descent against
the engine's own training loop, and the page's N steps equal to a Python loop written here (1e-9 relative)."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from pathlib import Path

import pytest
from builders import LECTURE_XS, LECTURE_YS, lecture_L, lecture_mlp_and_loss, moons_like_loss

from micrograd_widget.core.learn import Descent, read_step_size, step
from micrograd_widget.core.params import leaf_roles
from micrograd_widget.core.tape import Tape
from micrograd_widget.engine import Value
from micrograd_widget.nn import squared_error

SPEC_JS = (Path(__file__).resolve().parents[1] / "js" / "core" / "spec.js").as_uri()
LEARN_JS = (Path(__file__).resolve().parents[1] / "js" / "core" / "learn.js").as_uri()
FIXTURE_JS = (Path(__file__).resolve().parents[1] / "js" / "core" / "tapes.fixture.js").as_uri()
TAPE_JS = (Path(__file__).resolve().parents[1] / "js" / "core" / "tape.js").as_uri()

# Reads {"spec": Tape.to_json(), "params": [...], "h": h, "steps": N} on stdin; prints the leaf values and the loss.
DESCENT_SCRIPT = """
import { compileTape } from %s;
import { Descent } from %s;
import { forward } from %s;
import { fromVector } from %s;
let text = "";
for await (const chunk of process.stdin) text += chunk;
const job = JSON.parse(text);
const tape = compileTape(fromVector(job.spec));
const run = new Descent(tape, tape.leafData, Int32Array.from(job.params));
run.run(job.steps, job.h);
const data = new Float64Array(tape.n);
forward(tape, run.values, data);
console.log(JSON.stringify({ values: Array.from(run.values), loss: data[tape.root], losses: run.losses }));
"""


def test_one_step_up_is_the_lectures_nudge() -> None:
    """a += 0.01 * a.grad for a, b, c, f: a = 2.06, b = -3.04, c = 9.98, f = -1.96, so L = (2.06 * -3.04 + 9.98) *
    -1.96 = -7.286496 (by hand)."""
    nodes = lecture_L()
    tape = Tape.from_value(nodes["L"])
    roles = leaf_roles(tape)
    values = list(tape.data[i] for i in tape.leaves)
    before = step(tape, values, roles.positions, +1, 0.01)
    assert before == -8.0
    labels = [tape.labels[i] for i in tape.leaves]
    moved = dict(zip(labels, values))
    assert moved == pytest.approx({"a": 2.06, "b": -3.04, "c": 9.98, "f": -1.96}, rel=1e-15)
    tape.replay(values)
    assert tape.data[tape.root] == pytest.approx(-7.286496, rel=1e-12)
    assert tape.data[tape.root] - -8.0 == pytest.approx(0.713504, rel=1e-9), "the output's Δ"


def test_step_moves_parameters_only() -> None:
    """The unlabelled 2.0 of 2 * x is a constant: a step leaves it where it was."""
    x = Value(3.0, label="x")
    y = 2 * x * x
    tape = Tape.from_value(y)
    roles = leaf_roles(tape)
    values = list(tape.data[i] for i in tape.leaves)
    constant = [j for j in range(len(values)) if j not in roles.positions]
    assert constant, "the graph must have a constant leaf"
    step(tape, values, roles.positions, -1, 0.1)
    assert [values[j] for j in constant] == [2.0]
    assert values[roles.positions[0]] == pytest.approx(3.0 - 0.1 * 12.0, rel=1e-15)  # dy/dx = 4x = 12


@pytest.mark.parametrize("raw", ["0", "-1", "nan", "inf", "", "abc", True])
def test_bad_step_sizes_are_refused_in_words(raw: object) -> None:
    with pytest.raises(ValueError, match="finite positive number"):
        read_step_size(raw)


def test_good_step_size() -> None:
    assert read_step_size(" 0.05 ") == 0.05
    assert read_step_size(1e-3) == 1e-3


def test_descent_equals_the_engines_training_loop() -> None:
    """25 steps of Descent on the lecture's MLP loss equal the lecture's loop (forward, zero_grad, backward,
    p.data -= lr * p.grad) run by the engine itself on the same model."""
    model, loss = lecture_mlp_and_loss()
    tape = Tape.from_value(loss)
    roles = leaf_roles(tape, model.parameters())
    run = Descent(tape, [tape.data[i] for i in tape.leaves], roles.positions)
    run.run(25, 0.05)
    for _ in range(25):
        again = squared_error(model, LECTURE_XS, LECTURE_YS)
        model.zero_grad()
        again.backward()
        for p in model.parameters():
            p.data -= 0.05 * p.grad
    expected = {tape.index(p): p.data for p in model.parameters()}
    got = {tape.leaves[j]: run.values[j] for j in roles.positions}
    assert got == pytest.approx(expected, rel=1e-9)


def _python_loop(tape: Tape, params: tuple[int, ...], h: float, steps: int) -> tuple[list[float], float]:
    """The reference: Tape.replay then p -= h * grad, parameters only, in the page's order."""
    values = [tape.data[i] for i in tape.leaves]
    for _ in range(steps):
        tape.replay(values)
        for j in params:
            values[j] -= h * tape.grad[tape.leaves[j]]
    return values, tape.forward(values)[tape.root]


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)


@pytest.mark.parametrize(("build", "h", "steps"), [
    (lambda: lecture_mlp_and_loss()[1], 0.05, 25),
    (moons_like_loss, 0.01, 100),
], ids=["lecture-mlp-25", "moons-100"])
def test_js_descent_equals_the_python_loop(build, h: float, steps: int, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    node = shutil.which("node")
    assert node, "node (>= 18) is needed: the page's descent is checked against Python's (apt-get install nodejs)"
    tape = Tape.from_value(build())
    params = leaf_roles(tape).positions
    assert leaf_roles(tape).rule == "nn"
    start = [tape.data[i] for i in tape.leaves]
    spec = tape.to_json()
    expected, loss = _python_loop(tape, params, h, steps)
    script = tmp_path / "descent.mjs"
    script.write_text(DESCENT_SCRIPT % tuple(json.dumps(url) for url in (SPEC_JS, LEARN_JS, TAPE_JS, FIXTURE_JS)))
    job = json.dumps({"spec": spec, "params": list(params), "h": h, "steps": steps})
    result = subprocess.run([node, str(script)], input=job, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, f"node failed: {result.stderr[-2000:]}"
    got = json.loads(result.stdout)
    assert len(got["losses"]) == steps
    wrong = [j for j, (a, b) in enumerate(zip(got["values"], expected)) if not _close(a, b)]
    assert not wrong, (f"{len(wrong)} leaf values differ, e.g. leaf {wrong[0]}: "
                       f"{got['values'][wrong[0]]} vs {expected[wrong[0]]}")
    assert _close(got["loss"], loss)
    assert got["loss"] < got["losses"][0], "descent must lower the loss"
    fixed = [j for j in range(len(start)) if j not in set(params)]
    assert fixed and all(got["values"][j] == start[j] for j in fixed), "inputs and constants must not move"


def test_the_learning_state_from_the_view_is_checked_by_the_guard() -> None:
    """The view's step count and step size (trait ``learning``): kept when well formed, refused in words otherwise,
    the kernel's value unchanged."""
    from helpers import from_browser

    from micrograd_widget.graph.widget import explore
    w = explore(lecture_L()["L"])
    assert w.learning == {"steps": 0, "step_size": 0.01}
    from_browser(w, learning={"steps": 3, "step_size": 0.5})
    assert w.learning == {"steps": 3, "step_size": 0.5} and not w.error
    for bad in ({"steps": -1, "step_size": 0.5}, {"steps": 2, "step_size": 0}, {"steps": 2, "step_size": math.inf},
                {"steps": True, "step_size": 0.5}, [1, 2], {"steps": 2}):
        from_browser(w, learning=bad)
        assert w.learning == {"steps": 3, "step_size": 0.5}
        assert "learning" in w.error, w.error
