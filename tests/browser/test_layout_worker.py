"""Graphviz in a Web Worker (issue 9, js/layout-worker.js): the picture laid out in the page's one layout worker is
the main thread's, byte for byte; with no Worker (removed, or a CSP forbidding blob: workers) the view lays out on
the main thread with no error shown; Graphviz's errors and its stack overflow come back from the worker as from the
main thread; a fold box selected in the inspector has its expanded picture laid out early, and Expand then draws the
right boxes with Python's numbers, also after a slider moved in between."""

from __future__ import annotations

import pytest
from builders import small_moons

from micrograd_widget.dot import graph_view
from micrograd_widget.export import save_html
from micrograd_widget.tape import Tape
from micrograd_widget.widget import GraphWidget

from .mgw_browser.dom import poll
from .mgw_browser.graphs import vector_dots
from .test_folding import NEURON, drawn, expect_tape_numbers, key_of, lecture_mlp_loss, saved_open

pytestmark = pytest.mark.browser

GRAPH = '[data-role="graph"]'
THREAD = f"r => r.querySelector('{GRAPH}').getAttribute('data-layout-thread')"

# The views bundle imported as it is built, given its WebAssembly as js/loader.js gives it (window.views).
_PAGE = """<!doctype html><html><head><meta charset="utf-8"></head><body><script type="module">
const views = await import('/static/views.js');
const gz = await (await fetch('/static/graphviz.wasm.gz')).arrayBuffer();
let wasm = null;
views.provideWasm(() => (wasm ??= new Response(new Blob([gz]).stream().pipeThrough(new DecompressionStream('gzip')))
  .arrayBuffer().then(b => new Uint8Array(b))));
window.views = views;
</script></body></html>"""


@pytest.fixture
def bundle_page(guarded, static_server, widget_bundle):
    page = guarded.page
    page.route(f"{static_server.url}/worker-test.html",
               lambda route: route.fulfill(body=_PAGE, content_type="text/html"))
    page.goto(f"{static_server.url}/worker-test.html")
    page.wait_for_function("() => window.views")
    return page


def _chain_dot(n: int) -> str:
    return "digraph { " + " ".join(f"a{i} -> a{i + 1};" for i in range(n - 1)) + " }"


def test_the_worker_lays_out_the_same_svg_text_as_the_main_thread(bundle_page):
    for k, dot in enumerate(vector_dots()):
        got = bundle_page.evaluate("""async dot => {
          const inWorker = await views.layoutSVG(dot);
          const where = views.lastLayoutThread();
          return { where, same: inWorker === await views.layoutHere(dot), length: inWorker.length };
        }""", dot)
        assert got["where"] == "worker", f"picture {k} was laid out on the {got['where']} thread"
        assert got["same"] and got["length"] > 1000, f"picture {k}: the worker's SVG differs from the main thread's"
    assert len(bundle_page.workers) == 1, "one layout worker per page"


def test_graphviz_errors_and_its_stack_overflow_come_back_from_the_worker_as_from_the_main_thread(bundle_page):
    failures = bundle_page.evaluate("""async dots => {
      const outcome = async (run) => { try { await run(); return 'laid out'; }
                                       catch (err) { return `${err.name}: ${err.message}`; } };
      const out = [];
      for (const dot of dots) {
        const worker = await outcome(() => views.layoutSVG(dot));
        const where = views.lastLayoutThread();
        out.push({ worker, where, main: await outcome(() => views.layoutHere(dot)) });
      }
      const again = await views.layoutSVG('digraph { a -> b }');
      out.push({ after: again.includes('<svg'), where: views.lastLayoutThread() });
      return out;
    }""", ["digraph { a -> }", _chain_dot(9000), _chain_dot(30000)])
    syntax, deeper_than_the_worker, too_deep, after = failures
    assert syntax["where"] == "worker" and syntax["worker"] == syntax["main"], syntax
    assert syntax["worker"].startswith("Error: Graphviz could not lay out the graph: syntax error"), syntax
    # a worker's stack is ~3x smaller than the page's (measured: a chain of ~7,700 overflows it): laid out here
    assert deeper_than_the_worker == {"worker": "laid out", "where": "main", "main": "laid out"}, deeper_than_the_worker
    assert too_deep["worker"] == too_deep["main"] and too_deep["main"].startswith("RangeError: "), too_deep
    assert after == {"after": True, "where": "worker"}, "the worker lays out again after a failure"


def test_without_worker_the_view_lays_out_on_the_main_thread_with_no_error(show, guarded):
    guarded.page.add_init_script("delete window.Worker;")
    loss = lecture_mlp_loss()
    view = show(GraphWidget(loss))
    assert view.root.evaluate(THREAD) == "main"
    assert view.error_text() == ""
    view.root.locator(f'{GRAPH} g.mgw-fold[data-fold="{NEURON}"]').dblclick()
    after = poll(lambda: drawn(view, settle=False), lambda d: NEURON in d["clusters"] and not d["busy"], "opened")
    expect_tape_numbers(view, Tape.from_value(loss), after["nodes"])
    assert view.error_text() == "" and not guarded.page.workers


def test_a_csp_forbidding_blob_workers_falls_back_to_the_main_thread_with_no_error(show, guarded, static_server):
    def with_csp(route):
        response = route.fetch()
        headers = {**response.headers, "content-security-policy": "worker-src 'none'"}
        route.fulfill(response=response, headers=headers)

    guarded.page.route(f"{static_server.url}/pages/fake_model.html**", with_csp)
    view = show(GraphWidget(lecture_mlp_loss()))
    assert view.root.evaluate(THREAD) == "main"
    assert view.error_text() == ""
    view.root.locator(f'{GRAPH} g.mgw-fold[data-fold="{NEURON}"]').click()  # no prefetch on the main thread
    view.root.locator(f'[data-role="inspector"][data-fold="{NEURON}"] [data-action="expand"]').click()
    poll(lambda: drawn(view, settle=False), lambda d: NEURON in d["clusters"] and not d["busy"], "opened")
    assert view.root.evaluate(f"r => r.querySelector('{GRAPH}').hasAttribute('data-prefetched')") is False
    assert view.error_text() == ""


def test_a_selected_box_is_laid_out_early_and_expand_draws_it_with_the_numbers_after_a_slider_move(show, guarded):
    loss = lecture_mlp_loss()
    tape = Tape.from_value(loss)
    view = show(GraphWidget(loss))
    assert view.root.evaluate(THREAD) == "worker"
    default = drawn(view)
    view.root.locator(f'{GRAPH} g.mgw-fold[data-fold="{NEURON}"]').click()
    poll(lambda: view.root.evaluate(f"r => r.querySelector('{GRAPH}').getAttribute('data-prefetched')"),
         lambda k: k == NEURON, "the selected box laid out early")
    # a weight of the neuron moves after the early layout, whose DOT holds the old numbers
    leaf = next(i for i in tape.leaves if tape.scopes[i].startswith(NEURON) and tape.labels[i].startswith("w"))
    view.type_number(key_of(tape, leaf), -2.5)
    tape.forward({leaf: -2.5})
    tape.backward()
    expect_tape_numbers(view, tape, default["nodes"])
    view.root.locator(f'[data-role="inspector"][data-fold="{NEURON}"] [data-action="expand"]').click()
    after = poll(lambda: drawn(view, settle=False), lambda d: NEURON in d["clusters"] and not d["busy"], "opened")
    assert view.root.evaluate(f"r => r.querySelector('{GRAPH}').hasAttribute('data-laid-out-early')"), \
        "Expand did not use the early layout"
    static = graph_view(tape, open_keys=saved_open(guarded.page))
    assert NEURON in saved_open(guarded.page)
    assert sorted(static.shown) == sorted(after["nodes"])
    assert sorted(f.key for f in static.folds) == sorted(after["boxes"])
    expect_tape_numbers(view, tape, after["nodes"])
    assert view.error_text() == ""


def test_a_box_tabbed_past_lays_nothing_out_early_but_one_keeping_the_focus_does(show):
    view = show(GraphWidget(lecture_mlp_loss()))
    prefetched = f"r => r.querySelector('{GRAPH}').getAttribute('data-prefetched')"
    boxes = view.root.locator(f"{GRAPH} g.mgw-fold[data-fold]")
    # Tab past the boxes (each holds the focus ~50 ms, under the 300 ms a box must keep it): nothing laid out
    boxes.nth(1).evaluate("""async g => {
      for (const box of [...g.parentNode.querySelectorAll('g.mgw-fold[data-fold]')]) {
        box.focus();
        await new Promise(ok => setTimeout(ok, 50));
      }
      document.activeElement.blur();
    }""")
    view.root.evaluate("r => new Promise(ok => setTimeout(ok, 600))")
    assert view.root.evaluate(prefetched) is None
    # a box keeping the focus has its opened picture laid out early, and + uses it
    view.root.locator(f'{GRAPH} g.mgw-fold[data-fold="{NEURON}"]').focus()
    poll(lambda: view.root.evaluate(prefetched), lambda k: k == NEURON, "the focused box laid out early")
    assert press_plus(view, NEURON) is True


def test_plus_at_once_on_a_focused_box_opens_it_without_an_early_layout(show):
    view = show(GraphWidget(lecture_mlp_loss()))
    assert press_plus(view, NEURON) is False


def press_plus(view, key: str) -> bool:
    """Focus fold box `key` and press + in the same task; wait until it is open; True when the picture drawn came
    from an early layout."""
    view.root.locator(f'{GRAPH} g.mgw-fold[data-fold="{key}"]').evaluate(
        "g => { g.focus(); g.dispatchEvent(new KeyboardEvent('keydown', {key: '+', bubbles: true})); }")
    poll(lambda: drawn(view, settle=False), lambda d: key in d["clusters"] and not d["busy"], "+ opens")
    return view.root.evaluate(f"r => r.querySelector('{GRAPH}').hasAttribute('data-laid-out-early')")


def test_pressing_a_box_lays_it_out_early_at_once(show):
    view = show(GraphWidget(lecture_mlp_loss()))
    box = view.root.locator(f'{GRAPH} g.mgw-fold[data-fold="{NEURON}"]')
    box.dispatch_event("pointerdown")  # no click, no focus: the press alone (the first half of a double-click)
    poll(lambda: view.root.evaluate(f"r => r.querySelector('{GRAPH}').getAttribute('data-prefetched')"),
         lambda k: k == NEURON, "the pressed box laid out early", timeout_s=5)
    assert view.root.locator('[data-role="inspector"]').is_hidden(), "a press alone should not open the inspector"


def test_the_exported_page_opened_from_a_file_lays_out_in_the_worker(guarded, widget_bundle, tmp_path):
    # Chromium starts no module worker from a Blob URL in a file:// page: the second try, a data: URL, does
    page = guarded.page
    save_html(lecture_mlp_loss(), tmp_path / "mlp.html")
    page.goto((tmp_path / "mlp.html").as_uri())
    page.wait_for_selector('.mgw-root[data-state="ready"]', timeout=60_000)
    assert page.get_attribute(GRAPH, "data-layout-thread") == "worker"
    assert len(page.workers) == 1


def test_the_page_keeps_running_while_the_worker_lays_out(bundle_page):
    ticks = bundle_page.evaluate("""async dot => {
      await views.layoutSVG('digraph { a -> b }');  // the worker started, its WebAssembly compiled
      let ticks = 0, running = true;
      const tick = () => { ticks += 1; if (running) setTimeout(tick, 0); };
      const layout = views.layoutSVG(dot);  // on the main thread (layoutHere) the page runs 1 timer task
      tick();
      await layout;
      running = false;
      return { ticks, where: views.lastLayoutThread() };
    }""", _chain_dot(3000))
    assert ticks["where"] == "worker"
    assert ticks["ticks"] >= 10, f"the page ran {ticks['ticks']} timer tasks while Graphviz laid out 3,000 nodes"


def test_a_big_graph_lays_its_largest_box_out_early_once_idle_and_plus_uses_it(show):
    loss = small_moons(16, points=14)  # 10,090 nodes: over SPECULATE_NODES (js/view/folding.js)
    widget = GraphWidget(loss)
    largest = max((f for f in widget.view["folds"] if f.get("key")), key=lambda f: f["count"])["key"]
    assert largest == "layers.1"
    view = show(widget)
    poll(lambda: view.root.evaluate(f"r => r.querySelector('{GRAPH}').getAttribute('data-prefetched')"),
         lambda k: k == largest, f"the largest box ({largest}) laid out early with no input", timeout_s=20)
    assert press_plus(view, largest) is True
    expect_tape_numbers(view, Tape.from_value(loss), drawn(view)["nodes"])  # the opened box's nodes, live
    assert view.error_text() == ""
