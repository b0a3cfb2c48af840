"""Frames cost what is in sight (issue 22, js/graph/visible.js and zoom.js): boxes well out of the graph box's sight
are not painted, and come back carrying the numbers Python's engine computes for the slider's new value when they
are scrolled into view, focused or found by search; an export holds every box with its full text and current
numbers; at a zoom too small to read the boxes drop their text, with hysteresis, and the exports still hold it; there
the edges are one raster under the picture (js/graph/edge-raster.js) that the screen shows as the SVG drew them, the
marked edges stay in the SVG, exports hold every edge, and full detail draws the SVG's edges again. At low detail a
slider's move writes in the frame only the fills that change visibly (more than 16 of 255 on a channel); the others
are exact once the sliders rest, and in an export made at once."""

from __future__ import annotations

import base64
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from builders import lecture_mlp_loss
from playwright.sync_api import expect

from micrograd_widget.core.tape import Tape
from micrograd_widget.engine import Value
from micrograd_widget.graph.widget import GraphWidget
from micrograd_widget.picture.colors import ColorScale, grad_color
from micrograd_widget.picture.dot import graph_view
from micrograd_widget.picture.text import format_number

from .mgw_browser.dom import SCROLL_THROUGH, WidgetDom
from .mgw_browser.exports import SVG, svg_numbers
from .mgw_browser.graphs import labelled_chain

pytestmark = pytest.mark.browser

# Per value box of the picture: its label, where it is against the graph box's visible area ("in": overlapping it,
# "far": more than the area's own width and height away, beyond any paint margin), whether its outline and text are
# painted (computed style: visibility of the shape, display of the texts) and the numbers it shows.
_LOOK = """r => {
  const graph = r.querySelector('[data-role=graph]');
  const b = graph.getBoundingClientRect();
  const v = {left: b.left + graph.clientLeft, top: b.top + graph.clientTop};
  v.right = v.left + graph.clientWidth; v.bottom = v.top + graph.clientHeight;
  const w = graph.clientWidth, h = graph.clientHeight;
  const number = t => t.textContent.slice(t.textContent.lastIndexOf(' ') + 1);
  return [...graph.querySelectorAll('g.node[data-node]')].map(g => {
    const q = g.getBoundingClientRect();
    const inside = q.right > v.left && q.left < v.right && q.bottom > v.top && q.top < v.bottom;
    const far = q.right < v.left - w || q.left > v.right + w || q.bottom < v.top - h || q.top > v.bottom + h;
    const texts = [...g.querySelectorAll('text')];
    const shape = g.querySelector('polygon, path');
    const fields = Object.fromEntries(texts.filter(t => t.hasAttribute('data-field'))
      .map(t => [t.getAttribute('data-field'), number(t)]));
    return {key: g.getAttribute('data-node'), where: inside ? 'in' : far ? 'far' : 'near',
            shape: getComputedStyle(shape).visibility === 'visible',
            text: texts.every(t => getComputedStyle(t).display !== 'none'), fields};
  });
}"""

# The start of each test's script: slider `leaf` to its max as a user would ('input'), then one painted frame.
_MOVE_TO_MAX = """
  const graph = r.querySelector('[data-role=graph]');
  const frame = () => new Promise(ok => requestAnimationFrame(() => setTimeout(ok, 0)));
  const slider = r.querySelector(`input[type=range][data-leaf="${leaf}"]`);
  slider.value = slider.max;
  slider.dispatchEvent(new Event('input', {bubbles: true}));
  await frame();
"""

# Move slider `leaf` to its max as a user would; then scroll the graph box from where it is until box `to` is in the
# middle, at a normal pace (`steps` scroll positions, one frame each) and, at each, look at the boxes (_LOOK); also
# the graph's data-numbers right after the move (the test must catch boxes whose numbers were left for later).
_MOVE_AND_SCROLL = """async (r, [leaf, to, steps, look]) => {""" + _MOVE_TO_MAX + """
  const state = graph.getAttribute('data-numbers');
  const target = graph.querySelector(`g[data-node="${to}"]`);
  const seen = await (""" + SCROLL_THROUGH + """)(graph, target, steps, eval(look), r);
  return {state, seen, max: Number(slider.max)};
}"""


def chain(a: float = 0.5) -> dict[str, Value]:
    return labelled_chain(40, a)


def want(nodes: dict[str, Value], key: str) -> dict[str, str]:
    """What Python's engine says box `key` shows (4 digits, the default precision)."""
    return {"data": format_number(nodes[key].data, 4), "grad": format_number(nodes[key].grad, 4)}


def look(view: WidgetDom) -> list[dict]:
    return view.root.evaluate(_LOOK)


def test_far_boxes_are_not_painted_and_scroll_in_with_current_numbers(show, guarded):
    view = show(chain()["n40"])
    boxes = look(view)
    far = [b for b in boxes if b["where"] == "far"]
    assert len(far) > len(boxes) // 2, "the test needs most boxes far out of sight"
    assert not [b["key"] for b in far if b["shape"] or b["text"]], "boxes far out of sight are painted"
    assert all(b["shape"] and b["text"] for b in boxes if b["where"] == "in"), "a box in sight is not painted"
    moved = view.root.evaluate(_MOVE_AND_SCROLL, ["a", "a", 40, _LOOK])
    assert moved["state"] == "pending", "the move left nothing for later: the test checks nothing"
    nodes = chain(moved["max"])
    checked = set()
    for step, seen in enumerate(moved["seen"]):
        for b in seen:
            if b["where"] != "in":
                continue
            assert b["shape"] and b["text"], f"step {step}: {b['key']} is in sight but not painted"
            assert b["fields"] == want(nodes, b["key"]), f"step {step}: {b['key']} scrolled in with old numbers"
            checked.add(b["key"])
    assert {"a", "n1", "n20"} <= checked, f"the scroll did not pass the whole chain: {sorted(checked)}"


def test_a_far_box_focused_or_found_is_painted_with_current_numbers(show, guarded):
    view = show(chain()["n40"])
    shown = view.root.evaluate("""async (r, [leaf, look]) => {""" + _MOVE_TO_MAX + """
      const box = key => eval(look)(r).find(b => b.key === key);
      const before = {n3: box('n3'), m30: box('m30')};
      graph.querySelector('g[data-node="n3"]').focus();  // as Tab does: the browser scrolls it in
      const focused = box('n3');  // in the same task as the focus
      const search = r.querySelector('input[data-role="search"]');
      search.focus();
      search.value = 'm30';
      search.dispatchEvent(new Event('input', {bubbles: true}));
      search.dispatchEvent(new KeyboardEvent('keydown', {key: 'Enter', bubbles: true}));
      for (let k = 0; k < 100 && !graph.querySelector('g.mgw-match[data-node="m30"]'); k++) await frame();
      await frame();
      return {before, focused, found: box('m30'), max: Number(slider.max)};
    }""", ["a", _LOOK])
    nodes = chain(shown["max"])
    for key in ("n3", "m30"):
        b = shown["before"][key]
        assert b["where"] == "far" and not b["shape"], f"the test needs {key} far out of sight, unpainted: {b}"
    for b in (shown["focused"], shown["found"]):
        assert b["shape"] and b["text"], f"{b['key']} is not painted: {b}"
        assert b["fields"] == want(nodes, b["key"]), f"{b['key']} shows old numbers: {b}"
    assert shown["found"]["where"] == "in", "search did not bring its match in sight"


def _texts_by_box(svg: bytes) -> dict[str, list[str]]:
    """data-node -> the texts of its box, from an exported SVG."""
    root = ET.fromstring(svg)
    return {g.get("data-node"): [t.text or "" for t in g.iter(f"{SVG}text")]
            for g in root.iter(f"{SVG}g") if g.get("data-node") and "node" in (g.get("class") or "").split()}


def test_exports_hold_every_box_with_full_text_at_any_zoom(show, guarded):
    view = show(chain()["n40"])
    view.set_slider("a", 1.25)
    nodes = chain(float(view.slider("a").input_value()))
    graph = view.root.locator("[data-role=graph]")
    for zoom_out in (0, 8):  # 100% (most boxes far out of sight), then zoomed out to low detail
        graph.focus()
        for _ in range(zoom_out):
            graph.press("[")
        if zoom_out:
            assert graph.get_attribute("data-detail") == "low"
        with guarded.page.expect_download() as info:
            view.root.locator('button[data-action="export-svg"]').click()
        svg = Path(info.value.path()).read_bytes()
        assert b"mgw-culled" not in svg, "the view's paint saving leaked into the file"
        texts, shown = _texts_by_box(svg), svg_numbers(svg)
        assert sorted(texts) == sorted(nodes), "the file lacks boxes"
        for key in nodes:
            assert texts[key][0] == key, f"{key}: its label is missing: {texts[key]}"
            assert shown[key] == want(nodes, key), f"{key} at zoom-out {zoom_out}"


def test_the_level_of_detail_switches_with_zoom_without_flicker(show, guarded):
    view = show(chain()["n40"])
    graph = view.root.locator("[data-role=graph]")
    graph.focus()

    def detail() -> tuple[float, str, bool]:
        """The zoom, the level of detail, and whether the boxes in sight (the output's, scrolled to) draw their text."""
        view.root.evaluate("""r => r.querySelector('g[data-node="n40"]')
          .scrollIntoView({block: 'center', inline: 'center'})""")
        boxes = [b for b in look(view) if b["where"] == "in"]
        assert boxes, "no box in sight"
        drawn = {b["text"] for b in boxes}
        assert len(drawn) == 1, "some boxes in sight draw their text and others not"
        return float(graph.get_attribute("data-zoom")), graph.get_attribute("data-detail"), drawn.pop()

    seen = [detail()]
    keys = "[" * 5 + "]" * 3  # down in steps of 1.25x past 30%, then back up
    for key in keys:
        graph.press(key)
        seen.append(detail())
    zooms = [z for z, _, _ in seen]
    # the rule, independently: going down, text is drawn at 30% and above; once dropped, it comes back at 37.5%
    expected, dropped = [], False
    for z in zooms:
        dropped = z < 0.375 if dropped else z < 0.3
        expected.append(not dropped)
    assert [t for _, _, t in seen] == expected, list(zip(zooms, [t for _, _, t in seen]))
    assert any(0.3 <= z < 0.375 for z in zooms[6:]), f"no step up lands in the hysteresis band: {zooms}"
    assert not seen[6][2] and seen[-1][2], "the text did not drop and come back"
    graph.press("[")
    graph.press("[")
    assert graph.get_attribute("data-detail") == "low"
    # a box drawn without its text is still named by it (a screen reader, a speech-input user)
    expect(view.root.locator('g[data-node="n40"]')).to_have_accessible_name(re.compile(r"^n40\s*data -?\d"))
    assert [d for _, d, _ in seen] == ["full" if t else "low" for _, _, t in seen]


def test_numbers_moved_at_low_detail_are_current_when_zoomed_back_in(show, guarded):
    view = show(chain()["n40"])
    graph = view.root.locator("[data-role=graph]")
    graph.focus()
    for _ in range(6):
        graph.press("[")
    assert graph.get_attribute("data-detail") == "low"
    seen = view.root.evaluate("""async (r, [leaf, look]) => {""" + _MOVE_TO_MAX + """
      const state = graph.getAttribute('data-numbers');
      while (graph.getAttribute('data-detail') === 'low') {
        graph.dispatchEvent(new KeyboardEvent('keydown', {key: ']', bubbles: true}));
      }
      await frame();
      return {state, boxes: eval(look)(r), max: Number(slider.max)};
    }""", ["a", _LOOK])
    assert seen["state"] == "pending", "at low detail the move wrote every text at once: the test checks nothing"
    nodes = chain(seen["max"])
    shown = [b for b in seen["boxes"] if b["where"] == "in" and b["key"] != "n40"]  # the output's is always written
    assert shown, "no box in sight"
    for b in shown:
        assert b["text"] and b["fields"] == want(nodes, b["key"]), f"{b['key']} shows old numbers: {b}"


def test_a_new_picture_goes_in_with_its_far_boxes_culled(show, guarded):
    """A picture laid out again (another rankdir) is inserted with every box and edge culled and only those near sight
    painted (js/graph/visible.js start): no far box is ever in the page painted in full (its texts laid out), then
    culled. The boxes in sight are painted, with the numbers Python's engine computes."""
    view = show(chain()["n40"])
    seen = view.root.evaluate("""async (r, look) => {
      const graph = r.querySelector('[data-role=graph]');
      const old = graph.querySelector('svg');
      const culledLater = new Set();
      const watcher = new MutationObserver(records => {
        for (const m of records) {
          if (m.type === 'attributes' && m.target.matches('g.node, g.edge') && m.target.classList.contains('mgw-culled')
              && !(m.oldValue || '').split(' ').includes('mgw-culled')) culledLater.add(m.target.id);
        }
      });
      watcher.observe(graph, {subtree: true, attributes: true, attributeFilter: ['class'], attributeOldValue: true});
      window.__mgw.model.set('rankdir', 'TB');
      for (let k = 0; k < 600 && graph.querySelector('svg') === old; k++) await new Promise(ok => setTimeout(ok, 50));
      await new Promise(ok => requestAnimationFrame(() => setTimeout(ok, 0)));
      watcher.disconnect();
      const svg = graph.querySelector('svg');
      return {replaced: svg !== old, culledLater: [...culledLater],
              culled: svg.querySelectorAll('g.mgw-culled').length, boxes: eval(look)(r)};
    }""", _LOOK)
    assert seen["replaced"], "the picture was not laid out again"
    far = [b for b in seen["boxes"] if b["where"] == "far"]
    assert len(far) > len(seen["boxes"]) // 2 and seen["culled"] >= len(far), "the test needs most boxes far, culled"
    assert not seen["culledLater"], f"boxes went in painted and were culled after: {seen['culledLater'][:5]}"
    assert not [b["key"] for b in far if b["shape"] or b["text"]], "boxes far out of sight are painted"
    nodes = chain()
    shown = [b for b in seen["boxes"] if b["where"] == "in"]
    assert shown, "no box in sight"
    for b in shown:
        assert b["shape"] and b["text"] and b["fields"] == want(nodes, b["key"]), f"{b['key']}: {b}"


def test_a_busy_picture_is_veiled_without_repainting_its_svg(show, guarded):
    """While a new picture is laid out (aria-busy, graph/picture.js) the old one is dimmed by a veil over the graph box
    that lets clicks through, not by the SVG's own opacity (which made the page repaint the whole old picture)."""
    view = show(chain()["n40"])
    busy = view.root.evaluate("""r => {
      const graph = r.querySelector('[data-role=graph]');
      graph.setAttribute('aria-busy', 'true');
      const frame = graph.parentElement, veil = getComputedStyle(frame, '::after');
      const box = frame.getBoundingClientRect(), q = graph.querySelector('g[data-node="n40"]').getBoundingClientRect();
      const x = (q.left + q.right) / 2, y = (q.top + q.bottom) / 2;
      const hit = document.elementFromPoint(x, y);
      return {content: veil.content, opacity: veil.opacity, width: parseFloat(veil.width), frame: box.width,
              events: veil.pointerEvents, svg: getComputedStyle(graph.querySelector('svg')).opacity,
              hit: !!(hit && hit.closest('g[data-node="n40"]'))};
    }""")
    assert busy["content"] not in ("none", "normal") and float(busy["opacity"]) < 1, busy
    assert abs(busy["width"] - busy["frame"]) < 1, f"the veil does not cover the graph box: {busy}"
    assert busy["svg"] == "1", f"the SVG's own opacity changed: {busy}"
    assert busy["events"] == "none" and busy["hit"], f"the veil takes the clicks: {busy}"


# The edges at low detail (js/graph/edge-raster.js): a raster under the picture (with the boxes' fills), the SVG's own
# edges not rendered except those a mark outlines. The reference for what the screen should show is the SVG drawing
# everything itself: the raster taken out of the page (its stylesheet rules then match nothing), once the SVG holds
# every current number and fill (an export writes them: graph/visible.js flush).
_SVG_ALONE = "r => r.querySelector('[data-role=graph] > canvas.mgw-edge-raster').remove()"

# Per edge of the picture: its id, whether the SVG renders it (computed display of its <g>, and of its line), its
# classes, and its line's midpoint in client px (the path's own geometry, mapped through its screen matrix).
_EDGES = """r => [...r.querySelectorAll('[data-role=graph] svg g.edge')].map(g => {
  const p = g.querySelector('path');
  const q = p.getPointAtLength(p.getTotalLength() / 2), m = p.getScreenCTM();
  return {id: g.id, classes: g.getAttribute('class'), rendered: getComputedStyle(g).display !== 'none'
          && getComputedStyle(p).display !== 'none', x: m.a * q.x + m.c * q.y + m.e, y: m.b * q.x + m.d * q.y + m.f};
})"""

# The darkest red value within 1 px of each client point in a PNG screenshot of the page (decoded by the browser).
_INK = """async (r, [png, points]) => {
  const img = new Image();
  await new Promise((ok, fail) => { img.onload = ok; img.onerror = fail; img.src = 'data:image/png;base64,' + png; });
  const c = Object.assign(document.createElement('canvas'), {width: img.width, height: img.height});
  const x = c.getContext('2d');
  x.drawImage(img, 0, 0);
  const d = x.getImageData(0, 0, img.width, img.height).data;
  return points.map(([px, py]) => {
    let min = 255;
    for (let dx = -1; dx <= 1; dx++) for (let dy = -1; dy <= 1; dy++) {
      const u = Math.round(px) + dx, v = Math.round(py) + dy;
      if (u >= 0 && v >= 0 && u < img.width && v < img.height) min = Math.min(min, d[4 * (v * img.width + u)]);
    }
    return min;
  });
}"""

# Two PNG screenshots of the same size compared inside their outer 2 px (the graph box's border, which a status line
# appearing beside the box can move by a fraction of a pixel): [pixels whose colour differs by more than 48 of 255,
# the most any pixel differs, the pixels compared].
_DIFFER = """async (r, [a, b]) => {
  const load = async png => {
    const img = new Image();
    await new Promise((ok, fail) => { img.onload = ok; img.onerror = fail; img.src = 'data:image/png;base64,' + png; });
    const c = Object.assign(document.createElement('canvas'), {width: img.width, height: img.height});
    const x = c.getContext('2d');
    x.drawImage(img, 0, 0);
    return x.getImageData(0, 0, img.width, img.height);
  };
  const [p, q] = [await load(a), await load(b)];
  if (p.width !== q.width || p.height !== q.height) throw new Error('the screenshots differ in size');
  let over = 0, most = 0, count = 0;
  for (let y = 2; y < p.height - 2; y++) {
    for (let x = 2; x < p.width - 2; x++) {
      const k = 4 * (y * p.width + x);
      const d = Math.max(Math.abs(p.data[k] - q.data[k]), Math.abs(p.data[k + 1] - q.data[k + 1]),
                         Math.abs(p.data[k + 2] - q.data[k + 2]));
      if (d > 48) over++;
      most = Math.max(most, d);
      count++;
    }
  }
  return [over, most, count];
}"""


def _zoom_to_low(view: WidgetDom) -> None:
    """Zoom the picture out (`[`) until its boxes draw no text."""
    graph = view.root.locator("[data-role=graph]")
    graph.focus()
    for _ in range(12):
        if graph.get_attribute("data-detail") == "low":
            return
        graph.press("[")
    raise AssertionError("zooming out never reached the low level of detail")


def _screenshot(view: WidgetDom) -> str:
    """The graph box as shown, a PNG in base64."""
    return base64.b64encode(view.root.locator("[data-role=graph]").screenshot()).decode()


def _raster_shown(view: WidgetDom) -> bool:
    return view.root.evaluate("r => !!r.querySelector('[data-role=graph] > canvas.mgw-edge-raster + svg')")


def test_at_low_detail_the_edges_are_one_raster_the_screen_shows(show, guarded):
    view = show(chain()["n40"])
    _zoom_to_low(view)
    view.root.evaluate("r => r.querySelector('g[data-node=n20]').scrollIntoView({block: 'center', inline: 'center'})")
    assert _raster_shown(view), "no raster of the edges under the picture at low detail"
    edges = view.root.evaluate(_EDGES)
    assert len(edges) == 6 * 40, "a link of the chain is 6 edges (2 into each op, op -> box, box -> next op), by hand"
    assert not [e["id"] for e in edges if e["rendered"]], "the SVG still renders its edges: a frame records them"
    b = view.root.locator("[data-role=graph]").bounding_box()
    assert b
    inside = [e for e in edges
              if b["x"] + 2 < e["x"] < b["x"] + b["width"] - 2 and b["y"] + 2 < e["y"] < b["y"] + b["height"] - 2]
    assert len(inside) > 20, "the test needs edges in sight"
    ink = view.root.evaluate(_INK, [_screenshot(view), [[e["x"] - b["x"], e["y"] - b["y"]] for e in inside]])
    assert not [e["id"] for e, red in zip(inside, ink, strict=True) if red > 240], "an edge is not drawn on screen"
    _expect_screen_as_the_svg_draws_it(view)


def _opened_mlp_at_low_detail(show):
    """The lecture's MLP loss with two neurons opened (clusters, their fills under the edges), zoomed to low detail."""
    widget = GraphWidget(lecture_mlp_loss())
    widget.opened = ["layers.0.neurons.0", "layers.1.neurons.0"]
    view = show(widget)
    _zoom_to_low(view)
    return view


def _expect_screen_as_the_svg_draws_it(view) -> None:
    """The screen now matches the screen with the raster taken out and the SVG drawing everything itself."""
    drawn = _screenshot(view)
    view.root.evaluate(_SVG_ALONE)
    over, most, count = view.root.evaluate(_DIFFER, [drawn, _screenshot(view)])
    assert over <= count // 1000, f"the raster looks unlike the SVG's edges: {over} pixels differ (most by {most})"


def test_an_opened_box_at_low_detail_does_not_hide_the_edges_inside_it(show, guarded):
    view = _opened_mlp_at_low_detail(show)
    assert view.root.evaluate("r => r.querySelectorAll('[data-role=graph] svg g.cluster').length") > 0
    assert _raster_shown(view), "no raster of the edges under the picture at low detail"
    # the opened boxes' fills are the raster's now: a click inside one (not on a box) still picks it, as when filled
    hits = view.root.evaluate("""r => [...r.querySelectorAll('[data-role=graph] svg g.cluster')].map(c => {
      const b = c.getBoundingClientRect();
      let hits = 0;
      for (let i = 1; i < 10; i++) for (let j = 1; j < 10; j++) {
        const e = document.elementFromPoint(b.left + b.width * i / 10, b.top + b.height * j / 10);
        if (e && e.closest('g.cluster') === c) hits++;
      }
      return hits;
    })""")
    assert all(hits), f"a click inside an opened box no longer picks it: hits per box {hits}"
    _expect_screen_as_the_svg_draws_it(view)


def test_at_low_detail_a_slider_move_shows_the_fills_the_svg_holds_once_current(show, guarded):
    view = _opened_mlp_at_low_detail(show)
    assert _raster_shown(view), "no raster of the edges under the picture at low detail"
    before = _screenshot(view)
    leaf = view.root.locator("input[type=range][data-leaf]").first
    leaf.fill(leaf.get_attribute("max") or "")
    guarded.page.wait_for_timeout(100)
    drawn = _screenshot(view)
    moved, _, _ = view.root.evaluate(_DIFFER, [before, drawn])
    assert moved > 0, "the move changed no colour on screen: the test checks nothing"
    with guarded.page.expect_download():
        view.root.locator('button[data-action="export-svg"]').click()  # writes every number and fill in the SVG
    assert view.root.locator("[data-role=graph]").get_attribute("data-numbers") == "current"
    view.root.evaluate(_SVG_ALONE)
    over, most, count = view.root.evaluate(_DIFFER, [drawn, _screenshot(view)])
    assert over <= count // 1000, f"the raster's fills are not the SVG's current ones: {over} pixels (most by {most})"


def test_an_edge_a_trace_marks_stays_drawn_in_the_svg_at_low_detail(show, guarded):
    view = show(chain()["n40"])
    view.root.locator('svg g[data-node="n38"]').first.click()
    view.root.locator('[data-role="inspector"] [data-action="trace-down"]').click()
    expect(view.root.locator("svg g.edge.mgw-path").first).to_be_attached()
    _zoom_to_low(view)
    assert _raster_shown(view), "no raster of the edges under the picture at low detail"
    edges = view.root.evaluate(_EDGES)
    marked = sorted(e["id"] for e in edges if "mgw-path" in e["classes"].split())
    # by hand: the path n38 -> m39 -> n39 -> m40 -> n40; each of the four after n38 has the edge from the one before
    # into its op and its op's edge into it (8), and the node traced from, n38, its own op's edge (1)
    assert len(marked) == 9, marked
    assert sorted(e["id"] for e in edges if e["rendered"]) == marked, "only the marked edges are drawn in the SVG"
    accent = view.root.evaluate("""r => getComputedStyle(r.querySelector('svg g.edge.mgw-path path')).strokeWidth""")
    assert accent == "3px", "the marked edge is not drawn with the trace's outline"


def test_an_export_at_low_detail_holds_every_edge(show, guarded):
    view = show(chain()["n40"])
    _zoom_to_low(view)
    assert _raster_shown(view), "no raster of the edges under the picture at low detail"
    with guarded.page.expect_download() as info:
        view.root.locator('button[data-action="export-svg"]').click()
    svg = Path(info.value.path()).read_bytes()
    with guarded.page.expect_download() as info:
        view.root.locator('button[data-action="export-dot"]').click()
    dot = Path(info.value.path()).read_text(encoding="utf-8")
    root = ET.fromstring(svg)
    edges = [g for g in root.iter(f"{SVG}g") if "edge" in (g.get("class") or "").split()]
    assert len(edges) == len(re.findall(r" -> ", dot)) == 6 * 40, "the file lacks edges"
    assert all(g.find(f"{SVG}path") is not None for g in edges), "an edge lost its line"
    assert b"mgw-edge-raster" not in svg and b"<canvas" not in svg, "the view's raster leaked into the file"


def test_zoomed_back_to_full_detail_the_svg_draws_its_edges_again(show, guarded):
    view = show(chain()["n40"])
    _zoom_to_low(view)
    assert _raster_shown(view), "no raster of the edges under the picture at low detail"
    graph = view.root.locator("[data-role=graph]")
    while graph.get_attribute("data-detail") == "low":
        graph.press("]")
    assert not view.root.evaluate("r => !!r.querySelector('[data-role=graph] canvas')"), "the raster stayed"
    edges = view.root.evaluate(_EDGES)
    assert len(edges) == 6 * 40 and any(e["rendered"] for e in edges), "the SVG does not render its edges again"
    hidden = [e["id"] for e in edges if not e["rendered"] and "mgw-culled" not in e["classes"].split()]
    assert not hidden, f"edges in sight not rendered (those far out of sight are culled): {hidden}"


# Fills at low detail (js/graph/visible.js looksAlike): each value box's fill as the SVG holds it, by data-node.
_FILLS = """r => Object.fromEntries([...r.querySelectorAll('[data-role=graph] g.node[data-node]')]
  .map(g => [g.getAttribute('data-node'), g.querySelector('polygon, path').getAttribute('fill').toLowerCase()]))"""

# Slider `leaf` to its max in one frame, then the fills and data-numbers right after that frame is painted; then the
# same once the numbers are current (the sliders rested), and how long that took.
_MOVE_THEN_REST = """async (r, [leaf, fills]) => {""" + _MOVE_TO_MAX + """
  const moved = {state: graph.getAttribute('data-numbers'), fills: eval(fills)(r)};
  const t0 = performance.now();
  while (graph.getAttribute('data-numbers') !== 'current' && performance.now() - t0 < 10000) await frame();
  return {moved, rested: {state: graph.getAttribute('data-numbers'), fills: eval(fills)(r)}, max: Number(slider.max)};
}"""


def _chain_fills(a: float) -> dict[str, str]:
    """Each box's fill as Python's colours compute it for a chain of 20 at `a` (the picture's scale: dot.graph_view)."""
    nodes = labelled_chain(20, a)
    scale = ColorScale(graph_view(Tape.from_value(nodes["n20"])).scale, 4)
    return {key: grad_color(v.grad, scale) for key, v in nodes.items()}


def _channels_apart(a: str, b: str) -> int:
    """The largest difference of two "#rrggbb" fills on one RGB channel."""
    return max(abs(int(a[k:k + 2], 16) - int(b[k:k + 2], 16)) for k in (1, 3, 5))


def _chain_at_fit(show) -> WidgetDom:
    """A chain of 20 fitted in the graph box (every box in sight), at low detail, its fills Python's."""
    view = show(labelled_chain(20, 0.5)["n20"])
    graph = view.root.locator("[data-role=graph]")
    graph.focus()
    graph.press("0")
    assert graph.get_attribute("data-detail") == "low", "the fitted chain is drawn at full detail: the test needs low"
    assert all(b["where"] == "in" for b in look(view)), "the fitted chain is not all in sight"
    assert view.root.evaluate(_FILLS) == _chain_fills(0.5)
    return view


def test_at_low_detail_a_move_writes_the_visible_fill_changes_and_the_rest_once_rested(show, guarded):
    view = _chain_at_fit(show)
    seen = view.root.evaluate(_MOVE_THEN_REST, ["a", _FILLS])
    before, after = _chain_fills(0.5), _chain_fills(seen["max"])
    apart = {key: _channels_apart(before[key], after[key]) for key in before}
    small = sorted(key for key, d in apart.items() if 0 < d <= 16)
    large = sorted(key for key, d in apart.items() if d > 16)
    assert len(small) > 20 and len(large) > 3, f"the move needs small and large fill changes: {apart}"
    moved = seen["moved"]
    assert moved["state"] == "pending", "the move left no fill for later"
    assert {k: moved["fills"][k] for k in large} == {k: after[k] for k in large}, "a visible change waited"
    assert {k: moved["fills"][k] for k in small} == {k: before[k] for k in small}, "a change too small to see went out"
    assert seen["rested"]["state"] == "current", "the numbers never came current"
    assert seen["rested"]["fills"] == after, "once the sliders rest, the fills are not Python's exact ones"


def test_an_export_made_right_after_a_move_at_low_detail_holds_the_exact_fills(show, guarded):
    view = _chain_at_fit(show)
    with guarded.page.expect_download() as info:
        seen = view.root.evaluate("""async (r, [leaf, fills]) => {""" + _MOVE_TO_MAX + """
          const state = graph.getAttribute('data-numbers');
          r.querySelector('button[data-action="export-svg"]').click();  // in the frame after the move
          return {state, max: Number(slider.max)};
        }""", ["a", _FILLS])
    assert seen["state"] == "pending", "nothing waited after the move: the test checks nothing"
    root = ET.fromstring(Path(info.value.path()).read_bytes())
    shapes = (f"{SVG}polygon", f"{SVG}path")
    exported = {g.get("data-node"): next(e for e in g.iter() if e.tag in shapes).get("fill").lower()
                for g in root.iter(f"{SVG}g") if g.get("data-node") and "node" in (g.get("class") or "").split()}
    assert exported == _chain_fills(seen["max"]), "the export holds fills of before the move"
