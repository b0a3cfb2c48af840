"""The training view's static picture: the loss curve above the model's boxes with their grad norms, one SVG.

What a saved notebook, nbconvert, GitHub or nbviewer show in place of the live view (``TrainingWidget``'s
``image/svg+xml``). The curve is drawn here (a polyline over the same points js/training/widget.js draws: the
``curve`` trait's); the model picture is ``model_picture.model_dot`` laid out by the kernel's ``dot`` and
nested below it. Without ``dot`` the curve stands alone with a one-line hint. Every text is escaped.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any
from xml.sax.saxutils import escape as _xml_escape

import graphviz

from micrograd_widget.core.spec import decode_number
from micrograd_widget.picture.layout import in_browser
from micrograd_widget.picture.text import format_number, plural

__all__ = ["training_svg", "curve_svg"]

WIDTH, HEIGHT = 560.0, 170.0           # the curve's box, in points
_LEFT, _RIGHT, _TOP, _BOTTOM = 64.0, 12.0, 26.0, 24.0
_FONT = 'font-family="Helvetica,sans-Serif" font-size="11"'
_NO_DOT = "Graphviz's dot was not found: install it (apt-get/brew/conda install graphviz) to see the model here."
# In a browser's Python (Pyodide) dot cannot run at all: the live view draws the model.
_NO_DOT_IN_BROWSER = "This Python runs in your browser, where Graphviz's dot cannot run: the live view shows the model."


def _number(x: Any) -> float:
    """A curve number as a float (non-finite ones travel as spec.encode_number's strings)."""
    return decode_number(x) if isinstance(x, str) else float(x)


def _text(x: float, y: float, words: str, anchor: str = "start", extra: str = "") -> str:
    return f'<text x="{x:.1f}" y="{y:.1f}" text-anchor="{anchor}" {_FONT}{extra}>{_xml_escape(words)}</text>'


def curve_svg(curve: dict[str, Any], precision: int = 4, log_scale: bool = False, finished: bool = False) -> str:
    """The loss curve as SVG elements (no ``<svg>`` wrapper) filling ``WIDTH`` x ``HEIGHT``: the drawn points
    joined where finite (a gap at each non-finite loss), the axes' ranges and the last step's loss."""
    steps: Sequence[int] = curve.get("steps") or []
    losses = [_number(x) for x in curve.get("losses") or []]
    count = int(curve.get("count") or 0)
    parts = [f'<rect x="0" y="0" width="{WIDTH:.0f}" height="{HEIGHT:.0f}" fill="white"/>']
    if not count:
        parts.append(_text(8, 16, "loss: no steps logged yet"))
        return "".join(parts)
    last = _number(curve.get("loss"))
    state = "finished" if finished else "running"
    logged = plural(count, "step")
    title = f"loss {format_number(last, precision)} at step {curve.get('step')} ({logged} logged, {state})"
    nonfinite = int(curve.get("nonfinite") or 0)
    if nonfinite:
        title += f"; {nonfinite:,} non-finite"
    parts.append(_text(8, 16, title))
    use_log = log_scale and all(x > 0 for x in losses if math.isfinite(x))

    def scaled(x: float) -> float:
        return math.log10(x) if use_log else x

    finite = [(s, scaled(x)) for s, x in zip(steps, losses) if math.isfinite(x)]
    if not finite:
        return "".join(parts)
    s0, s1 = steps[0], steps[-1]
    lo, hi = min(y for _, y in finite), max(y for _, y in finite)
    if hi == lo:
        lo, hi = lo - 0.5, hi + 0.5
    w, h = WIDTH - _LEFT - _RIGHT, HEIGHT - _TOP - _BOTTOM

    def px(s: float) -> float:
        return _LEFT + (w * (s - s0) / (s1 - s0) if s1 != s0 else w / 2)

    def py(y: float) -> float:
        return _TOP + h * (hi - y) / (hi - lo)

    parts.append(f'<path d="M{_LEFT},{_TOP}V{_TOP + h}H{_LEFT + w}" fill="none" stroke="#888"/>')
    runs: list[list[str]] = [[]]
    for s, x in zip(steps, losses):
        if math.isfinite(x):
            runs[-1].append(f"{px(s):.1f},{py(scaled(x)):.1f}")
        elif runs[-1]:
            runs.append([])
    for run in runs:
        if len(run) > 1:
            parts.append(f'<polyline points="{" ".join(run)}" fill="none" stroke="#1f77b4" stroke-width="1.5"/>')
        elif run:
            cx, cy = run[0].split(",")
            parts.append(f'<circle cx="{cx}" cy="{cy}" r="2" fill="#1f77b4"/>')

    def axis_label(y: float) -> str:
        return format_number(10 ** y if use_log else y, precision)
    parts.append(_text(_LEFT - 4, _TOP + 4, axis_label(hi), "end"))
    parts.append(_text(_LEFT - 4, _TOP + h, axis_label(lo), "end"))
    parts.append(_text(_LEFT, HEIGHT - 6, f"step {s0}"))
    parts.append(_text(_LEFT + w, HEIGHT - 6, f"step {s1}", "end"))
    if use_log:
        parts.append(_text(_LEFT + w / 2, HEIGHT - 6, "log scale", "middle"))
    return "".join(parts)


_SIZE = re.compile(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"')


def training_svg(model_dot: str, curve: dict[str, Any], precision: int = 4, log_scale: bool = False,
                 finished: bool = False) -> str:
    """One SVG document: the loss curve on top, the model picture (``model_dot`` laid out by ``dot``) below,
    or the curve and a hint when ``dot`` is missing or fails."""
    body = curve_svg(curve, precision, log_scale, finished)
    browser = in_browser()
    try:
        if browser:  # no subprocess there
            raise graphviz.ExecutableNotFound(["dot"])
        picture: str = graphviz.Source(model_dot).pipe(format="svg", encoding="utf-8", quiet=True)
        size = _SIZE.search(picture)
    except (graphviz.ExecutableNotFound, graphviz.CalledProcessError, OSError):
        picture, size = "", None
    if size is None:
        width, height = WIDTH, HEIGHT + 20
        body += _text(8, HEIGHT + 14, _NO_DOT_IN_BROWSER if browser else _NO_DOT)
    else:
        mw, mh = float(size.group(1)), float(size.group(2))
        nested = picture[size.start():]
        nested = f'<svg x="0" y="{HEIGHT:.0f}" width="{mw}" height="{mh}"' + nested[size.end() - size.start():]
        width, height = max(WIDTH, mw), HEIGHT + mh
        body += nested
    return (f'<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" '
            f'width="{width:.0f}pt" height="{height:.0f}pt" viewBox="0 0 {width:.0f} {height:.0f}">{body}</svg>')
