"""colors.py: the grad colours and their scale (their use in pictures: test_dot.py)."""

from __future__ import annotations

import math

from micrograd_widget.colors import NEGATIVE_COLOR, NONFINITE_COLOR, POSITIVE_COLOR, ZERO_COLOR, grad_color, grad_scale


def test_grad_colour_scale() -> None:
    assert grad_color(0.0, 5.0) == ZERO_COLOR
    assert grad_color(5.0, 5.0) == POSITIVE_COLOR and grad_color(-5.0, 5.0) == NEGATIVE_COLOR
    assert grad_color(math.nan, 1.0) == NONFINITE_COLOR == grad_color(-math.inf, 1.0)
    assert grad_color(3.0, 0.0) == ZERO_COLOR

    def whiteness(c: str) -> int:
        return sum(int(c[k:k + 2], 16) for k in (1, 3, 5))
    strengths = [whiteness(grad_color(g, 4.0)) for g in (0.01, 0.5, 1.0, 2.0, 4.0, 8.0)]
    assert strengths == sorted(strengths, reverse=True) and strengths[-1] == strengths[-2]
    pos, neg = grad_color(1.0, 4.0), grad_color(-1.0, 4.0)
    assert int(pos[1:3], 16) > int(pos[5:7], 16) and int(neg[5:7], 16) > int(neg[1:3], 16)


def test_grad_scale_is_the_largest_finite_grad_else_the_outputs() -> None:
    assert grad_scale([], 1.0) == 1.0                    # only the output drawn
    assert grad_scale([0.0, -0.0, math.nan], -2.0) == 2.0    # no other grad: the output's
    assert grad_scale([0.0, math.inf], None) == 0.0
    assert grad_scale([0.25, -0.5, math.inf], 1.0) == 0.5
