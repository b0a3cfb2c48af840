"""The widget's traits as its view reads them, and the checks of what a view may send back.

``fold_spec(tree)`` is the ``folds`` trait (the fold hierarchy, fold_tree.py, from which the browser writes every
live picture); its user strings go through spec.json_safe. A graph view may write only ``FROM_VIEW``: leaf values,
the output, the opened boxes, the drawing options, the learning state (step count, step size) and the pin
(``PIN_STATE``: what was pinned, ``check_pin``, and whether the picture shows the change from it);
``check_from_view`` checks one such value (options normalised) or raises a TypeError/ValueError saying what was
wrong, the offending value shortened. A training view may write only ``TRAINING_FROM_VIEW``, its view options.
``refuse_foreign`` is the one guard of both widgets: what else a front end sends is refused, logged, and the
kernel's values pushed back. widget.py and training.py own the traits.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Collection, Mapping
from itertools import chain
from typing import Any

from micrograd_widget.core.spec import encode_number, json_safe
from micrograd_widget.core.tape import Tape
from micrograd_widget.graph import writes
from micrograd_widget.host.options import DRAWING_OPTIONS, check_option
from micrograd_widget.picture import fold_tree
from micrograd_widget.picture.text import short

__all__ = ["FROM_VIEW", "PIN_STATE", "TRAINING_FROM_VIEW", "check_pin", "refuse_shape", "refuse_foreign",
           "check_from_view", "check_learning", "option_from_view", "fold_spec"]

# What a front end may write; every other trait is the kernel's.
PIN_STATE = ("pin", "show_change")    # view state: the pinned numbers and whether the picture shows change from them
FROM_VIEW = frozenset({"leaf_values", "output", "opened", "learning", *PIN_STATE, *DRAWING_OPTIONS})
TRAINING_FROM_VIEW = frozenset({"log_scale"})   # the training view's: only the options its toolbar changes


def refuse_shape(widget: Any, sync_data: object) -> str:
    """The refusal of an update that is no mapping of trait names to values ('' when it is one), logged as a warning
    of the widget's module: a hostile or broken front end's ``[1, 2]`` or ``None`` must not raise in the comm."""
    if isinstance(sync_data, Mapping):
        return ""
    message = (f"an update from the view must map trait names to values, got {type(sync_data).__name__}: "
               f"{short(sync_data)}")
    logging.getLogger(type(widget).__module__).warning("%s: refused an update from the view: %s",
                                                       type(widget).__name__, message)
    return message


def refuse_foreign(widget: Any, sync_data: Mapping[str, Any], allowed: Collection[str]) -> tuple[str, list[str]]:
    """The refusal of what a front end sent ``widget`` but may not write (the names not in ``allowed``), logged as
    a warning of the widget's module: its message ('' when everything sent is allowed) and the widget's traits among
    those names, whose kernel values the caller pushes back (``send_state``) with whatever else it puts back."""
    foreign = sorted(str(name) for name in sync_data if name not in allowed)
    if not foreign:
        return "", []
    message = f"the view may not change {short(foreign)}: they are the kernel's"
    logging.getLogger(type(widget).__module__).warning("%s: refused an update from the view: %s",
                                                       type(widget).__name__, message)
    return message, [name for name in foreign if name in widget.keys]


def check_from_view(tape: Tape, name: str, value: Any, tree: Callable[[], fold_tree.FoldTree],
                    node_budget: int | None) -> Any:
    """A value a front end sent for trait ``name`` (one of FROM_VIEW), checked (options normalised), or a
    TypeError/ValueError. ``tree()`` gives the fold hierarchy in force (for ``opened``). A front end may not ask
    for every node to be drawn (``node_budget=None``); only Python may."""
    if name == "leaf_values":
        if not isinstance(value, list) or len(value) != len(tape.leaves):
            raise TypeError(f"leaf_values must be a list of {len(tape.leaves)} numbers (one per leaf), got "
                            f"{type(value).__name__} {short(value)}")
        return value
    if name == "output":
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"output must be a node id (int), got {type(value).__name__}: {short(value)}")
        return value
    if name == "learning":
        return check_learning(value)
    if name == "opened":
        if not isinstance(value, list):
            raise TypeError(f"opened must be a list of fold box keys, got {type(value).__name__}: {short(value)}")
        return fold_tree.check_open(tape, tree(), value, node_budget)
    if name == "pin":
        return check_pin(tape, value)
    if name == "show_change":
        if not isinstance(value, bool):
            raise TypeError(f"show_change must be true or false, got {type(value).__name__}: {short(value)}")
        return value
    return option_from_view(name, value)


def check_learning(value: Any) -> dict[str, Any]:
    """The ``learning`` trait (the view's step count and step size, js/graph/learn-panel.js) checked: a mapping of
    ``steps``, a whole number >= 0, and ``step_size``, a finite positive number; else a TypeError/ValueError."""
    if not isinstance(value, Mapping) or set(value) != {"steps", "step_size"}:
        raise TypeError(f"learning must be {{'steps': int, 'step_size': float}}, got {short(value)}")
    steps, size = value["steps"], value["step_size"]
    if isinstance(steps, bool) or not isinstance(steps, int) or steps < 0:
        raise ValueError(f"learning.steps must be a whole number >= 0, got {short(steps)}")
    if isinstance(size, bool) or not isinstance(size, (int, float)) or not math.isfinite(size) or size <= 0:
        raise ValueError(f"learning.step_size must be a finite positive number such as 0.01, got {short(size)}")
    return {"steps": steps, "step_size": float(size)}


def check_pin(tape: Tape, value: Any) -> dict[str, Any]:
    """The ``pin`` trait checked: ``{}`` (nothing pinned) or ``{"leaf_values": [one number per leaf, in
    spec["leaves"] order], "output": node id}``, the numbers the view replays the frozen tape from to show each
    node's change since the pin; returned with its numbers as JSON carries them, or a TypeError/ValueError."""
    if not isinstance(value, Mapping):
        raise TypeError(f"pin must be {{}} or {{'leaf_values': [...], 'output': node id}}, got "
                        f"{type(value).__name__}: {short(value)}")
    if not value:
        return {}
    if set(value) != {"leaf_values", "output"}:
        raise ValueError(f"pin must have exactly the keys 'leaf_values' and 'output', got "
                         f"{short(sorted(map(str, value)))}")
    leaves = [encode_number(x) for x in writes.decode_leaves(tape, value["leaf_values"])]
    return {"leaf_values": leaves, "output": writes.node_id(tape, value["output"], "pin output")}


def option_from_view(name: str, value: Any) -> Any:
    """A view option (options.py's ``check_option``) a front end sent, normalised, or a TypeError/ValueError
    saying what is allowed; a value that is no option's type is refused before its repr could be long."""
    if name == "node_budget" and value is None:
        raise ValueError("node_budget from the view must be a whole number; drawing every node (None) can "
                         "only be asked for from Python")
    if not isinstance(value, (bool, int, float, str)) or (isinstance(value, str) and len(value) > 16):
        raise TypeError(f"{name} from the view must be a number, true/false or a short text, got "
                        f"{type(value).__name__}: {short(value)}")
    return check_option(name, value)


def fold_spec(tree: fold_tree.FoldTree | None) -> dict[str, Any]:
    """The ``folds`` trait: ``tree.spec()`` with its user strings JSON-safe."""
    if tree is None:
        return {}
    spec = tree.spec()
    try:    # every string safe already (the rule, a learner's labels aside): checked in one pass, rows kept
        "".join(chain.from_iterable((key, title, note) for key, _, title, note, _, _ in spec["groups"])).encode()
    except UnicodeEncodeError:
        spec["groups"] = [[json_safe(key), kind, json_safe(title), json_safe(note), parent, total]
                          for key, kind, title, note, parent, total in spec["groups"]]
    return spec
