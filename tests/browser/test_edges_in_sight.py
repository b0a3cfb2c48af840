"""A large picture's edges go in as they come near sight (issue 22, js/graph/pending-edges.js): the page parses, styles
and lays out a new picture without the edges out of sight, and every edge in sight is there, drawn, as the graph is
scrolled through or jumps (those near sight follow when the page is idle); an export holds every edge of Python's
DOT; a traced path marks every edge on it, those far out of sight included. The picture: a chain of 2,000 boxes at
node_budget=2000 (3,998 edges, drawn edges first as every large picture is) in the exported page."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import builders
import pytest

from micrograd_widget.core.tape import Tape
from micrograd_widget.graph.widget import GraphWidget
from micrograd_widget.host.export import save_html
from micrograd_widget.picture.dot import graph_view

from .mgw_browser.dom import SCROLL_THROUGH, WidgetDom, poll
from .mgw_browser.exports import SVG, download

pytestmark = pytest.mark.browser

BOXES = 2000

# The edges in the page's SVG, those drawn (not culled, displayed), the value boxes in the graph box's sight, and the
# edges in sight not drawn: the edge into value box n from its op (op_n) is in sight when the line between the two
# boxes' facing sides (the chain runs left to right) meets the view. One whose line is out of sight may wait.
_EDGES = """r => {
  const graph = r.querySelector('[data-role=graph]');
  const b = graph.getBoundingClientRect();
  const v = {left: b.left + graph.clientLeft, top: b.top + graph.clientTop};
  v.right = v.left + graph.clientWidth; v.bottom = v.top + graph.clientHeight;
  const meets = q => q.right >= v.left && q.left <= v.right && q.bottom >= v.top && q.top <= v.bottom;
  const edges = [...graph.querySelectorAll('svg g.edge')];
  const drawn = new Set(edges.filter(g => getComputedStyle(g).display !== 'none'
    && !g.classList.contains('mgw-culled')).map(g => g.id));
  const values = [...graph.querySelectorAll('svg g.node.mgw-value')];
  const inSight = values.filter(g => meets(g.getBoundingClientRect())).map(g => g.id);
  const lineInSight = g => {
    const op = graph.querySelector(`svg g.node[id="op_${g.id}"]`);
    if (!op) return false;
    const a = op.getBoundingClientRect(), q = g.getBoundingClientRect();
    const ya = (a.top + a.bottom) / 2, yq = (q.top + q.bottom) / 2;
    return meets({left: a.right, right: q.left, top: Math.min(ya, yq), bottom: Math.max(ya, yq)});
  };
  return {inPicture: edges.length, drawn: drawn.size, inSight,
          missing: values.filter(g => g.id !== 'n0' && lineInSight(g) && !drawn.has(`e_${g.id}_op_${g.id}`))
            .map(g => g.id)};
}"""

# Scroll the graph box from where it is to box `to` in `steps` frames, looking at the edges (_EDGES) at each.
_SCROLL = """async (r, [to, steps, look]) => {
  const graph = r.querySelector('[data-role=graph]');
  return (""" + SCROLL_THROUGH + """)(graph, graph.querySelector(`g#${to}`), steps, eval(look), r);
}"""


@pytest.fixture
def chain_page(tmp_path, guarded, widget_bundle):
    """The exported page of a 2,000-box tanh chain at node_budget=2000 (file://, no kernel), its tape and the edge ids
    of Python's DOT of the same picture."""
    root = builders.tanh_chain(BOXES)
    tape = Tape.from_value(root)
    python = graph_view(tape, node_budget=BOXES)
    assert len(python.shown) == BOXES and not python.folds, "the whole chain is drawn"
    edges = re.findall(r"\[id=(e_\w+)\]", python.dot)
    assert "outputorder=edgesfirst" in python.dot and len(edges) == 2 * BOXES - 2, "a large picture, drawn edges first"
    page = save_html(GraphWidget(root, node_budget=BOXES), tmp_path / "chain.html")
    guarded.page.goto(page.as_uri())
    view = WidgetDom(guarded.page)
    view.wait_ready(90)
    return view, tape, edges


def test_a_large_pictures_edges_out_of_sight_wait_and_every_box_in_sight_has_its_edge_as_it_scrolls(chain_page,
                                                                                                   guarded):
    view, _, edges = chain_page
    first = view.root.evaluate(_EDGES)
    assert first["inSight"], "some boxes are in sight"
    assert not first["missing"], f"edges in sight not drawn, into: {first['missing'][:10]}"
    assert first["inPicture"] < len(edges) / 4, f"{first['inPicture']} of {len(edges)} edges parsed at once"
    ends = [g for g in ("n0", f"n{BOXES - 1}") if g not in first["inSight"]]
    for to in [*ends, "n1000"]:
        for k, seen in enumerate(view.root.evaluate(_SCROLL, [to, 12, _EDGES])):
            assert seen["inSight"], f"scrolling to {to}, step {k}: nothing in sight"
            assert not seen["missing"], f"to {to}, step {k}: edges in sight not drawn, into {seen['missing'][:10]}"
    assert not guarded.log.console_errors and not guarded.log.page_errors, guarded.log.describe()


def test_a_long_jump_puts_in_the_edges_in_sight_in_its_frame_and_those_near_it_once_the_page_is_idle(chain_page,
                                                                                                      guarded):
    """A jump (here the graph box scrolled to the chain's middle in one frame, as a focus, a search or a click on the
    map does) parses in its frame only the edges in sight; those near sight follow while the page is idle."""
    view, _, edges = chain_page
    count = "r => r.querySelectorAll('[data-role=graph] svg g.edge').length"
    before = view.root.evaluate(count)
    [jumped] = view.root.evaluate(_SCROLL, ["n1000", 1, _EDGES])
    assert jumped["inSight"] and not jumped["missing"], f"edges in sight not drawn, into: {jumped['missing'][:10]}"
    assert jumped["inPicture"] > before, "the jump brought edges in"
    seen: list[int] = []

    def settled(k: int) -> bool:  # more than the jump's frame put in, unchanged over the last 5 reads (0.2 s apart)
        seen.append(k)
        return k > jumped["inPicture"] and len(seen) >= 5 and len(set(seen[-5:])) == 1

    idle = poll(lambda: view.root.evaluate(count), settled,
                "the edges near sight to come in after the jump's frame, with no scroll", timeout_s=30, interval_s=0.2)
    assert idle < len(edges), "and not the whole picture's"
    assert not guarded.log.console_errors and not guarded.log.page_errors, guarded.log.describe()


def test_an_export_of_a_large_picture_holds_every_edge_of_pythons_dot(chain_page, guarded):
    view, _, edges = chain_page
    assert view.root.evaluate(_EDGES)["inPicture"] < len(edges), "edges wait out of the picture (what is tested)"
    name, svg = download(guarded.page, view, "export-svg")
    assert name.endswith(".svg")
    assert b"mgw-culled" not in svg, "the view's paint saving leaked into the file"
    exported = [g.get("id") for g in ET.fromstring(svg).iter(f"{SVG}g") if "edge" in (g.get("class") or "").split()]
    assert sorted(exported) == sorted(edges)
    for g in ET.fromstring(svg).iter(f"{SVG}g"):
        if "edge" in (g.get("class") or "").split():
            assert g.find(f"{SVG}path") is not None, f"{g.get('id')} has no line"


def test_a_traced_path_marks_every_edge_on_it_those_out_of_sight_included(chain_page, guarded):
    view, tape, edges = chain_page
    assert view.root.evaluate(_EDGES)["inPicture"] < len(edges)
    leaf = view.root.locator('svg g.node[id="n0"]')  # x, at the far end (under the overview map: picked by keyboard)
    leaf.focus()
    leaf.press("Enter")
    inspector = view.root.locator('[data-role="inspector"]')
    inspector.locator('[data-action="trace-down"]').click()
    # x feeds every box of the chain: its path to the output is all of them, and every edge of the picture.
    marked = poll(lambda: view.root.evaluate("r => [...r.querySelectorAll('svg g.edge.mgw-path')].map(g => g.id)"),
                  lambda m: len(m) >= len(edges), "the path's edges marked", timeout_s=30)
    assert sorted(marked) == sorted(edges)
    assert len(tape) == BOXES
    assert not guarded.log.console_errors and not guarded.log.page_errors, guarded.log.describe()
