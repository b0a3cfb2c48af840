"""``%load_ext micrograd_widget``: every Value shows its graph; ``%unload_ext`` restores plain output.

Options are the ``MicrogradWidget`` Configurable, so ``%config MicrogradWidget.precision = 6`` works
and an IPython profile can set ``c.MicrogradWidget.node_budget = 400``. ``current_options()`` gives
the values in force to anything that draws (the live widget included).
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

from traitlets import Bool, Int, TraitError, Unicode, validate
from traitlets.config import Configurable

from .dot import DEFAULT_OPTIONS, check_option
from .display import value_mimebundle

__all__ = ["MicrogradWidget", "load_ipython_extension", "unload_ipython_extension", "current_options", "VIEWS"]

VIEWS = ("static", "widget")
_TYPE = ("micrograd_widget.engine", "Value")


class MicrogradWidget(Configurable):
    """Options of micrograd_widget's inline display (``%config MicrogradWidget`` lists them)."""

    precision = Int(DEFAULT_OPTIONS["precision"],
                    help="Decimals shown for data and grad, 0 to 17 (full precision is in each node's tooltip)."
                    ).tag(config=True)
    rankdir = Unicode(DEFAULT_OPTIONS["rankdir"], help="'LR' draws left to right, 'TB' top to bottom.").tag(config=True)
    node_budget = Int(DEFAULT_OPTIONS["node_budget"],
                      help="How many boxes a picture draws before folding the rest by module or by distance "
                           "from the output, 10 to 2000.").tag(config=True)
    color = Bool(DEFAULT_OPTIONS["color"], help="Colour nodes by gradient (blue negative, orange positive).").tag(config=True)
    default_view = Unicode("widget", help="'widget' shows the live widget with sliders (the default); 'static' a picture."
                           ).tag(config=True)

    @validate("precision", "rankdir", "node_budget", "color")
    def _check_drawing_option(self, proposal: Any) -> Any:
        try:
            return check_option(proposal["trait"].name, proposal["value"])
        except ValueError as err:
            raise TraitError(f"MicrogradWidget.{err}") from None

    @validate("default_view")
    def _check_view(self, proposal: Any) -> str:
        value = proposal["value"]
        if not isinstance(value, str) or value.lower() not in VIEWS:
            raise TraitError(f"MicrogradWidget.default_view must be 'static' (a picture) or 'widget' (the live "
                             f"widget); got {value!r}")
        return value.lower()

    def drawing_options(self) -> dict[str, Any]:
        """precision, rankdir, node_budget, color: the keyword arguments of every drawing function."""
        return {name: getattr(self, name) for name in DEFAULT_OPTIONS}


# Per shell (by id): its MicrogradWidget, the printer registered for Value and the printer it replaced.
_loaded: dict[int, tuple[Any, MicrogradWidget, Callable[[Any], Any], Callable[[Any], Any] | None]] = {}


def load_ipython_extension(ip: Any) -> None:
    """Register the rich display for Value in shell ``ip`` and its options; loading twice is harmless."""
    entry = _loaded.get(id(ip))
    if entry is not None and entry[0] is ip:
        return
    try:
        config = MicrogradWidget(parent=ip)
    except TraitError as err:
        raise TraitError(f"{err} (from the IPython configuration: fix c.MicrogradWidget there)") from None

    def show(value: Any) -> Any:
        return _mimebundle(value, config)

    ip.configurables.append(config)
    previous = ip.display_formatter.mimebundle_formatter.for_type_by_name(*_TYPE, show)
    _loaded[id(ip)] = (ip, config, show, previous)


def unload_ipython_extension(ip: Any) -> None:
    """Undo ``load_ipython_extension``: Values print their plain repr again."""
    entry = _loaded.get(id(ip))
    if entry is None or entry[0] is not ip:
        return
    del _loaded[id(ip)]
    _, config, show, previous = entry
    formatter = ip.display_formatter.mimebundle_formatter
    try:
        registered = formatter.lookup_by_type(".".join(_TYPE))
    except KeyError:
        registered = None
    if registered is show:
        formatter.pop(".".join(_TYPE))
        if previous is not None:
            formatter.for_type_by_name(*_TYPE, previous)
    if config in ip.configurables:
        ip.configurables.remove(config)


def current_options(shell: Any = None) -> dict[str, Any]:
    """The options in force in ``shell`` (default: the running IPython): precision, rankdir,
    node_budget, color and default_view; the defaults when the extension is not loaded there."""
    if shell is None:
        try:
            from IPython import get_ipython
        except ImportError:
            get_ipython = None
        shell = get_ipython() if get_ipython is not None else None
    entry = _loaded.get(id(shell)) if shell is not None else None
    if entry is None or entry[0] is not shell:
        return {**DEFAULT_OPTIONS, "default_view": MicrogradWidget.default_view.default_value}
    config = entry[1]
    return {**config.drawing_options(), "default_view": config.default_view}


def _mimebundle(value: Any, config: MicrogradWidget) -> Any:
    """The display of one Value under ``config``: the live widget when asked for and available, else
    the static picture; ``text/plain`` is the Value's repr either way."""
    options = config.drawing_options()
    if config.default_view == "widget":
        explore = _widget_explore()
        if explore is not None:
            bundle = explore(value, **options)._repr_mimebundle_()
            data, metadata = bundle if isinstance(bundle, tuple) else (bundle, {})
            return {**data, "text/plain": repr(value)}, metadata
    return value_mimebundle(value, **options)


def _widget_explore() -> Callable[..., Any] | None:
    """``micrograd_widget.widget.explore``, imported on first use; None (with a warning saying why)
    when it cannot be imported, so the display falls back to the static picture."""
    try:
        from .widget import explore
    except ImportError as err:
        warnings.warn(
            f"MicrogradWidget.default_view = 'widget', but the live widget cannot be loaded ({err}); "
            "showing the static picture instead",
            RuntimeWarning,
            stacklevel=2,
        )
        return None
    return explore
