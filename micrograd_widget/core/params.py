"""Which leaves are parameters (what a learner tunes and trains) and which are inputs and constants: ONE rule.

- the graph has leaves made by ``nn`` (a ``Neuron``'s weights and bias, marked by ``mark_parameters``): those;
- otherwise every labelled leaf (the lecture's ``a``, ``b``, ``c``, ``f``);
- a graph with no labelled leaf at all: every leaf (nothing tells them apart; the list would be empty);
- ``params=`` (a list of Values, ``model.parameters()`` or a Module) overrides the rule.

Unlabelled leaves made from Python numbers (data, targets, the ``2`` of ``2*n``, sum's ``0`` start, a ``1/100``
factor) are then inputs and constants. The widget's leaf list and its gradient check (js/graph/leaves.js,
js/graph/gradcheck-panel.js) show the parameters first and say which rule is in force (``LeafRoles.text``); the
learning controls reuse ``leaf_roles``.
"""

from __future__ import annotations

import weakref
from array import array
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from micrograd_widget.core.spec import to_buffer
from micrograd_widget.core.tape import Tape
from micrograd_widget.engine import Value
from micrograd_widget.picture.text import plural, short

__all__ = ["LeafRoles", "leaf_roles", "mark_parameters", "RULES"]

# The rules, as the trait and the view name them: made by nn, labelled, every leaf (none labelled), given.
RULES = ("nn", "labelled", "all", "given")

# The Values nn's neurons made as their weights and biases; weak, so a model that goes takes its marks along.
_NN_PARAMETERS: weakref.WeakSet[Value] = weakref.WeakSet()


def mark_parameters(values: Iterable[Value]) -> None:
    """Mark ``values`` as made by ``nn`` (a Neuron's weights and bias): the rule's first case finds them."""
    _NN_PARAMETERS.update(values)


@dataclass(frozen=True)
class LeafRoles:
    """The parameters of one tape: their positions in ``tape.leaves`` (increasing), the rule that chose them
    (one of ``RULES``) and the one line the leaf list shows above itself."""

    positions: tuple[int, ...]
    rule: str
    total: int

    @property
    def text(self) -> str:
        """The rule in force, in one line, e.g. 'Parameters: the weights and biases of nn's neurons (41 of 57
        leaves); the rest are inputs and constants.'"""
        count = len(self.positions)
        which = {
            "nn": "the weights and biases of nn's neurons",
            "labelled": "the labelled leaves",
            "all": "every leaf (none is labelled)",
            "given": "the Values given as params=",
        }[self.rule]
        rest = self.total - count
        others = "is an input or constant" if rest == 1 else "are inputs and constants"
        tail = "" if rest == 0 else f"; the other {rest:,} {others}"
        return f"Parameters: {which} ({count:,} of {plural(self.total, 'leaf')}){tail}."

    def trait(self) -> dict[str, Any]:
        """The widget's ``leaf_roles`` trait (js/host/spec-contract.md, "The leaf roles"): ``params``, an Int32 buffer
        of positions in ``spec.leaves``; ``rule``; ``text``, the line shown above the leaf list."""
        return {"rule": self.rule, "text": self.text, "params": to_buffer(array("i", self.positions))}


def leaf_roles(tape: Tape, params: Any = None) -> LeafRoles:
    """The parameters of ``tape`` by the rule (module docstring), or the leaves ``params`` names (a TypeError or
    ValueError saying what is wrong when one is no leaf of this graph)."""
    leaves = tape.leaves
    if params is not None:
        return LeafRoles(_given(tape, params), "given", len(leaves))
    values, labels = tape.values, tape.labels
    made_by_nn = tuple(j for j, i in enumerate(leaves) if values[i] in _NN_PARAMETERS) if _NN_PARAMETERS else ()
    if made_by_nn:
        return LeafRoles(made_by_nn, "nn", len(leaves))
    labelled = tuple(j for j, i in enumerate(leaves) if labels[i])
    if labelled:
        return LeafRoles(labelled, "labelled", len(leaves))
    return LeafRoles(tuple(range(len(leaves))), "all", len(leaves))


def _given(tape: Tape, params: Any) -> tuple[int, ...]:
    """The positions in ``tape.leaves`` of the Values ``params`` lists (a Module: its ``parameters()``)."""
    if callable(getattr(params, "parameters", None)) and not isinstance(params, Value):
        params = params.parameters()
    if isinstance(params, (Value, str, bytes)) or not isinstance(params, Iterable):
        raise TypeError(f"params= takes a list of Values (e.g. model.parameters()), got {type(params).__name__}: "
                        f"{short(params)}")
    position = {node: j for j, node in enumerate(tape.leaves)}
    chosen: set[int] = set()
    for value in params:
        if not isinstance(value, Value):
            raise TypeError(f"params= must hold Values (e.g. model.parameters()), got {type(value).__name__}: "
                            f"{short(value)}")
        try:
            node = tape.index(value)
        except KeyError:
            raise ValueError(f"params=: {short(value)} is not in this graph; pass Values the output was computed "
                             "from") from None
        if node not in position:
            raise ValueError(f"params=: {short(value)} is computed (by {tape.symbols[node] or 'an op'}), not a "
                             "leaf; parameters are leaves, such as a neuron's weights")
        chosen.add(position[node])
    return tuple(sorted(chosen))
