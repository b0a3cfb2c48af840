"""The write rule: how leaf values from a widget's view (or from Python) become the graph's numbers.

A change from the view takes only the leaves the view changed, from what it last had, and re-reads every other
leaf from the Values, so a Python assignment (``a.data = 7.0``) or another widget on the same graph is never
undone; the tape then replays and writes data and grad of every node into the Values (grads are derived:
recomputed, not merged). A replay that fails, or is interrupted, leaves the tape and the Values as they were.
The functions here check what a view sent (leaf values, node ids) against the tape and raise a
TapeReplayError/TypeError/KeyError saying what was wrong; widget.py owns the traits and requests.py the custom
requests that use them.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence

from micrograd_widget.core.spec import decode_number
from micrograd_widget.core.tape import Tape, TapeReplayError
from micrograd_widget.engine import Value
from micrograd_widget.picture.text import short

__all__ = ["real_number", "same", "same_list", "same_state", "leaves_now", "decode_leaves", "merge_leaves",
           "replay_into_values", "follow_into_values", "node_id", "leaf_position"]


def real_number(value: object, what: str) -> float:
    """``value`` as a float, or a TypeError naming ``what`` and (briefly) what was given."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{what} needs a real number (int or float), got {type(value).__name__}: {short(value)}")
    return float(value)


def same(x: object, y: object) -> bool:
    """Equal as a view shows them: same type and value, -0.0 is not 0.0, NaN is NaN."""
    if isinstance(x, float) and isinstance(y, float):
        return (x == y and math.copysign(1.0, x) == math.copysign(1.0, y)) or (x != x and y != y)
    return type(x) is type(y) and x == y


def same_list(xs: Sequence[object], ys: Sequence[object]) -> bool:
    """``same`` for every pair of two equally long sequences."""
    return len(xs) == len(ys) and all(map(same, xs, ys))


def same_state(x: object, y: object) -> bool:
    """``same`` for two trait values as a front end and the kernel hold them: a list element by element."""
    if isinstance(x, list) and isinstance(y, list):
        return same_list(x, y)
    return same(x, y)


def leaves_now(tape: Tape) -> list[float]:
    """Every leaf's value as the Values hold it now (Python code or another widget may have set it)."""
    return [real_number(tape.values[i].data, f"leaf {i} .data") for i in tape.leaves]


def decode_leaves(tape: Tape, values: object) -> list[float]:
    """A view's leaf values (numbers, or the strings 'NaN'/'Infinity'/'-Infinity') as floats, one per leaf, or
    a TapeReplayError saying what was wrong."""
    n = len(tape.leaves)
    if not isinstance(values, (list, tuple)) or len(values) != n:
        raise TapeReplayError(f"expected a list of {n} leaf values (one per leaf), got {short(values)}")
    out = []
    for i, x in zip(tape.leaves, values):
        try:
            out.append(decode_number(x) if isinstance(x, str) else real_number(x, f"leaf {i}"))
        except KeyError:
            raise TapeReplayError(f"leaf {i} needs a number, got {short(x)}") from None
    return out


def merge_leaves(tape: Tape, sent: list[float], shown: Sequence[float], *had: Sequence[float]) -> list[float]:
    """The leaves to replay for a view that sent ``sent`` after being shown ``shown``: the Values' leaves now,
    with only the leaves the view changed taken from it (a changed leaf must be finite). A leaf equal to what
    this view ``had`` after its own last change is not a change: another front end's change, echoed while this
    view's own change was on its way, did not reach it (ipywidgets' echo protocol drops it until its own)."""
    merged = leaves_now(tape)
    for j, (x, was) in enumerate(zip(sent, shown)):
        if not same(x, was) and not any(same(x, old[j]) for old in had):
            if not math.isfinite(x):
                raise TapeReplayError(f"leaf {tape.leaves[j]} can only be set to a finite number, got {x}")
            merged[j] = x
    return merged


def replay_into_values(tape: Tape, values: list[float], output: int) -> Callable[[], None]:
    """Replay ``tape`` for leaf ``values`` and ``output`` and write data and grad into the Values; raises (the
    tape and the Values unchanged, a KeyboardInterrupt included) when an op fails or the graph is not
    replayable. Returns a function that puts the Values and the tape back as they were."""
    return tape.replay(values, output, write_back=True)  # all or nothing, and one list of the data for both passes


def follow_into_values(tape: Tape, values: list[float], output: int) -> Callable[[], None]:
    """Replay ``tape`` for leaf ``values`` and ``output`` as a widget following another's write does (links.py):
    data into the Values (the same numbers on the nodes the writer's graph shares, fresh ones on the others), the
    grads left as the writer wrote them (they are of the writer's output). All or nothing, as
    ``replay_into_values``; returns the undo."""
    undo = tape.undo_point()
    tape.replay(values, output)
    try:
        for value, x in zip(tape.values, tape.data):
            value.data = x
    except BaseException:
        undo()
        raise
    return undo


def node_id(tape: Tape, node: object, what: str) -> int:
    """A node given as a Value or a node id, checked against the tape."""
    if isinstance(node, Value):
        return tape.index(node)
    if isinstance(node, bool) or not isinstance(node, int):
        raise TypeError(f"{what} must be a Value of this graph or a node id (int), got {type(node).__name__}: "
                        f"{short(node)}")
    if not 0 <= node < len(tape):
        raise TapeReplayError(f"{what} must be a node id from 0 to {len(tape) - 1}, got {short(node)}")
    return node


def leaf_position(tape: Tape, leaf: Value | str | int) -> int:
    """Where ``leaf`` (a Value, a label naming exactly one leaf, or a node id) sits in ``tape.leaves``."""
    if isinstance(leaf, str):
        matches = [j for j, i in enumerate(tape.leaves) if tape.labels[i] == leaf]
        if len(matches) == 1:
            return matches[0]
        if matches:
            raise KeyError(f"{len(matches)} leaves are labelled {short(leaf)}; pass the Value or its node id instead")
        named = sorted({tape.labels[i] for i in tape.leaves if tape.labels[i]})
        renamed = [i for i in tape.leaves if tape.values[i].label == leaf]
        now = (f"; node {renamed[0]} is labelled so now, but was {short(tape.labels[renamed[0]])} then"
               if len(renamed) == 1 else "")
        raise KeyError(f"no leaf is labelled {short(leaf)}: labels are read when the widget is made, and it knows "
                       f"{short(named)}{now}; pass the leaf's Value or its node id, or make a new widget "
                       "(explore(root)) to use the new labels")
    node = node_id(tape, leaf, "leaf")
    try:
        return tape.leaves.index(node)
    except ValueError:
        raise KeyError(f"node {node} is not a leaf (it is made by {tape.symbols[node]!r}); "
                       "only leaves have sliders") from None
