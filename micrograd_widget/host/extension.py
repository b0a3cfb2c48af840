"""``%load_ext micrograd_widget``: every Value shows the live widget; ``%unload_ext`` goes back to the static picture.

Without the extension a Value shows its static picture (``Value._repr_html_``: ``text/plain`` + ``text/html``).
Loaded, a Value's bundle is the widget view + ``image/svg+xml`` fallback + ``text/plain`` (or, with
``default_view = 'static'``, the picture alone), and a ``text/html`` printer returning None keeps IPython
from also calling ``_repr_html_``: one layout per display. Unloading removes both printers. The widgets made for
a cell's output are closed when the cell runs again and on unload (cell_outputs.py says which, and when not).

The default view is the live widget in every front end, VS Code included: for a local kernel VS Code loads
anywidget's front end from a CDN when the user allowed it and otherwise (offline, or no CDN allowed) from the
kernel's environment, ``<sys.prefix>/share/jupyter/nbextensions/anywidget/``, which anywidget's wheel installs
(vscode-jupyter scriptSourceProviderFactory.node.ts, localWidgetScriptSourceProvider.node.ts, PR #14711).
``%config MicrogradWidget.default_view = 'static'`` (or ``c.MicrogradWidget.default_view`` in a profile) asks for
the picture alone.

Options are the ``MicrogradWidget`` Configurable, so ``%config MicrogradWidget.precision = 6`` works
and an IPython profile can set ``c.MicrogradWidget.node_budget = 400``. Its traits, checks and help
come from options.py's table; loading registers it there, so ``options.current_options()`` gives the
values in force to anything that draws (the live widget included) without importing this module.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, cast

from traitlets import Bool, Int, TraitError, TraitType, Unicode, validate
from traitlets.config import Configurable

from micrograd_widget.display import value_mimebundle, with_html
from micrograd_widget.graph.widget import value_widget
from micrograd_widget.host import options as _options
from micrograd_widget.host.cell_outputs import CellOutputs
from micrograd_widget.host.options import DRAWING_OPTIONS, OPTIONS

__all__ = ["MicrogradWidget", "load_ipython_extension", "unload_ipython_extension"]

_TYPE = ("micrograd_widget.engine", "Value")


def _refusal(name: str, value: Any) -> TraitError | None:
    """options.py's error for ``value`` as option ``name``, naming the Configurable (what ``%config`` users
    typed), or None when the option takes it."""
    try:
        _options.check_option(name, value)
    except ValueError as err:
        return TraitError(f"MicrogradWidget.{err}")
    return None


class _Said(TraitType[Any, Any]):
    """A trait whose type errors are options.py's too, saying what is allowed (traitlets' own say only
    "expected an int")."""

    def validate(self, obj: Any, value: Any) -> Any:
        try:
            return super().validate(obj, value)  # type: ignore[misc]  # Int, Unicode and Bool (_said) each have one
        except TraitError:
            refusal = _refusal(str(self.name), value)
            if refusal is None:
                raise
            raise refusal from None


def _said(base: type[TraitType[Any, Any]]) -> type[TraitType[Any, Any]]:
    """``base`` (Int, Unicode or Bool) with options.py's messages, under its own name (``%config`` lists it)."""
    return cast("type[TraitType[Any, Any]]", type(base.__name__, (_Said, base), {}))


_TRAITS: dict[type, type[TraitType[Any, Any]]] = {int: _said(Int), str: _said(Unicode), bool: _said(Bool)}


def _trait(name: str) -> TraitType[Any, Any]:
    """The configurable trait of option ``name``: its type, default and help from options.py's table."""
    option = OPTIONS[name]
    trait: TraitType[Any, Any] = _TRAITS[option.kind](option.default, allow_none=bool(option.none),
                                                      help=option.help_text())
    return trait.tag(config=True)


class MicrogradWidget(Configurable):
    """Options of micrograd_widget's inline display (``%config MicrogradWidget`` lists them)."""

    precision = _trait("precision")
    rankdir = _trait("rankdir")
    node_budget = _trait("node_budget")
    color = _trait("color")
    color_scale = _trait("color_scale")
    default_view = _trait("default_view")

    @validate(*OPTIONS)
    def _check(self, proposal: Any) -> Any:
        """options.py's check (normalising, e.g. rankdir upper-cased), its message naming the Configurable."""
        name, value = proposal["trait"].name, proposal["value"]
        refusal = _refusal(name, value)
        if refusal is not None:
            raise refusal
        return _options.check_option(name, value)

    def drawing_options(self) -> dict[str, Any]:
        """precision, rankdir, node_budget, color, color_scale: the keyword arguments of every drawing function."""
        return {name: getattr(self, name) for name in DRAWING_OPTIONS}


@dataclass(frozen=True)
class _Loaded:
    """The extension in one shell: its options, the widgets it made, the printer registered for Value and the
    one it replaced."""

    shell: Any
    config: MicrogradWidget
    outputs: CellOutputs
    show: Callable[[Any], Any]
    previous: Callable[[Any], Any] | None
    previous_html: Callable[[Any], Any] | None


_loaded: dict[int, _Loaded] = {}     # by id(shell); the shell is kept to check the id is still its


def load_ipython_extension(ip: Any) -> None:
    """Register the rich display for Value in shell ``ip`` and its options; loading twice is harmless."""
    entry = _loaded.get(id(ip))
    if entry is not None and entry.shell is ip:
        return
    try:
        config = MicrogradWidget(parent=ip)
    except TraitError as err:
        raise TraitError(f"{err} (from the IPython configuration: fix c.MicrogradWidget there)") from None

    outputs = CellOutputs()

    def show(value: Any) -> Any:
        return _mimebundle(value, config, outputs)

    ip.configurables.append(config)
    formatters = ip.display_formatter
    previous = formatters.mimebundle_formatter.for_type_by_name(*_TYPE, show)
    previous_html = formatters.formatters["text/html"].for_type_by_name(*_TYPE, _no_html)
    _loaded[id(ip)] = _Loaded(ip, config, outputs, show, previous, previous_html)
    _options.register(ip, config)
    outputs.attach(ip)


def _no_html(value: Any) -> None:
    """The ``text/html`` printer for Value while loaded: none, the mimebundle above is the whole display."""
    return None


def unload_ipython_extension(ip: Any) -> None:
    """Undo ``load_ipython_extension``: Values show their static picture again (``Value._repr_html_``), and the
    widgets the extension made are closed (explore()'s are the user's and stay open)."""
    entry = _loaded.get(id(ip))
    if entry is None or entry.shell is not ip:
        return
    del _loaded[id(ip)]
    _options.unregister(ip)
    _restore(ip.display_formatter.mimebundle_formatter, entry.show, entry.previous)
    _restore(ip.display_formatter.formatters["text/html"], _no_html, entry.previous_html)
    if entry.config in ip.configurables:
        ip.configurables.remove(entry.config)
    entry.outputs.detach(ip)


def _restore(formatter: Any, ours: Callable[[Any], Any], previous: Callable[[Any], Any] | None) -> None:
    """Take our printer for Value out of ``formatter`` (if it is still ours) and put back the one it replaced."""
    try:
        registered = formatter.lookup_by_type(".".join(_TYPE))
    except KeyError:
        registered = None
    if registered is ours:
        formatter.pop(".".join(_TYPE))
        if previous is not None:
            formatter.for_type_by_name(*_TYPE, previous)


def _mimebundle(value: Any, config: MicrogradWidget, outputs: CellOutputs) -> Any:
    """The display of one Value under ``config``: the live widget (with the static picture for viewers
    without a widget manager; ``outputs`` closes it when the cell's output is replaced) or the static picture
    alone; ``text/plain`` is the Value's repr either way."""
    options = config.drawing_options()
    if config.default_view == "widget":
        widget, bundle = value_widget(value, **options)
        outputs.record(widget)
        return bundle
    return with_html(value_mimebundle(value, **options), f"the graph of {value!r}")
