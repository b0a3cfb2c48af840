"""The grad colours: the palette, the colour scale's full strength (``grad_scale``) and a node's fill
(``grad_color``). dot.py's pictures, model_picture.py and the views' ``palette`` follow them; js/format.js
gradScale/gradColor are the same rules in the browser (js/format.test.js checks them against these).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

__all__ = ["grad_scale", "grad_color", "palette", "NEGATIVE_COLOR", "POSITIVE_COLOR", "ZERO_COLOR",
           "NONFINITE_COLOR", "FOLD_COLOR"]

# A colour-blind-safe diverging scale: blue for negative grads, white for zero, orange for positive.
# Fills stay light enough for black text at full strength.
NEGATIVE_COLOR = "#5b9bd5"
POSITIVE_COLOR = "#f0913a"
ZERO_COLOR = "#ffffff"
NONFINITE_COLOR = "#bdbdbd"
FOLD_COLOR = "#eeeeee"    # a closed fold box with colouring off (or nothing to colour it by)


def palette() -> dict[str, str]:
    """The palette as the views receive it (a new dict): the names js/format.js gradColor reads."""
    return {"negative": NEGATIVE_COLOR, "positive": POSITIVE_COLOR, "zero": ZERO_COLOR, "nonfinite": NONFINITE_COLOR}


def grad_scale(grads: Iterable[float], output: float | None = None) -> float:
    """The colour scale's full strength: the largest finite ``|grad|`` in ``grads``, the nodes drawn other
    than the differentiated output; ``|output|`` (that node's grad, None when it is not drawn) only when no
    other grad is finite and non-zero, since d out / d out = 1 would wash out every other colour. 0.0 when
    there is none."""
    scale = max((abs(g) for g in grads if math.isfinite(g)), default=0.0)
    if scale == 0 and output is not None and math.isfinite(output):
        return abs(output)
    return scale


def grad_color(grad: float, scale: float) -> str:
    """A node's fill: white at 0, towards ``POSITIVE_COLOR`` (orange) or ``NEGATIVE_COLOR`` (blue) by
    ``t = min(1, sqrt(|grad| / scale))`` per RGB channel, rounded; grey for nan/inf grads.

    The square root keeps small gradients visible next to a large one; a grad beyond ``scale`` (the
    differentiated output's, which ``grad_scale`` leaves out) gets the strongest colour.
    """
    if not math.isfinite(grad):
        return NONFINITE_COLOR
    if grad == 0 or not scale > 0:
        return ZERO_COLOR
    t = min(1.0, math.sqrt(abs(grad) / scale))
    end = NEGATIVE_COLOR if grad < 0 else POSITIVE_COLOR
    rgb = (int(end[k:k + 2], 16) for k in (1, 3, 5))
    return "#" + "".join(f"{round(255 + (c - 255) * t):02x}" for c in rgb)

