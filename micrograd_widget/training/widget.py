"""watch(model): the training view. The loss curve and the model's gradients, live while your own loop runs.

    w = watch(model)                    # show ``w`` in a cell, or: ``with watch(model) as w:`` (shows itself)
    for k in range(100):
        ...; loss.backward(); ...       # your step, unchanged
        w.log(loss)                     # after backward: appends one float; pushes at most every ``every`` s

Python owns the state as traitlets, the browser draws it (js/training/widget.js, built into static/). ``log()`` only
appends the loss; the parameters' grads are read, and the state sent, on a *push*: the first ``log()``, then a
``log()`` at least ``every`` seconds after the last push (also spaced to at least ``COST_FACTOR`` times what
the last push cost, so even a huge model costs the loop a few percent), and a final flush when the cell
ends (IPython's ``post_run_cell``, which also marks the run finished: the loop was in that cell), on
``finish()``, at the end of a ``with`` block and on ``close()``. marimo
has no cell events: there a ``log()`` that does not push arms a timer thread that flushes when the next push
is due, so the view follows the loop live and ends on its last step with no ``finish()``; and no ``log()`` for
``IDLE_END`` seconds (a second timer, checking a few times a span) marks the run finished as a cell end does, a
later ``log()`` resuming it. ``finish()`` and ``close()`` cancel both timers. What ``log()`` keeps (the checked
losses and steps), the curve's thinning, when a push is due and the timers are training/log.py's.

Its display is the live view plus a static SVG (training/static_picture.py: the loss curve and the model picture with
the final grad norms) for viewers without a widget manager, and a ``text/plain`` that says what was logged.
Shown in IPython, the display gets a display id and is rewritten (``update_display``) at ``finish()`` and at the
end of each cell that logged, so a saved notebook shows the run as it ended.

The model is drawn once, as DOT laid out by Graphviz in the browser (model_picture.py: one box per neuron, one
cluster per layer). A push only changes the numbers and fills in place: each box shows the norm of its neuron's
parameter grads, sqrt(sum(grad**2)).

Synced traits: ``dot`` and ``structure`` (fixed: the boxes, which parameters each holds, the palette),
``curve`` (the losses drawn: every step up to ``MAX_BUCKETS``, then buckets of 2**k steps drawn by their
lowest and highest finite loss and first non-finite one; plus the count, the last step and loss), ``grad``
and ``data`` (every parameter's, in ``model.parameters()`` order), ``precision``, ``log_scale`` and
``finished``. Non-finite numbers travel as spec.encode_number's strings. A front end may write only ``log_scale``
(``set_state``); ``precision`` and ``log_scale`` are checked from Python too (options.py).
"""

from __future__ import annotations

import contextlib
import logging
import math
import numbers
import threading
import time
from collections.abc import Callable
from typing import Any

import traitlets

from micrograd_widget.core.spec import encode_number
from micrograd_widget.graph import view_state
from micrograd_widget.host import assets as _assets
from micrograd_widget.host.options import TRAINING_OPTIONS, check_option, check_trait
from micrograd_widget.picture.colors import palette
from micrograd_widget.picture.text import plural
from micrograd_widget.training.log import (
    DEFAULT_EVERY,
    IDLE_END,
    IDLE_TICKS,
    MIN_EVERY,
    Curve,
    Log,
    encode_numbers,
    float_or_nan,
    in_marimo,
    loss_number,
    parameters_of,
    step_number,
)
from micrograd_widget.training.model_picture import NeuronBox, model_boxes, model_dot, neuron_norms
from micrograd_widget.training.static_picture import training_svg

__all__ = ["TrainingWidget", "watch"]

_log = logging.getLogger(__name__)


# ---------------------------------------------------------------- the widget

class TrainingWidget(_assets.AssetsWidget):
    """The training view of ``model``: ``log(loss)`` each step after ``loss.backward()``; see ``watch``."""

    # The view the loader renders (the loader and the shared assets: assets.AssetsWidget).
    _mgw_view = traitlets.Unicode("training", read_only=True).tag(sync=True)

    dot = traitlets.Unicode().tag(sync=True)
    structure = traitlets.Dict().tag(sync=True)
    curve = traitlets.Dict().tag(sync=True)
    grad: traitlets.List[float | str] = traitlets.List().tag(sync=True)
    data: traitlets.List[float | str] = traitlets.List().tag(sync=True)
    precision = traitlets.Int(4).tag(sync=True)
    log_scale = traitlets.Bool(False).tag(sync=True)
    finished = traitlets.Bool(False).tag(sync=True)

    _every: float
    _shell: Any = None             # the IPython shell whose post_run_cell flushes this view, while hooked
    _idle_end = IDLE_END           # marimo: seconds with no log() that end the run (tests shorten it)

    def __init__(self, model: object, *, every: float = DEFAULT_EVERY, precision: int = 4, log_scale: bool = False,
                 clock: Callable[[], float] = time.monotonic) -> None:
        params = parameters_of(model)
        precision = check_option("precision", precision)
        log_scale = check_option("log_scale", log_scale)
        if not callable(clock):
            raise TypeError(f"clock must be a function returning seconds (such as time.monotonic), got {clock!r}")
        self._params = params
        self.every = every
        boxes = model_boxes(model, params)
        self._boxes = boxes.neurons
        self._layers, self._nin = boxes.layers, boxes.nin
        grads = [float_or_nan(p.grad) for p in params]
        self._log = Log(clock)
        self._curve = Curve()
        self._shown = False
        self._lock = threading.RLock()      # a push from the timer thread never interleaves with the loop's
        self._pushed = -1                   # the last step a push sent
        self._handles: list[Any] = []       # IPython display handles of this view, rewritten at finish/cell end
        self._written: tuple[int, bool] | None = None   # (steps, finished) the displays last showed
        super().__init__(
            dot=model_dot(boxes.layers, boxes.neurons, boxes.nin, neuron_norms(grads, boxes.neurons), precision),
            structure={  # the wire names js/training/widget.js reads: "units" are the neuron boxes, "groups" the layers
                "units": [{"id": u.id, "group": u.layer, "title": u.title, "params": list(u.params),
                           "names": list(u.names)} for u in boxes.neurons],
                "groups": [{"id": g.id, "title": g.title} for g in boxes.layers],
                "nparams": len(params),
                "message": boxes.message,
                "palette": palette(),
            },
            curve=self._curve_state(),
            grad=encode_numbers(grads),
            data=encode_numbers([p.data for p in params]),
            precision=precision,
            log_scale=log_scale,
        )
        self._hook()
        self._timed = self._shell is None and in_marimo()

    # ------------------------------------------------------------------ the loop's API

    def log(self, loss: Any, step: int | None = None) -> None:
        """Record this step's loss (a Value or a number; non-finite is allowed and shown as a gap). ``step``
        defaults to the previous step + 1 (0 first); given, it must be a whole number above the previous.
        Call it after ``loss.backward()``: a push reads the parameters' grads at that moment."""
        r = self._log
        if type(loss) is not float:
            loss = loss_number(loss)
        if step is None:
            step = r.last + 1
        elif type(step) is not int:
            step = step_number(step)
        if step <= r.last:
            raise ValueError(f"log(step={step}): steps must increase; the last one logged was {r.last}")
        r.steps.append(step)
        r.losses.append(loss)
        r.last = step
        if r.finished:
            r.finished = False
            self._hook()
        if r.clock() >= r.due:
            self._push()
        elif r.timed and r.timer is None:
            self._arm_timer()
        if r.timed and r.idle is None:
            r.arm_idle(self._on_idle, step, 0, self._idle_end)

    def flush(self) -> None:
        """Send the current losses and grads to the browser now (the cell end and ``finish()`` do it for you)."""
        self._push()

    def finish(self) -> None:
        """The loop is over: send the final state and mark the view finished (a later ``log()`` resumes);
        rewrite its displays (static picture and text) as the run ended."""
        self._log.finished = True
        self._log.cancel()
        self._push()
        self._unhook()
        self._rewrite_displays()

    def close(self) -> None:
        """Finish (final flush), then close the widget as every ipywidget closes: its views go away. No timer
        thread outlives it: both are cancelled, and one already running waits for the lock, then sees no comm."""
        lock = getattr(self, "_lock", None)
        if lock is None:    # __init__ refused its arguments (ipywidgets' __del__ still closes): no timers
            super().close()
            return
        with lock:
            self._log.cancel()
            if self.comm is not None:
                self.finish()
            self._unhook()
            super().close()

    def __enter__(self) -> TrainingWidget:
        """``with watch(model) as w:`` shows the view (in IPython, if not shown yet) and finishes it at the end."""
        if not self._shown:
            try:
                from IPython import get_ipython
                from IPython.display import display
            except ImportError:
                return self
            if get_ipython() is not None:
                display(self)
        return self

    def __exit__(self, *exc: object) -> None:
        self.finish()

    @property
    def _timed(self) -> bool:
        """No cell events (marimo): timer threads flush what ``log()`` did not push and end an idle run."""
        return self._log.timed

    @_timed.setter
    def _timed(self, value: bool) -> None:
        self._log.timed = value

    @property
    def every(self) -> float:
        """Seconds between pushes to the browser (at least ``MIN_EVERY``)."""
        return self._every

    @every.setter
    def every(self, value: float) -> None:
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not MIN_EVERY <= value < math.inf:
            raise ValueError(f"every is the seconds between updates of the view, a number of at least {MIN_EVERY}; "
                             f"got {value!r}")
        self._every = float(value)

    @property
    def steps(self) -> list[int]:
        """Every logged step (a copy)."""
        return list(self._log.steps)

    @property
    def losses(self) -> list[float]:
        """Every logged loss (a copy), in ``steps`` order."""
        return list(self._log.losses)

    @property
    def parameters(self) -> list[Any]:
        """The model's parameters, in the order of the ``grad`` and ``data`` traits."""
        return list(self._params)

    @property
    def boxes(self) -> list[NeuronBox]:
        """The boxes drawn, in ``structure["units"]`` order."""
        return list(self._boxes)

    # ------------------------------------------------------------------ what the view may change

    def set_state(self, sync_data: Any) -> None:
        """An update from a front end, taken whole or not at all: it may change only its view options
        (view_state.TRAINING_FROM_VIEW, checked as the graph view's are); anything else, or a bad value, is
        refused, logged and the kernel's values pushed back. Nothing here raises."""
        if view_state.refuse_shape(self, sync_data):
            return
        refusal, pushed = view_state.refuse_foreign(self, sync_data, view_state.TRAINING_FROM_VIEW)
        own = {name: value for name, value in sync_data.items() if name in view_state.TRAINING_FROM_VIEW}
        try:
            checked = {name: view_state.option_from_view(name, value) for name, value in own.items()}
        except (TypeError, ValueError) as err:
            _log.warning("TrainingWidget: refused an update from the view: %s", err)
            checked, refusal = {}, refusal or str(err)
        if refusal:
            pushed += sorted(own)
        elif checked:
            super().set_state(checked)
        if pushed:
            self.send_state(pushed)

    @traitlets.validate(*TRAINING_OPTIONS)
    def _check_option(self, proposal: dict[str, Any]) -> Any:
        """precision and log_scale are checked by options.py's rules, from Python too; a bad value changes nothing."""
        return check_trait(proposal)

    # ------------------------------------------------------------------ pushing

    def _push(self) -> None:
        """Gather the grads and the new losses and send them in one message; schedule the next push."""
        r = self._log
        with self._lock:
            start = r.clock()
            params = self._params
            self._pushed = r.last
            with self.hold_sync():
                self.curve = self._curve_state()
                self.grad = encode_numbers([p.grad for p in params])
                self.data = encode_numbers([p.data for p in params])
                self.finished = r.finished
            r.pushed(start, r.clock(), self._every)

    def _arm_timer(self) -> None:
        """Flush, from a daemon thread, when the next push is due, unless a ``log()`` pushes first (marimo)."""
        self._log.arm(self._on_timer, self._every)

    def _on_timer(self) -> None:
        r = self._log
        with self._lock:
            r.timer = None
            if self.comm is not None and self._pushed != r.last:
                self._push()

    def _on_idle(self, seen: int, quiet: int) -> None:
        """The idle check (marimo, a timer thread): ``IDLE_TICKS`` checks in a row with no new step, i.e. no
        ``log()`` for ``_idle_end`` seconds, and the loop is taken as over: the view says it finished, as at a
        Jupyter cell end (the same ``finished``, sent by the same locked push as the timer flush); a later
        ``log()`` resumes it and arms the check again. Else it checks again. A closed or finished view: nothing."""
        r = self._log
        with self._lock:
            r.idle = None       # before ``finished``: a log() that sees the run finished finds no check armed
            if self.comm is None or r.finished:
                return
            quiet = quiet + 1 if r.last == seen else 0
            if quiet < IDLE_TICKS:
                r.arm_idle(self._on_idle, r.last, quiet, self._idle_end)
                return
            r.finished = True
            self._push()        # no displays to rewrite: they are IPython's, which has cell ends

    def _curve_state(self) -> dict[str, Any]:
        r = self._log
        steps, losses = self._curve.update(r.steps, r.losses)
        n = len(r.losses)
        return {"steps": steps, "losses": encode_numbers(losses), "count": n, "nonfinite": self._curve.nonfinite,
                "step": r.steps[-1] if n else None, "loss": encode_number(r.losses[-1]) if n else None}

    # ------------------------------------------------------------------ the cell end (IPython)

    def _hook(self) -> None:
        """Flush when each cell ends (IPython's post_run_cell), so the last steps of a loop always show."""
        if self._shell is not None:
            return
        try:
            from IPython import get_ipython
        except ImportError:
            return
        shell = get_ipython()
        if shell is not None:
            shell.events.register("post_run_cell", self._on_cell_end)
            self._shell = shell

    def _unhook(self) -> None:
        shell, self._shell = self._shell, None
        if shell is not None:
            with contextlib.suppress(ValueError):
                shell.events.unregister("post_run_cell", self._on_cell_end)

    def _on_cell_end(self, result: object = None) -> None:
        """The cell ended: a loop that logged in it is over, so the view says it finished (with no ``finish()``);
        a ``log()`` in a later cell resumes and hooks the next cell end. A cell that logged nothing (the one that
        only shows the view) leaves it waiting."""
        if self.comm is None:
            self._unhook()
            return
        if self._log.losses and not self._log.finished:
            self._log.finished = True
            self._unhook()      # IPython calls a copy of the callback list: unregistering here is safe
        self._push()
        self._rewrite_displays()

    # ------------------------------------------------------------------ the display (IPython)

    def _static_bundle(self) -> dict[str, str]:
        """The static picture (curve + model with the grad norms now) and the text, as the run stands."""
        r = self._log
        params = self._params
        grads = [float_or_nan(p.grad) for p in params]
        picture = model_dot(self._layers, self._boxes, self._nin, neuron_norms(grads, self._boxes),
                            self.precision)
        with self._lock:
            curve = self._curve_state()
        return {"image/svg+xml": training_svg(picture, curve, self.precision, self.log_scale, r.finished),
                "text/plain": repr(self)}

    def _bundle(self) -> tuple[dict[str, Any], dict[str, Any]] | None:
        bundle = super()._repr_mimebundle_()
        if bundle is None:
            return None
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
        return {**data, **self._static_bundle()}, metadata

    def _ipython_display_(self) -> None:
        """Show the view with a display id, so ``finish()`` and the cell end can rewrite what was saved."""
        from IPython.display import display
        bundle = self._bundle()
        if bundle is None:
            return
        self._shown = True
        self._written = (len(self._log.losses), self._log.finished)
        handle = display(bundle[0], metadata=bundle[1], raw=True, display_id=True)
        if handle is not None:
            self._handles.append(handle)

    def _rewrite_displays(self) -> None:
        """``update_display`` of every display of this view, when the run changed since they were written."""
        now = (len(self._log.losses), self._log.finished)
        if not self._handles or now == self._written:
            return
        bundle = self._bundle()
        if bundle is None:
            return
        self._written = now
        for handle in self._handles:
            handle.update(bundle[0], metadata=bundle[1], raw=True)

    # ------------------------------------------------------------------ helpers

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        """The live view, the static picture and the text (frontends without IPython's display hook)."""
        self._shown = True
        bundle = super()._repr_mimebundle_(**kwargs)
        if bundle is None:
            return None
        data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
        return {**data, **self._static_bundle()}, metadata

    def __repr__(self) -> str:
        r = self._log
        n = len(r.losses)
        last = f", last loss {r.losses[-1]!r} at step {r.steps[-1]}" if n else ""
        return f"TrainingWidget({plural(len(self._params), 'parameter')}, {plural(n, 'step')} logged{last})"


def watch(model: object, *, every: float = DEFAULT_EVERY, precision: int = 4, log_scale: bool = False,
          clock: Callable[[], float] = time.monotonic) -> TrainingWidget:
    """The training view of ``model``: show it, then call ``w.log(loss)`` after each ``loss.backward()``.

    ``every``: seconds between updates of the view (>= 0.05); ``precision``: decimals of the boxes' numbers;
    ``log_scale``: start with a logarithmic loss axis; ``clock``: the time source (tests pass a fake one)."""
    return TrainingWidget(model, every=every, precision=precision, log_scale=log_scale, clock=clock)
