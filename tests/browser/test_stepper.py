"""The backprop stepper in Chromium (fake model, static export, one JupyterLab session): step by step, the grads
shown are the engine's partial sums (replayed in Python in the engine's order), grads not reached yet are empty,
the node that fires is highlighted and its chain-rule products are spelled out; keyboard, play, leaving.
Also the view fixes made alongside: boxes reachable by keyboard, wide pictures fitted to the width."""

from __future__ import annotations

import math
import re
import shutil
import xml.etree.ElementTree as ET

import pytest
from builders import box_outputs, lecture_mlp_loss, picture_view, sum_of_squares
from playwright.sync_api import expect

from micrograd_widget.core.tape import Tape
from micrograd_widget.graph.widget import GraphWidget
from micrograd_widget.picture.colors import ColorScale, grad_color, grad_scale
from micrograd_widget.picture.text import format_number

from .mgw_browser.dom import WidgetDom, expected_numbers, poll, shown_equals
from .mgw_browser.exports import SVG, download
from .mgw_browser.graphs import lecture_L, moons_loss
from .mgw_browser.steps import NOT_REACHED, StepperDom, engine_steps

pytestmark = pytest.mark.browser


def _name(tape: Tape, i: int) -> str:
    return tape.labels[i] or f"#{i}"


def _keys(tape: Tape, nodes) -> set[str]:
    """The view's data-node keys of ``nodes``: a node's label when no other node has it, else its id."""
    labels = list(tape.labels)
    return {labels[i] if labels[i] and labels.count(labels[i]) == 1 else str(i) for i in nodes}


def expect_step(stepper: StepperDom, tape: Tape, steps, states, k: int) -> None:
    """The view shows step ``k`` of ``steps``: counter, highlighted node, chain-rule products, and every drawn
    grad = the engine's partial sum after k steps, or the empty marker with data-reached="false"."""
    n = len(steps)
    assert stepper.index() == (k, n)
    shown = stepper.grads()
    assert set(shown) == _keys(tape, range(len(tape))), f"step {k}: grads shown for {sorted(shown)}, not every node"
    for key, cell in shown.items():
        i = tape.labels.index(key) if key in tape.labels else int(key)
        if i in states[k]:
            assert cell["reached"] == "true", f"step {k}: {key} has a grad but data-reached={cell['reached']!r}"
            assert shown_equals(cell["text"], states[k][i]), \
                f"step {k}: {key} shows {cell['text']!r}, engine {states[k][i]!r}"
        else:
            assert cell["reached"] == "false", \
                f"step {k}: {key} is not reached yet but data-reached={cell['reached']!r}"
            assert cell["text"] == NOT_REACHED, f"step {k}: {key} is not reached yet but shows {cell['text']!r}"
    if k == 0:
        assert stepper.current() == []
        return
    step = steps[k - 1]
    assert stepper.current() == [_name(tape, step.node)]
    detail = stepper.detail()
    for j, local, contribution in step.contributions:
        line = (f"{_name(tape, step.node)}: {format_number(step.upstream, 4)} \u00d7 {format_number(local, 4)} = "
                f"{format_number(contribution, 4)} \u2192 {_name(tape, j)}")
        assert line in detail, f"step {k}: {line!r} not in the detail:\n{detail}"


def test_stepping_the_lecture_L_shows_the_engines_partial_sums_forward_and_back(show):
    nodes = lecture_L()
    tape = Tape.from_value(nodes["L"])
    steps, states = engine_steps(tape)
    assert [_name(tape, s.node) for s in steps] == ["L", "d", "e"]
    assert states[-1] == {tape.index(v): v.grad for v in nodes.values()}, "the replay ends with the engine's grads"
    assert states[1] == {tape.index(nodes["L"]): 1.0, tape.index(nodes["d"]): -2.0, tape.index(nodes["f"]): 4.0}

    view = show(nodes["L"])
    stepper = StepperDom(view)
    stepper.open()
    for k in range(len(steps) + 1):
        expect_step(stepper, tape, steps, states, k)
        if k < len(steps):
            stepper.click("forward")
    assert "Done" in stepper.detail()
    for k in range(len(steps) - 1, -1, -1):
        stepper.click("back")
        expect_step(stepper, tape, steps, states, k)
    stepper.click("end")
    expect_step(stepper, tape, steps, states, len(steps))
    stepper.click("start")
    expect_step(stepper, tape, steps, states, 0)

    # Leaving stepper mode brings back every full grad, without data-reached marks.
    view.root.locator('button[data-role="step-mode"]').click()
    expect(stepper.panel).to_have_count(0)
    view.expect_numbers(expected_numbers(nodes), timeout_s=0)
    assert all(cell["reached"] is None for cell in stepper.grads().values())
    assert view.root.locator(".mgw-step-current").count() == 0


def test_the_stepper_is_keyboard_operable(show, guarded):
    nodes = lecture_L()
    tape = Tape.from_value(nodes["L"])
    steps, states = engine_steps(tape)
    view = show(nodes["L"])
    stepper = StepperDom(view)
    stepper.open()
    panel = stepper.panel
    expect(panel).to_have_attribute("data-lm-suppress-shortcuts", "true")
    expect(panel).to_be_focused()
    for key, k in (("ArrowRight", 1), (".", 2), ("ArrowLeft", 1), (",", 0), ("End", 3), ("Home", 0)):
        panel.press(key)
        expect_step(stepper, tape, steps, states, k)
    # The buttons are focusable and Enter presses them.
    stepper.button("forward").focus()
    stepper.button("forward").press("Enter")
    expect_step(stepper, tape, steps, states, 1)
    panel.focus()
    panel.press("Escape")
    expect(panel).to_have_count(0)
    expect(view.root.locator('button[data-role="step-mode"]')).to_be_focused()
    view.expect_numbers(expected_numbers(nodes), timeout_s=0)


def test_play_runs_to_the_end_and_stops(show):
    nodes = lecture_L()
    tape = Tape.from_value(nodes["L"])
    steps, states = engine_steps(tape)
    view = show(nodes["L"])
    stepper = StepperDom(view)
    stepper.open()
    stepper.panel.locator('select[data-role="step-speed"]').select_option("30")
    stepper.click("play")
    poll(stepper.index, lambda kn: kn == (3, 3), "play to reach the last step")
    expect(stepper.button("play")).to_have_attribute("aria-pressed", "false")
    expect_step(stepper, tape, steps, states, 3)
    # Space on the panel plays again from the start.
    stepper.panel.focus()
    stepper.panel.press(" ")
    poll(stepper.index, lambda kn: kn == (3, 3), "Space to play the pass again to its end")


def test_moving_a_slider_or_choosing_another_output_while_stepping(show):
    nodes = lecture_L()
    tape = Tape.from_value(nodes["L"])
    view = show(nodes["L"])
    stepper = StepperDom(view)
    stepper.open()
    stepper.click("forward")
    # Another output restarts the stepper on that node's backward pass.
    d = tape.index(nodes["d"])
    view.root.locator('select[data-role="output"]').select_option(value=str(d))
    steps, states = engine_steps(tape, d)
    assert [_name(tape, s.node) for s in steps] == ["d", "e"]
    expect_step(stepper, tape, steps, states, 0)
    stepper.click("end")
    expect_step(stepper, tape, steps, states, 2)
    assert stepper.grads()["L"] == {"text": NOT_REACHED, "reached": "false"}, "L comes after d: never reached"
    # A slider leaves stepper mode: every grad complete again, for the new value.
    x = view.move_slider("a", 0.8)
    expect(stepper.panel).to_have_count(0)
    moved = lecture_L(a=x)
    grads = Tape.from_value(moved["L"]).backward(output=d)
    view.expect_numbers({label: {"data": v.data, "grad": grads[tape.index(nodes[label])]}
                         for label, v in moved.items()})


def test_folded_moons_graph_steps_highlight_the_fold_box_and_play_stays_live(show, guarded):
    loss = moons_loss()
    widget = GraphWidget(loss)
    tape = widget.tape
    boxes = picture_view(widget)["fold_of"]
    assert boxes, "the moons graph should be folded"
    view = show(widget)
    stepper = StepperDom(view)
    stepper.open()
    k, n = stepper.index()
    assert k == 0 and n > 60_000, f"{n} steps: one per op node the loss depends on"
    stepper.click("end")
    assert stepper.index() == (n, n)
    full = tape.backward()
    drawn = picture_view(widget)["shown"]  # the nodes Python's fold draws in full
    assert 0 < len(drawn) < len(tape) // 10, f"{len(drawn)} of {len(tape)} nodes drawn: the graph was not folded"
    shown = stepper.grads()
    assert set(shown) == _keys(tape, drawn), f"grads shown for {len(shown)} nodes, {len(drawn)} drawn"
    for key, cell in shown.items():
        i = tape.labels.index(key) if key in tape.labels else int(key)
        assert cell["reached"] == "true" and shown_equals(cell["text"], full[i]), f"{key}: {cell} vs {full[i]}"
    # The last node to fire (the lowest op node) sits inside a fold: the fold box is highlighted.
    last = min(i for i in range(len(tape)) if tape.ops[i] is not None)
    assert boxes[last] >= 0, "the first op node of the moons graph should be folded"
    fold_id = picture_view(widget)["folds"][boxes[last]]["id"]
    assert view.root.evaluate(f"r => r.querySelector('g#{fold_id}').classList.contains('mgw-step-current')")
    assert f"#{last}" in stepper.detail() or tape.labels[last] in stepper.detail()
    # Play at the fastest speed: the counter keeps moving and the page keeps answering (no frame blocks it).
    stepper.click("start")
    stepper.panel.locator('select[data-role="step-speed"]').select_option("1000")
    stepper.click("play")
    seen = poll(stepper.index, lambda kn: kn[0] >= 200, "play to advance on the folded moons graph", timeout_s=20)
    assert seen[1] == n
    stepper.click("play")
    expect(stepper.button("play")).to_have_attribute("aria-pressed", "false")
    paused = stepper.index()
    guarded.page.wait_for_timeout(200)
    assert stepper.index() == paused, "pause did not stop the stepper"


# Every closed fold box as the picture shows it: id -> {"fields": {field: [number, data-reached]}, "unreached": its g
# has class mgw-unreached, "fill": its shape's fill}.
_READ_BOXES = """r => Object.fromEntries([...r.querySelectorAll('[data-role="graph"] g.node.mgw-fold')].map(g => {
  const fields = {};
  for (const t of g.querySelectorAll('text[data-field]')) {
    const text = t.textContent;
    fields[t.getAttribute('data-field')] = [text.slice(text.lastIndexOf(' ') + 1), t.getAttribute('data-reached')];
  }
  return [g.id, {fields, unreached: g.classList.contains('mgw-unreached'),
                 fill: g.querySelector('polygon, path').getAttribute('fill').toLowerCase()}];
}))"""


def expected_boxes(tape: Tape, view: dict, output: int, reached: dict[int, float]) -> dict[str, dict]:
    """What each closed box shows after some steps of the backward pass (``reached``: {node: partial grad} of the
    nodes it has reached, from the engine's own pass replayed in Python), as a drawn node would show it: a box's one
    output (a member used outside the box, or the root) shows its data and its grad, or the mark NOT_REACHED; a box of
    several shows the largest finite |grad| among its members reached (the output left out), or NOT_REACHED while it
    has none. Its fill is that largest member's grad on the picture's colour scale, which leaves out the output and
    every node not reached (white: none reached)."""
    boxes = view["fold_of"]
    used = box_outputs(tape.inputs, tape.root, boxes)
    best: dict[int, int] = {}
    for i, g in sorted(reached.items()):  # node order: the first member wins a tie, as in the view
        k = boxes[i]
        if k >= 0 and i != output and math.isfinite(g) and (k not in best or abs(g) > abs(reached[best[k]])):
            best[k] = i
    shown = view["shown"]
    others = [reached[i] for i in shown if i != output and i in reached] + [reached[i] for i in best.values()]
    scale = grad_scale(others, reached[output] if output in shown else None)
    flag = {True: "true", False: "false"}
    out = {}
    for k, box in enumerate(view["folds"]):
        members = [i for i in range(len(tape)) if boxes[i] == k]
        outputs = [i for i in members if i in used]
        if len(outputs) == 1:
            (o,) = outputs
            away = o not in reached
            fields = {"data": [format_number(tape.data[o], 4), None],
                      "grad": [NOT_REACHED if away else format_number(reached[o], 4), flag[not away]]}
        else:
            away = not any(i in reached for i in members if i != output)
            largest = NOT_REACHED if away else format_number(abs(reached[best[k]]) if k in best else 0.0, 4)
            fields = {"max-grad": [largest, flag[not away]]}
        colors = ColorScale(scale, 4)
        fill = grad_color(reached[best[k]], colors) if k in best else grad_color(0.0, colors)
        out[box["id"]] = {"fields": fields, "unreached": away, "fill": fill.lower()}
    return out


def _boxes_in_dot(dot: str) -> dict[str, dict]:
    """The closed boxes of a DOT as _READ_BOXES reads them from the picture (no data-reached: a DOT has none)."""
    out = {}
    for line in dot.split("\n"):
        box = re.match(r'\s*(fold\d+) \[label="([^"]*)"', line)
        if not box:
            continue
        fields = {}
        for part in box[2].split(" | ")[2:]:
            text = part.removesuffix("\\l")
            field = "max-grad" if text.startswith("max ") else text.split(" ")[0]
            fields[field] = [text.rsplit(" ", 1)[-1], None]
        out[box[1]] = {"fields": fields, "unreached": "mgw-unreached" in re.search(r' class="([^"]*)"', line)[1],
                       "fill": re.search(r' fillcolor="([^"]*)"', line)[1].lower()}
    return out


def _boxes_in_svg(svg: bytes) -> dict[str, dict]:
    """The closed boxes of an exported SVG file, as _READ_BOXES reads them from the picture."""
    out = {}
    for g in ET.fromstring(svg).iter(f"{SVG}g"):
        classes = (g.get("class") or "").split()
        if "mgw-fold" not in classes or "node" not in classes:
            continue
        fields = {t.get("data-field"): [(t.text or "").rsplit(" ", 1)[-1], t.get("data-reached")]
                  for t in g.iter(f"{SVG}text") if t.get("data-field")}
        shape = next(e for e in g.iter() if e.tag in (f"{SVG}polygon", f"{SVG}path"))
        out[g.get("id")] = {"fields": fields, "unreached": "mgw-unreached" in classes,
                            "fill": shape.get("fill").lower()}
    return out


def _without_reached(boxes: dict[str, dict]) -> dict[str, dict]:
    return {k: {**b, "fields": {f: [v[0], None] for f, v in b["fields"].items()}} for k, b in boxes.items()}


@pytest.mark.parametrize(("build", "budget", "last", "files_at"), [
    # a Σ box (one output: its total, reached at step 1) and a terms box (its members reached from step 23)
    (lambda: sum_of_squares(20), 25, 40, (0, 1, 24)),
    (lecture_mlp_loss, None, 12, (0, 6)),  # neuron boxes of several outputs, their first members reached at 3-39
], ids=["sum-of-squares", "lecture-mlp"])
def test_stepping_fold_boxes_show_what_their_nodes_show_and_the_files_agree(show, guarded, build, budget, last,
                                                                              files_at):
    """While stepping, a closed box's numbers are its nodes' as the engine's backward pass has them after k steps:
    its one output's grad is the mark "·" (greyed, data-reached="false") until the pass reaches it, never the
    stepper's partial 0, and a box's largest |grad| counts only the members reached; the DOT download and the
    exported SVG show the same numbers, marks and fills."""
    loss = build()
    widget = GraphWidget(loss) if budget is None else GraphWidget(loss, node_budget=budget)
    tape = Tape.from_value(loss)
    tape.forward()
    steps, states = engine_steps(tape)
    assert picture_view(widget)["folds"], "the graph should be folded"
    view = show(widget)
    stepper = StepperDom(view)
    stepper.open()
    seen_away = seen_single_away = 0
    for k in range(last + 1):
        if k:
            stepper.click("forward")
        assert stepper.index() == (k, len(steps))
        want = expected_boxes(tape, picture_view(widget), tape.root, states[k])
        got = poll(lambda: view.root.evaluate(_READ_BOXES), lambda b, want=want: b == want, f"the boxes at step {k}")
        assert got == want
        seen_away += sum(b["unreached"] for b in want.values())
        seen_single_away += sum(b["unreached"] and "grad" in b["fields"] for b in want.values())
        if k in files_at:
            _, dot = download(guarded.page, view, "export-dot")
            _, svg = download(guarded.page, view, "export-svg")
            assert _boxes_in_dot(dot.decode()) == _without_reached(want), f"the DOT's boxes at step {k}"
            assert _boxes_in_svg(svg) == want, f"the exported SVG's boxes at step {k}"
            assert 'text[data-reached="false"]' in svg.decode(), "the file greys an unreached grad as the picture"
    assert seen_away, "no box was unreached at any step checked"
    if budget is not None:
        assert seen_single_away, "no box's one output was unreached at any step checked"


def test_the_exported_page_steps_the_backward_pass_without_a_kernel(guarded, static_server, widget_bundle, tmp_path):
    from micrograd_widget import save_html

    nodes = lecture_L()
    tape = Tape.from_value(nodes["L"])
    steps, states = engine_steps(tape)
    out = save_html(nodes["L"], tmp_path / "page.html")
    served = static_server.root / f"export-stepper-{tmp_path.name}"
    served.mkdir()
    shutil.copy(out, served / "page.html")
    guarded.page.goto(f"{static_server.url}/{served.name}/page.html")
    view = WidgetDom(guarded.page)
    view.wait_ready(60)
    stepper = StepperDom(view)
    stepper.open()
    for k in range(len(steps) + 1):
        expect_step(stepper, tape, steps, states, k)
        if k < len(steps):
            stepper.panel.press("ArrowRight")
    assert not guarded.log.outside, f"the exported page asked the network: {guarded.log.outside}"


# ---------------------------------------------------------------- view fixes made with the stepper


def test_boxes_are_reachable_by_keyboard_and_enter_opens_the_inspector(show, guarded):
    nodes = lecture_L()
    view = show(nodes["L"])
    box = view.root.locator('g[data-node="d"]')
    expect(box).to_have_attribute("tabindex", "0")
    box.focus()
    expect(box).to_be_focused()
    guarded.page.keyboard.press("Enter")
    inspector = view.root.locator('[data-role="inspector"]')
    expect(inspector).to_be_visible()
    expect(inspector).to_have_attribute("data-node", "d")
    expect(inspector.locator('[data-field="grad"]')).to_have_text(repr(nodes["d"].grad))
    # Tab moves from box to box.
    guarded.page.keyboard.press("Tab")
    focused = guarded.page.evaluate("() => document.activeElement && document.activeElement.getAttribute('data-node')")
    assert focused and focused != "d", f"Tab from box d went to {focused!r}, not another box"


# ---------------------------------------------------------------- JupyterLab (one test: each costs ~20 s)

CUBE_BAD_CELL = """\
from micrograd_widget import Value, explore
from micrograd_widget.core.ops import define_op
cube_bad = define_op("cube_bad", lambda a: a ** 3, lambda a, out: 2 * a * a)  # wrong: d(a^3)/da is 3a^2
x = Value(1.5, label="x"); y = Value.apply(cube_bad, x); y.label = "y"
z = y * Value(0.5, label="h"); z.label = "z"
explore(z)
"""


@pytest.mark.jupyterlab
def test_jupyterlab_steps_by_keyboard_and_the_kernel_catches_a_wrong_custom_op(jupyterlab, guarded_lab, notebook_name):
    from .mgw_browser.graphs import LECTURE_L_SOURCE
    from .mgw_browser.jupyter import write_notebook
    from .mgw_browser.lab import open_notebook, run_all, widget_in_cell

    page = guarded_lab.page
    explore_cell = LECTURE_L_SOURCE + "from micrograd_widget import explore\nexplore(L)\n"
    write_notebook(jupyterlab.notebooks / notebook_name, [explore_cell, CUBE_BAD_CELL])
    open_notebook(page, jupyterlab, notebook_name)
    run_all(page, "lab")
    view = widget_in_cell(page, 0)
    nodes = lecture_L()
    tape = Tape.from_value(nodes["L"])
    steps, states = engine_steps(tape)
    stepper = StepperDom(view)
    stepper.open()
    # The keys reach the stepper (data-lm-suppress-shortcuts keeps Lab's command mode from taking them).
    stepper.panel.press("ArrowRight")
    expect_step(stepper, tape, steps, states, 1)
    stepper.panel.press(".")
    expect_step(stepper, tape, steps, states, 2)
    stepper.panel.press("ArrowLeft")
    expect_step(stepper, tape, steps, states, 1)
    stepper.panel.press("Escape")
    expect(stepper.panel).to_have_count(0)
    view.expect_numbers(expected_numbers(nodes))

    # A graph the browser cannot replay: the kernel runs gradcheck and the wrong local derivative shows as NO.
    custom = widget_in_cell(page, 1)
    custom.root.locator('button[data-role="gradcheck"]').click()
    table = custom.root.locator('[data-role="gradcheck-table"]')
    expect(table.locator('tr[data-leaf="x"] [data-field="ok"]')).to_have_text("NO", timeout=30_000)
    expect(table.locator('tr[data-leaf="h"] [data-field="ok"]')).to_have_text("yes")
    expect(custom.root.locator('[data-role="gradcheck-summary"]')).to_contain_text("FAIL")
