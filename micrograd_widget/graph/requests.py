"""The kernel's answers to a widget view's custom requests, with the bounds a front end may ask for.

A graph with a user-defined op cannot be replayed in the browser, so the view asks the kernel:
``{"type": "replay"}`` (data and grads for the leaf values it shows, the Values untouched),
``{"type": "gradcheck"}`` (micrograd_widget.core.gradcheck for those values, applied first as a settled slider
would be) and ``{"type": "learn"}`` (steps of core/learn.py's Descent from those values: the learning controls'
Step and Train on such a graph). Every request gets a reply, an ``error`` one when it cannot be answered; a refused
request leaves the Values, the tape and the widget's traits as they were. The work a front end can ask for is
bounded by its cost: a gradcheck request checks at most ``MAX_GRADCHECK_LEAVES`` distinct leaves (the size
of its reply) and at most ``MAX_GRADCHECK_WORK`` leaves x nodes (each leaf replays every node twice; the view
pages through more), a learn request runs at most ``MAX_LEARN_STEPS`` steps and ``MAX_LEARN_WORK`` steps x nodes
(fewer when the graph is large: the reply says how many), and a replay request carries exactly one value per leaf.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from micrograd_widget.core.gradcheck import GRADCHECK_DEFAULTS, check_options, check_tape
from micrograd_widget.core.learn import Descent, read_step_size
from micrograd_widget.core.spec import encode_number, json_safe, to_buffer
from micrograd_widget.core.tape import Tape, TapeReplayError
from micrograd_widget.graph.writes import decode_leaves, node_id, real_number
from micrograd_widget.picture.text import plural, short

if TYPE_CHECKING:
    from micrograd_widget.graph.widget import GraphWidget

__all__ = ["MAX_GRADCHECK_LEAVES", "MAX_GRADCHECK_WORK", "MAX_LEARN_STEPS", "MAX_LEARN_WORK", "MAX_ERROR_CHARS",
           "error_text", "answer"]

MAX_GRADCHECK_LEAVES = 256
# Leaves x nodes one gradcheck request may cost (two forward replays per leaf over every node, plus the request's
# own replays): it bounds the kernel's time on one request to a couple of seconds (docs/benchmarks.md, the row
# "a view's gradcheck request", benchmarks/bench_requests.py).
MAX_GRADCHECK_WORK = 4_000_000
# Steps one learn request may ask for, and steps x nodes it may cost (a forward and a backward pass per step): the
# view asks again for more, so the kernel answers a few times a second and training can pause between answers.
MAX_LEARN_STEPS = 10_000
MAX_LEARN_WORK = 1_000_000
MAX_ERROR_CHARS = 300

def error_text(err: BaseException) -> str:
    """How the view shows a failure: ``TypeName: message``, at most MAX_ERROR_CHARS characters.

    A KeyError's message is its text (``str()`` would quote it); any other error reads as ``str(err)``, so
    ``OverflowError(34, 'Numerical result out of range')`` keeps both its number and its words; the text is
    made JSON-safe (spec.json_safe)."""
    if isinstance(err, KeyError) and len(err.args) == 1 and isinstance(err.args[0], str):
        message = err.args[0]
    else:
        message = str(err)
    text = f"{type(err).__name__}: {message}" if message else type(err).__name__
    text = json_safe(text)  # a lone surrogate in a user's message would break the widget's state
    return text if len(text) <= MAX_ERROR_CHARS else text[: MAX_ERROR_CHARS - 1] + "\u2026"


def _seq(content: dict[str, Any]) -> int | str | None:
    """The request's ``seq`` to echo in the reply: an int or a short string, else None."""
    seq = content.get("seq")
    if isinstance(seq, bool) or not isinstance(seq, (int, str)) or (isinstance(seq, str) and len(seq) > 64):
        return None
    return seq


Reply = tuple[dict[str, Any], list[memoryview | bytes]]  # a custom message's content and its binary buffers


def answer(widget: GraphWidget, content: object) -> Reply | None:
    """The reply to one custom message from the view (its content and binary buffers), or None when it is no
    request (nothing to answer). Any failure, from the request or from user code (a define_op that raises),
    becomes an ``error`` reply."""
    kind = content.get("type") if isinstance(content, dict) else None
    handler = _HANDLERS.get(kind) if isinstance(kind, str) else None
    if handler is None or not isinstance(content, dict):
        return None
    try:
        return handler(widget, content)
    except Exception as err:  # user code may raise anything: the view must get a reply
        return {"type": kind, "seq": _seq(content), "error": error_text(err)}, []


def _replay(widget: GraphWidget, content: dict[str, Any]) -> Reply:
    """Data and grads for the view's leaf values, for graphs the browser cannot replay (user-defined ops).

    Request ``{"type": "replay", "seq", "leaf_values", "output"}``; answer ``{"type": "replay", "seq",
    "buffers": ["data", "grad"]}`` with every node's data and grad as two Float64 little-endian buffers (as
    the ``data``/``grad`` traits), in that order. The Values and the tape are not touched: that happens when
    the view settles."""
    tape = widget.tape
    values = decode_leaves(tape, content.get("leaf_values"))
    output = node_id(tape, content.get("output", tape.root), "output")
    saved = (tape.data, tape.grad)
    try:
        data = tape.forward(values)  # new arrays: the buffers below share them, the tape gets its own back
        grad = tape.backward(output)
    finally:
        tape.data, tape.grad = saved
    return {"type": "replay", "seq": _seq(content), "buffers": ["data", "grad"]}, [to_buffer(data), to_buffer(grad)]


def _chosen_leaves(widget: GraphWidget, leaves: object) -> list[int]:
    """The node ids a gradcheck request asks for: at most MAX_GRADCHECK_LEAVES distinct leaves."""
    tape = widget.tape
    if leaves is None:
        if len(tape.leaves) > MAX_GRADCHECK_LEAVES:
            raise TapeReplayError(
                f"a gradcheck request checks at most {MAX_GRADCHECK_LEAVES} leaves and this graph has "
                f"{len(tape.leaves):,}: send them in pages with 'leaves': [node ids]")
        return list(tape.leaves)
    if not isinstance(leaves, list):
        raise TypeError(f"gradcheck leaves must be a list of node ids, got {type(leaves).__name__}")
    if len(leaves) > MAX_GRADCHECK_LEAVES:
        raise TapeReplayError(f"a gradcheck request checks at most {MAX_GRADCHECK_LEAVES} leaves, got {len(leaves):,}: "
                              "send them in pages")
    chosen = [node_id(tape, i, "gradcheck leaf") for i in leaves]
    seen: set[int] = set()
    for i in chosen:
        if i in seen:
            raise TapeReplayError(f"gradcheck leaves must be distinct; node {i} is asked for more than once")
        seen.add(i)
    leaf_set = set(tape.leaves)
    for i in chosen:
        if i not in leaf_set:
            raise TapeReplayError(f"gradcheck leaf {i} is not a leaf (it is made by {tape.symbols[i]!r})")
    return chosen


def _check_work(tape: Tape, leaves: int) -> None:
    """A TapeReplayError naming the limit unless checking ``leaves`` leaves (two forward replays of every node
    each) is within MAX_GRADCHECK_WORK leaves x nodes."""
    work = leaves * len(tape)
    if work > MAX_GRADCHECK_WORK:
        fits = MAX_GRADCHECK_WORK // len(tape)
        raise TapeReplayError(
            f"this gradcheck would cost {plural(leaves, 'leaf')} x {len(tape):,} nodes = "
            f"{work:,}, over the limit of {MAX_GRADCHECK_WORK:,} per request (MAX_GRADCHECK_WORK, ~2 s of kernel "
            "time): " + (f"ask for at most {fits:,} leaves at a time, or " if fits else "")
            + "run micrograd_widget.core.gradcheck(root, leaves=[...]) in Python")


def _gradcheck(widget: GraphWidget, content: dict[str, Any]) -> Reply:
    """micrograd_widget.core.gradcheck for the leaf values and output the view shows, on the widget's own tape.

    Request ``{"type": "gradcheck", "seq", "leaf_values", "output", "eps", "rtol", "atol", "leaves"}``
    (``leaves``: node ids to check, default every leaf when there are at most MAX_GRADCHECK_LEAVES);
    answer ``{"type": "gradcheck", "seq", "rows": [{"node", "label", "data", "analytic", "numeric",
    "abs_error", "rel_error", "ok", "note"}], "passed", "eps", "rtol", "atol", "output"}``. Everything is
    checked before any replay; then the leaf values are applied (as a settled slider would be), so the Values
    hold what was checked; if the check then fails, they are put back."""
    tape = widget.tape
    values = decode_leaves(tape, content.get("leaf_values"))
    output = node_id(tape, content.get("output", tape.root), "output")
    tolerances = {name: real_number(content.get(name, default), f"gradcheck {name}")
                  for name, default in GRADCHECK_DEFAULTS.items()}
    check_options(**tolerances)
    chosen = _chosen_leaves(widget, content.get("leaves"))
    _check_work(tape, len(chosen))
    undo = widget._undo_point()
    try:
        widget._settle(values, output)
        result = check_tape(tape, chosen, output, **tolerances)
    except BaseException:  # an op failed, or the user interrupted a long check: nothing it applied stays
        undo()
        raise
    return {
        "type": "gradcheck", "seq": _seq(content),
        "rows": [{"node": r.node, "label": json_safe(r.label), "data": encode_number(r.data),
                  "analytic": encode_number(r.analytic), "numeric": encode_number(r.numeric),
                  "abs_error": encode_number(r.abs_error), "rel_error": encode_number(r.rel_error),
                  "ok": r.ok, "note": json_safe(r.note)} for r in result.rows],
        "passed": result.passed, "output": result.output, "eps": result.eps, "rtol": result.rtol, "atol": result.atol,
    }, []  # at most MAX_GRADCHECK_LEAVES rows: JSON


def _learn(widget: GraphWidget, content: dict[str, Any]) -> Reply:
    """Steps of ``p += sign * h * grad`` on the widget's parameters (its ``leaf_roles``), from the view's leaf
    values, for graphs the browser cannot replay: core/learn.py's Descent on the widget's own tape.

    Request ``{"type": "learn", "seq", "leaf_values", "output", "step_size", "steps", "sign"}`` (``steps``: 1 to
    MAX_LEARN_STEPS, default 1; ``sign``: -1, descent, the default, or +1); answer ``{"type": "learn", "seq",
    "steps", "buffers": ["leaf_values", "data", "grad", "losses"]}``: the steps taken (fewer than asked when they
    would cost more than MAX_LEARN_WORK steps x nodes; at least one), the leaf values after them, every node's data
    and grad at those values, and the output's data before each step, as Float64 buffers. The Values and the tape
    are not touched: the view settles the new values by the write rule, as a slider's."""
    tape = widget.tape
    values = decode_leaves(tape, content.get("leaf_values"))
    output = node_id(tape, content.get("output", tape.root), "output")
    size = read_step_size(real_number(content.get("step_size"), "learn step_size"))
    asked, sign = content.get("steps", 1), content.get("sign", -1)
    if isinstance(asked, bool) or not isinstance(asked, int) or not 1 <= asked <= MAX_LEARN_STEPS:
        raise ValueError(f"learn steps must be a whole number from 1 to {MAX_LEARN_STEPS:,}, got {short(asked)}")
    if sign not in (1, -1) or isinstance(sign, bool):
        raise ValueError(f"learn sign must be 1 (up) or -1 (down, gradient descent), got {short(sign)}")
    steps = min(asked, max(1, MAX_LEARN_WORK // len(tape)))
    params = array("i")
    params.frombytes(bytes(widget.leaf_roles["params"]))
    saved = (tape.data, tape.grad)
    try:
        run = Descent(tape, values, params.tolist(), output)
        run.run(steps, size, sign)
        data = tape.forward(run.values)  # the numbers at the new values: what the view shows next
        grad = tape.backward(output)
    finally:
        tape.data, tape.grad = saved
    buffers = [to_buffer(array("d", run.values)), to_buffer(data), to_buffer(grad), to_buffer(array("d", run.losses))]
    return {"type": "learn", "seq": _seq(content), "steps": steps,
            "buffers": ["leaf_values", "data", "grad", "losses"]}, buffers


_HANDLERS: dict[str, Callable[[GraphWidget, dict[str, Any]], Reply]] = {
    "replay": _replay, "gradcheck": _gradcheck, "learn": _learn,
}
