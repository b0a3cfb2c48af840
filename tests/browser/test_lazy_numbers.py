"""Numbers of boxes out of the graph box's sight are written lazily (js/graph/visible.js): right after a slider
move they may still show the old numbers (the graph says data-numbers="pending"); they converge to exactly what
Python's engine computes, a box shows its current numbers as soon as it gets focus, and an export right after a
move carries every current number."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from micrograd_widget.core.tape import Tape
from micrograd_widget.engine import Value
from micrograd_widget.picture.dot import graph_view
from micrograd_widget.picture.text import format_number

from .mgw_browser.dom import WidgetDom, expected_numbers, poll
from .mgw_browser.exports import svg_numbers
from .mgw_browser.graphs import labelled_chain

pytestmark = pytest.mark.browser

LENGTH = 40


def chain(a: float = 0.5) -> dict[str, Value]:
    """The long labelled chain, most of its boxes out of sight at 100%."""
    return labelled_chain(LENGTH, a)


# Move slider `leaf` to its max as a user would, wait two frames; then: the graph's data-numbers and, for every
# number shown out of the graph box's sight, whether it is still the text it showed before the move; with
# `click`, then click that button (in the same task: nothing written in between).
_MOVE_AND_LOOK = """async (r, [leaf, click]) => {
  const graph = r.querySelector('[data-role=graph]');
  const spans = [...graph.querySelectorAll('text[data-field]')];
  const before = spans.map(s => s.textContent);
  const number = t => t.textContent.slice(t.textContent.lastIndexOf(' ') + 1);  // "data <x>" -> "<x>"
  const slider = r.querySelector(`input[type=range][data-leaf="${leaf}"]`);
  slider.value = slider.max;
  slider.dispatchEvent(new Event('input', {bubbles: true}));
  for (let k = 0; k < 2; k++) await new Promise(ok => requestAnimationFrame(() => setTimeout(ok, 0)));
  const box = graph.getBoundingClientRect();
  const far = b => b.right < box.left - 200 || b.left > box.right + 200 || b.bottom < box.top - 200
    || b.top > box.bottom + 200;
  const hidden = spans.filter(s => far(s.getBoundingClientRect()));
  const state = graph.getAttribute('data-numbers');
  if (click) r.querySelector(`button[data-action="${click}"]`).click();
  const output = [...graph.querySelectorAll('g[data-node="n40"] text[data-field]')].map(number);
  return {output, state, hidden: hidden.length, all: spans.length,
          stale: hidden.filter(s => s.textContent === before[spans.indexOf(s)]).length, max: Number(slider.max)};
}"""


def moved(view: WidgetDom, click: str = "") -> tuple[dict, dict[str, Value]]:
    """Move a's slider to its max (then click button `click`); what the page showed two frames later, and the
    engine's nodes at that value."""
    look = view.root.evaluate(_MOVE_AND_LOOK, ["a", click])
    assert look["hidden"] > look["all"] // 2, f"the test needs most boxes out of sight: {look}"
    assert look["state"] == "pending" and look["stale"] > 0, f"nothing was left for later: {look}"
    return look, chain(look["max"])


def test_numbers_out_of_sight_converge_to_the_engines(show, guarded):
    view = show(chain()["n40"])
    look, nodes = moved(view)
    # the output's box is written in the frame even out of sight: the number the widget is about
    assert look["output"] == [format_number(nodes["n40"].data, 4), format_number(nodes["n40"].grad, 4)]
    poll(lambda: view.root.locator("[data-role=graph]").get_attribute("data-numbers"), lambda s: s == "current",
         "data-numbers='current' after the move")
    assert view.mismatches(expected_numbers(nodes)) == []
    shown = view.numbers()
    assert sorted(shown) == sorted(nodes), "every node is drawn as its own box"


def test_a_focused_box_shows_its_current_numbers_at_once(show, guarded):
    view = show(chain()["n40"])
    _, nodes = moved(view)
    shown = view.root.evaluate("""r => {
      const graph = r.querySelector('[data-role=graph]');
      const g = graph.querySelector('g[data-node="n38"]');
      g.focus({preventScroll: true});  // out of sight: the observer has not seen it come in
      const numbers = [...g.querySelectorAll('text[data-field]')]
        .map(s => [s.getAttribute('data-field'), s.textContent.slice(s.textContent.lastIndexOf(' ') + 1)]);
      return {numbers,
              fill: g.querySelector('polygon, path').getAttribute('fill')};
    }""")
    want = {"data": format_number(nodes["n38"].data, 4), "grad": format_number(nodes["n38"].grad, 4)}
    assert dict(shown["numbers"]) == want
    # its colour too: what Python's picture of the same numbers fills it with (every node drawn, same scale)
    tape = Tape.from_value(nodes["n40"])
    line = next(s for s in graph_view(tape).dot.splitlines() if s.startswith(f"\tn{tape.labels.index('n38')} ["))
    assert shown["fill"] == re.search(r'fillcolor="(#[0-9a-f]{6})"', line).group(1), line


def test_an_export_right_after_a_move_holds_every_current_number(show, guarded):
    view = show(chain()["n40"])
    with guarded.page.expect_download() as info:
        _, nodes = moved(view, click="export-svg")
    shown = svg_numbers(Path(info.value.path()).read_bytes())
    for label, v in nodes.items():
        assert shown[label] == {"data": format_number(v.data, 4), "grad": format_number(v.grad, 4)}, label
