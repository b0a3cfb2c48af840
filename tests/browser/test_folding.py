"""Fold boxes in the live view (issue 9), in Chromium with a fake model: closed boxes are live (filled by their
largest |grad| on the nodes' colour scale, which counts them; their numbers follow the sliders).

Every expected number and colour comes from Python's tape for the value the control actually took."""

from __future__ import annotations

import re
import time

import pytest
from builders import (
    LECTURE_XS,
    LECTURE_YS,
    box_outputs,
    lecture_mlp_loss,
    nonfinite_grads,
    picture_view,
    sum_of_squares,
)

from micrograd_widget.core.tape import Tape
from micrograd_widget.graph.widget import GraphWidget
from micrograd_widget.picture.colors import FOLD_COLOR, ColorScale, grad_color, grad_scale
from micrograd_widget.picture.dot import box_max, graph_view
from micrograd_widget.picture.text import format_number

from .mgw_browser.dom import WidgetDom, poll
from .mgw_browser.fake_model import kernel_message
from .mgw_browser.folds import NEURON, drawn, expect_tape_numbers, key_of, open_box, saved_open
from .mgw_browser.jupyter import write_notebook
from .mgw_browser.lab import cell_locator, marked_json, open_notebook, run_all, run_cell

pytestmark = pytest.mark.browser

def expected_fills(tape: Tape, view: dict, output: int) -> dict[str, str]:
    """The fill of every drawn value node and closed fold box, as the view paints them (js/host/svg-contract.md "Live
    fold box"): a box by its largest-|grad| member (the output left out), on a scale that counts those boxes."""
    grad = tape.grad
    boxes = view["fold_of"]
    best = [box_max(grad, [i for i, b in enumerate(boxes) if b == k], output) for k in range(len(view["folds"]))]
    shown = view["shown"]
    others = [grad[i] for i in shown if i != output] + [grad[m] for m in best if m is not None]
    scale = grad_scale(others, grad[output] if output in shown else None)
    fills = {f"n{i}": grad_color(grad[i], ColorScale(scale, 4)) for i in shown}
    for k, fold in enumerate(view["folds"]):
        fills[fold["id"]] = grad_color(grad[best[k]], ColorScale(scale, 4)) if best[k] is not None else FOLD_COLOR
    return fills


_READ_FILLS = """r => Object.fromEntries([...r.querySelectorAll('g.node.mgw-value, g.node.mgw-fold')].map(g =>
    [g.id, g.querySelector('polygon, path').getAttribute('fill').toLowerCase()]))"""


def test_closed_boxes_are_filled_by_their_largest_grad_on_a_scale_that_counts_them(show):
    loss = lecture_mlp_loss()
    widget = GraphWidget(loss)
    tape = Tape.from_value(loss)
    view = show(widget)
    assert picture_view(widget)["folds"], "the lecture's MLP loss should be folded at the default budget"
    want = expected_fills(tape, picture_view(widget), tape.root)
    got = poll(lambda: view.root.evaluate(_READ_FILLS), lambda fills: fills == want, "fills of nodes and fold boxes")
    assert got == want
    # a weight inside a folded neuron moves: the boxes' fills follow, as Python's replay of the same move says
    boxes = picture_view(widget)["fold_of"]
    leaf = next(i for i in tape.leaves if boxes[i] >= 0 and tape.labels[i] == "w0")
    view.type_number(key_of(tape, leaf), -2.5)
    tape.forward({leaf: -2.5})
    tape.backward()
    want = expected_fills(tape, picture_view(widget), tape.root)
    got = poll(lambda: view.root.evaluate(_READ_FILLS), lambda fills: fills == want, "fills after the move")
    assert got == want


# Every closed box's live numbers (js/host/svg-contract.md "Live fold box"): data-fold -> field -> the number shown (the
# text after the last space of its <text>).
_READ_BOX_NUMBERS = """r => {
  const out = {};
  for (const el of r.querySelectorAll('[data-role="graph"] g.mgw-fold text[data-fold][data-field]')) {
    const text = el.textContent;
    (out[el.getAttribute('data-fold')] ??= {})[el.getAttribute('data-field')] = text.slice(text.lastIndexOf(' ') + 1);
  }
  return out;
}"""


def expected_box_numbers(tape: Tape, view: dict, output: int) -> dict[str, dict[str, str]]:
    """What each closed box shows, worked out from Python's tape: its one output node's data and grad (a member
    used by a node outside the box, or the root), else the largest |grad| among its members (the output left out;
    nan, then inf, beat any finite one: dot.box_max), with the picture's precision (4)."""
    boxes = view["fold_of"]
    used = box_outputs(tape.inputs, tape.root, boxes)
    out: dict[str, dict[str, str]] = {}
    for k, box in enumerate(view["folds"]):
        members = [i for i in range(len(tape)) if boxes[i] == k]
        outputs = [i for i in members if i in used]
        best = box_max(tape.grad, members, output)
        if len(outputs) == 1:
            out[box["key"]] = {"data": format_number(tape.data[outputs[0]], 4),
                               "grad": format_number(tape.grad[outputs[0]], 4)}
        else:
            out[box["key"]] = {"max-grad": format_number(abs(tape.grad[best]) if best is not None else 0.0, 4)}
    return out


@pytest.mark.parametrize(("build", "fields"), [
    (lecture_mlp_loss, {"max-grad"}),  # neuron boxes: one output per example, so their largest |grad|
    (lambda: sum_of_squares(300), {"data", "grad", "max-grad"}),  # a Σ box (one output: its total) and a terms box
], ids=["lecture-mlp", "sum-of-squares"])
def test_closed_boxes_show_live_numbers_that_follow_a_slider(show, build, fields):
    loss = build()
    widget = GraphWidget(loss)
    tape = Tape.from_value(loss)
    tape.forward()
    tape.backward()  # fresh grads, as the widget shows them (the builders differ in whether they ran backward())
    view = show(widget)
    want = expected_box_numbers(tape, picture_view(widget), tape.root)
    assert {f for v in want.values() for f in v} == fields, want
    got = poll(lambda: view.root.evaluate(_READ_BOX_NUMBERS), lambda n: n == want, "the boxes' live numbers")
    assert got == want
    listed = set(view.root.evaluate("r => [...r.querySelectorAll('input[type=range]')].map(e => e.dataset.leaf)"))
    for leaf in (i for i in tape.leaves if key_of(tape, i) in listed):  # the first listed leaf the boxes follow
        was = tape.data[leaf]
        tape.forward({leaf: -2.5})
        tape.backward()
        moved = expected_box_numbers(tape, picture_view(widget), tape.root)
        if moved != want:
            break
        tape.forward({leaf: was})  # not this one: put it back
    assert moved != want, "no listed leaf changes what the boxes show"
    view.type_number(key_of(tape, leaf), -2.5)
    got = poll(lambda: view.root.evaluate(_READ_BOX_NUMBERS), lambda n: n == moved, "the boxes' numbers after the move")
    assert got == moved


_READ_PICTURE = """r => {
  const g = r.querySelector('[data-role="graph"]');
  const boxes = {};
  for (const box of g.querySelectorAll('g.node.mgw-value, g.node.mgw-fold')) {
    const fields = {};
    for (const t of box.querySelectorAll('text[data-field]')) {
      fields[t.getAttribute('data-field')] = t.textContent.slice(t.textContent.lastIndexOf(' ') + 1);
    }
    boxes[box.id] = { fill: box.querySelector('polygon, path').getAttribute('fill').toLowerCase(), fields };
  }
  const legend = [...g.querySelectorAll('#mgw-legend text')].slice(1).map(t => t.textContent);
  return { boxes, legend };
}"""
_FIELD = {"data": "data", "grad": "grad", "max |grad|": "max-grad"}


def static_picture(tape: Tape, budget: int) -> dict:
    """What Python's static picture (dot.py's DOT for the same tape and budget, nothing opened) shows: every value
    node's and closed box's fill and numbers, and the legend's five marks, read from the DOT text."""
    dot = graph_view(tape, node_budget=budget).dot
    boxes = {}
    for line in dot.splitlines():
        head = re.match(r'\t(n\d+|fold\d+) \[label="(.*?)(?<!\\)" .*fillcolor="(#[0-9a-f]{6})"', line)
        if not head:
            continue
        name, label, fill = head.groups()
        fields = {}
        for part in label.split(" | ")[1:]:
            text = part.replace("\\l", "").replace("\\|", "|")
            caption, _, number = text.rpartition(" ")
            if caption in _FIELD:
                fields[_FIELD[caption]] = number
        boxes[name] = {"fill": fill, "fields": fields}
    legend = re.findall(r"<TD BGCOLOR=\"[^\"]*\">([^<]*)</TD>", dot)
    return {"boxes": boxes, "legend": legend}


def test_boxes_holding_inf_and_nan_grads_show_what_pythons_static_picture_shows(show):
    # d sqrt(x)/dx = inf at x = 0 and 0 * inf = nan, inside modules folded at budget 10 (builders.nonfinite_grads):
    # a box holding an infinite grad says max |grad| inf, one holding a nan says nan, both grey, and the colour
    # scale stays finite. Before, the live picture skipped the infinite grads (a finite max, another colour scale,
    # and a box whose every grad is inf painted white with "max |grad| 0.0000") where the static picture said inf.
    loss = nonfinite_grads()
    tape = Tape.from_value(loss)
    widget = GraphWidget(loss, node_budget=10)
    want = static_picture(tape, 10)
    shown = {b["fields"].get("max-grad") for b in want["boxes"].values()}
    assert {"nan", "inf"} <= shown, f"the static picture should have boxes showing nan and inf: {want}"
    drawn = {f["id"] for f in picture_view(widget)["folds"]}
    assert drawn <= set(want["boxes"]), "the widget draws the static picture's boxes"
    view = show(widget)
    got = poll(lambda: view.root.evaluate(_READ_PICTURE), lambda p: p == want, "the live picture = the static one")
    assert got == want


# ---------------------------------------------------------------- opening and closing boxes in place


def test_opening_a_neuron_draws_its_nodes_with_pythons_numbers_and_the_open_set_round_trips(show, guarded):
    loss = lecture_mlp_loss()
    widget = GraphWidget(loss)
    tape = Tape.from_value(loss)
    view = show(widget)
    default = drawn(view)
    assert NEURON in default["boxes"], f"{NEURON} should be a closed box of the default picture: {default['boxes']}"
    after = open_box(view, NEURON)
    new = sorted(set(after["nodes"]) - set(default["nodes"]))
    assert new, "opening the neuron drew no new node"
    assert all(tape.scopes[i].startswith(NEURON) for i in new), "a node from outside the neuron was drawn"
    assert set(default["boxes"]) - {NEURON} <= set(after["boxes"]), "opening one box closed or moved another"
    assert saved_open(guarded.page) is not None and NEURON in saved_open(guarded.page)
    expect_tape_numbers(view, tape, after["nodes"])
    # Python's static picture for the same open set has the same closed boxes and draws the same nodes
    static = graph_view(tape, open_keys=saved_open(guarded.page))
    assert sorted(static.shown) == sorted(after["nodes"])
    assert sorted(f.key for f in static.folds) == sorted(after["boxes"])
    # a weight inside the opened neuron moves: every drawn number follows, as Python's replay says
    leaf = next(i for i in new if i in set(tape.leaves) and tape.labels[i].startswith("w"))
    view.type_number(key_of(tape, leaf), 1.75)
    tape.forward({leaf: 1.75})
    tape.backward()
    expect_tape_numbers(view, tape, after["nodes"])
    # '-' on a node inside the opened box closes it again: the default picture, the open set empty
    node = view.root.locator(f'[data-role="graph"] g.mgw-value#n{leaf}')
    node.focus()
    node.press("-")
    closed = poll(lambda: drawn(view, settle=False), lambda d: not d["clusters"] and not d["busy"], "the box closed")
    assert sorted(closed["nodes"]) == sorted(default["nodes"]) and closed["boxes"] == default["boxes"]
    assert saved_open(guarded.page) == []


def test_a_change_of_open_from_python_redraws_and_expand_all_stays_within_the_budget(show, guarded):
    loss = lecture_mlp_loss()
    widget = GraphWidget(loss)
    view = show(widget)
    guarded.page.evaluate("k => window.__mgw.model.set('opened', [k])", NEURON)
    poll(lambda: drawn(view, settle=False), lambda d: NEURON in d["clusters"] and not d["busy"], "Python's open set")
    view.root.locator('[data-action="expand-all"]').click()
    full = poll(lambda: drawn(view, settle=False), lambda d: len(d["clusters"]) > 1 and not d["busy"], "expand all")
    units = len(full["nodes"]) + len(full["boxes"])
    budget = widget.node_budget
    assert units <= budget, f"expand all that fits drew {units} units, over the node budget of {budget}"
    assert NEURON in full["clusters"]
    view.root.locator('[data-action="collapse-all"]').click()
    poll(lambda: drawn(view, settle=False), lambda d: not d["clusters"] and not d["busy"], "collapse all")
    assert saved_open(guarded.page) == []


def test_double_click_and_plus_open_a_box_and_the_legend_says_what_boxes_show(show):
    loss = lecture_mlp_loss()
    view = show(GraphWidget(loss))
    assert "max |grad|" in view.root.locator('[data-role="fold-legend"]').text_content()
    box = view.root.locator(f'[data-role="graph"] g.mgw-fold[data-fold="{NEURON}"]')
    box.dblclick()
    poll(lambda: drawn(view, settle=False), lambda d: NEURON in d["clusters"] and not d["busy"], "double-click opens")
    view.root.locator('[data-action="collapse-all"]').click()
    poll(lambda: drawn(view, settle=False), lambda d: not d["clusters"] and not d["busy"], "collapse all")
    box = view.root.locator(f'[data-role="graph"] g.mgw-fold[data-fold="{NEURON}"]')
    box.focus()
    box.press("+")
    poll(lambda: drawn(view, settle=False), lambda d: NEURON in d["clusters"] and not d["busy"], "+ opens")


def inspected(view: WidgetDom) -> dict:
    """What the inspector shows: the node (data-node) or box (data-fold) and its fold buttons."""
    return view.root.locator('[data-role="inspector"]').evaluate("""el => ({
      hidden: el.hidden, node: el.getAttribute('data-node'), fold: el.getAttribute('data-fold'), text: el.textContent,
      actions: [...el.querySelectorAll('[data-action]')].map(b => b.getAttribute('data-action')),
    })""")


def box_holding(tape: Tape, i: int, open_keys: list[str]) -> tuple[str, int]:
    """Python's static picture of ``open_keys``: the key and node count of the closed box that holds node i."""
    fold = next(f for f in graph_view(tape, open_keys=open_keys).folds if i in f.members)
    assert fold.key is not None
    return fold.key, len(fold.members)


def test_the_inspector_shows_what_is_true_of_every_new_picture(show, guarded):
    """Collapse all, Expand all that fits and an open set from Python each draw a new picture: the inspector shows
    the same node or box in it (opened, closed, or folded into the box that now holds it), with the fold buttons
    that picture offers, and those buttons act."""
    loss = lecture_mlp_loss()
    tape = Tape.from_value(loss)
    view = show(GraphWidget(loss))
    root = view.root
    # an opened box, then Collapse all: the inspector shows the closed box that now holds it, with Expand
    opened = "layers.1.neurons.2"
    root.locator(f'[data-role="graph"] g.mgw-fold[data-fold="{opened}"]').dblclick()
    poll(lambda: inspected(view), lambda s: s["fold"] == opened and "collapse" in s["actions"], "the opened box")
    member = next(i for i in range(len(tape)) if tape.scopes[i] == opened)
    key, count = box_holding(tape, member, [])
    root.locator('.mgw-fold-controls [data-action="collapse-all"]').click()
    poll(lambda: drawn(view, settle=False), lambda d: not d["clusters"] and not d["busy"], "collapse all")
    shown = poll(lambda: inspected(view), lambda s: s["fold"] == key, f"the inspector to show the closed box {key}")
    assert "expand" in shown["actions"] and "collapse" not in shown["actions"], shown
    assert f"{count} nodes" in shown["text"] and "Expand" in shown["text"], shown["text"]
    # a closed box, then the toolbar's Expand all that fits opens it: the inspector shows it opened, and its
    # Collapse closes it
    closed = "layers.2.neurons.0"
    root.locator(f'[data-role="graph"] g.mgw-fold[data-fold="{closed}"]').click()
    poll(lambda: inspected(view), lambda s: s["fold"] == closed and "expand" in s["actions"], "the closed box")
    root.locator('.mgw-fold-controls [data-action="expand-all"]').click()
    poll(lambda: drawn(view, settle=False), lambda d: closed in d["clusters"] and not d["busy"], "expand all")
    shown = poll(lambda: inspected(view), lambda s: "collapse" in s["actions"], "Collapse in the inspector")
    assert shown["fold"] == closed and "expand" not in shown["actions"], shown
    root.locator('[data-role="inspector"] [data-action="collapse"]').click()
    poll(lambda: drawn(view, settle=False), lambda d: closed in d["boxes"] and not d["busy"], "its Collapse")
    # a node inside a box Python opened, then Python closes every box: the closed box holding it
    guarded.page.evaluate("k => window.__mgw.model.set('opened', [k])", NEURON)
    after = poll(lambda: drawn(view, settle=False), lambda d: d["clusters"] == [NEURON] and not d["busy"], "opened")
    inside = next(i for i in after["nodes"] if tape.scopes[i] == NEURON)
    root.locator(f'[data-role="graph"] g.mgw-value#n{inside}').click()
    shown = poll(lambda: inspected(view), lambda s: s["node"] == key_of(tape, inside), "the node inside")
    assert "collapse" in shown["actions"], shown
    guarded.page.evaluate("() => window.__mgw.model.set('opened', [])")
    key, count = box_holding(tape, inside, [])
    shown = poll(lambda: inspected(view), lambda s: s["fold"] == key, f"the inspector to show the closed box {key}")
    assert shown["node"] is None and "collapse" not in shown["actions"] and f"{count} nodes" in shown["text"]
    # a node drawn in both pictures stays, without Collapse (no opened box holds it)
    root.locator(f'[data-role="graph"] g.mgw-value#n{tape.root}').click()
    guarded.page.evaluate("k => window.__mgw.model.set('opened', [k])", NEURON)
    poll(lambda: drawn(view, settle=False), lambda d: d["clusters"] == [NEURON] and not d["busy"], "opened again")
    shown = inspected(view)
    assert shown["node"] == key_of(tape, tape.root) and "collapse" not in shown["actions"], shown


# ---------------------------------------------------------------- one run in a real JupyterLab

MLP_CELL = f"""\
import random
from micrograd_widget import explore
from micrograd_widget.nn import MLP
random.seed(1)
model = MLP(3, [4, 4, 1], act="tanh", output_nonlin=True)
xs, ys = {LECTURE_XS!r}, {LECTURE_YS!r}
loss = sum((model(x) - y) ** 2 for x, y in zip(xs, ys))
loss.backward()
w = explore(loss)
w
"""
OPEN_MARKER = "MGW-OPEN "
PRINT_OPEN_CELL = f"""\
import json
from micrograd_widget.picture.dot import graph_view
pic = graph_view(w.tape, open_keys=w.opened)
print({OPEN_MARKER!r} + json.dumps({{"opened": list(w.opened), "shown": list(pic.shown),
                                     "boxes": [f.key for f in pic.folds]}}))
"""


@pytest.mark.jupyterlab
def test_jupyterlab_opens_a_neuron_and_the_kernel_knows_what_is_shown(jupyterlab, guarded_lab, notebook_name):
    page = guarded_lab.page
    write_notebook(jupyterlab.notebooks / notebook_name, [MLP_CELL, PRINT_OPEN_CELL])
    open_notebook(page, jupyterlab, notebook_name)
    run_all(page, "lab")
    view = WidgetDom(cell_locator(page, 0))
    view.wait_ready(90)
    loss = lecture_mlp_loss()
    tape = Tape.from_value(loss)
    after = open_box(view, NEURON)
    expect_tape_numbers(view, tape, after["nodes"])
    assert view.root.locator('[data-role="graph"]').get_attribute("data-layout-thread") == "worker"  # Lab allows it
    kernel = poll(lambda: marked_json(run_cell(page, 1)["outputs"], OPEN_MARKER),
                  lambda k: k is not None and NEURON in k["opened"], "the kernel's w.opened to hold the opened box",
                  timeout_s=30, interval_s=0.5)
    assert sorted(kernel["shown"]) == sorted(after["nodes"])
    assert sorted(kernel["boxes"]) == sorted(after["boxes"])


# ---------------------------------------------------------------- the folded picture is the view's own

PLAN_MEASURE = "micrograd-widget: fold and write DOT"  # js/graph/folding.js: each picture planned is one such measure
# From now on, count the pictures the view plans (js/picture/fold_tree.js folds the open set and writes its DOT) and the
# layouts it shows (a new <svg> in the graph box); window.__counted() reads both.
_COUNT_FROM_NOW = f"""r => {{
  const plans = () => performance.getEntriesByName({PLAN_MEASURE!r}).length;
  const counted = {{ start: plans(), shown: 0 }};
  new MutationObserver((records) => {{
    for (const m of records) for (const n of m.addedNodes) if (n.nodeName === 'svg') counted.shown += 1;
  }}).observe(r.querySelector('[data-role="graph"]'), {{ childList: true }});
  window.__counted = () => ({{ plans: plans() - counted.start, shown: counted.shown }});
  window.__deliver = async (messages) => {{  // the kernel's messages, one task apart (as a front end takes them)
    for (const m of messages) {{
      window.__mgw.model._receive(m);
      await new Promise((ok) => setTimeout(ok, 0));
    }}
  }};
}}"""
_DELIVER = "messages => window.__deliver(messages)"


def counted(view: WidgetDom, shown: int) -> dict:
    """Plans and shown layouts since _COUNT_FROM_NOW, once `shown` layouts are shown and nothing more comes (a plan
    or layout a change still caused would be counted within the wait)."""
    poll(lambda: view.root.evaluate("r => [window.__counted().shown, r.querySelector('[data-role=\"graph\"]')"
                                    ".hasAttribute('aria-busy')]"), lambda s: s[0] >= shown and not s[1],
         f"{shown} layouts shown")
    time.sleep(0.5)
    return view.root.evaluate("() => window.__counted()")


def pythons_answer(kernel: GraphWidget, *changed: str) -> list[dict]:
    """What a kernel sends when `changed` traits of its widget changed: those traits, and no picture (the view
    writes it)."""
    return [kernel_message(kernel, list(changed))]


@pytest.mark.parametrize("thread", ["worker", "main"])
def test_pythons_echo_of_the_open_set_is_neither_planned_nor_laid_out(show, guarded, thread):
    """In a kernel session Python echoes each new `opened`. The picture is the view's own: one Expand, or Collapse
    all, plans it once and shows one layout, and Python's echo, arriving while the view lays out or after, plans and
    lays out nothing. With the
    layout worker, the Expand's plan is the early layout's (the box pressed first); with none (`main`), its own."""
    page = guarded.page
    if thread == "main":
        page.add_init_script("delete window.Worker;")
    loss = lecture_mlp_loss()
    tape = Tape.from_value(loss)
    view = show(GraphWidget(loss))
    kernel = GraphWidget(loss)
    view.root.evaluate(_COUNT_FROM_NOW)
    view.root.locator(f'[data-role="graph"] g.mgw-fold[data-fold="{NEURON}"]').click()
    kernel.opened = [NEURON]
    in_flight = page.evaluate("""async ([key, messages]) => {
      const root = document.querySelector('.mgw-root');
      root.querySelector(`[data-role="inspector"][data-fold="${key}"] [data-action="expand"]`).click();
      const laying = root.querySelector('[data-role="graph"] g.mgw-cluster') === null;
      await window.__deliver(messages);  // the kernel's answer, while the view lays out
      return laying;
    }""", [NEURON, pythons_answer(kernel, "opened")])
    assert in_flight, "the view's layout was done before Python's answer arrived: the test shows nothing"
    assert counted(view, 1) == {"plans": 1, "shown": 1}
    after = drawn(view)
    assert sorted(after["nodes"]) == sorted(graph_view(tape, open_keys=[NEURON]).shown)
    assert after["clusters"] == [NEURON]
    view.root.locator('[data-action="collapse-all"]').click()
    poll(lambda: drawn(view, settle=False), lambda d: not d["clusters"] and not d["busy"], "collapse all")
    kernel.opened = []
    page.evaluate(_DELIVER, pythons_answer(kernel, "opened"))  # the kernel's answer, after the layout
    assert counted(view, 2) == {"plans": 2, "shown": 2}
    assert sorted(drawn(view)["nodes"]) == sorted(graph_view(tape).shown)


# The SVG of the picture shown: where each edge starts and ends (its path's first and last point), the widest box of a
# value node, the value nodes' data numbers as shown, and whether it has the colour legend.
_PICTURE = """r => {
  const svg = r.querySelector('[data-role="graph"] svg');
  const ends = [...svg.querySelectorAll('g.edge path')].map((p) => {
    const xy = p.getAttribute('d').match(/-?[0-9.]+,-?[0-9.]+/g).map((s) => s.split(',').map(Number));
    return [xy[0], xy[xy.length - 1]];
  });
  const width = Math.max(...[...svg.querySelectorAll('g.node.mgw-value polygon')].map((p) => p.getBBox().width));
  const data = Object.fromEntries([...svg.querySelectorAll('g.node.mgw-value')].map((g) =>
    [g.id.slice(1), g.querySelector('[data-field="data"]').textContent]));
  return { ends, width, data, legend: svg.querySelector('g#mgw-legend') !== null };
}"""


def flow(ends: list) -> str:
    """Which way every edge runs in the SVG (y grows downwards): "LR" when each ends right of its start, "TB" when
    each ends below it, else "mixed"."""
    if all(end[0] > start[0] for start, end in ends):
        return "LR"
    return "TB" if all(end[1] > start[1] for start, end in ends) else "mixed"


@pytest.mark.parametrize("changes", [{"precision": 7}, {"rankdir": "TB"}, {"color": False},
                                     {"precision": 2, "rankdir": "TB", "color": False}],
                         ids=["precision", "rankdir", "color", "all-in-one-message"])
def test_a_drawing_option_set_in_python_lays_the_folded_picture_out_once_with_it(show, guarded, changes):
    """Python sets drawing options (one message, as `with w.hold_sync():` sends them): the folded picture is planned
    once and laid out once, with the new options, as Python's static picture has them: the rank direction of the
    edges, the digits of the numbers, the colour legend."""
    loss = lecture_mlp_loss()
    tape = Tape.from_value(loss)
    view = show(GraphWidget(loss))
    kernel = GraphWidget(loss)
    before = view.root.evaluate(_PICTURE)
    assert flow(before["ends"]) == "LR" and before["legend"]
    view.root.evaluate(_COUNT_FROM_NOW)
    with kernel.hold_sync():
        for name, value in changes.items():
            setattr(kernel, name, value)
    guarded.page.evaluate(_DELIVER, pythons_answer(kernel, *changes))
    assert counted(view, 1) == {"plans": 1, "shown": 1}
    after = view.root.evaluate(_PICTURE)
    assert flow(after["ends"]) == kernel.rankdir
    assert after["legend"] == kernel.color
    assert after["data"] == {str(i): f"data {format_number(tape.data[i], kernel.precision)}" for i in
                             graph_view(tape).shown}
    if changes == {"precision": 7}:  # longer numbers, wider boxes
        assert after["width"] > before["width"]
