"""GraphWidget and explore(): the live widget, one slider per leaf, every data and grad updating as you drag.

Python owns the state as traitlets, the browser owns the view (js/widget.js, built into static/). The
graph is frozen once into a Tape; the browser replays it for every slider frame (js/tape.js) and sends
the settled leaf values back, which the Tape replays here and writes into the real Value objects, so the
next cell sees what the widget shows. A graph with a user-defined op is replayed here on request
(custom message ``{"type": "replay"}``) because the browser has no copy of the op; for the same reason
the inspector's gradient check of such a graph is computed here (``{"type": "gradcheck"}``, answered with
micrograd_widget.gradcheck), so a user-defined op with a wrong local derivative is caught in the view too.

Displaying a widget never changes the Values; the first change of a leaf or of the output does.

Traits (all synced): ``spec`` (Tape.to_json()), ``dot`` and ``view`` (dot.graph_view: the DOT and which
nodes are drawn, which fold box holds each other node, and the colour palette), ``leaf_values`` (in ``spec["leaves"]`` order),
``output`` (the node differentiated), ``data``/``grad`` (the kernel's numbers, only for graphs the
browser cannot replay: empty otherwise, so a settled slider does not ship every node twice), ``precision``,
``rankdir``, ``node_budget``, ``color``, and ``error`` (why the kernel refused the last change).
"""

from __future__ import annotations

import math
import numbers
from pathlib import Path
from typing import Any, Sequence

import anywidget
import traitlets

from . import dot as _dot
from .display import value_mimebundle
from .engine import Value
from .gradcheck import gradcheck
from .options import DRAWING_OPTIONS, check_option, current_drawing_options
from .tape import Tape, TapeReplayError, decode_number, encode_number

__all__ = ["GraphWidget", "explore"]

_STATIC = Path(__file__).parent / "static"


def _number(value: object, what: str) -> float:
    """``value`` as a float, or a TypeError naming ``what`` and what was given."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{what} needs a real number (int or float), got {type(value).__name__}: {value!r}")
    return float(value)


class GraphWidget(anywidget.AnyWidget):
    """A live picture of ``root``'s graph: drag a leaf's slider and every node's data and grad follow.

    ``GraphWidget(root, precision=4, rankdir="LR", node_budget=250, color=True, output=None)``;
    ``set_leaf(leaf, value)`` and ``refresh()`` push Python-side changes to the view.
    """

    _esm = _STATIC / "widget.js"
    _css = _STATIC / "widget.css"

    spec = traitlets.Dict().tag(sync=True)
    dot = traitlets.Unicode().tag(sync=True)
    view = traitlets.Dict().tag(sync=True)
    leaf_values = traitlets.List().tag(sync=True)
    output = traitlets.Int(0).tag(sync=True)
    data = traitlets.List().tag(sync=True)
    grad = traitlets.List().tag(sync=True)
    precision = traitlets.Int(4).tag(sync=True)
    rankdir = traitlets.Unicode("LR").tag(sync=True)
    node_budget = traitlets.Int(250, allow_none=True).tag(sync=True)
    color = traitlets.Bool(True).tag(sync=True)
    error = traitlets.Unicode("").tag(sync=True)

    def __init__(self, root: Value, *, output: Value | int | None = None, **options: Any) -> None:
        if not isinstance(root, Value):
            raise TypeError(f"GraphWidget() takes a Value (the root of a graph), got {type(root).__name__}")
        unknown = set(options) - set(DRAWING_OPTIONS)
        if unknown:
            raise TypeError(f"GraphWidget() got unknown option(s) {sorted(unknown)}; the options are {list(DRAWING_OPTIONS)}")
        settings = current_drawing_options()
        settings.update(options)
        settings = {name: check_option(name, settings[name]) for name in DRAWING_OPTIONS}
        tape = Tape.from_value(root)
        self._tape = tape
        out = tape.root if output is None else self._node_id(output, "output")
        replayable = not tape.opaque
        if replayable:
            tape.forward()
            tape.backward(out)
        leaves = [tape.data[i] for i in tape.leaves]
        self._applied: tuple[list[float], int] = (leaves, out)
        picture = _dot.graph_view(tape, output=out, **settings)
        spec = tape.to_json()
        self._kernel_computes = bool(tape.opaque) or not all(row["builtin"] for row in spec["ops"])
        self._busy = True
        super().__init__(
            spec=spec,
            dot=picture.dot,
            view=self._view_of(picture),
            leaf_values=[encode_number(x) for x in leaves],
            output=out,
            data=self._numbers(tape.data),
            grad=self._numbers(tape.grad),
            **settings,
        )
        self._busy = False
        self.on_msg(self._on_custom_msg)

    # ------------------------------------------------------------------ public API

    @property
    def tape(self) -> Tape:
        """The frozen graph this widget replays."""
        return self._tape

    def set_leaf(self, leaf: Value | str | int, value: float) -> None:
        """Give one leaf (its Value, its label, or its node id) a new value; every node's data and grad
        follow, in the Values and in the view. Raises, changing nothing, if the graph cannot take it."""
        position = self._leaf_position(leaf)
        values = list(self._applied[0])
        values[position] = _number(value, "set_leaf(value)")
        self._apply(values, self._applied[1])

    def refresh(self) -> None:
        """Re-read the leaves' ``.data`` from the Value objects (after you changed them in Python) and
        replay the graph, updating the view."""
        values = [_number(self._tape.values[i].data, f"leaf {i} .data") for i in self._tape.leaves]
        self._apply(values, self._applied[1])

    # ------------------------------------------------------------------ kernel-side replay

    def _apply(self, values: list[float], output: int) -> None:
        """Replay the tape for ``values`` and ``output``, write data and grad into the Values and publish
        them; raises TapeReplayError (changing nothing) when an op fails or the graph is not replayable."""
        tape = self._tape
        for x in values:
            if not math.isfinite(x):
                raise TapeReplayError(f"leaf values must be finite numbers, got {x!r}")
        tape.forward(values)
        tape.backward(output)
        tape.write_back()
        self._applied = (list(values), output)
        self._busy = True
        try:
            with self.hold_sync():
                self.leaf_values = [encode_number(x) for x in values]
                self.output = output
                self.data = self._numbers(tape.data)
                self.grad = self._numbers(tape.grad)
                self.error = ""
        finally:
            self._busy = False

    def _refuse(self, message: str) -> None:
        """Undo a change the browser made that the kernel cannot apply, and say why in the view."""
        values, output = self._applied
        self._busy = True
        try:
            with self.hold_sync():
                self.leaf_values = [encode_number(x) for x in values]
                self.output = output
                self.error = message
        finally:
            self._busy = False

    @traitlets.observe("leaf_values", "output")
    def _on_state_change(self, change: dict[str, Any]) -> None:
        """A change from the browser (or an assignment in Python): replay and write back, or refuse it."""
        if self._busy:
            return
        try:
            values = self._decode_leaves(self.leaf_values)
            output = self._node_id(self.output, "output")
            if (values, output) != self._applied:
                self._apply(values, output)
        except (TapeReplayError, TypeError, ValueError, ArithmeticError, KeyError) as err:
            self._refuse(str(err.args[0]) if err.args else str(err))

    @traitlets.validate(*DRAWING_OPTIONS)
    def _check_option(self, proposal: dict[str, Any]) -> Any:
        """Drawing options are checked (and normalised) by dot.py's rules; a bad value changes nothing."""
        try:
            return check_option(proposal["trait"].name, proposal["value"])
        except ValueError as err:
            raise traitlets.TraitError(str(err)) from None

    @traitlets.observe(*DRAWING_OPTIONS)
    def _on_option_change(self, change: dict[str, Any]) -> None:
        """Redraw (a new DOT, laid out again in the browser) when a drawing option changes."""
        if self._busy:
            return
        picture = _dot.graph_view(self._tape, output=self._applied[1], **{name: getattr(self, name) for name in DRAWING_OPTIONS})
        with self.hold_sync():
            self.dot = picture.dot
            self.view = self._view_of(picture)

    def _on_custom_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        """Answer the browser's requests for what it cannot compute itself: ``replay`` and ``gradcheck``."""
        if not isinstance(content, dict):
            return
        if content.get("type") == "replay":
            self.send(self._replay_reply(content))
        elif content.get("type") == "gradcheck":
            self.send(self._gradcheck_reply(content))

    def _replay_reply(self, content: dict[str, Any]) -> dict[str, Any]:
        """Data and grads for the browser's leaf values, for graphs it cannot replay (user-defined ops).

        Request ``{"type": "replay", "seq", "leaf_values", "output"}``; answer ``{"type": "replay",
        "seq", "data", "grad"}`` or ``{"type": "replay", "seq", "error"}``. The Values are not touched:
        that happens when the browser settles the leaf values."""
        reply: dict[str, Any] = {"type": "replay", "seq": content.get("seq")}
        tape = self._tape
        saved = (tape.data, tape.grad)
        try:
            values = self._decode_leaves(content.get("leaf_values"))
            output = self._node_id(content.get("output", tape.root), "output")
            tape.forward(values)
            tape.backward(output)
            reply["data"] = [encode_number(x) for x in tape.data]
            reply["grad"] = [encode_number(x) for x in tape.grad]
        except (TapeReplayError, TypeError, ValueError, ArithmeticError, KeyError) as err:
            reply["error"] = str(err.args[0]) if err.args else str(err)
        finally:
            tape.data, tape.grad = saved
        return reply

    def _gradcheck_reply(self, content: dict[str, Any]) -> dict[str, Any]:
        """micrograd_widget.gradcheck for the leaf values and output the view shows.

        Request ``{"type": "gradcheck", "seq", "leaf_values", "output", "eps", "rtol", "atol", "leaves"}``
        (``leaves``: node ids to check, default every leaf); answer ``{"type": "gradcheck", "seq", "rows":
        [{"node", "label", "data", "analytic", "numeric", "abs_error", "rel_error", "ok", "note"}], "passed",
        "eps", "rtol", "atol", "output"}`` or ``{..., "error"}``. The leaf values are applied first (as a
        settled slider would be), so the Values hold what was checked."""
        reply: dict[str, Any] = {"type": "gradcheck", "seq": content.get("seq")}
        tape = self._tape
        try:
            values = self._decode_leaves(content.get("leaf_values"))
            output = self._node_id(content.get("output", tape.root), "output")
            tolerances = {name: content.get(name, default) for name, default in
                          (("eps", 1e-6), ("rtol", 1e-4), ("atol", 1e-6))}
            for name, x in tolerances.items():
                tolerances[name] = _number(x, f"gradcheck {name}")
            leaves = content.get("leaves")
            if leaves is None:
                chosen = list(tape.leaves)
            elif isinstance(leaves, list):
                chosen = [self._node_id(i, "gradcheck leaf") for i in leaves]
            else:
                raise TypeError(f"gradcheck leaves must be a list of node ids, got {type(leaves).__name__}")
            if (values, output) != self._applied:
                self._apply(values, output)
            result = gradcheck(tape.values[tape.root], leaves=[tape.values[i] for i in chosen],
                               output=tape.values[output], **tolerances)
        except (TapeReplayError, TypeError, ValueError, ArithmeticError, KeyError) as err:
            reply["error"] = str(err.args[0]) if err.args else str(err)
            return reply
        reply.update(
            rows=[{"node": r.node, "label": r.label, "data": encode_number(r.data),
                   "analytic": encode_number(r.analytic), "numeric": encode_number(r.numeric),
                   "abs_error": encode_number(r.abs_error), "rel_error": encode_number(r.rel_error),
                   "ok": r.ok, "note": r.note} for r in result.rows],
            passed=result.passed, output=result.output,
            eps=result.eps, rtol=result.rtol, atol=result.atol,
        )
        return reply

    # ------------------------------------------------------------------ helpers

    def _numbers(self, values: Sequence[float]) -> list[float | str]:
        """The ``data``/``grad`` trait value: every node's number when the kernel computes for the view."""
        return [encode_number(x) for x in values] if self._kernel_computes else []

    def _decode_leaves(self, values: object) -> list[float]:
        """The browser's leaf values as floats, or a TapeReplayError saying what was wrong."""
        n = len(self._tape.leaves)
        if not isinstance(values, (list, tuple)) or len(values) != n:
            raise TapeReplayError(f"expected a list of {n} leaf values (one per leaf), got {values!r:.80}")
        out = []
        for i, x in zip(self._tape.leaves, values):
            try:
                out.append(decode_number(x) if isinstance(x, str) else _number(x, f"leaf {i}"))
            except KeyError:
                raise TapeReplayError(f"leaf {i} needs a number, got {x!r}") from None
        return out

    def _node_id(self, node: Value | int, what: str) -> int:
        """A node given as a Value or a node id, checked against the tape."""
        if isinstance(node, Value):
            return self._tape.index(node)
        if isinstance(node, bool) or not isinstance(node, int):
            raise TypeError(f"{what} must be a Value of this graph or a node id (int), got {type(node).__name__}: {node!r}")
        if not 0 <= node < len(self._tape):
            raise TapeReplayError(f"{what} must be a node id from 0 to {len(self._tape) - 1}, got {node}")
        return node

    def _leaf_position(self, leaf: Value | str | int) -> int:
        """Where ``leaf`` (a Value, a label naming exactly one leaf, or a node id) sits in ``tape.leaves``."""
        tape = self._tape
        if isinstance(leaf, str):
            matches = [j for j, i in enumerate(tape.leaves) if tape.labels[i] == leaf]
            if len(matches) == 1:
                return matches[0]
            named = sorted({tape.labels[i] for i in tape.leaves if tape.labels[i]})
            if matches:
                raise KeyError(f"{len(matches)} leaves are labelled {leaf!r}; pass the Value or its node id instead")
            raise KeyError(f"no leaf is labelled {leaf!r}; labelled leaves: {named[:20]}")
        node = self._node_id(leaf, "leaf")
        try:
            return tape.leaves.index(node)
        except ValueError:
            raise KeyError(f"node {node} is not a leaf (it is made by {tape.symbols[node]!r}); only leaves have sliders") from None

    @staticmethod
    def _view_of(picture: _dot.GraphView) -> dict[str, Any]:
        """What the browser needs to know about a picture besides its DOT."""
        fold_of: list[int] = []
        if picture.folds:
            fold_of = [-1] * picture.total
            for k, f in enumerate(picture.folds):
                for i in f.members:
                    fold_of[i] = k
        return {
            "shown": list(picture.shown),
            "folds": [{"id": f.id, "title": f.title, "kind": f.kind, "count": len(f.members), "note": f.note}
                      for f in picture.folds],
            "fold_of": fold_of,
            "message": picture.message,
            "palette": {"negative": _dot.NEGATIVE_COLOR, "positive": _dot.POSITIVE_COLOR,
                        "zero": _dot.ZERO_COLOR, "nonfinite": _dot.NONFINITE_COLOR},
        }

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        """The widget view plus display.py's static picture (SVG, or its HTML table when Graphviz's ``dot``
        is missing), for viewers without a widget manager (nbconvert, GitHub, nbviewer)."""
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is None:
            return None
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
        root = self._tape.values[self._tape.root]
        static = value_mimebundle(root, **{name: getattr(self, name) for name in DRAWING_OPTIONS})
        return {**{k: v for k, v in static.items() if k != "text/plain"}, **data}, metadata


def explore(root: Value, **options: Any) -> GraphWidget:
    """A live widget for ``root``'s graph (see GraphWidget for the options)."""
    return GraphWidget(root, **options)
