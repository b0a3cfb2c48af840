"""The grad colours: the palette, the colour scale's full strength (``grad_scale``), the two colour scales
(``ColorScale``: "relative" and "log") and a node's fill (``grad_color``), with the legend the scale writes
(``legend_marks``, ``legend_words``). dot.py's pictures, model_picture.py and the views' ``palette`` follow them;
js/picture/format.js gradScale/colorScale/gradColor/legendMarks/legendWords are the same rules in the browser
(tests/vectors/ colors.json holds both to the same fills and words).

Two rules keep the colours honest. A grad shown as 0 at the picture's ``precision`` is painted as 0 (white) on the
relative scale: a box reading ``grad 0.0000`` is never orange. And the "log" scale tints by powers of ten, so grads
too small for the digits (a saturated tanh's 1e-8) still show, fading to white ``LOG_DECADES`` powers of ten below
full colour. Its full colour is at 1 (what d out / d out is, so the vanishing is measured against the output itself,
not against the largest vanishing grad) or, when a grad is larger, at the next power of ten up.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from micrograd_widget.picture.text import format_number

__all__ = ["grad_scale", "grad_color", "palette", "ColorScale", "shown_as_zero", "legend_marks", "legend_words",
           "scale_title", "LOG_DECADES",
           "NEGATIVE_COLOR", "POSITIVE_COLOR", "ZERO_COLOR", "NONFINITE_COLOR", "FOLD_COLOR"]

# A colour-blind-safe diverging scale: blue for negative grads, white for zero, orange for positive.
# Fills stay light enough for black text at full strength.
NEGATIVE_COLOR = "#5b9bd5"
POSITIVE_COLOR = "#f0913a"
ZERO_COLOR = "#ffffff"
NONFINITE_COLOR = "#bdbdbd"
FOLD_COLOR = "#eeeeee"    # a closed fold box with colouring off (or nothing to colour it by)
LOG_DECADES = 12        # the log scale's span: float64 noise (~1e-16 of 1) stays white, a 1e-8 grad is a third tinted


def palette() -> dict[str, str]:
    """The palette as the views receive it (a new dict): the names js/picture/format.js gradColor reads."""
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


def shown_as_zero(x: float, precision: int) -> bool:
    """Whether ``x`` reads as 0 with ``precision`` decimals (``0.0000``, ``-0.0000``): the text decides, so Python
    and the browser (whose formatFixed is Python's f-string) agree at every tie."""
    return abs(x) < 1 and float(f"{x:.{precision}f}") == 0


def _power_of_ten(k: int) -> float:
    """10 ** k as the literal ``1e<k>`` reads (exact in both languages, unlike a computed power)."""
    return float(f"1e{k}")


@dataclass(frozen=True)
class ColorScale:
    """How a picture's grads become fills: ``largest`` is its ``grad_scale``; ``precision`` the decimals it shows
    (on the relative scale a grad shown as 0 is white); ``log`` picks the log scale, whose full colour is at ``top``
    (1, or the power of ten at or above ``largest``)."""

    largest: float
    precision: int
    log: bool = False
    top: int = field(init=False)        # the log scale's full colour is at 10 ** top

    def __post_init__(self) -> None:
        k = 0
        while _power_of_ten(k) < self.largest:
            k += 1
        object.__setattr__(self, "top", k)

    def strength(self, grad: float) -> float:
        """How far from white ``grad``'s fill is, 0 to 1 (finite grads): relative, ``sqrt(|grad| / largest)``,
        capped at 1 (the output's grad may exceed it), 0 when shown as 0; log, ``1 + log10(|grad| / 10**top) /
        LOG_DECADES``, kept within 0 to 1."""
        a = abs(grad)
        if a == 0:
            return 0.0
        if self.log:
            return min(1.0, max(0.0, 1 + (math.log10(a) - self.top) / LOG_DECADES))
        if not self.largest > 0 or shown_as_zero(grad, self.precision):
            return 0.0
        return min(1.0, math.sqrt(a / self.largest))


def grad_color(grad: float, scale: ColorScale) -> str:
    """A node's fill: white at 0, towards ``POSITIVE_COLOR`` (orange) or ``NEGATIVE_COLOR`` (blue) by ``t =
    scale.strength(grad)`` per RGB channel, rounded; grey for nan/inf grads. The relative scale's square root
    keeps small gradients visible next to a large one."""
    if not math.isfinite(grad):
        return NONFINITE_COLOR
    t = scale.strength(grad)
    if t == 0:
        return ZERO_COLOR
    end = NEGATIVE_COLOR if grad < 0 else POSITIVE_COLOR
    rgb = (int(end[k:k + 2], 16) for k in (1, 3, 5))
    return "#" + "".join(f"{round(255 + (c - 255) * t):02x}" for c in rgb)


def _decade(k: int) -> str:
    """10 ** k as a learner reads it: 1, 10, 100, else 1e-6, 1e3."""
    return str(10 ** k) if 0 <= k < 3 else f"1e{k}"


def legend_marks(scale: ColorScale) -> list[tuple[float, str]]:
    """The legend's five swatches, (grad, its text): relative, -largest, -largest/4, 0, +largest/4, +largest at the
    precision; log, -10**top, -10**(top - half the decades), 0 and the same positive, as powers of ten."""
    if scale.log:
        mid = scale.top - LOG_DECADES // 2
        big, small = _power_of_ten(scale.top), _power_of_ten(mid)
        return [(-big, "-" + _decade(scale.top)), (-small, "-" + _decade(mid)), (0.0, "0"),
                (small, _decade(mid)), (big, _decade(scale.top))]
    s = scale.largest
    return [(v, format_number(v, scale.precision)) for v in (0.0 - s, 0.0 - s / 4, 0.0, s / 4, s)]


def legend_words(scale: ColorScale) -> str | None:
    """What the legend says instead of swatches when they would show nothing: every grad drawn is 0, or (relative
    scale) every one but the output's own shows as 0 at the precision; None when the swatches say it."""
    if scale.largest == 0:
        return "all gradients are 0"
    if not scale.log and shown_as_zero(scale.largest, scale.precision):
        zero = f"{0:.{scale.precision}f}"
        return f"every gradient but the output's own shows as {zero}: the log colour scale tells them apart"
    return None


def scale_title(scale: ColorScale) -> str:
    """The legend's first cell: which scale is in force."""
    return "grad, log scale" if scale.log else "grad"
