"""A value box's hover tooltip (Graphviz's <a xlink:title>: label, node, data, grad in full) holds the numbers of now,
not those of the layout: after a slider moves, on screen as the pointer comes over the box and in the SVG file; while
stepping, the partial grad after k steps, or "grad not reached yet". The reference is Python's engine: the graph
rebuilt at the slider's value (repr of each number, as Python's DOT writes its tooltips), and its backward pass
replayed node by node."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest

from micrograd_widget.core.tape import Tape

from .mgw_browser.exports import SVG, download
from .mgw_browser.graphs import lecture_L
from .mgw_browser.steps import StepperDom, engine_steps

pytestmark = pytest.mark.browser

XLINK = "{http://www.w3.org/1999/xlink}"

# The tooltip of value box `key` on screen.
_TIP = """(r, key) => r.querySelector(`[data-role=graph] g[data-node="${key}"] a`)
  .getAttributeNS('http://www.w3.org/1999/xlink', 'title')"""


def _numbers(tip: str) -> list[str]:
    """A value box's tooltip's data and grad lines (its third and fourth)."""
    lines = tip.split("\n")
    assert len(lines) >= 4, f"not a value box's tooltip: {tip!r}"
    return lines[2:4]


def _file_tips(svg: bytes) -> dict[str, str]:
    """data-node -> its box's tooltip, from an exported SVG."""
    out = {}
    for g in ET.fromstring(svg).iter(f"{SVG}g"):
        key = g.get("data-node")
        anchor = next((el for el in g.iter(f"{SVG}a")), None)
        if key and "mgw-value" in (g.get("class") or "").split() and anchor is not None:
            out[key] = anchor.get(f"{XLINK}title")
    return out


def test_a_boxs_tooltip_follows_the_sliders_on_screen_and_in_the_svg_file(show, guarded):
    view = show(lecture_L()["L"])
    before = {key: view.root.evaluate(_TIP, key) for key in lecture_L()}
    x = view.move_slider("a", 0.8)
    nodes = lecture_L(a=x)
    assert nodes["a"].data != lecture_L()["a"].data, "the test needs the slider to change a"
    # The file first, with no box hovered: each is written before the picture is read whole.
    _, svg = download(guarded.page, view, "export-svg")
    in_file = _file_tips(svg)
    assert set(in_file) == set(nodes)
    for key, v in nodes.items():
        want = [f"data = {v.data!r}", f"grad = {v.grad!r}"]
        assert _numbers(in_file[key]) == want, f"{key} in the SVG file"
        assert in_file[key].split("\n")[:2] == before[key].split("\n")[:2], f"{key}: its label and node lines changed"
    x = view.move_slider("a", 0.2)
    nodes = lecture_L(a=x)
    for key, v in nodes.items():
        view.root.locator(f'[data-role="graph"] g[data-node="{key}"]').hover()
        assert _numbers(view.root.evaluate(_TIP, key)) == [f"data = {v.data!r}", f"grad = {v.grad!r}"], key


def test_while_stepping_a_boxs_tooltip_gives_the_partial_grad_or_says_it_is_not_reached(show, guarded):
    nodes = lecture_L()
    view = show(nodes["L"])
    tape = Tape.from_value(nodes["L"])
    steps, states = engine_steps(tape)
    stepper = StepperDom(view)
    stepper.open()
    k = 2
    while stepper.index()[0] < k:
        stepper.click("forward")
    assert stepper.index() == (k, len(steps))
    reached = states[k]
    assert 0 < len(reached) < len(nodes), "the test needs nodes both reached and not reached"
    _, svg = download(guarded.page, view, "export-svg")
    in_file = _file_tips(svg)
    for key, v in nodes.items():
        i = tape.index(v)
        grad = f"grad = {reached[i]!r}" if i in reached else "grad not reached yet"
        assert _numbers(in_file[key]) == [f"data = {v.data!r}", grad], f"{key} after {k} steps, in the SVG file"
        view.root.locator(f'[data-role="graph"] g[data-node="{key}"]').hover()
        assert _numbers(view.root.evaluate(_TIP, key)) == [f"data = {v.data!r}", grad], f"{key} after {k} steps"
