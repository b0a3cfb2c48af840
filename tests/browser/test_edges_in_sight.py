"""A large picture's edges and op circles go in as they come near sight (issue 22, js/graph/pending.js): the page
parses, styles and lays out a new picture without the edges and op circles out of sight, and every one in sight is
there, drawn, as the graph is scrolled through or jumps (those near sight follow when the page is idle); an export
holds every edge and op circle of Python's DOT; a traced path marks every edge and op circle on it, those far out of
sight included. The picture: a chain of 2,000 boxes at node_budget=2000 (3,998 edges and 1,999 op circles, drawn
edges first as every large picture is) in the exported page."""

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

XLINK = "{http://www.w3.org/1999/xlink}"

BOXES = 2000

# The edges in the page's SVG, those drawn (not culled, displayed), the value boxes in the graph box's sight, and the
# edges in sight not drawn: the edge into value box n from its op (n_op) is in sight when the line between the two
# boxes' facing sides (the chain runs left to right) meets the view; one whose line is out of sight, or whose op circle
# is not drawn (far out of sight: were it in sight, opsMissing would name it), may wait. Also the op circles in the
# page's SVG, and the value boxes whose op circle is in sight (where it lies beside its box, in the page or not) but
# not in the page or not drawn.
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
    const op = graph.querySelector(`svg g.node[id="${g.id}_op"]`);
    const a = op ? op.getBoundingClientRect() : null, q = g.getBoundingClientRect();
    if (!a || !a.width) return false; // an op not in the page, or not drawn (culled): far out of sight (opsMissing)
    const ya = (a.top + a.bottom) / 2, yq = (q.top + q.bottom) / 2;
    return meets({left: a.right, right: q.left, top: Math.min(ya, yq), bottom: Math.max(ya, yq)});
  };
  const opOf = g => graph.querySelector(`svg g.node[id="${g.id}_op"]`);
  const opDrawn = g => {
    const op = opOf(g);
    return !!op && getComputedStyle(op).display !== 'none' && !op.classList.contains('mgw-culled');
  };
  // Every op circle of the chain lies the same way left of its box: where, from one drawn (none: no box has its op in
  // sight to check)
  const pair = values.find(g => opDrawn(g) && opOf(g).getBoundingClientRect().width);
  const shift = pair ? [opOf(pair).getBoundingClientRect().left - pair.getBoundingClientRect().left,
                        opOf(pair).getBoundingClientRect().right - pair.getBoundingClientRect().left] : null;
  const opInSight = g => {
    if (!shift) return false;
    const q = g.getBoundingClientRect();
    return meets({left: q.left + shift[0], right: q.left + shift[1], top: q.top, bottom: q.bottom});
  };
  return {inPicture: edges.length, drawn: drawn.size, inSight,
          ops: graph.querySelectorAll('svg g.mgw-op').length,
          opsMissing: values.filter(g => g.id !== 'n0' && opInSight(g) && !opDrawn(g)).map(g => g.id),
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
    """The exported page of a 2,000-box tanh chain at node_budget=2000 (file://, no kernel), its tape, and the edge ids
    and op circle ids of Python's DOT of the same picture."""
    root = builders.tanh_chain(BOXES)
    tape = Tape.from_value(root)
    python = graph_view(tape, node_budget=BOXES)
    assert len(python.shown) == BOXES and not python.folds, "the whole chain is drawn"
    edges = re.findall(r"\[id=(e_\w+)\]", python.dot)
    ops = re.findall(r"\bid=(n\d+_op)\b", python.dot)
    assert "outputorder=edgesfirst" in python.dot and len(edges) == 2 * BOXES - 2, "a large picture, drawn edges first"
    assert len(ops) == BOXES - 1, "an op circle per box but the leaf"
    page = save_html(GraphWidget(root, node_budget=BOXES), tmp_path / "chain.html")
    guarded.page.goto(page.as_uri())
    view = WidgetDom(guarded.page)
    view.wait_ready(90)
    return view, tape, edges, ops


def test_a_large_pictures_edges_out_of_sight_wait_and_every_box_in_sight_has_its_edge_as_it_scrolls(chain_page,
                                                                                                   guarded):
    view, _, edges, ops = chain_page
    first = view.root.evaluate(_EDGES)
    assert first["inSight"], "some boxes are in sight"
    assert not first["missing"], f"edges in sight not drawn, into: {first['missing'][:10]}"
    assert not first["opsMissing"], f"op circles in sight not drawn, of: {first['opsMissing'][:10]}"
    assert first["inPicture"] < len(edges) / 4, f"{first['inPicture']} of {len(edges)} edges parsed at once"
    assert 0 < first["ops"] < len(ops) / 4, f"{first['ops']} of {len(ops)} op circles parsed at once"
    ends = [g for g in ("n0", f"n{BOXES - 1}") if g not in first["inSight"]]
    for to in [*ends, "n1000"]:
        for k, seen in enumerate(view.root.evaluate(_SCROLL, [to, 12, _EDGES])):
            assert seen["inSight"], f"scrolling to {to}, step {k}: nothing in sight"
            assert not seen["missing"], f"to {to}, step {k}: edges in sight not drawn, into {seen['missing'][:10]}"
            assert not seen["opsMissing"], f"to {to}, step {k}: op circles in sight not drawn: {seen['opsMissing'][:9]}"
    assert not guarded.log.console_errors and not guarded.log.page_errors, guarded.log.describe()


def test_a_long_jump_puts_in_the_edges_in_sight_in_its_frame_and_those_near_it_once_the_page_is_idle(chain_page,
                                                                                                      guarded):
    """A jump (here the graph box scrolled to the chain's middle in one frame, as a focus, a search or a click on the
    map does) parses in its frame only the edges in sight; those near sight follow while the page is idle."""
    view, _, edges, _ = chain_page
    count = "r => r.querySelectorAll('[data-role=graph] svg g.edge').length"
    before = view.root.evaluate(count)
    [jumped] = view.root.evaluate(_SCROLL, ["n1000", 1, _EDGES])
    assert jumped["inSight"] and not jumped["missing"], f"edges in sight not drawn, into: {jumped['missing'][:10]}"
    assert not jumped["opsMissing"], f"op circles in sight not drawn: {jumped['opsMissing'][:10]}"
    assert jumped["inPicture"] > before, "the jump brought edges in"
    seen: list[int] = []

    def settled(k: int) -> bool:  # more than the jump's frame put in, unchanged over the last 5 reads (0.2 s apart)
        seen.append(k)
        return k > jumped["inPicture"] and len(seen) >= 5 and len(set(seen[-5:])) == 1

    idle = poll(lambda: view.root.evaluate(count), settled,
                "the edges near sight to come in after the jump's frame, with no scroll", timeout_s=30, interval_s=0.2)
    assert idle < len(edges), "and not the whole picture's"
    assert not guarded.log.console_errors and not guarded.log.page_errors, guarded.log.describe()


def test_an_export_of_a_large_picture_holds_every_edge_and_op_circle_of_pythons_dot(chain_page, guarded):
    view, _, edges, ops = chain_page
    waiting = view.root.evaluate(_EDGES)
    assert waiting["inPicture"] < len(edges) and waiting["ops"] < len(ops), "they wait out of the picture (the test)"
    name, svg = download(guarded.page, view, "export-svg")
    assert name.endswith(".svg")
    assert b"mgw-culled" not in svg, "the view's paint saving leaked into the file"
    exported = [g.get("id") for g in ET.fromstring(svg).iter(f"{SVG}g") if "edge" in (g.get("class") or "").split()]
    assert sorted(exported) == sorted(edges)
    for g in ET.fromstring(svg).iter(f"{SVG}g"):
        if "edge" in (g.get("class") or "").split():
            assert g.find(f"{SVG}path") is not None, f"{g.get('id')} has no line"
    circles = [g for g in ET.fromstring(svg).iter(f"{SVG}g") if "mgw-op" in (g.get("class") or "").split()]
    assert sorted(g.get("id") for g in circles) == sorted(ops)
    for g in circles:
        assert g.find(f".//{SVG}ellipse") is not None and "".join(g.itertext()).strip() == "tanh", g.get("id")


def test_a_traced_path_marks_every_edge_and_op_circle_on_it_those_out_of_sight_included(chain_page, guarded):
    view, tape, edges, ops = chain_page
    waiting = view.root.evaluate(_EDGES)
    assert waiting["inPicture"] < len(edges) and waiting["ops"] < len(ops)
    leaf = view.root.locator('svg g.node[id="n0"]')  # x, at the far end (under the overview map: picked by keyboard)
    leaf.focus()
    leaf.press("Enter")
    inspector = view.root.locator('[data-role="inspector"]')
    inspector.locator('[data-action="trace-down"]').click()
    # x feeds every box of the chain: its path to the output is all of them, and every edge of the picture.
    marked = poll(lambda: view.root.evaluate("r => [...r.querySelectorAll('svg g.edge.mgw-path')].map(g => g.id)"),
                  lambda m: len(m) >= len(edges), "the path's edges marked", timeout_s=30)
    assert sorted(marked) == sorted(edges)
    circles = view.root.evaluate("r => [...r.querySelectorAll('svg g.mgw-op.mgw-path')].map(g => g.id)")
    assert sorted(circles) == sorted(ops), "every op circle on the path marked"
    assert len(tape) == BOXES
    assert not guarded.log.console_errors and not guarded.log.page_errors, guarded.log.describe()


def _tooltips(svg: ET.Element) -> dict[str, str]:
    """Each box's (value node, op circle, fold box, legend) tooltip in an SVG: box id -> its anchor's title, read
    where Graphviz puts it, in a group a_<id> just inside the box."""
    out = {}
    for g in svg.iter(f"{SVG}g"):
        if "node" in (g.get("class") or "").split():
            anchor = g.find(f"{SVG}g/{SVG}a")
            group = g.find(f"{SVG}g")
            if anchor is not None and group is not None and group.get("id") == f"a_{g.get('id')}":
                out[g.get("id", "")] = anchor.get(f"{XLINK}title", "")
    return out


def _numbers(g: ET.Element, tag: str, attribute: str) -> list[float]:
    """The numbers of the first `tag`'s `attribute` in group `g` (none when it has no such shape)."""
    shape = g.find(f".//{SVG}{tag}")
    return [float(n) for n in re.findall(r"-?[\d.]+", shape.get(attribute, ""))] if shape is not None else []


def _shape(g: ET.Element) -> tuple[str, float, float, float, float]:
    """A drawn node's outline in an exported SVG: ("ellipse", cx, cy, rx, ry) for an op circle, else ("box", centre x,
    centre y, half-width, half-height) of its first polygon or path (a value or fold box)."""
    ellipse = g.find(f".//{SVG}ellipse")
    if ellipse is not None:
        return ("ellipse", *(float(ellipse.get(a, "nan")) for a in ("cx", "cy", "rx", "ry")))
    xy = _numbers(g, "polygon", "points") or _numbers(g, "path", "d")
    xs, ys = xy[0::2], xy[1::2]
    return ("box", (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2, (max(xs) - min(xs)) / 2, (max(ys) - min(ys)) / 2)


def _outside(shape: tuple[str, float, float, float, float], x: float, y: float) -> float:
    """How far (points) point x, y lies outside `shape`'s outline (negative: inside); for an ellipse, along its
    smaller radius (near enough at the outline)."""
    kind, cx, cy, a, b = shape
    if kind == "ellipse":
        return float((((x - cx) / a) ** 2 + ((y - cy) / b) ** 2) ** 0.5 - 1) * min(a, b)
    return max(abs(x - cx) - a, abs(y - cy) - b)


def test_a_composed_pictures_edges_come_as_numbers_and_are_drawn_from_box_to_box_when_exported(tmp_path, guarded,
                                                                                             widget_bundle):
    """A large opened picture is laid out box by box and its edges handed to the page as numbers (js/picture/edges.js
    EdgeTable), their markup written only as they come near sight: the picture goes in with few of them, and an export
    holds every edge of Python's DOT, each a line from its tail's outline to an arrowhead whose tip stops just short of
    its head's (Graphviz's 1-point stroke reaches the outline), measured against the boxes the export draws."""
    root = builders.moons_like_loss()
    tape = Tape.from_value(root)
    opened = ["layers.2.neurons.0", "terms:65136", "terms:65814"]  # 1,182 boxes drawn (benchmarks/bench_layout.py BIG)
    python = graph_view(tape, node_budget=2000, open_keys=opened)
    edges = re.findall(r"\[id=(e_\w+)\]", python.dot)
    assert "splines=line" in python.dot and "subgraph cluster_" in python.dot and len(edges) > 3000, "composed"
    widget = GraphWidget(root, node_budget=2000)
    widget.opened = opened
    guarded.page.goto(save_html(widget, tmp_path / "moons.html").as_uri())
    view = WidgetDom(guarded.page)
    view.wait_ready(90)
    waiting = view.root.evaluate("r => r.querySelectorAll('[data-role=graph] svg g.edge').length")
    assert 0 < waiting < len(edges) / 4, f"{waiting} of {len(edges)} edges put in at once"
    # The boxes' tooltips came apart too (js/picture/tooltips.js): no box has its anchor until the pointer comes over
    # it, and then it holds what Graphviz writes for it (the kernel's picture of the same open set: Python's DOT drawn
    # by the dot binary's nop2).
    kernel = _tooltips(ET.parse(widget.save_svg(tmp_path / "kernel.svg")).getroot())
    assert len(kernel) > 1500, "the kernel drew the boxes' tooltips: the test reads them"
    anchored = view.root.evaluate("r => r.querySelectorAll('[data-role=graph] svg g.node a').length")
    assert anchored == 0, f"{anchored} boxes have their anchor before any hover"
    for kind in ("mgw-value", "mgw-op", "mgw-fold"):
        key = view.root.evaluate("""(r, kind) => {  // the box of that kind nearest the middle of the graph box's sight
          const b = r.querySelector('[data-role=graph]').getBoundingClientRect();
          const mid = [(b.left + b.right) / 2, (b.top + b.bottom) / 2];
          const far = g => { const q = g.getBoundingClientRect();
            return Math.hypot((q.left + q.right) / 2 - mid[0], (q.top + q.bottom) / 2 - mid[1]); };
          return [...r.querySelectorAll(`[data-role=graph] svg g.node.${kind}`)].sort((p, q) => far(p) - far(q))[0].id;
        }""", kind)
        view.root.locator(f'[data-role="graph"] svg g.node[id="{key}"]').hover()
        live = view.root.evaluate("""(r, id) => [...r.querySelectorAll(`[data-role=graph] svg g.node[id="${id}"] a`)]
          .map(a => [a.parentElement.id, a.getAttributeNS('http://www.w3.org/1999/xlink', 'title')])""", key)
        assert live == [[f"a_{key}", kernel[key]]], f"{kind} {key} hovered"
    _, svg = download(guarded.page, view, "export-svg")
    doc = ET.fromstring(svg)
    assert _tooltips(doc) == kernel, "the export's tooltips, box by box"
    shapes = {g.get("id"): _shape(g) for g in doc.iter(f"{SVG}g") if "node" in (g.get("class") or "").split()}
    exported = [g for g in doc.iter(f"{SVG}g") if "edge" in (g.get("class") or "").split()]
    assert sorted(g.get("id") for g in exported) == sorted(edges)
    ends = dict(zip(edges, re.findall(r"^\t(\w+) -> (\w+) \[id=e_", python.dot, re.M), strict=True))
    for g in exported:
        tail, head = ends[g.get("id", "")]
        line = _numbers(g, "path", "d")
        corners = _numbers(g, "polygon", "points")
        assert len(line) == 8 and len(corners) == 8, f"{g.get('id')}: not a straight arrow"
        start = _outside(shapes[tail], line[0], line[1])
        tip = _outside(shapes[head], corners[2], corners[3])
        # An edge leaves the node's laid-out size and its tip stops 1.51 pt short of it, where the arrowhead's 1-pt
        # stroke reaches it, as Graphviz's own edges do; Graphviz draws a record's outline inside that size (its
        # height a point less than the part's layout gives). Measured here: starts 0-0.5 pt outside the drawn outline,
        # tips 1.01-2.01 pt from a box's, 1.04-1.15 from an op's.
        assert -0.1 <= start <= 1.1, f"{g.get('id')} starts {start:.2f} pt off {tail}'s outline"
        assert 0.9 <= tip <= 2.1, f"{g.get('id')}'s tip is {tip:.2f} pt outside {head}'s outline"
    assert not guarded.log.console_errors and not guarded.log.page_errors, guarded.log.describe()
