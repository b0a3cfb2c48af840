"""colors.py: the grad colours, their two scales and the legend's words (their use in pictures: test_dot.py).
The expected fills are worked out by hand from the palette (#f0913a orange, #5b9bd5 blue): each channel is
255 + (c - 255) * t, rounded half to even."""

from __future__ import annotations

import math

import pytest

from micrograd_widget.picture.colors import (
    NEGATIVE_COLOR,
    NONFINITE_COLOR,
    POSITIVE_COLOR,
    ZERO_COLOR,
    ColorScale,
    grad_color,
    grad_scale,
    legend_marks,
    legend_words,
    shown_as_zero,
)


def test_grad_colour_scale() -> None:
    scale = ColorScale(5.0, 4)
    assert grad_color(0.0, scale) == ZERO_COLOR
    assert grad_color(5.0, scale) == POSITIVE_COLOR and grad_color(-5.0, scale) == NEGATIVE_COLOR
    assert grad_color(math.nan, scale) == NONFINITE_COLOR == grad_color(-math.inf, scale)
    assert grad_color(3.0, ColorScale(0.0, 4)) == ZERO_COLOR

    def whiteness(c: str) -> int:
        return sum(int(c[k:k + 2], 16) for k in (1, 3, 5))
    strengths = [whiteness(grad_color(g, ColorScale(4.0, 4))) for g in (0.01, 0.5, 1.0, 2.0, 4.0, 8.0)]
    assert strengths == sorted(strengths, reverse=True) and strengths[-1] == strengths[-2]
    pos, neg = grad_color(1.0, ColorScale(4.0, 4)), grad_color(-1.0, ColorScale(4.0, 4))
    assert int(pos[1:3], 16) > int(pos[5:7], 16) and int(neg[5:7], 16) > int(neg[1:3], 16)


def test_relative_scale_by_hand() -> None:
    # 1 on a scale of 4: t = sqrt(1/4) = 0.5; 240, 145, 58 -> 247.5, 200, 156.5 -> 248, 200, 156 (half to even).
    assert grad_color(1.0, ColorScale(4.0, 4)) == "#f8c89c"


@pytest.mark.parametrize(("x", "precision", "zero"), [
    (0.0, 4, True), (-0.0, 4, True), (1e-8, 4, True), (-0.00004, 4, True), (0.0000499, 4, True),
    (0.00005, 4, False),       # the float just above 5e-5: "0.0001"
    (0.0001, 4, False), (1e-8, 8, False), (1e-8, 7, True), (0.4, 0, True), (0.6, 0, False), (2.0, 0, False),
    (1e7, 4, False),
])
def test_shown_as_zero_is_what_the_digits_say(x: float, precision: int, zero: bool) -> None:
    assert shown_as_zero(x, precision) is zero


def test_a_grad_shown_as_zero_is_white_on_the_relative_scale() -> None:
    saturated = ColorScale(1e-8, 4)          # a saturated tanh: every grad but the output's ~1e-8
    assert grad_color(1e-8, saturated) == ZERO_COLOR == grad_color(-3e-9, saturated)
    assert grad_color(1.0, saturated) == POSITIVE_COLOR     # the output's own grad, 1.0000
    assert grad_color(1e-8, ColorScale(1e-8, 8)) == POSITIVE_COLOR     # 0.00000001: shown, so painted
    # 0.00004 on a scale of 0.0001 reads 0.0000 at 4 decimals: white, though sqrt(0.4) would tint it.
    assert grad_color(0.00004, ColorScale(0.0001, 4)) == ZERO_COLOR
    assert grad_color(0.00004, ColorScale(0.0001, 5)) != ZERO_COLOR


def test_log_scale_by_hand() -> None:
    log = ColorScale(1e-8, 4, log=True)
    assert log.top == 0                     # full colour at 1: the largest grad (1e-8) is below it
    # 1e-8 is 8 of 12 decades below 1: t = 1/3; 240, 145, 58 -> 250, 218.33, 189.33 -> fa da bd
    assert grad_color(1e-8, log) == "#fadabd"
    # blue 91, 155, 213 -> 200.33, 221.67, 241 -> c8 de f1
    assert grad_color(-1e-8, log) == "#c8def1"
    assert grad_color(1.0, log) == POSITIVE_COLOR and grad_color(-3.0, log) == NEGATIVE_COLOR
    assert grad_color(1e-12, log) == ZERO_COLOR == grad_color(1e-15, log) == grad_color(0.0, log)
    assert grad_color(math.nan, log) == NONFINITE_COLOR
    # Largest 5: full colour at 10; 5 is log10(2) = 0.30103 decades below: t = 0.974914;
    # 240.376, 147.760, 62.942 -> f0 94 3f.
    five = ColorScale(5.0, 4, log=True)
    assert five.top == 1 and grad_color(5.0, five) == "#f0943f"


@pytest.mark.parametrize(("largest", "top"), [(0.0, 0), (1e-8, 0), (1.0, 0), (1.0000001, 1), (10.0, 1), (10.5, 2),
                                              (1e300, 300)])
def test_log_scale_full_colour_is_at_one_or_the_power_of_ten_above_the_largest(largest: float, top: int) -> None:
    assert ColorScale(largest, 4, log=True).top == top


def test_legend_marks() -> None:
    assert [t for _, t in legend_marks(ColorScale(3.0, 4))] == ["-3.0000", "-0.7500", "0.0000", "0.7500", "3.0000"]
    log = ColorScale(0.2, 4, log=True)
    assert legend_marks(log) == [(-1.0, "-1"), (-1e-6, "-1e-6"), (0.0, "0"), (1e-6, "1e-6"), (1.0, "1")]
    assert grad_color(1e-6, log) == "#f8c89c"       # half way: t = 0.5, as the relative 1-of-4 above
    assert [t for _, t in legend_marks(ColorScale(20.0, 4, log=True))][3:] == ["1e-4", "100"]


def test_legend_words_say_when_the_swatches_would_show_nothing() -> None:
    assert legend_words(ColorScale(0.0, 4)) == legend_words(ColorScale(0.0, 4, log=True)) == "all gradients are 0"
    assert legend_words(ColorScale(1e-8, 4)) == (
        "every gradient but the output's own shows as 0.0000: the log colour scale tells them apart")
    assert legend_words(ColorScale(1e-8, 4, log=True)) is None       # the log scale shows them
    assert legend_words(ColorScale(1e-8, 9)) is None and legend_words(ColorScale(0.5, 4)) is None


def test_grad_scale_is_the_largest_finite_grad_else_the_outputs() -> None:
    assert grad_scale([], 1.0) == 1.0                    # only the output drawn
    assert grad_scale([0.0, -0.0, math.nan], -2.0) == 2.0    # no other grad: the output's
    assert grad_scale([0.0, math.inf], None) == 0.0
    assert grad_scale([0.25, -0.5, math.inf], 1.0) == 0.5
