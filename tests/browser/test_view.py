"""The widget's view in Chromium with a fake anywidget model (no Jupyter): render, sliders, number boxes,
keyboard, reset, inspector, output chooser, escaping, op errors, cleanup, folded large graphs, theme.

Every expected number comes from the Python engine for the value the control actually took."""

from __future__ import annotations

import base64

import pytest
from builders import log_graph
from playwright.sync_api import expect

from micrograd_widget.core.tape import Tape
from micrograd_widget.picture.colors import POSITIVE_COLOR, ZERO_COLOR, ColorScale, grad_color
from micrograd_widget.picture.dot import graph_view
from micrograd_widget.picture.text import format_number

from .mgw_browser.dom import WidgetDom, expected_numbers, poll, shown_equals
from .mgw_browser.fake_model import open_view, widget_payload
from .mgw_browser.graphs import HOSTILE_LABELS, hostile_graph, lecture_L, lecture_neuron, moons_loss

pytestmark = pytest.mark.browser

LEAVES = ("a", "b", "c", "f")
INNER = ("e", "d", "L")


@pytest.fixture
def show(guarded, static_server, widget_bundle):
    """show(root, **options) -> WidgetDom: the widget rendered with a fake model in a guarded page."""
    def _show(root, **options) -> WidgetDom:
        return open_view(guarded.page, static_server, root, **options)
    return _show


def test_lecture_graph_renders_every_node_with_its_numbers(show):
    nodes = lecture_L()
    view = show(nodes["L"])
    expect(view.root).to_have_attribute("data-state", "ready")
    shown = view.numbers()
    for label in nodes:
        assert len(shown.get(label, {}).get("data", [])) == 1, f"node {label!r}: data shown {shown.get(label)}"
        assert len(shown.get(label, {}).get("grad", [])) == 1, f"node {label!r}: grad shown {shown.get(label)}"
    view.expect_numbers(expected_numbers(nodes), timeout_s=0)


def test_one_slider_and_one_number_box_per_leaf_with_shortcuts_suppressed(show):
    nodes = lecture_L()
    view = show(nodes["L"])
    assert view.root.locator("input[type=range]").count() == len(LEAVES)
    for leaf in LEAVES:
        for control in (view.slider(leaf), view.number_box(leaf)):
            expect(control).to_have_count(1)
            expect(control).to_have_attribute("data-lm-suppress-shortcuts", "true")
        assert shown_equals(view.slider(leaf).input_value(), nodes[leaf].data)
        assert float(view.number_box(leaf).input_value()) == nodes[leaf].data
    for inner in INNER:
        expect(view.slider(inner)).to_have_count(0)


def test_moving_a_slider_updates_data_and_grad_of_every_node(show):
    view = show(lecture_L()["L"])
    x = view.move_slider("a", 0.8)
    assert x != 2.0, "the slider did not move"
    view.expect_numbers(expected_numbers(lecture_L(a=x)))
    assert float(view.number_box("a").input_value()) == pytest.approx(x, abs=1e-12)


def test_slider_input_event_updates_the_view_within_one_animation_frame(show, guarded):
    view = show(lecture_L()["L"])
    lo, hi, _ = view.slider_range("a")
    # Set the value and dispatch 'input' in the page, then let one frame render before reading.
    taken = view.slider("a").evaluate(
        """(el, v) => new Promise(resolve => {
             el.value = String(v);
             el.dispatchEvent(new Event('input', {bubbles: true}));
             requestAnimationFrame(() => requestAnimationFrame(() => resolve(Number(el.value))));
           })""", lo + 0.3 * (hi - lo))
    problems = view.mismatches(expected_numbers(lecture_L(a=taken)))
    assert not problems, f"one frame after 'input' the view still showed old numbers: {problems}"


def test_number_box_sets_an_exact_value(show):
    view = show(lecture_L()["L"])
    view.type_number("a", "1.2345678901")
    view.expect_numbers(expected_numbers(lecture_L(a=1.2345678901)))


def test_arrow_key_on_a_focused_slider_moves_the_leaf(show):
    view = show(lecture_L()["L"])
    slider = view.slider("b")
    before = float(slider.input_value())
    slider.focus()
    slider.press("ArrowRight")
    after = float(slider.input_value())
    assert after > before, f"ArrowRight left slider b at {after} (was {before})"
    view.expect_numbers(expected_numbers(lecture_L(b=after)))


def test_reset_restores_the_initial_leaf_values(show):
    nodes = lecture_L()
    view = show(nodes["L"])
    view.move_slider("a", 0.9)
    view.type_number("c", "-4.5")
    view.expect_numbers({"c": {"data": -4.5}})
    view.root.locator('button[data-role="reset"]').click()
    view.expect_numbers(expected_numbers(nodes))
    for leaf in LEAVES:
        assert shown_equals(view.slider(leaf).input_value(), nodes[leaf].data), f"slider {leaf} not reset"


def test_inspector_shows_full_precision_op_and_inputs_of_a_clicked_node(show):
    nodes = lecture_neuron()
    view = show(nodes["o"])
    inspector = view.root.locator('[data-role="inspector"]')
    for label, op_text, inputs in (("n", "+", ("x1*w1 + x2*w2", "b")), ("o", "tanh", ("n",))):
        view.root.locator(f'[data-node="{label}"][data-field="data"]').first.click()
        data = inspector.locator('[data-field="data"]')
        grad = inspector.locator('[data-field="grad"]')
        expect(data).to_have_count(1)
        expect(grad).to_have_count(1)
        want = (nodes[label].data, nodes[label].grad)
        shown = poll(lambda data=data, grad=grad: (_as_float(data.text_content()), _as_float(grad.text_content())),
                     want.__eq__,
                     f"the inspector of {label!r} to show full-precision data and grad {want}")
        assert shown == want
        text = inspector.text_content()
        assert op_text in text, f"inspector of {label} does not name its op {op_text!r}: {text!r}"
        for name in inputs:
            assert name in text, f"inspector of {label} does not list input {name!r}: {text!r}"


def _as_float(text: str | None) -> float | None:
    """The number in an inspector field, or None while it shows none."""
    try:
        return float((text or "").strip().replace("\u2212", "-"))
    except ValueError:
        return None


def test_output_chooser_changes_which_node_is_differentiated(show):
    nodes = lecture_L()
    tape = Tape.from_value(nodes["L"])
    view = show(nodes["L"])
    chooser = view.root.locator('select[data-role="output"]')
    expect(chooser).to_have_count(1)
    option_values = chooser.locator("option").evaluate_all("os => os.map(o => o.value)")
    ids = {label: tape.index(v) for label, v in nodes.items()}
    assert str(ids["L"]) in option_values, f"the root's node id {ids['L']} is not an output option: {option_values}"
    assert chooser.input_value() == str(ids["L"]), "the default output is not the root"
    for out in ("d", "e"):
        assert str(ids[out]) in option_values, f"node {out} (id {ids[out]}) is not an output option: {option_values}"
        chooser.select_option(value=str(ids[out]))
        grads = tape.backward(output=ids[out])
        view.expect_numbers({label: {"data": nodes[label].data, "grad": grads[i]} for label, i in ids.items()})


def test_hostile_labels_render_as_text_and_run_nothing(show, guarded):
    nodes = hostile_graph()
    view = show(nodes["out"])
    text = view.root.text_content()
    for label in HOSTILE_LABELS:
        assert label in text, f"label {label!r} is not shown as text"
        assert view.count_with_attr("input[type=range]", "data-leaf", label) == 1, f"no slider for leaf {label!r}"
    assert view.root.locator("img, script, iframe, object, embed").count() == 0, "a label became an element"
    assert view.root.evaluate(
        "r => [...r.querySelectorAll('*')].filter(e => e.hasAttribute('onerror')).length") == 0
    leaf = HOSTILE_LABELS[0]
    view.root.evaluate(
        "(r, leaf) => {"
        " const s = [...r.querySelectorAll('input[type=range]')].find(e => e.getAttribute('data-leaf') === leaf);"
        " s.value = String((Number(s.min) + Number(s.max)) / 2);"
        " s.dispatchEvent(new Event('input', {bubbles: true})); }",
        leaf)
    guarded.page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    assert not guarded.log.dialogs, f"a label ran script: {guarded.log.dialogs}"
    assert not [u for u in guarded.log.requests if u.rstrip("/").endswith("/x")], "an <img src=x> was requested"


def test_op_error_while_dragging_shows_a_message_and_the_view_recovers(show):
    nodes = log_graph(backward=True)
    view = show(nodes["z"])
    lo, hi, _ = view.slider_range("x")
    if lo <= -1.0:
        view.set_slider("x", -1.0)
    else:
        view.type_number("x", "-1")
    error = view.root.locator('[data-role="error"]')
    expect(error).to_be_visible(timeout=5_000)
    expect(error).to_contain_text("log")
    view.set_slider("x", max(lo, 0.0) + 0.75 * (hi - max(lo, 0.0)))
    x = float(view.slider("x").input_value())
    assert x > 0
    expect(error).to_be_hidden()
    expect(view.root).to_have_attribute("data-state", "ready")
    view.expect_numbers(expected_numbers(log_graph(x, backward=True)))


def test_python_side_refresh_flows_into_the_view(show, guarded):
    from micrograd_widget.graph.widget import GraphWidget

    nodes = lecture_L()
    widget = GraphWidget(nodes["L"])
    view = show(widget)
    before = widget_payload(widget)["state"]
    nodes["a"].data = 3.25
    assert hasattr(widget, "refresh"), \
        "GraphWidget has no refresh() (issue 4: the user edits a leaf and calls refresh())"
    widget.refresh()
    after = widget_payload(widget)["state"]
    changed = {k: v for k, v in after.items() if before.get(k) != v}
    assert changed, "refresh() after editing a leaf changed no synced state"
    guarded.page.evaluate(
        "changed => { for (const [k, v] of Object.entries(changed)) window.__mgw.model.set(k, v); }", changed)
    view.expect_numbers(expected_numbers(lecture_L(a=3.25)))


def test_cleanup_leaves_the_element_empty_or_inert(show, guarded):
    show(lecture_L()["L"])
    page = guarded.page
    kind = page.evaluate("() => typeof window.__mgw.cleanup")
    assert kind == "function", f"render() returned {kind}, not a cleanup function"
    page.evaluate("""async () => { const m = window.__mgw;
        m.detached = [...m.el.querySelectorAll('input[type=range]')];
        m.calls = m.log.save.length + m.log.send.length;
        await m.cleanup(); }""")
    after = page.evaluate("""async () => { const m = window.__mgw;
        const before = m.el.innerHTML;
        for (const s of m.detached) { s.value = s.max; s.dispatchEvent(new Event('input', {bubbles: true}));
                                      s.dispatchEvent(new Event('change', {bubbles: true})); }
        for (const event of m.model._listeners) m.model._fire(event, m.model, m.model.get(event.slice(7)));
        return {empty: m.el.childElementCount === 0, unchanged: m.el.innerHTML === before}; }""")
    # 400 ms crosses the contract's ~150 ms settle debounce: a pending send would have gone out by then.
    page.wait_for_timeout(400)
    calls = page.evaluate("() => window.__mgw.log.save.length + window.__mgw.log.send.length - window.__mgw.calls")
    assert after["empty"] or after["unchanged"], "after cleanup the view still reacts to its inputs or model"
    assert calls == 0, f"after cleanup the view still saved/sent {calls} time(s)"


def test_folded_moons_loss_graph_renders_and_a_slider_updates_in_place(show, guarded):
    loss = moons_loss()
    tape = Tape.from_value(loss)
    view = show(loss)
    drawn = view.root.evaluate(
        "r => new Set([...r.querySelectorAll('[data-node]')].map(e => e.getAttribute('data-node'))).size")
    assert 0 < drawn < len(tape) // 10, f"{drawn} of {len(tape)} nodes drawn: the large graph was not folded"
    text = view.root.text_content()
    assert "fold" in text.lower(), "the view does not say what it folded"
    slider = view.root.locator("input[type=range]").first
    leaf = slider.get_attribute("data-leaf")
    labels = {lab: i for i, lab in enumerate(tape.labels) if lab}
    node = labels[leaf] if leaf in labels else int(leaf)
    assert node in tape.leaves
    root_data = view.root.locator('[data-node="loss"][data-field="data"]')
    expect(root_data).to_have_count(1)
    # Same element, same anchor: a number may grow wider (more digits) but must not be moved or replaced.
    anchor = "e => { const r = e.getBoundingClientRect(); return JSON.stringify([r.left, r.top]); }"
    root_data.evaluate("e => { e.__mgwMark = true; }")
    before = root_data.evaluate(anchor)
    x = view.move_slider(leaf, 0.9)
    want = tape.forward({node: x})[tape.root]
    view.expect_numbers({"loss": {"data": want}})
    assert root_data.evaluate("e => e.__mgwMark === true"), "the root's number was replaced instead of updated in place"
    assert root_data.evaluate(anchor) == before, "the root's number moved: the layout changed with the data"


def _mean_luminance(page, locator) -> float:
    """Mean relative luminance (0 black .. 1 white) of a screenshot of ``locator``, computed in the page."""
    png = base64.b64encode(locator.screenshot()).decode("ascii")
    return page.evaluate("""async (png) => {
        const img = new Image(); img.src = 'data:image/png;base64,' + png; await img.decode();
        const c = document.createElement('canvas'); c.width = img.width; c.height = img.height;
        const g = c.getContext('2d'); g.drawImage(img, 0, 0);
        const d = g.getImageData(0, 0, c.width, c.height).data; let sum = 0;
        for (let i = 0; i < d.length; i += 4) sum += (0.2126 * d[i] + 0.7152 * d[i + 1] + 0.0722 * d[i + 2]) / 255;
        return sum / (d.length / 4); }""", png)


def test_dark_jupyterlab_theme_applies(show, guarded):
    root = lecture_L()["L"]
    light = _mean_luminance(guarded.page, show(root, theme="light").root)
    dark_view = show(root, theme="dark")
    dark = _mean_luminance(guarded.page, dark_view.root)
    assert light > 0.5, f"with JupyterLab's light theme the widget looks dark (mean luminance {light:.2f})"
    assert dark < 0.5, f"with a dark --jp-layout-color0 the widget stays light (mean luminance {dark:.2f})"


_READ_FILLS = """r => Object.fromEntries([...r.querySelectorAll('g.node.mgw-value')].map(g =>
    [g.id, g.querySelector('polygon, path').getAttribute('fill').toLowerCase()]))"""
_READ_LEGEND = """r => [...r.querySelectorAll('#mgw-legend text')].map(t => t.textContent)"""


def test_colours_leave_the_differentiated_output_out_of_the_scale(show):
    """After a saturated tanh (w1 = -1) every box but the output keeps a colour, as dot.py draws it; with
    another node differentiated, that node is the one left out."""
    nodes = lecture_neuron()
    tape = Tape.from_value(nodes["o"])
    view = show(nodes["o"])
    view.type_number("w1", -1)
    tape.forward({tape.index(nodes["w1"]): -1.0})
    tape.backward()
    picture = graph_view(tape)

    def expected() -> dict[str, str]:
        scale = picture.scale
        return {f"n{i}": grad_color(tape.grad[i], ColorScale(scale, 4)) for i in range(len(tape))}
    want = expected()
    poll(lambda: view.root.evaluate(_READ_FILLS), lambda fills: fills == want, "the fills dot.py draws for w1 = -1")
    assert want[f"n{tape.index(nodes['x1*w1'])}"] != ZERO_COLOR and want[f"n{tape.root}"] == POSITIVE_COLOR
    scale = picture.scale
    assert scale < 1e-3
    assert view.root.evaluate(_READ_LEGEND)[1:] == [format_number(v)
                                                    for v in (-scale, -scale / 4, 0.0, scale / 4, scale)]

    n = tape.index(nodes["n"])
    view.root.locator('select[data-role="output"]').select_option(value=str(n))
    tape.backward(n)
    picture = graph_view(tape, output=n)
    want = expected()
    poll(lambda: view.root.evaluate(_READ_FILLS), lambda fills: fills == want, "the fills with n differentiated")
    assert picture.scale == 2.0 and want[f"n{n}"] == grad_color(1.0, ColorScale(2.0, 4))   # d n / d w1 = x1 = 2
    assert want[f"n{tape.root}"] == ZERO_COLOR
