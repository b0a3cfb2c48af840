"""The widget's traits as its view reads them, and the checks of what a view may send back.

``view_of(picture)`` is the ``view`` trait (which nodes a picture draws, which fold box holds each other node,
the palette); ``fold_spec(tree)`` the ``folds`` trait (the fold hierarchy, fold_tree.py); every user string in
them goes through spec.json_safe. A graph view may write only ``FROM_VIEW``: leaf values, the output, the opened
boxes and the drawing options; ``check_from_view`` checks one such value (options normalised) or raises a
TypeError/ValueError saying what was wrong, the offending value shortened. A training view may write only
``TRAINING_FROM_VIEW``, its view options. ``refuse_foreign`` is the one guard of both widgets: what else a front
end sends is refused, logged, and the kernel's values pushed back. widget.py and training.py own the traits.
"""

from __future__ import annotations

import logging
from array import array
from collections.abc import Callable, Collection, Mapping
from itertools import chain
from typing import Any

from . import dot as _dot
from . import fold_tree
from .colors import palette
from .options import DRAWING_OPTIONS, check_option
from .spec import json_safe, to_buffer
from .tape import Tape
from .text import short

__all__ = ["FROM_VIEW", "TRAINING_FROM_VIEW", "refuse_shape", "refuse_foreign", "check_from_view", "option_from_view",
           "view_of", "fold_spec"]

# What a front end may write; every other trait is the kernel's.
FROM_VIEW = frozenset({"leaf_values", "output", "opened", *DRAWING_OPTIONS})
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
    if name == "opened":
        if not isinstance(value, list):
            raise TypeError(f"opened must be a list of fold box keys, got {type(value).__name__}: {short(value)}")
        return fold_tree.check_open(tape, tree(), value, node_budget)
    return option_from_view(name, value)


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


def view_of(picture: _dot.GraphView) -> dict[str, Any]:
    """The ``view`` trait: what the browser needs to know about a picture besides its DOT. ``fold_of`` (per node
    the index of the closed box holding it, -1 when drawn; empty when nothing is folded) is a little-endian Int32
    buffer: as a JSON list it was 3 of the 4.1 MB of a 1,000,000-node widget's state."""
    fold_of = array("i")
    if picture.folds:
        fold_of = array("i", [-1]) * picture.total
        for k, f in enumerate(picture.folds):
            for i in f.members:
                fold_of[i] = k
    return {
        "shown": list(picture.shown),
        "folds": [{"id": f.id, "key": json_safe(f.key), "title": json_safe(f.title), "kind": f.kind,
                   "count": len(f.members), "note": json_safe(f.note)}
                  for f in picture.folds],
        "open": [json_safe(k) for k in picture.open],
        "fold_of": to_buffer(fold_of),
        "message": json_safe(picture.message),
        "palette": palette(),
    }
