"""The interactive offline demo page: ``python -m micrograd_widget.host.demo [out.html]``.

For people who only have a browser: the lecture's tanh neuron as a live widget in one HTML file
that opens with no kernel and no network, under a title and a few lines on what it shows and what to try.
"""

from __future__ import annotations

import sys
from pathlib import Path

from micrograd_widget.engine import Value
from micrograd_widget.host.export import save_html

__all__ = ["lecture_neuron", "neuron", "TITLE", "INTRO", "main"]

TITLE = "micrograd-widget: the lecture's neuron, live"
INTRO = (
    "The neuron from Andrej Karpathy's micrograd lecture, o = tanh(x1*w1 + x2*w2 + b). Each box shows a value "
    "(data) and its gradient (grad: how much o changes when that value changes), computed by backpropagation in "
    "this page, with no Python behind it.",
    "Try: drag the w1 slider below the picture: every data and grad follows. Towards w1 = 1 the tanh saturates "
    "(o near 1) and the grads fade to 0, the vanishing gradient.",
    "Try: Step through backprop shows the grads arriving one node at a time, from o back to the leaves; click a box "
    "to inspect it.",
    "In Jupyter, explore(o) draws this widget for any graph you build (see the examples/ notebooks).",
)


def lecture_neuron(w1: float = -3.0) -> dict[str, Value]:
    """The lecture's two-input neuron ``o = tanh(x1*w1 + x2*w2 + b)``, backpropagated, its nodes by label.

    With the default ``w1`` the bias makes ``o`` exactly 1/sqrt(2); another ``w1`` saturates or relaxes the tanh.
    """
    x1, x2 = Value(2.0, label="x1"), Value(0.0, label="x2")
    w1_, w2 = Value(w1, label="w1"), Value(1.0, label="w2")
    b = Value(6.8813735870195432, label="b")
    x1w1 = x1 * w1_
    x1w1.label = "x1*w1"
    x2w2 = x2 * w2
    x2w2.label = "x2*w2"
    x1w1x2w2 = x1w1 + x2w2
    x1w1x2w2.label = "x1*w1 + x2*w2"
    n = x1w1x2w2 + b
    n.label = "n"
    o = n.tanh()
    o.label = "o"
    o.backward()
    return {v.label: v for v in (x1, x2, w1_, w2, b, x1w1, x2w2, x1w1x2w2, n, o)}


def neuron() -> Value:
    """The demo page's graph: the lecture's neuron, its output ``o``."""
    return lecture_neuron()["o"]


def main(argv: list[str] | None = None) -> int:
    """Write the demo page to the path given (default: micrograd-widget-demo.html)."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) > 1 or (args and args[0] in ("-h", "--help")):
        print("usage: python -m micrograd_widget.host.demo [out.html]")
        return 0 if args and args[0] in ("-h", "--help") else 2
    path = Path(args[0] if args else "micrograd-widget-demo.html")
    save_html(neuron(), path, title=TITLE, intro=INTRO)
    print(f"wrote {path.resolve()} - open it in any browser (works offline, no kernel needed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
