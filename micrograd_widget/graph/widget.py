"""GraphWidget and explore(): the live widget, one slider per leaf, every data and grad updating as you drag.

Python owns the state as traitlets, the browser owns the view (js/graph/widget.js, built into static/). The
graph is frozen once into a Tape; the browser replays it for every slider frame (js/core/tape.js) and sends
the settled leaf values back, which the Tape replays here and writes into the real Value objects, so the
next cell sees what the widget shows. A graph with a user-defined op is replayed here on request
(custom message ``{"type": "replay"}``) because the browser has no copy of the op; for the same reason
the inspector's gradient check of such a graph is computed here (``{"type": "gradcheck"}``, answered with
micrograd_widget.core.gradcheck), so a user-defined op with a wrong local derivative is caught in the view too.

Displaying a widget never changes the Values; the first change of a leaf or of the output does. Widgets on one
graph follow each other (links.py): a change one writes reaches every other live widget's view, no ``refresh()``.

Traits (all synced): ``spec`` (Tape.spec(): per-node arrays as binary buffers), ``folds`` (the fold hierarchy,
fold_tree.FoldTree.spec(); no groups when nothing folds) and ``opened`` (the boxes opened in it), ``leaf_values``
(in ``spec["leaves"]`` order), ``leaf_roles`` (which leaves are parameters: params.py), ``output`` (the node
differentiated), ``data``/``grad`` (the kernel's numbers as Float64 buffers, only for graphs the browser cannot
replay: empty otherwise, so a settled slider does not ship every node twice), ``precision``, ``rankdir``,
``node_budget``, ``color``, ``pin``/``show_change`` (Pin and compare: view state), and ``error`` (why the kernel
refused the last change). The browser writes every live
picture from ``folds``, ``opened`` and the options (js/picture/fold_tree.js); no DOT is synced. The kernel plans a
picture
(dot.graph_view) only for the static outputs, when asked: the fallback of ``_repr_mimebundle_``, ``save_svg`` and
save_html's ``<noscript>``.

Faults stay contained: a front end may write only ``leaf_values``, ``output``, ``opened``, the pin and the view options
(view_state.py checks them; updates of any other trait are refused, logged and the kernel's value pushed back); a
change from the view takes only the leaves the view changed and re-reads the others from the Values (the write
rule, writes.py), so Python assignments and other widgets on the same graph are never undone; every front end then
hears what the kernel took (an echo) and the sender what it refused or trimmed (front_ends.py); any failure,
from the view's message or from user code, is reported in ``error`` (requests.error_text) and leaves Values, traits
and tape as they were. ``close()`` lets go of the tape and with it the user's graph.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import os
import sys
import warnings
from array import array
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import traitlets

from micrograd_widget.core.params import leaf_roles
from micrograd_widget.core.spec import encode_number, to_buffer
from micrograd_widget.core.tape import Tape
from micrograd_widget.display import view_mimebundle, with_html
from micrograd_widget.engine import Value
from micrograd_widget.graph import links, view_state, writes
from micrograd_widget.graph.front_ends import LastChanges, answer_update
from micrograd_widget.graph.requests import answer, error_text
from micrograd_widget.host import assets as _assets
from micrograd_widget.host.files import writable_path
from micrograd_widget.host.options import (
    DRAWING_OPTIONS,
    MAX_NODE_BUDGET,
    check_option,
    check_trait,
    current_drawing_options,
)
from micrograd_widget.picture import dot as _dot
from micrograd_widget.picture import fold_tree

__all__ = ["GraphWidget", "explore"]


_CLOSED = "this widget is closed; make a new one with explore(root)"
_KEEP = object()  # "the view did not send this trait"
_log = logging.getLogger(__name__)


class GraphWidget(_assets.AssetsWidget):
    """A live picture of ``root``'s graph: drag a leaf's slider and every node's data and grad follow.

    ``GraphWidget(root, precision=4, rankdir="LR", node_budget=250, color=True, output=None, params=None)``;
    ``params`` (Values, e.g. ``model.parameters()``) names the leaves listed as parameters (params.py's rule else);
    ``set_leaf(leaf, value)`` and ``refresh()`` push Python-side changes to the view.
    """

    # The view the loader renders (the loader and the shared assets: assets.AssetsWidget).
    _mgw_view = traitlets.Unicode("graph", read_only=True).tag(sync=True)

    spec = traitlets.Dict().tag(sync=True)
    leaf_values: traitlets.List[Any] = traitlets.List().tag(sync=True)
    output = traitlets.Int(0).tag(sync=True)
    data = traitlets.Union([traitlets.Bytes(), traitlets.Instance(memoryview)], default_value=b"").tag(sync=True)
    grad = traitlets.Union([traitlets.Bytes(), traitlets.Instance(memoryview)], default_value=b"").tag(sync=True)
    precision = traitlets.Int(4).tag(sync=True)
    rankdir = traitlets.Unicode("LR").tag(sync=True)
    node_budget = traitlets.Int(250, allow_none=True).tag(sync=True)
    color = traitlets.Bool(True).tag(sync=True)
    color_scale = traitlets.Unicode("relative").tag(sync=True)
    error = traitlets.Unicode("").tag(sync=True)
    # The fold hierarchy (fold_tree.FoldTree.spec(), read by js/picture/fold_tree.js) and the keys of the boxes opened
    # in it (`opened`, not `open`: ipywidgets' Widget.open() is the method that opens the comm).
    folds = traitlets.Dict().tag(sync=True)
    opened: traitlets.List[str] = traitlets.List(traitlets.Unicode()).tag(sync=True)
    # Which leaves are parameters and the rule that says so (params.py LeafRoles.trait(); js/host/spec-contract.md).
    leaf_roles = traitlets.Dict().tag(sync=True)
    # The view's learning state, saved with the widget state (js/graph/learn-panel.js; view_state.check_learning).
    learning = traitlets.Dict({"steps": 0, "step_size": 0.01}).tag(sync=True)
    # View state (view_state.PIN_STATE): the pinned leaf values and output ({} for none) and whether the picture
    # shows each node's change from them; the view replays the frozen tape for every pinned number.
    pin = traitlets.Dict().tag(sync=True)
    show_change = traitlets.Bool(False).tag(sync=True)

    def __init__(self, root: Value, *, output: Value | int | None = None, params: Any = None,
                 **options: Any) -> None:
        if not isinstance(root, Value):
            raise TypeError(f"GraphWidget() takes a Value (the root of a graph), got {type(root).__name__}")
        unknown = set(options) - set(DRAWING_OPTIONS)
        if unknown:
            raise TypeError(f"GraphWidget() got unknown option(s) {sorted(unknown)}; "
                            f"the options are {list(DRAWING_OPTIONS)}")
        settings = current_drawing_options()
        settings.update(options)
        settings = {name: check_option(name, settings[name]) for name in DRAWING_OPTIONS}
        tape = Tape.from_value(root)
        roles = leaf_roles(tape, params)
        self._tape: Tape | None = tape
        self._writing = False                       # inside _kernel_writes()
        self._front_end: dict[str, Any] = {}        # _kernel_writes(): what the sending front end has
        self._sender: str | None = None             # the session of the front end whose message is being handled
        self._had = LastChanges()                   # per front end: the leaves after its last change
        out = tape.root if output is None else writes.node_id(tape, output, "output")
        failure = ""
        if not tape.opaque:
            try:
                tape.replay(output=out)     # forward and backward on one list of the data
            except Exception as err:  # a user op failing: shown in the view, the tape keeps the Values' numbers
                failure = error_text(err)
        leaves = [tape.data[i] for i in tape.leaves]
        self._applied: tuple[list[float], int] = (leaves, out)
        self._tree: fold_tree.FoldTree | None = fold_tree.build_tree(tape, settings["node_budget"])
        self._drawn: tuple[tuple[Any, ...], _dot.GraphView] | None = None   # _drawing(): the static picture, planned
        spec = tape.spec()
        self._kernel_computes = bool(tape.opaque) or not tape.builtin_only
        with self._kernel_writes():
            super().__init__(
                spec=spec,
                folds=view_state.fold_spec(self._tree),
                leaf_roles=roles.trait(),
                leaf_values=[encode_number(x) for x in leaves],
                output=out,
                data=self._numbers(tape.data),
                grad=self._numbers(tape.grad),
                error=failure,
                **settings,
            )
        self.on_msg(self._on_custom_msg)
        links.join(self)

    # ------------------------------------------------------------------ public API

    @property
    def tape(self) -> Tape:
        """The frozen graph this widget replays (RuntimeError once the widget is closed)."""
        if self._tape is None:
            raise RuntimeError(_CLOSED)
        return self._tape

    def set_leaf(self, leaf: Value | str | int, value: float) -> None:
        """Give one leaf (its Value, its label, or its node id) a new value; every node's data and grad
        follow, in the Values and in the view. The other leaves keep what the Values hold now (NaN and
        inf included). Raises, changing nothing, if the graph cannot take it."""
        position = writes.leaf_position(self.tape, leaf)
        values = writes.leaves_now(self.tape)
        values[position] = writes.real_number(value, "set_leaf(value)")
        self._apply(values, self._applied[1])

    def refresh(self) -> None:
        """Re-read the leaves' ``.data`` from the Value objects (after you changed them in Python) and
        replay the graph, updating the view."""
        self._apply(writes.leaves_now(self.tape), self._applied[1])

    def save_svg(self, path: str | os.PathLike[str]) -> Path:
        """Write the picture as this widget shows it (its numbers, output and drawing options) to ``path`` as
        an SVG file laid out by the kernel's Graphviz ``dot``; returns the path. Raises RuntimeError when
        ``dot`` is not installed (the widget's SVG button needs no Graphviz), TimeoutError when it runs past
        ``picture.layout.DOT_TIME_LIMIT`` seconds, and, before any work, the OSError ``files.writable_path`` gives for
        a path it cannot write (a missing folder, a folder, a FIFO); written as module-level ``save_svg`` writes.
        A picture of more boxes than any node budget draws (``node_budget=None``) is refused at once, a TimeoutError
        that points at the widget's Download button: ``dot`` would run for minutes."""
        from micrograd_widget.display import write_svg

        target = writable_path(path, "save_svg", "graph.svg")
        view = self._drawing()
        drawn = len(view.shown) + len(view.folds)
        if drawn > MAX_NODE_BUDGET:
            raise TimeoutError(
                f"save_svg did not lay out this picture: it draws {drawn:,} boxes, more than the {MAX_NODE_BUDGET:,} "
                "any node budget draws, and the kernel's Graphviz dot would take minutes on it; the widget's Download "
                "button saves the SVG the page laid out, or draw fewer boxes (node_budget=250)")
        return write_svg(view, target)

    def close(self) -> None:
        """Close the view and let go of the tape, and with it the graph: a closed widget holds no Value."""
        super().close()
        links.leave(self)
        if getattr(self, "_tape", None) is None:
            return
        self._tape = None
        self._tree = None       # the fold hierarchy, with the fit tables and box openings an Expand kept on it
        self._drawn = None      # the picture holds the tape
        self._applied = ([], 0)
        self._had.clear()
        with self._kernel_writes():
            for name in ("spec", "data", "grad", "leaf_values"):
                self.set_trait(name, self.trait_defaults(name))

    # ------------------------------------------------------------------ kernel-side replay

    def _apply(self, values: list[float], output: int, *, following: bool = False) -> None:
        """Replay the tape for ``values`` and ``output``, write data and grad into the Values and publish
        them, then tell the other live widgets (links.py); raises (tape, Values and traits unchanged, a
        KeyboardInterrupt included) when an op fails or the graph is not replayable. ``following``: another
        widget wrote the leaves; only the data go into the Values, and nobody is told."""
        replay = writes.follow_into_values if following else writes.replay_into_values
        undo = replay(self.tape, values, output)
        try:
            undo = self._undo_point(undo)  # until it is made, the traits are untouched: the tape's undo is enough
            self._publish(values, output, "")
        except BaseException:  # an observer raised, or the user interrupted: the view's traits go back too
            undo()
            raise
        if not following:
            links.tell_others(self)

    def _follow(self) -> None:
        """Another widget wrote leaf values into the Values (links.py): when this graph's leaves moved, show them,
        replayed for this widget's own output. A failure (a user's op) is shown in ``error``, this widget as it
        was; ``refresh()`` tries again."""
        if self._tape is None:
            return
        try:
            values = writes.leaves_now(self._tape)
            if not writes.same_list(values, self._applied[0]):
                self._apply(values, self._applied[1], following=True)
        except Exception as err:  # user ops may raise anything: this view must hear why
            self._refuse(f"another widget changed this graph's leaves and this one could not follow: "
                         f"{error_text(err)}; call refresh() to try again")

    def _publish(self, values: Sequence[float], output: int, error: str, numbers: bool = True) -> None:
        """Show ``values``/``output`` (and the tape's numbers) in the view with ``error``; they are now what
        the view has. A value equal to the old one but not the same (-0.0 after 0.0) is sent too."""
        self._applied = (list(values), output)
        encoded = [encode_number(x) for x in values]
        before = (self.leaf_values, self.output)
        with self._kernel_writes(), self.hold_sync():
            self.leaf_values = encoded
            self.output = output
            if numbers:
                self.data = self._numbers(self.tape.data)
                self.grad = self._numbers(self.tape.grad)
            self.error = error
        resend = (["leaf_values"] if before[0] == encoded and not writes.same_list(before[0], encoded) else []) + (
            ["output"] if before[1] == output and not writes.same(before[1], output) else [])
        resend = [name for name in resend if name not in self._front_end]  # set_state answers for those itself
        if resend:
            self.send_state(resend)

    def _refuse(self, message: str) -> None:
        """Put back what the view last had (a change the kernel cannot apply), and say why in the view."""
        values, output = self._applied
        self._publish(values, output, message, numbers=False)

    def _settle(self, leaves: object, output: object, had: Sequence[float] | None = None) -> None:
        """The write rule for a change from the view (``_KEEP``: not sent): re-read every leaf from the
        Values, take only the leaves the view changed (from what every view was last shown and, ``had``, what
        this one had after its own last change), replay, write data and grad of every node and push the
        merged leaf values back. Raises, changing nothing, on a bad change."""
        tape = self.tape
        shown, shown_output = self._applied
        out = shown_output if output is _KEEP else writes.node_id(tape, output, "output")
        merged = (writes.leaves_now(tape) if leaves is _KEEP
                  else writes.merge_leaves(tape, writes.decode_leaves(tape, leaves), shown, *([had] if had else [])))
        if out != shown_output or not writes.same_list(merged, shown):
            self._apply(merged, out)

    @traitlets.observe("leaf_values", "output")
    def _on_state_change(self, change: dict[str, Any]) -> None:
        """An assignment in Python to ``leaf_values`` or ``output``: settled as a view's change would be."""
        if self._writing or self._tape is None:
            return
        try:
            self._settle(self.leaf_values, self.output)
        except Exception as err:  # user ops may raise anything: the view must hear why
            self._refuse(error_text(err))

    def set_state(self, sync_data: Any) -> None:
        """An update from a front end, taken whole or not at all. It may change only its own traits (leaf
        values, output, opened boxes, view options); any other is refused, logged and pushed back. Leaf values and
        output follow the write rule (``_settle``); a refusal says why in ``error``. Every front end then hears
        what the kernel has for each trait sent (front_ends.py). Nothing here raises."""
        if self._tape is None:
            _log.warning("GraphWidget: an update from the view of a closed widget was ignored")
            return
        refusal = view_state.refuse_shape(self, sync_data)
        if refusal:
            self._refuse(refusal)
            return
        refusal, kernel_owned = view_state.refuse_foreign(self, sync_data, view_state.FROM_VIEW)
        problems = [refusal] if refusal else []
        own: dict[str, Any] = {}
        for name, value in sync_data.items():
            if name in view_state.FROM_VIEW:
                try:
                    own[name] = view_state.check_from_view(self.tape, name, value, self._fold_tree,
                                                           self.node_budget)
                except (TypeError, ValueError) as err:
                    problems.append(error_text(err))
        sent = {name: value for name, value in sync_data.items() if name in view_state.FROM_VIEW}
        had = self._had.had(self._sender)
        with self._kernel_writes(front_end=sent), self.hold_sync():
            try:
                for name in own.keys() & {"leaf_values", "output"}:
                    setattr(self, name, own[name])  # as the view has it now, so that putting it back is a change
                if not problems and own.keys() & {"leaf_values", "output"}:
                    self._settle(own.get("leaf_values", _KEEP), own.get("output", _KEEP), had)
                if not problems and "learning" in own:
                    self.learning = own["learning"]
                view = (*DRAWING_OPTIONS, "opened", *view_state.PIN_STATE)
                options = {name: own[name] for name in view if name in own}
                if not problems and options:
                    for name, value in options.items():
                        setattr(self, name, value)      # checked above: the opened validator passes it
                    self._refold()
            except Exception as err:  # user ops may raise anything: the view must hear why, the comm nothing
                problems.append(error_text(err))
            except BaseException:  # the user interrupted: the Values went back (_apply); the view's traits go too
                self._refuse("interrupted: the change from the view was not applied")
                raise
            if problems:
                self._refuse("; ".join(problems))
            elif self.error:
                self.error = ""
        if "leaf_values" in sent:
            self._had.remember(self._sender, self._applied[0])   # what this front end has once it hears back
        answer_update(self, sent)
        if kernel_owned:
            self.send_state(kernel_owned)

    def _handle_msg(self, msg: dict[str, Any]) -> None:
        """ipywidgets' handler of a front end's message, knowing which front end (its session) sent it."""
        header = msg.get("header") if isinstance(msg, dict) else None
        session = header.get("session") if isinstance(header, dict) else None
        self._sender = session if isinstance(session, str) else None
        try:
            super()._handle_msg(msg)
        finally:
            self._sender = None

    @contextmanager
    def _kernel_writes(self, front_end: dict[str, Any] | None = None) -> Iterator[None]:
        """The kernel writing traits itself (construction, a replay's numbers, a front end's checked change, an
        undo, close): observers do not take these writes for a user's change and the ``opened`` validator trusts
        them. ``front_end``: what the front end whose update this is has for the traits it sent; a write that
        leaves such a trait as that front end has it is not sent back to it (``_should_send_property``)."""
        outer = self._writing, self._front_end
        self._writing = True
        if front_end is not None:
            self._front_end = front_end
        try:
            yield
        finally:
            self._writing, self._front_end = outer

    def _should_send_property(self, key: str, value: Any) -> bool:
        """ipywidgets' test, as a trait is written, of whether to send it: not when the front end whose update the
        kernel is handling has it so already (``_kernel_writes``); once sent, that is what it has."""
        has = self._front_end
        if key in has:
            if writes.same_state(has[key], value):
                return False
            has[key] = value
        return bool(super()._should_send_property(key, value))

    @traitlets.validate(*DRAWING_OPTIONS)
    def _check_option(self, proposal: dict[str, Any]) -> Any:
        """Drawing options are checked (and normalised) by options.py's rules; a bad value changes nothing."""
        return check_trait(proposal)

    @traitlets.validate("opened")
    def _check_open(self, proposal: dict[str, Any]) -> Any:
        """Opened fold boxes: known keys only (else a TraitError naming them), in tree order, cut to the budget;
        the kernel's own writes are checked already."""
        if self._writing:
            return proposal["value"]
        refused: dict[str, str] = {}
        try:
            opened = fold_tree.check_open(self.tape, self._fold_tree(), proposal["value"], self.node_budget, refused)
        except ValueError as err:
            raise traitlets.TraitError(str(err)) from None
        if refused and "opened" not in self._property_lock:   # set in Python: say what was left closed (a view fits it)
            warnings.warn(fold_tree.left_closed_words(refused, self.node_budget), UserWarning,
                          stacklevel=_caller_level())
        return opened

    @traitlets.validate("pin")
    def _check_pin(self, proposal: dict[str, Any]) -> Any:
        """A pin set in Python is checked as the view's is (view_state.check_pin); a bad one changes nothing."""
        if self._writing:
            return proposal["value"]
        try:
            return view_state.check_pin(self.tape, proposal["value"])
        except (TypeError, ValueError) as err:
            raise traitlets.TraitError(str(err)) from None

    def _fold_tree(self) -> fold_tree.FoldTree:
        """The fold hierarchy for the budget in force, rebuilt when the budget changes."""
        if self._tree is None or self._tree.budget != self.node_budget:
            self._tree = fold_tree.build_tree(self.tape, self.node_budget)
        return self._tree

    @traitlets.observe("node_budget")
    def _on_budget_change(self, change: dict[str, Any]) -> None:
        """A new node budget set in Python brings a new fold hierarchy (the browser draws the picture itself)."""
        if not self._writing:
            self._refold()

    def _refold(self) -> None:
        """A new fold hierarchy when the node budget changed, keeping the opened boxes still in it (within the
        budget); nothing else: the browser writes the picture for the options and open set in force."""
        if self._tree is not None and self._tree.budget == self.node_budget:
            return
        tree = self._fold_tree()
        with self.hold_sync(), self._kernel_writes():
            self.folds = view_state.fold_spec(tree)
            self.opened = fold_tree.check_open(self.tape, tree, [k for k in self.opened if k in tree.by_key],
                                               self.node_budget)

    def _on_custom_msg(self, _widget: Any, content: Any, _buffers: Any) -> None:
        """Answer the view's requests for what it cannot compute itself (requests.py: replay, gradcheck)."""
        if self._tape is None:
            return
        reply = answer(self, content)
        if reply is not None:
            self.send(*reply)  # content, binary buffers

    def _undo_point(self, undo_tape: Callable[[], None] | None = None) -> Callable[[], None]:
        """A function that puts the Values, the tape and the view's traits back as they are now (``undo_tape``:
        the tape's own undo of a replay just made, which the traits have not seen yet)."""
        undo_tape, applied = undo_tape or self.tape.undo_point(), self._applied
        traits = {name: getattr(self, name) for name in ("leaf_values", "output", "data", "grad", "error")}

        def undo() -> None:
            undo_tape()
            self._applied = applied
            with self._kernel_writes(), self.hold_sync():
                for name, value in traits.items():
                    setattr(self, name, value)

        return undo

    # ------------------------------------------------------------------ helpers

    def _numbers(self, values: array[float]) -> memoryview | bytes:
        """The ``data``/``grad`` trait value: every node's number (Float64, shared with the tape, not copied)
        when the kernel computes for the view, else empty."""
        return to_buffer(values) if self._kernel_computes else b""

    def _drawing_key(self, output: int, open_keys: Sequence[str], options: dict[str, Any]) -> tuple[Any, ...]:
        """What a picture of the tape depends on: output, open set, options, and the numbers (a digest of every
        node's data and grad: they may change by any path, the tape's own methods included)."""
        tape = self.tape
        digest = hashlib.blake2b(memoryview(tape.data), digest_size=16)
        digest.update(memoryview(tape.grad))
        return output, tuple(open_keys), tuple(sorted(options.items())), digest.digest()

    def _options(self) -> dict[str, Any]:
        """The drawing options in force for this widget (its traits)."""
        return {name: getattr(self, name) for name in DRAWING_OPTIONS}

    def _plan(self) -> _dot.GraphView:
        """The static picture of the tape as it is now, for the output shown, the opened boxes and the drawing
        options (the DOT the browser writes for them, js/picture/fold_tree.js: the shared vectors hold the two
        equal)."""
        options = self._options()
        picture = _dot.graph_view(self.tape, output=self._applied[1], open_keys=self.opened, tree=self._fold_tree(),
                                  **options)
        # Kept with its fold boxes but not their members (a node id per folded node): what the SVG is laid out from,
        # and how many boxes it draws (save_svg's refusal counts them).
        key = self._drawing_key(self._applied[1], self.opened, options)
        boxes = tuple(dataclasses.replace(f, members=()) for f in picture.folds)
        self._drawn = (key, dataclasses.replace(picture, folds=boxes))
        return picture

    def _drawing(self) -> _dot.GraphView:
        """What the SVG of ``_plan()`` is laid out from: the picture kept when nothing it depends on changed since
        (the fallback, save_svg and save_html's ``<noscript>`` of one state plan it once), else planned now."""
        key = self._drawing_key(self._applied[1], self.opened, self._options())
        return self._drawn[1] if self._drawn is not None and self._drawn[0] == key else self._plan()

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        """The widget view plus display.py's static picture (its SVG and ``with_html``'s HTML of it, which a
        notebook shows, readable with the output in sight; or its table when Graphviz's ``dot`` is missing), for
        viewers where the widget cannot run (no widget manager, nbconvert, GitHub, nbviewer): drawn from this
        widget's own tape as it is now, its grads those of the output chosen in the widget (``output``)."""
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is None:
            return None
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
        static = view_mimebundle(self._drawing(), self._plan)
        return {**with_html(static, "the graph, as the widget draws it"), **data}, metadata


def value_widget(value: Value, **options: Any) -> tuple[GraphWidget, tuple[dict[str, Any], dict[str, Any]]]:
    """A Value shown as the live widget (the extension's display; in a browser's Python, a bare Value's): the widget
    and its display bundle, whose ``text/plain`` is the Value's repr."""
    widget = explore(value, **options)
    bundle = widget._repr_mimebundle_()
    data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
    return widget, ({**data, "text/plain": repr(value)}, metadata)


def explore(root: Value, *, params: Any = None, **options: Any) -> GraphWidget:
    """A live widget for ``root``'s graph (see GraphWidget for the options); ``params`` (a list of Values, e.g.
    ``model.parameters()``) overrides which leaves the list shows first as parameters (params.py's rule)."""
    return GraphWidget(root, params=params, **options)


def _caller_level() -> int:
    """The ``stacklevel`` of the first frame outside traitlets and this package: the user's line a warning names
    (so that each such line is warned of, not only the first, as Python's default filter shows a warning once per
    line)."""
    inside = (os.path.dirname(traitlets.__file__), os.path.dirname(os.path.dirname(__file__)))
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and frame.f_code.co_filename.startswith(inside):
        frame, level = frame.f_back, level + 1
    return level
