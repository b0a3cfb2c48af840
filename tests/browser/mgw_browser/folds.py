"""What the folding tests read from a drawn picture and do to it: the view key of a node, the nodes and boxes drawn
once the layout settles, the open set the view saved, a box opened through its inspector."""

from __future__ import annotations

from micrograd_widget.core.tape import Tape

from .dom import WidgetDom, poll


def key_of(tape: Tape, i: int) -> str:
    """The view's key of node i (data-leaf / data-node): its label when no other node has it, else its id."""
    label = tape.labels[i]
    return label if label and tape.labels.count(label) == 1 else str(i)


NEURON = "layers.0.neurons.3"


_READ_DRAWN = """r => ({
  nodes: [...r.querySelectorAll('[data-role="graph"] g.node.mgw-value')].map(g => Number(g.id.slice(1))),
  boxes: [...r.querySelectorAll('[data-role="graph"] g.node.mgw-fold')].map(g => g.getAttribute('data-fold')),
  clusters: [...r.querySelectorAll('[data-role="graph"] g.mgw-cluster')].map(g => g.getAttribute('data-fold')),
  busy: r.querySelector('[data-role="graph"]').hasAttribute('aria-busy'),
})"""


def drawn(view: WidgetDom, settle: bool = True) -> dict:
    """The value nodes (tape ids), closed boxes and opened boxes (keys) drawn now, once no layout is pending."""
    return poll(lambda: view.root.evaluate(_READ_DRAWN), lambda d: not d["busy"], "a settled picture") if settle \
        else view.root.evaluate(_READ_DRAWN)


def expect_tape_numbers(view: WidgetDom, tape: Tape, nodes) -> None:
    """Every node in ``nodes`` shows the tape's data and grad (rounded to the shown digits)."""
    view.expect_numbers({key_of(tape, i): {"data": tape.data[i], "grad": tape.grad[i]} for i in nodes})


def saved_open(page) -> list:
    """The last `opened` the view saved to the model (save_changes), or None."""
    saves = [s for s in page.evaluate("() => window.__mgw.log.save") if "opened" in s]
    return saves[-1]["opened"] if saves else None


def open_box(view: WidgetDom, key: str) -> dict:
    """Click the closed box `key`, press Expand in its inspector; return the picture drawn then."""
    before = drawn(view)
    view.root.locator(f'[data-role="graph"] g.mgw-fold[data-fold="{key}"]').click()
    view.root.locator(f'[data-role="inspector"][data-fold="{key}"] [data-action="expand"]').click()
    return poll(lambda: drawn(view, settle=False), lambda d: key in d["clusters"] and not d["busy"] and d != before,
                f"box {key} opened")
