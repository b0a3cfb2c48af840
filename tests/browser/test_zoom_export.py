"""Pan, zoom and export in Chromium (fake model and the exported page): zoom changes the picture's scale and
never its layout (node positions in SVG user units, the same <svg> element); Ctrl+wheel zooms around the
pointer, a plain wheel does not zoom; drag pans and is not a click; Fit shows the whole picture in a narrow
column; the SVG/PNG/DOT downloads hold the picture as shown, checked against Python's numbers and DOT."""

from __future__ import annotations

import math
import re
import shutil
import struct
import xml.etree.ElementTree as ET

import pytest
from playwright.sync_api import expect

from micrograd_widget.core.tape import Tape
from micrograd_widget.engine import Value
from micrograd_widget.picture.dot import graph_view
from micrograd_widget.picture.text import format_number

from .mgw_browser.dom import WidgetDom, expected_numbers, poll
from .mgw_browser.exports import SVG, button, download, expand_box, svg_numbers
from .mgw_browser.graphs import lecture_L, lecture_mlp, lecture_neuron

pytestmark = pytest.mark.browser


# The picture's geometry: every box's bounding box in SVG user units, the drawing's transform, the <svg>
# element's identity (a mark set on first read), its scale on screen and the scrolling box's sizes.
_GEOMETRY = """r => {
  const box = r.querySelector('[data-role=graph]');
  const svg = box.querySelector('svg');
  if (!svg.__mgwMark) svg.__mgwMark = Math.random();
  const nodes = {};
  for (const g of svg.querySelectorAll('g.node')) {
    const b = g.getBBox();
    nodes[g.id] = [b.x, b.y, b.width, b.height].map(v => Math.round(v * 1000) / 1000);
  }
  const rect = svg.getBoundingClientRect();
  const outer = box.getBoundingClientRect();
  return {
    nodes, mark: svg.__mgwMark, transform: svg.querySelector('g.graph').getAttribute('transform'),
    viewBox: svg.getAttribute('viewBox'), natural: svg.width.baseVal.value, naturalHeight: svg.height.baseVal.value,
    scale: rect.width / svg.width.baseVal.value, svgRect: [rect.left, rect.top, rect.right, rect.bottom],
    boxRect: [outer.left + box.clientLeft, outer.top + box.clientTop,
              outer.left + box.clientLeft + box.clientWidth, outer.top + box.clientTop + box.clientHeight],
    scroll: [box.scrollLeft, box.scrollTop], client: [box.clientWidth, box.clientHeight],
    scrollSize: [box.scrollWidth, box.scrollHeight], level: r.querySelector('[data-role=zoom-level]').textContent,
  };
}"""

# The point of the picture (SVG user units) under the client point (x, y).
_UNDER = """(r, [x, y]) => {
  const svg = r.querySelector('[data-role=graph] svg');
  const p = svg.createSVGPoint();
  p.x = x; p.y = y;
  const q = p.matrixTransform(svg.getScreenCTM().inverse());
  return [q.x, q.y];
}"""

# The client centre of the box of node `key`.
_CENTRE = """(r, key) => {
  const b = r.querySelector(`[data-role=graph] g[data-node="${key}"]`).getBoundingClientRect();
  return [b.left + b.width / 2, b.top + b.height / 2];
}"""


def geometry(view: WidgetDom) -> dict:
    return view.root.evaluate(_GEOMETRY)


def under(view: WidgetDom, x: float, y: float) -> list[float]:
    return view.root.evaluate(_UNDER, [x, y])


def scale_becomes(view: WidgetDom, expected: float, what: str) -> dict:
    return poll(lambda: geometry(view), lambda g: abs(g["scale"] - expected) < 1e-3 * expected, what)


def fit_shows_all(view: WidgetDom, where: str) -> None:
    """Press Fit: the box stops scrolling and the whole picture lies inside it (`where`: for the poll's message)."""
    button(view, "fit").click()
    g = poll(lambda: geometry(view), lambda g: g["scrollSize"][0] <= g["client"][0] + 1
             and g["scrollSize"][1] <= g["client"][1] + 1, f"Fit to show the whole picture{where}")
    left, top, right, bottom = g["boxRect"]
    sl, st, sr, sb = g["svgRect"]
    assert left - 1 <= sl and sr <= right + 1 and top - 1 <= st and sb <= bottom + 1, f"not all shown: {g}"


def assert_same_layout(before: dict, after: dict) -> None:
    assert after["mark"] == before["mark"], "the picture was laid out again (a new <svg>)"
    assert after["nodes"] == before["nodes"], "node positions in SVG user units changed"
    assert (after["transform"], after["viewBox"]) == (before["transform"], before["viewBox"])


def test_zoom_buttons_and_keys_change_the_scale_not_the_layout(show, guarded):
    view = show(lecture_L()["L"])
    start = geometry(view)
    base = start["scale"]
    assert start["level"] == f"{round(base * 100)}%"
    graph = view.root.locator('[data-role="graph"]')
    steps = [(lambda: button(view, "zoom-in").click(), 1.25),
             (lambda: button(view, "zoom-in").click(), 1.25 ** 2),
             (lambda: button(view, "zoom-out").click(), 1.25),
             (lambda: button(view, "zoom-out").click(), 1)]
    for key, factor in (("]", 1.25), ("]", 1.25 ** 2), ("[", 1.25)):
        steps.append((lambda key=key: (graph.focus(), guarded.page.keyboard.press(key)), factor))
    for act, factor in steps:
        act()
        now = scale_becomes(view, base * factor, f"scale {base * factor:.4f}")
        assert now["level"] == f"{round(base * factor * 100)}%"
        assert_same_layout(start, now)
    guarded.page.keyboard.press("0")
    now = poll(lambda: geometry(view), lambda g: g["scale"] < base * 1.2 and g["scrollSize"][0] <= g["client"][0] + 1
               and g["scrollSize"][1] <= g["client"][1] + 1, "Fit (0): the whole picture in the box")
    assert_same_layout(start, now)
    # The zoom shown is the button back to 100% (and 1 the key), whatever the zoom was.
    level = view.root.locator('[data-role="zoom-level"]')
    assert level.get_attribute("aria-label") == f"Zoom {round(now['scale'] * 100)}%: show at 100% (1)"
    level.click()
    now = scale_becomes(view, 1.0, "100% from the zoom button")
    assert now["level"] == "100%" and level.get_attribute("aria-label") == "Zoom 100%: show at 100% (1)"
    assert_same_layout(start, now)
    button(view, "zoom-out").click()
    scale_becomes(view, 0.8, "zoomed out from 100%")
    graph.focus()
    guarded.page.keyboard.press("1")
    assert_same_layout(start, scale_becomes(view, 1.0, "100% from the 1 key"))
    # Zoomed, a slider frame still paints every number in place.
    button(view, "zoom-in").click()
    x = view.move_slider("a", 0.8)
    view.expect_numbers(expected_numbers(lecture_L(a=x)))
    assert_same_layout(start, geometry(view))


_FOCUS = """r => {
  const a = document.activeElement, graph = r.querySelector('[data-role=graph]');
  return { inPicture: graph.contains(a) && a !== graph, box: a.closest('g.node')?.id ?? null, tag: a.tagName };
}"""


def test_zoom_keys_work_with_a_box_of_the_picture_focused_and_plus_minus_still_fold(show, guarded):
    view = show(lecture_mlp())
    page = guarded.page
    graph = view.root.locator('[data-role="graph"]')
    graph.focus()
    page.keyboard.press("]")  # zoomed by the user: a new picture keeps the scale
    chosen = scale_becomes(view, geometry(view)["scale"], "zoom")["scale"]
    zoom = graph.get_attribute("data-zoom")  # the scale the view set, to 4 decimals
    box = view.root.locator('[data-role="graph"] g.mgw-fold[data-fold="layers.0.neurons.3"]')
    box.focus()
    page.keyboard.press("+")  # opens the box, moves the focus into it, and does not zoom
    expect(view.root.locator('[data-role="graph"] g.cluster[data-fold="layers.0.neurons.3"]')).to_have_count(1)
    poll(lambda: view.root.evaluate(_FOCUS), lambda f: f["inPicture"] and f["box"], "the focus on a box inside")
    assert graph.get_attribute("data-zoom") == zoom, "+ zoomed"
    start = geometry(view)
    for key, factor in (("]", 1.25), ("]", 1.25 ** 2), ("[", 1.25)):
        page.keyboard.press(key)
        now = scale_becomes(view, chosen * factor, f"{key} with a box focused: scale {chosen * factor:.4f}")
        assert_same_layout(start, now)
        assert view.root.evaluate(_FOCUS)["inPicture"], "the zoom key moved the focus out of the picture"
    page.keyboard.press("0")
    poll(lambda: geometry(view), lambda g: g["scrollSize"][0] <= g["client"][0] + 1
         and g["scrollSize"][1] <= g["client"][1] + 1, "Fit (0) with a box focused: the whole picture in the box")
    fitted = graph.get_attribute("data-zoom")
    page.keyboard.press("-")  # closes the box around the focused node, and does not zoom
    expect(view.root.locator('[data-role="graph"] g.cluster')).to_have_count(0)
    assert graph.get_attribute("data-zoom") == fitted, "- zoomed"
    # typed into a field (the search box), the keys are text
    search = view.root.locator('input[data-role="search"]')
    search.focus()
    page.keyboard.type("]0[")
    assert search.input_value() == "]0[" and graph.get_attribute("data-zoom") == fitted


def test_ctrl_wheel_zooms_around_the_pointer_and_a_plain_wheel_does_not(show, guarded):
    view = show(lecture_L()["L"])
    page = guarded.page
    base = geometry(view)["scale"]
    x, y = view.root.evaluate(_CENTRE, "d")
    page.mouse.move(x, y)
    page.mouse.wheel(0, 200)
    page.wait_for_timeout(150)
    assert geometry(view)["scale"] == pytest.approx(base, abs=1e-6), "a plain wheel zoomed"
    page.evaluate("() => window.scrollTo(0, 0)")
    x, y = view.root.evaluate(_CENTRE, "d")
    page.mouse.move(x, y)
    before, point = geometry(view), under(view, x, y)
    page.keyboard.down("Control")
    page.mouse.wheel(0, -250)
    page.keyboard.up("Control")
    after = poll(lambda: geometry(view), lambda g: g["scale"] > base * 1.3, "Ctrl+wheel to zoom in")
    assert_same_layout(before, after)
    assert under(view, x, y) == pytest.approx(point, abs=0.5), "the point under the pointer moved"
    page.keyboard.down("Control")
    page.mouse.wheel(0, 150)
    page.keyboard.up("Control")
    poll(lambda: geometry(view), lambda g: g["scale"] < after["scale"] - 0.05, "Ctrl+wheel down to zoom out")
    assert under(view, x, y) == pytest.approx(point, abs=0.5), "the point under the pointer moved zooming out"


def test_two_finger_pinch_zooms_around_the_fingers(show, guarded):
    view = show(lecture_L()["L"])
    page = guarded.page
    start = geometry(view)
    x, y = view.root.evaluate(_CENTRE, "d")
    point = under(view, x, y)
    cdp = page.context.new_cdp_session(page)

    def touch(kind: str, spread: float) -> None:
        points = [] if kind == "touchEnd" else [{"x": x - spread, "y": y, "id": 0}, {"x": x + spread, "y": y, "id": 1}]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    touch("touchStart", 40)
    for spread in (50, 60, 70, 80):
        touch("touchMove", spread)
    touch("touchEnd", 0)
    g = poll(lambda: geometry(view), lambda g: g["scale"] > start["scale"] * 1.5, "a pinch to zoom in")
    assert g["scale"] == pytest.approx(start["scale"] * 2, rel=0.02), "the picture did not follow the fingers"
    assert_same_layout(start, g)
    # Four zoom steps, each scroll offset a whole pixel: the point may drift by a pixel or two, no more.
    assert under(view, x, y) == pytest.approx(point, abs=2), "the point between the fingers moved"


def test_drag_pans_and_is_not_a_click(show, guarded):
    view = show(lecture_L()["L"])
    page = guarded.page
    base = geometry(view)["scale"]
    for _ in range(3):
        button(view, "zoom-in").click()
    g = scale_becomes(view, base * 1.25 ** 3, "three zoom steps")
    box = g["boxRect"]
    # A box well inside the visible area, with room to scroll right and down.
    key = view.root.evaluate("""(r, box) => {
      for (const g of r.querySelectorAll('[data-role=graph] g[data-node]')) {
        const b = g.getBoundingClientRect(), x = b.left + b.width / 2, y = b.top + b.height / 2;
        const inside = x > box[0] + 100 && x < box[2] - 100 && y > box[1] + 60 && y < box[3] - 60;
        if (inside) return g.getAttribute('data-node');
      }
      return null; }""", box)
    assert key, f"no box in the middle of the visible picture {g}"
    box_scroll = view.root.locator('[data-role="graph"]')
    box_scroll.evaluate("b => { b.scrollLeft = 0; b.scrollTop = 0; }")
    g = geometry(view)
    room = (g["scrollSize"][0] - g["client"][0], g["scrollSize"][1] - g["client"][1])
    assert room[0] >= 80 and room[1] >= 30, f"nothing to pan: {g}"
    x, y = view.root.evaluate(_CENTRE, key)
    start = g
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x - 40, y - 15, steps=4)
    page.mouse.move(x - 80, y - 30, steps=4)
    page.mouse.up()
    g = geometry(view)
    assert g["scroll"] == pytest.approx([80, 30], abs=1.5), "the drag did not pan by the distance dragged"
    assert_same_layout(start, g)
    inspector = view.root.locator('[data-role="inspector"]')
    expect(inspector).to_be_hidden()
    # A click without a drag still picks the box.
    x, y = view.root.evaluate(_CENTRE, key)
    page.mouse.click(x, y)
    expect(inspector).to_be_visible()
    expect(inspector).to_have_attribute("data-node", key)


@pytest.mark.parametrize("width", [700, 1000])
def test_fit_shows_the_whole_picture_in_a_narrow_column(show, guarded, width):
    guarded.page.set_viewport_size({"width": width, "height": 900})
    view = show(lecture_neuron()["o"])
    g = geometry(view)
    assert g["boxRect"][2] <= width, "the picture's box is wider than the page: cut off"
    if g["scale"] > 0.999:  # not fitted: the box scrolls, the whole picture is reachable
        assert g["scrollSize"][0] > g["client"][0]
        assert g["natural"] > g["client"][0] / 1
    fit_shows_all(view, "")


def test_a_picture_wider_than_its_box_is_fitted_until_the_user_zooms(show, guarded):
    view = show(lecture_L()["L"])
    graph = view.root.locator('[data-role="graph"]')
    natural = geometry(view)["natural"]
    overflow = lambda: graph.evaluate("g => g.scrollWidth - g.clientWidth")  # noqa: E731
    for width in (1400, 1000, 700):
        guarded.page.set_viewport_size({"width": width, "height": 1000})
        box = poll(lambda: graph.evaluate("g => g.clientWidth"), lambda w, width=width: w < width,
                   f"the box to follow a {width} px page")
        if natural > box >= natural * 0.6:
            poll(overflow, lambda o: o <= 1, f"the {natural:.0f} px picture to fit the {box} px box")
            assert geometry(view)["scale"] < 1
        elif natural > box:
            # Fitting would shrink the text below 60%, unreadable: 60%, the box scrolls (the output in sight).
            poll(lambda: geometry(view)["scale"], lambda s: abs(s - 0.6) < 1e-3, "60%")
        else:
            poll(lambda: geometry(view)["scale"], lambda s: abs(s - 1) < 1e-3, "100% (not wider: never enlarged)")
    # Once the user zooms, the view keeps that choice.
    button(view, "zoom-in").click()
    chosen = geometry(view)["scale"]
    guarded.page.set_viewport_size({"width": 1400, "height": 1000})
    guarded.page.wait_for_timeout(150)
    assert geometry(view)["scale"] == pytest.approx(chosen, rel=1e-6)


# ---------------------------------------------------------------- export


def test_export_svg_holds_the_current_numbers_and_colours(show, guarded):
    view = show(lecture_L()["L"])
    x = view.move_slider("a", 0.8)
    nodes = lecture_L(a=x)
    view.expect_numbers(expected_numbers(nodes))
    button(view, "zoom-in").click()  # the file is the picture at its own size, not as zoomed
    name, text = download(guarded.page, view, "export-svg")
    assert name == "L.svg"
    shown = svg_numbers(text)
    for label, v in nodes.items():
        assert shown[label] == {"data": format_number(v.data, 4), "grad": format_number(v.grad, 4)}, label
    root = ET.fromstring(text)
    assert root.get("width", "").endswith("pt") and root.get("style") is None
    assert root.find(f".//{SVG}g[@id='mgw-legend']") is not None, "the legend is part of the picture"
    fills = view.root.evaluate("""r => Object.fromEntries([...r.querySelectorAll('[data-role=graph] g[data-node]')]
        .map(g => [g.getAttribute('data-node'), g.querySelector('polygon, path').getAttribute('fill')]))""")
    for g in root.iter(f"{SVG}g"):
        key = g.get("data-node")
        if key and g.get("class", "").startswith("node"):
            shape = next(el for el in g.iter() if el.tag in (f"{SVG}polygon", f"{SVG}path"))
            assert shape.get("fill") == fills[key], f"{key}: the file's colour is not the one shown"


def test_export_svg_keeps_a_traced_path_and_draws_it_as_on_screen(show, guarded):
    view = show(lecture_L()["L"])
    view.root.locator('[data-role="graph"] g[data-node="d"]').click()
    view.root.locator('[data-action="trace-up"]').click()
    expect(view.root.locator('[data-role="graph"] g.mgw-path[data-node="a"]')).to_have_count(1)
    _, text = download(guarded.page, view, "export-svg")
    root = ET.fromstring(text)
    marked = {g.get("data-node") for g in root.iter(f"{SVG}g") if "mgw-path" in (g.get("class") or "").split()}
    assert {"a", "b", "c", "e"} <= marked, marked
    style = "".join(el.text or "" for el in root.iter(f"{SVG}style"))
    assert "g.mgw-path polygon" in style, "the file does not draw the marks the page's stylesheet draws"


def test_export_of_an_opened_box_is_the_picture_python_writes_for_that_open_set(show, guarded):
    loss = lecture_mlp()
    view = show(loss, node_budget=60)
    key = "layers.1.neurons.0"
    opened = expand_box(view, guarded.page, key)
    assert key in opened, opened
    _, dot = download(guarded.page, view, "export-dot")
    assert dot.decode() == graph_view(Tape.from_value(loss), node_budget=60, open_keys=opened).dot
    _, text = download(guarded.page, view, "export-svg")
    clusters = [g for g in ET.fromstring(text).iter(f"{SVG}g") if g.get("data-fold") == key]
    assert clusters and "cluster" in clusters[0].get("class", ""), "the opened box is not in the SVG file"


def test_export_png_is_twice_the_pictures_css_size(show, guarded):
    view = show(lecture_L()["L"])
    g = geometry(view)
    name, data = download(guarded.page, view, "export-png")
    assert name == "L.png"
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (round(2 * g["natural"]), round(2 * g["naturalHeight"]))
    assert view.root.locator('[data-role="status"]').text_content() == f"Saved L.png at 2x ({width} x {height} px)."
    # Not a blank image: draw it back in the page and count the non-white pixels.
    inked = guarded.page.evaluate("""async (b64) => {
      const img = new Image(); img.src = 'data:image/png;base64,' + b64; await img.decode();
      const c = document.createElement('canvas'); c.width = img.width; c.height = img.height;
      const x = c.getContext('2d'); x.drawImage(img, 0, 0);
      const px = x.getImageData(0, 0, c.width, c.height).data; let n = 0;
      for (let i = 0; i < px.length; i += 4) if (px[i] < 200 || px[i + 1] < 200 || px[i + 2] < 200) n++;
      return n; }""", __import__("base64").b64encode(data).decode())
    assert inked > 0.01 * width * height, f"the PNG is nearly blank ({inked} dark pixels)"


def long_chain(n: int) -> Value:
    """out = (...((x * 1.01 + 0.1) * 1.01 + 0.1)...) n times: drawn left to right, about 790 px wide per step."""
    x = Value(0.5, label="x")
    for _ in range(n):
        x = x * Value(1.01) + Value(0.1)
    x.label = "out"
    x.backward()
    return x


CANVAS_SIDE, CANVAS_AREA = 16384, 16384 * 16384 // 4  # the limits the view keeps a PNG within


def fits_canvas(width: int, height: int) -> bool:
    return width <= CANVAS_SIDE and height <= CANVAS_SIDE and width * height <= CANVAS_AREA


def svg_size_px(text: bytes) -> tuple[float, float]:
    """The exported SVG's width and height in CSS px (Graphviz writes pt: 4/3 px each)."""
    root = ET.fromstring(text)
    width, height = (float(root.get(side, "").removesuffix("pt")) * 4 / 3 for side in ("width", "height"))
    return width, height


@pytest.mark.parametrize("steps", [18, 28], ids=["between-1x-and-2x", "below-1x"])
def test_export_png_of_a_picture_too_large_at_2x_is_written_at_the_largest_scale_that_fits(show, guarded, steps):
    view = show(long_chain(steps), node_budget=None)
    _, svg = download(guarded.page, view, "export-svg")
    width, height = svg_size_px(svg)
    assert not fits_canvas(round(2 * width), round(2 * height)), "the picture fits at 2x: the test shows nothing"
    name, data = download(guarded.page, view, "export-png")
    assert name == "out.png" and data[:8] == b"\x89PNG\r\n\x1a\n"
    png = struct.unpack(">II", data[16:24])
    status = view.root.locator('[data-role="status"]').text_content() or ""
    said = re.match(r"Saved out\.png at ([0-9.]+)x \((\d+) x (\d+) px\): at 2x it would pass", status)
    assert said, status
    scale = float(said.group(1))
    assert 0.5 <= scale < 2 and (scale < 1) == (steps == 28), status
    assert png == (int(said.group(2)), int(said.group(3))), (status, png)
    assert png == (round(width * scale), round(height * scale)), "the PNG is not the SVG at the scale reported"
    assert not fits_canvas(round(width * (scale + 0.01)), round(height * (scale + 0.01))), "a larger scale fits"
    assert view.error_text() == ""


def test_export_png_of_a_picture_too_large_even_at_half_size_says_so_and_saves_nothing(show, guarded):
    view = show(long_chain(44), node_budget=None)
    _, svg = download(guarded.page, view, "export-svg")
    width, height = svg_size_px(svg)
    assert not fits_canvas(round(width / 2), round(height / 2)), "the picture fits at 0.5x: the test shows nothing"
    saved: list = []
    guarded.page.on("download", lambda d: saved.append(d))
    button(view, "export-png").click()
    error = poll(view.error_text, lambda text: "PNG" in text, "the export's error")
    assert "too large for a PNG even at 0.5x" in error and "export SVG instead" in error, error
    assert not saved


def test_export_dot_is_what_python_writes(show, guarded):
    L = lecture_L()["L"]
    view = show(L)
    name, text = download(guarded.page, view, "export-dot")
    assert name == "L.dot"
    assert text.decode("utf-8") == graph_view(Tape.from_value(lecture_L()["L"])).dot


@pytest.mark.parametrize(("label", "stem"), [("", "graph"), ("../loss <train>", "loss_train")])
def test_export_files_are_named_after_the_outputs_label(show, guarded, label, stem):
    out = Value(2.0, label="x") * Value(3.0, label="y")
    out.label = label
    view = show(out)
    for action, ext in (("export-svg", "svg"), ("export-dot", "dot")):
        name, _ = download(guarded.page, view, action)
        assert name == f"{stem}.{ext}"


def test_exported_page_zooms_and_exports_without_a_kernel(tmp_path, static_server, widget_bundle, guarded):
    from micrograd_widget import save_html

    nodes = lecture_L()
    out = save_html(nodes["L"], tmp_path / "page.html")
    served = static_server.root / f"zoom-export-{tmp_path.name}"
    served.mkdir()
    shutil.copy(out, served / "page.html")
    page = guarded.page
    page.goto(f"{static_server.url}/{served.name}/page.html")
    view = WidgetDom(page)
    view.wait_ready(60)
    start = geometry(view)
    button(view, "zoom-in").click()
    assert_same_layout(start, scale_becomes(view, start["scale"] * 1.25, "zoom in"))
    button(view, "fit").click()
    x = view.move_slider("b", 0.3)
    moved = lecture_L(b=x)
    view.expect_numbers(expected_numbers(moved))
    name, text = download(page, view, "export-svg")
    assert name == "L.svg"
    assert svg_numbers(text)["L"] == {"data": format_number(moved["L"].data, 4), "grad": "1.0000"}
    name, dot = download(page, view, "export-dot")
    assert dot.decode() == graph_view(Tape.from_value(moved["L"])).dot, "the DOT holds the numbers shown"
    assert math.isfinite(x)


# ---------------------------------------------------------------- marimo (its column is ~700 px)


def test_in_marimos_narrow_column_the_whole_picture_is_reachable_and_fits(tmp_path, widget_bundle, guarded_lab):
    from .mgw_browser.marimo import LECTURE_L_CELL, Cell, MarimoServer, write_marimo_notebook

    cells = [LECTURE_L_CELL, Cell("L", reads=("L",))]
    server = MarimoServer(write_marimo_notebook(tmp_path / "nb.py", cells), tmp_path / "marimo")
    try:
        page = guarded_lab.page
        page.set_viewport_size({"width": 800, "height": 900})
        page.goto(server.start().url)
        view = WidgetDom(page)
        view.wait_ready(timeout_s=60)
        g = geometry(view)
        column = view.root.evaluate("r => r.getBoundingClientRect().right")
        assert g["client"][0] < 720, f"the column is {g['client'][0]} px wide, not a narrow one"
        assert g["boxRect"][2] <= column + 1, "the picture's box is wider than marimo's column: cut off"
        assert g["scale"] * g["natural"] <= g["scrollSize"][0] + 1, "part of the picture cannot be scrolled to"
        start = g
        page.mouse.move((g["boxRect"][0] + g["boxRect"][2]) / 2, (g["boxRect"][1] + g["boxRect"][3]) / 2)
        page.keyboard.down("Control")
        page.mouse.wheel(0, -200)
        page.keyboard.up("Control")
        g = poll(lambda: geometry(view), lambda g: g["scale"] > start["scale"] * 1.2, "Ctrl+wheel to zoom in marimo")
        assert_same_layout(start, g)
        fit_shows_all(view, " in marimo")
        x = view.set_slider("a", 3.5)
        view.expect_numbers(expected_numbers(lecture_L(a=x)))
        assert not guarded_lab.log.outside
    finally:
        server.stop()


# ---------------------------------------------------------------- JupyterLab (one test: each costs ~20 s)


@pytest.mark.jupyterlab
def test_in_jupyterlab_keys_zoom_without_lab_shortcuts_and_both_exports_work(jupyterlab, guarded_lab, notebook_name):
    from .mgw_browser.graphs import LECTURE_L_SOURCE
    from .mgw_browser.jupyter import write_notebook
    from .mgw_browser.lab import cell_locator, open_notebook, run_all, run_cell, stream_text

    page = guarded_lab.page
    explore = LECTURE_L_SOURCE + "from micrograd_widget import explore\nw = explore(L)\nw\n"
    save = "print(w.save_svg('zoom-export.svg').name)\n"
    write_notebook(jupyterlab.notebooks / notebook_name, [explore, save])
    open_notebook(page, jupyterlab, notebook_name)
    run_all(page, "lab")
    view = WidgetDom(cell_locator(page, 0))
    view.wait_ready(90)
    start = geometry(view)
    graph = view.root.locator('[data-role="graph"]')
    graph.focus()
    for key in ("]", "]", "0", "0"):  # "0 0" is Lab's restart-kernel shortcut: the picture keeps it
        page.keyboard.press(key)
    g = geometry(view)
    assert_same_layout(start, g)
    assert page.locator(".jp-Dialog").count() == 0, "Lab took the picture's keys for its own shortcuts"
    page.keyboard.press("]")
    scale_becomes(view, g["scale"] * 1.25, "] to zoom in, in Lab")
    x = view.move_slider("a", 0.8)
    view.expect_numbers(expected_numbers(lecture_L(a=x)))
    name, text = download(page, view, "export-svg")
    assert name == "L.svg"
    assert svg_numbers(text)["a"]["data"] == format_number(x, 4)
    out = run_cell(page, 1)
    assert stream_text(out["outputs"]).strip() == "zoom-export.svg", stream_text(out["outputs"])
    kernel_svg = (jupyterlab.notebooks / "zoom-export.svg").read_text()
    assert f"data {format_number(x, 4)}".replace("-", "&#45;") in kernel_svg, "save_svg has not the moved leaf"


@pytest.mark.jupyterlab
def test_in_notebook7_zoom_and_export_work(jupyter_notebook, guarded_lab, notebook_name):
    from .mgw_browser.graphs import LECTURE_L_SOURCE
    from .mgw_browser.jupyter import write_notebook
    from .mgw_browser.lab import cell_locator, open_notebook, run_all

    page = guarded_lab.page
    explore = LECTURE_L_SOURCE + "from micrograd_widget import explore\nw = explore(L)\nw\n"
    write_notebook(jupyter_notebook.notebooks / notebook_name, [explore])
    open_notebook(page, jupyter_notebook, notebook_name)
    run_all(page, "notebook")
    view = WidgetDom(cell_locator(page, 0))
    view.wait_ready(90)
    start = geometry(view)
    button(view, "zoom-in").click()
    assert_same_layout(start, scale_becomes(view, start["scale"] * 1.25, "zoom in, in Notebook 7"))
    name, dot = download(page, view, "export-dot")
    assert name == "L.dot"
    assert dot.decode() == graph_view(Tape.from_value(lecture_L()["L"])).dot
    name, png = download(page, view, "export-png")
    assert name == "L.png" and struct.unpack(">II", png[16:24]) == (round(2 * start["natural"]),
                                                                    round(2 * start["naturalHeight"]))
