"""Several front ends (browser tabs) on one widget: what the kernel tells them all after one sent an update, and
what each had after its own last change of the leaves (for the write rule, writes.merge_leaves).

After a front end's update every front end hears what the kernel now has for each trait sent: ipywidgets 8's
echo (``echo_update``, unless ``JUPYTER_WIDGETS_ECHO`` is off), which the sender takes as the confirmation of its
change and the others as the new value, and an ``update`` for each value the sender still has wrong (refused,
reordered, trimmed, 0.0 for -0.0), for front ends that ignore echoes too. The echo carries the kernel's value, not
the one sent, so a refused or normalised value reaches no other front end. widget.py owns the traits.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from ipywidgets import Widget
from ipywidgets.widgets import widget as _ipywidget

from micrograd_widget.graph.writes import same_state

__all__ = ["answer_update", "LastChanges"]

FRONT_ENDS_KEPT = 8  # the front ends (sessions) whose last change is remembered; a reloaded tab is a new one


def answer_update(widget: Widget, front_end: dict[str, Any]) -> None:
    """Tell every front end what ``widget`` now has for the traits one just sent (``front_end``: what that front
    end has for them, kept up to date as the kernel sent them back)."""
    state = widget.get_state([name for name in front_end if name in widget.keys])
    echo = {name: value for name, value in state.items() if widget.trait_metadata(name, "echo_update", True)}
    if _ipywidget.JUPYTER_WIDGETS_ECHO and echo:
        widget._send({"method": "echo_update", "state": echo, "buffer_paths": []})  # these traits hold no buffers
    stale = [name for name, value in state.items() if not same_state(front_end[name], value)]
    if stale:
        widget.send_state(stale)


class LastChanges:
    """Per front end (its session id), the leaf values it had once the kernel answered its last change of them.

    ipywidgets' front end drops another's echo of a trait while its own change of it is on the way, so a tab that
    moves a slider just as another tab's change arrives sends that other leaf as it had it: equal to what it had
    after its own last change, not a change of its own."""

    def __init__(self) -> None:
        self._had: OrderedDict[str, list[float]] = OrderedDict()

    def had(self, session: str | None) -> list[float] | None:
        """What front end ``session`` had after its last change of the leaves (None: unknown)."""
        return None if session is None else self._had.get(session)

    def remember(self, session: str | None, leaves: list[float]) -> None:
        """``session`` has ``leaves`` now (the kernel's answer to its change); the oldest front end is forgotten."""
        if session is None:
            return
        self._had[session] = list(leaves)
        self._had.move_to_end(session)
        while len(self._had) > FRONT_ENDS_KEPT:
            self._had.popitem(last=False)

    def clear(self) -> None:
        """Forget every front end (the widget is closed)."""
        self._had.clear()
