"""The oracle for the backprop stepper: the engine's backward pass replayed one node at a time in Python (the
engine's order: reverse topological, ``input.grad += local * node.grad`` for each input in order), and the
stepper panel driven and read through its DOM hooks (``[data-role="stepper"]``, ``button[data-step]``,
``[data-role="step-index"]``, ``[data-role="step-detail"]``, ``.mgw-step-current``, ``data-reached``)."""

from __future__ import annotations

from dataclasses import dataclass

from micrograd_widget.core.tape import Tape

NOT_REACHED = "\u00b7"

# node -> {"text", "reached"} for every grad shown in the picture (outside the inspector).
_READ_GRADS = """root => {
  const out = {};
  for (const el of root.querySelectorAll('[data-node][data-field="grad"]')) {
    if (el.closest('[data-role="inspector"]')) continue;
    const text = el.textContent;  // "grad <x>": the number after the last space (js/host/svg-contract.md)
    out[el.getAttribute('data-node')] = {text: text.slice(text.lastIndexOf(' ') + 1),
                                         reached: el.getAttribute('data-reached')};
  }
  return out;
}"""


@dataclass(frozen=True)
class Step:
    """One step of the backward pass: ``node`` fires with its (final) grad ``upstream``; ``contributions``
    are (input, local derivative, local * upstream) in input order."""

    node: int
    upstream: float
    contributions: tuple[tuple[int, float, float], ...]


def engine_steps(tape: Tape, output: int | None = None) -> tuple[list[Step], list[dict[int, float]]]:
    """The backward pass of ``output`` (default the root) over the tape's current data, as the engine runs it:
    the steps, and the grads after 0, 1, ..., len(steps) steps ({node: grad}, only nodes reached so far)."""
    out = tape.root if output is None else output
    needed = {out}
    order = []
    for i in range(out, -1, -1):
        if i in needed and tape.ops[i] is not None:
            order.append(i)
            needed.update(tape.inputs[i])
    grad = {out: 1.0}
    states = [dict(grad)]
    steps = []
    data = tape.data
    for i in order:
        ins = tape.inputs[i]
        local = tape.ops[i].local_grad(data[ins[0]], data[ins[1]] if len(ins) == 2 else None, tape.k[i], data[i])
        g = grad[i]
        contributions = []
        for j, d in zip(ins, local):
            grad[j] = grad.get(j, 0.0) + d * g
            contributions.append((j, d, d * g))
        steps.append(Step(i, g, tuple(contributions)))
        states.append(dict(grad))
    return steps, states


class StepperDom:
    """The stepper of one widget view (a mgw_browser.dom.WidgetDom)."""

    def __init__(self, view) -> None:
        self.view = view
        self.root = view.root
        self.panel = view.root.locator('[data-role="stepper"]')

    def open(self) -> None:
        """Enter stepper mode with the toolbar button."""
        self.root.locator('button[data-role="step-mode"]').click()
        self.panel.wait_for(state="visible")

    def button(self, step: str):
        return self.panel.locator(f'button[data-step="{step}"]')

    def click(self, step: str) -> None:
        self.button(step).click()

    def index(self) -> tuple[int, int]:
        """(k, n) from the "k / n" counter."""
        k, n = self.panel.locator('[data-role="step-index"]').text_content().split("/")
        return int(k), int(n)

    def detail(self) -> str:
        return self.panel.locator('[data-role="step-detail"]').inner_text()

    def current(self) -> list[str]:
        """data-node of every value box marked as the node that fires now."""
        return self.root.evaluate(
            "r => [...r.querySelectorAll('.mgw-step-current[data-node]')].map(e => e.getAttribute('data-node'))")

    def grads(self) -> dict[str, dict[str, str | None]]:
        """node -> {'text': the grad shown, 'reached': its data-reached attribute (None outside stepper mode)}."""
        return self.root.evaluate(_READ_GRADS)
