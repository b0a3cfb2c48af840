"""The inspector's numerical gradient check in Chromium (fake model): the table matches micrograd_widget.core.gradcheck
for the values the view shows (computed in the browser by replaying the tape), pages through many leaves, and for
a graph with a user-defined op asks the kernel, whose answer (GraphWidget's own reply, fed back into the page)
catches a wrong local derivative."""

from __future__ import annotations

import math
from typing import Any

import pytest
from playwright.sync_api import expect

from micrograd_widget.core.gradcheck import GradCheck, gradcheck
from micrograd_widget.core.ops import define_op
from micrograd_widget.engine import Value
from micrograd_widget.graph.widget import GraphWidget

from .mgw_browser.dom import WidgetDom, poll
from .mgw_browser.fake_model import model_log
from .mgw_browser.graphs import chain_graph, lecture_L, lecture_neuron

pytestmark = pytest.mark.browser


_READ_TABLE = """root => {
  const table = root.querySelector('[data-role="inspector"] [data-role="gradcheck-table"]');
  if (!table) return null;
  return [...table.querySelectorAll('tr[data-leaf]')].map(tr => {
    const cell = (f) => { const el = tr.querySelector(`[data-field="${f}"]`); return el ? el.textContent : null; };
    return {leaf: tr.getAttribute('data-leaf'), numeric: cell('numeric'), analytic: cell('analytic'),
            rel: cell('rel-error'), ok: cell('ok')};
  });
}"""


def read_table(view: WidgetDom) -> list[dict[str, Any]] | None:
    return view.root.evaluate(_READ_TABLE)


def check_gradients(view: WidgetDom, rows: int) -> list[dict[str, Any]]:
    """Press the inspector's "Check gradients" and wait for a table of ``rows`` rows."""
    view.root.locator('button[data-role="gradcheck"]').click()
    return poll(lambda: read_table(view), lambda t: t is not None and len(t) == rows,
                f"a gradcheck table of {rows} rows")


def table_problems(table: list[dict[str, Any]] | None, expected: GradCheck, key) -> list[str]:
    """How the rows shown differ from gradcheck.py's rows for those leaves: the same analytic grad, the same
    central difference (up to the last bits of the two replays), the same relative error to the digits shown,
    and the same verdict. Empty when they agree."""
    if table is None:
        return ["no gradcheck table"]
    by_leaf = {key(r): r for r in expected.rows}
    problems = [] if len(table) == len({row["leaf"] for row in table}) else ["a leaf has two rows"]
    for row in table:
        want = by_leaf.get(row["leaf"])
        if want is None:
            problems.append(f"{row['leaf']}: gradcheck.py has no such leaf")
            continue
        if float(row["analytic"]) != want.analytic:
            problems.append(f"{row['leaf']}: analytic {row['analytic']} vs {want.analytic!r}")
        if not math.isclose(float(row["numeric"]), want.numeric, rel_tol=1e-8, abs_tol=1e-9):
            problems.append(f"{row['leaf']}: numeric {row['numeric']} vs {want.numeric!r}")
        if not math.isclose(float(row["rel"]), want.rel_error, rel_tol=0.01, abs_tol=1e-15):
            problems.append(f"{row['leaf']}: rel. error {row['rel']} vs {want.rel_error:.2e}")
        if row["ok"] != ("yes" if want.ok else "NO"):
            problems.append(f"{row['leaf']}: ok {row['ok']!r} vs {want.ok}")
    return problems


def assert_table_matches(table: list[dict[str, Any]] | None, expected: GradCheck, key) -> None:
    problems = table_problems(table, expected, key)
    assert not problems, "the gradcheck table differs from micrograd_widget.core.gradcheck:\n  " + "\n  ".join(problems)


def test_gradcheck_table_matches_gradcheck_py_for_the_lecture_neuron(show):
    nodes = lecture_neuron()
    expected = gradcheck(nodes["o"])
    view = show(nodes["o"])
    table = check_gradients(view, len(expected.rows))
    assert {row["leaf"] for row in table} == {"x1", "x2", "w1", "w2", "b"}
    assert_table_matches(table, expected, key=lambda r: r.label)
    summary = view.root.locator('[data-role="gradcheck-summary"]')
    expect(summary).to_have_text("All 5 leaves pass.")


def test_gradcheck_follows_the_slider_and_the_output(show):
    view = show(lecture_L()["L"])
    check_gradients(view, 4)
    x = view.move_slider("a", 0.8)
    moved = lecture_L(a=x)
    want = gradcheck(moved["L"])
    label = lambda r: r.label  # noqa: E731
    poll(lambda: read_table(view), lambda t: not table_problems(t, want, label),
         "the check to run again for the slider's value")
    view.root.locator('select[data-role="output"]').select_option(label="d (#4)")
    want_d = gradcheck(moved["L"], output=moved["d"])
    assert [r.analytic for r in want_d.rows if r.label == "f"] == [0.0], "f does not reach d"
    poll(lambda: read_table(view), lambda t: not table_problems(t, want_d, label),
         "the check to run again for output d")
    expect(view.root.locator('[data-role="inspector"]')).to_contain_text("d d / d leaf")


def test_many_leaves_are_paged(show):
    root = chain_graph(240)
    expected = gradcheck(root)
    assert len(expected.rows) > 50
    view = show(root)
    first = check_gradients(view, 50)
    expect(view.root.locator('[data-role="gradcheck-summary"]')).to_have_text(f"All {len(expected.rows)} leaves pass.")
    view.root.locator('button[data-role="gradcheck-next"]').click()
    second = poll(lambda: read_table(view), lambda t: t is not None and len(t) == len(expected.rows) - 50,
                  "the second page of rows")
    assert_table_matches(first + second, expected, key=lambda r: r.label)
    assert {row["leaf"] for row in first + second} == {r.label for r in expected.rows}


def cube_bad_graph() -> Value:
    """``z = cube_bad(x) * h`` with a wrong local derivative (2x^2 instead of 3x^2): only the kernel can replay it."""
    cube_bad = define_op("cube_bad", lambda a: a ** 3, lambda a, out: 2 * a * a)
    x = Value(1.5, label="x")
    y = Value.apply(cube_bad, x)
    y.label = "y"
    z = y * Value(0.5, label="h")
    z.label = "z"
    return z


def test_a_wrong_custom_op_is_caught_by_the_kernels_gradcheck(show, guarded):
    root = cube_bad_graph()
    widget = GraphWidget(root)
    replies: list[Any] = []
    widget.comm.send = lambda data=None, metadata=None, buffers=None: replies.append(data)  # type: ignore[method-assign]
    view = show(widget)
    view.root.locator('button[data-role="gradcheck"]').click()
    requests = poll(lambda: [m for m in model_log(guarded.page)["send"] if m.get("type") == "gradcheck"], bool,
                    "the view to ask the kernel for a gradient check")
    # The kernel's side: GraphWidget answers the request as it would in Jupyter; the page receives the reply.
    widget._handle_msg({"content": {"data": {"method": "custom", "content": requests[-1]}}, "buffers": []})
    reply = next(m["content"] for m in replies if m.get("method") == "custom")
    assert reply["type"] == "gradcheck" and reply["passed"] is False
    guarded.page.evaluate("reply => window.__mgw.model._fire('msg:custom', reply, [])", reply)
    table = poll(lambda: read_table(view), lambda t: t is not None and len(t) == 2, "the kernel's rows in the table")
    assert_table_matches(table, gradcheck(root), key=lambda r: r.label)
    assert [row["leaf"] for row in table] == ["x", "h"], "the failing leaf comes first"
    assert table[0]["ok"] == "NO" and table[1]["ok"] == "yes"
    expect(view.root.locator('[data-role="gradcheck-summary"]')).to_contain_text("1 of 2 leaves FAIL: x")


def test_without_a_kernel_the_custom_op_check_says_so_and_hand_built_graphs_offer_none(show, guarded):
    guarded.page.clock.install()
    view = show(cube_bad_graph())
    view.root.locator('button[data-role="gradcheck"]').click()
    guarded.page.clock.run_for(61_000)
    expect(view.root.locator('[data-role="gradcheck-summary"]')).to_contain_text("No kernel answered")
    a, b = Value(1.0, label="a"), Value(2.0, label="b")
    hand = Value(3.0, (a, b), "+", label="c")
    view = show(hand)
    expect(view.root.locator('button[data-role="gradcheck"]')).to_be_disabled()
