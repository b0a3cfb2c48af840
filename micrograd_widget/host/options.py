"""Drawing options, the one home: their defaults, the values each takes, the checks and help texts made
from those, and the options in force (what ``%config MicrogradWidget`` set in the running IPython). The
training view's options (``TRAINING_OPTIONS``: the drawing option precision and its own log_scale) are
checked here too.

Everything that draws (``graph_view``, the inline display, the live widgets) and the extension's
Configurable read this table; nothing types a range again. The extension registers its Configurable
here when it loads (``register``), so this module needs no import of the extension.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import traitlets

__all__ = [
    "Option", "OPTIONS", "DRAWING_OPTIONS", "TRAINING_OPTIONS", "DEFAULT_OPTIONS",
    "MIN_PRECISION", "MAX_PRECISION", "MIN_NODE_BUDGET", "MAX_NODE_BUDGET",
    "check_option", "check_trait", "current_options", "current_drawing_options", "register", "unregister",
]

MIN_PRECISION, MAX_PRECISION = 0, 17
MIN_NODE_BUDGET, MAX_NODE_BUDGET = 10, 2000


@dataclass(frozen=True)
class Option:
    """One option: its default and the values it takes, either whole numbers in ``span`` (``none`` says
    what None means when None is allowed), a choice among ``choices`` (value, what it means; matched
    ignoring case), or else a bool. ``rule`` starts the error message ("is the number of decimals
    shown, "); ``help`` starts the ``%config`` help text, which ends with what is allowed."""

    name: str
    default: int | str | bool
    rule: str
    help: str
    span: tuple[int, int] | None = None
    none: str = ""
    choices: tuple[tuple[str, str], ...] = ()

    @property
    def kind(self) -> type:
        """The type of its values (None aside): int, str or bool."""
        return str if self.choices else int if self.span else bool

    def allowed(self) -> str:
        """What values it takes, in words: "a whole number from 0 to 17", "True or False", ..."""
        if self.choices:
            return " or ".join(f"{value!r} ({meaning})" for value, meaning in self.choices)
        if self.span is None:
            return "True or False"
        text = f"a whole number from {self.span[0]} to {self.span[1]}"
        return f"{text} ({self.none})" if self.none else text

    def check(self, value: Any) -> Any:
        """``value`` normalised (a choice in its own case), or a ValueError saying what is allowed."""
        if value is None and self.none:
            return None
        if self.choices:
            if isinstance(value, str):
                for choice, _ in self.choices:
                    if value.casefold() == choice.casefold():
                        return choice
        elif self.span is None:
            if isinstance(value, bool):
                return value
        elif not isinstance(value, bool) and isinstance(value, int) and self.span[0] <= value <= self.span[1]:
            return value
        from micrograd_widget.picture.text import (
            short,  # only here: this table imports nothing of the package when it loads
        )

        raise ValueError(f"{self.name} {self.rule}{self.allowed()}; got {short(value)}")

    def help_text(self) -> str:
        """The ``%config MicrogradWidget`` help line: what the option does and what it takes."""
        return f"{self.help}: {self.allowed()}."


OPTIONS: dict[str, Option] = {o.name: o for o in (
    Option("precision", 4, "is the number of decimals shown, ",
           "Decimals shown for data and grad (full precision is in each node's tooltip)",
           span=(MIN_PRECISION, MAX_PRECISION)),
    Option("rankdir", "LR", "must be ", "Direction of the picture",
           choices=(("LR", "left to right"), ("TB", "top to bottom"))),
    Option("node_budget", 250, "is how many boxes a picture may draw before it folds the rest, ",
           "How many boxes a picture draws before folding the rest by module or by distance from the output",
           span=(MIN_NODE_BUDGET, MAX_NODE_BUDGET), none="None draws everything"),
    Option("color", True, "turns colouring by gradient on or off: ",
           "Colour nodes by gradient (blue negative, white zero, orange positive)"),
    # colors.py SCALES spelled out here: this table imports nothing of the package when it loads.
    Option("color_scale", "relative", "is how a grad becomes a colour: ",
           "How a grad becomes a colour; 'log' shows vanishing gradients the digits round to 0",
           choices=(("relative", "stronger for larger |grad|, full colour at the largest drawn"),
                    ("log", "one step per power of ten, full colour at 1, white from 1e-12"))),
    Option("default_view", "widget", "must be ", "What a Value shows in a notebook",
           choices=(("static", "a picture"), ("widget", "the live widget"))),
)}
# The keyword arguments of graph_view.
DRAWING_OPTIONS = ("precision", "rankdir", "node_budget", "color", "color_scale")
# The training view's own options, not drawing options (no %config: each watch() chooses its own).
_TRAINING_ONLY: dict[str, Option] = {o.name: o for o in (
    Option("log_scale", False, "turns the training view's logarithmic loss axis on or off: ",
           "Logarithmic loss axis of the training view"),
)}
TRAINING_OPTIONS = ("precision", "log_scale")    # the options of watch() a view redraws with
DEFAULT_OPTIONS: dict[str, Any] = {name: OPTIONS[name].default for name in DRAWING_OPTIONS}


def check_option(name: str, value: Any) -> Any:
    """``value`` for option ``name`` (normalised, e.g. rankdir upper-cased), or a ValueError saying
    what is allowed. The extension's %config options and the training view's use the same checks."""
    option = OPTIONS.get(name) or _TRAINING_ONLY.get(name)
    if option is None:
        raise ValueError(f"unknown option {name!r}; the options are {', '.join(DEFAULT_OPTIONS)}")
    return option.check(value)


def check_trait(proposal: Mapping[str, Any]) -> Any:
    """The body of a widget's ``@traitlets.validate`` of its option traits: the proposed value normalised, or a
    TraitError saying what is allowed (the trait keeps its value)."""
    try:
        return check_option(proposal["trait"].name, proposal["value"])
    except ValueError as err:
        raise traitlets.TraitError(str(err)) from None


@dataclass(frozen=True)
class _InForce:
    """The options object registered for a shell (the shell kept: ids are reused after it is gone)."""

    shell: object
    settings: object


_registered: dict[int, _InForce] = {}     # by id(shell)


def register(shell: object, settings: object) -> None:
    """Make ``settings`` (the extension's Configurable: one attribute per option) the options in force
    in ``shell``."""
    _registered[id(shell)] = _InForce(shell, settings)


def unregister(shell: object) -> None:
    """Back to the defaults in ``shell``."""
    entry = _registered.get(id(shell))
    if entry is not None and entry.shell is shell:
        del _registered[id(shell)]


def current_options(shell: object = None) -> dict[str, Any]:
    """The options in force in ``shell`` (default: the running IPython): precision, rankdir, node_budget,
    color, color_scale and default_view; the defaults when the extension is not loaded there."""
    if shell is None:
        from IPython import get_ipython
        shell = get_ipython()
    entry = _registered.get(id(shell)) if shell is not None else None
    if entry is None or entry.shell is not shell:
        return {name: option.default for name, option in OPTIONS.items()}
    return {name: getattr(entry.settings, name) for name in OPTIONS}


def current_drawing_options(shell: object = None) -> dict[str, Any]:
    """The drawing options in force (``current_options`` without ``default_view``): what a new picture
    or widget starts with."""
    return {name: value for name, value in current_options(shell).items() if name in DRAWING_OPTIONS}
