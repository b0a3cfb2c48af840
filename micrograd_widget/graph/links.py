"""Linked widgets: every live GraphWidget on one graph follows a change of its leaves written by another.

A change written into the Values by one widget (a slider drag by the write rule, ``set_leaf``, ``refresh``) is
told to every other live widget (``tell_others``); each re-reads its own leaves from the Values and, if they
moved, replays its own tape and updates its view once: no ``refresh()`` needed, and a widget on another graph
does nothing. A follower's update is never told on (one write, each other widget updated once: no echo loop).

The set of live widgets is weak (``weakref.WeakSet``): widgets do not keep each other alive, and ``close()``
takes a widget out (``leave``). widget.py owns the widgets and what following does (``GraphWidget._follow``).
"""

from __future__ import annotations

import weakref
from typing import Protocol

__all__ = ["Follower", "join", "leave", "tell_others", "live"]


class Follower(Protocol):
    """What a linked widget offers: bring its view in line with the Values after another widget wrote them."""

    def _follow(self) -> None: ...


_live: weakref.WeakSet[Follower] = weakref.WeakSet()
_telling = False    # inside tell_others: a follower's own writes are not told on


def join(widget: Follower) -> None:
    """``widget`` follows the others' changes, and they its, from now until it leaves (or is collected)."""
    _live.add(widget)


def leave(widget: Follower) -> None:
    """``widget`` (closing) no longer follows nor is followed."""
    _live.discard(widget)


def live() -> list[Follower]:
    """The widgets linked now (for tests and for close-time checks)."""
    return list(_live)


def tell_others(writer: Follower) -> None:
    """``writer`` wrote new leaf values into the Values: every other live widget follows, once each. A follower
    that raises (a user's op, an interrupt) stops the telling; the writer's change stands."""
    global _telling
    if _telling:
        return
    _telling = True
    try:
        for widget in list(_live):   # a copy: a follower may close a widget, the collector may drop one
            if widget is not writer:
                widget._follow()
    finally:
        _telling = False
