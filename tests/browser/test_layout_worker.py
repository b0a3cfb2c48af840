"""Graphviz in a Web Worker (issue 9, js/host/layout-worker.js): the picture laid out in the page's one layout worker is
the main thread's, byte for byte; with no Worker (removed, or a CSP forbidding blob: workers) the view lays out on
the main thread with no error shown; Graphviz's errors and its stack overflow come back from the worker as from the
main thread; a fold box selected in the inspector has its expanded picture laid out early, and Expand then draws the
right boxes with Python's numbers, also after a slider moved in between. The worker's lifetime: it closes once no
view has held it for the idle time and starts again for a new view; a layout past the watchdog's limit stops it, the
view says what to do, and the layouts queued behind run in a fresh worker (js/host/layout-worker.test.js: the same with
a fake Worker and the default 10 s / 60 s)."""

from __future__ import annotations

import pytest
from builders import lecture_mlp_loss, lost_edge_moons, picture_view, small_moons

from micrograd_widget.core.tape import Tape
from micrograd_widget.graph.widget import GraphWidget
from micrograd_widget.host.export import save_html
from micrograd_widget.picture import fold_tree
from micrograd_widget.picture.dot import graph_view

from .mgw_browser.dom import poll
from .mgw_browser.folds import NEURON, drawn, expect_tape_numbers, key_of, saved_open
from .mgw_browser.graphs import lecture_L, vector_dots

pytestmark = pytest.mark.browser

GRAPH = '[data-role="graph"]'
THREAD = f"r => r.querySelector('{GRAPH}').getAttribute('data-layout-thread')"

# The views bundle imported as it is built, given its WebAssembly as js/host/loader.js gives it (window.views).
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
    loss = small_moons(16, points=14)  # 10,090 nodes: over SPECULATE_NODES (js/graph/early-layouts.js)
    widget = GraphWidget(loss)
    largest = max((f for f in picture_view(widget)["folds"] if f.get("key")), key=lambda f: f["count"])["key"]
    assert largest == "layers.1"
    view = show(widget)
    poll(lambda: view.root.evaluate(f"r => r.querySelector('{GRAPH}').getAttribute('data-prefetched')"),
         lambda k: k == largest, f"the largest box ({largest}) laid out early with no input", timeout_s=20)
    assert press_plus(view, largest) is True
    expect_tape_numbers(view, Tape.from_value(loss), drawn(view)["nodes"])  # the opened box's nodes, live
    assert view.error_text() == ""


def test_a_big_graph_whose_largest_box_draws_a_large_picture_guesses_nothing_and_warms_graphviz_up(show, guarded):
    """At node_budget=2000 the largest box of a 10,000-node moons loss opens to a large picture (310,000 characters of
    DOT: over SPECULATE_DOT_CHARS, js/graph/early-layouts.js): it is not laid out early (a layout in the worker cannot
    be stopped cheaply, and a guess that large held the box the user opened), Graphviz is warmed up with a small
    picture instead (js/host/graphviz.js warmUp), and + on the box still opens it with the tape's numbers."""
    guarded.page.add_init_script("""(() => {
      const post = Worker.prototype.postMessage;
      window.__dots = [];
      Worker.prototype.postMessage = function (message, ...rest) {
        if (message && typeof message.dot === 'string') window.__dots.push(message.dot);
        return post.call(this, message, ...rest);
      };
    })()""")
    loss = small_moons(16, points=20)
    widget = GraphWidget(loss, node_budget=2000)
    largest = max((f for f in picture_view(widget)["folds"] if f.get("key")), key=lambda f: f["count"])["key"]
    widget.opened = fold_tree.expand(widget.tape, widget._fold_tree(), [], largest, 2000)  # what + opens
    assert len(widget._drawing().dot) > 250_000, "the largest box's picture is large"
    widget.opened = []
    view = show(widget)
    sent = poll(lambda: guarded.page.evaluate("() => window.__dots"),
                lambda dots: any(d.startswith("digraph warm") for d in dots), "Graphviz warmed up", timeout_s=20)
    assert all(len(d) < 250_000 for d in sent), "nothing large laid out early"
    assert view.root.evaluate(f"r => r.querySelector('{GRAPH}').getAttribute('data-prefetched')") is None
    assert press_plus(view, largest) is False, "laid out when asked"
    expect_tape_numbers(view, Tape.from_value(loss), drawn(view)["nodes"])
    assert view.error_text() == ""


def workers(page) -> int:
    """How many workers the page runs now (a round trip to the page first: Playwright reports a worker's end as an
    event, which the sync API takes in only while it waits)."""
    page.evaluate("() => 0")
    return len(page.workers)


# The views module the loader imported (the page records the Blob URL; importing it again gives the same module).
_VIEWS = "await import(window.__mgw.blobModules[0])"


def test_the_worker_closes_once_its_last_view_is_gone_and_starts_again_for_a_new_view(show, guarded):
    """The page's one layout worker is held by the views shown; after the last one is cleaned up it is terminated
    once the idle time has passed (layoutWorkerLimits' idleMs, 10 s by default, 0.3 s here), and a view rendered
    afterwards lays out in a fresh worker."""
    page = guarded.page
    view = show(lecture_L()["L"])
    assert view.root.evaluate(THREAD) == "worker"
    assert len(page.workers) == 1
    page.evaluate(f"async () => {{ ({_VIEWS}).layoutWorkerLimits({{ idleMs: 300 }}); await window.__mgw.cleanup(); }}")
    poll(lambda: workers(page), lambda n: n == 0, "the layout worker to be terminated after the last view went")
    page.evaluate("""async () => { const { model, el } = window.__mgw;
      window.__mgw.cleanup = await (await import('/static/loader.js')).default.render({ model, el }); }""")
    page.wait_for_function(f"() => document.querySelector('.mgw-root {GRAPH} svg')")
    assert view.root.evaluate(THREAD) == "worker"
    assert len(page.workers) == 1, "a fresh worker for the new view"
    page.evaluate("() => window.__mgw.cleanup()")
    poll(lambda: workers(page), lambda n: n == 0, "the fresh worker to be terminated in its turn")


def test_a_layout_past_the_watchdog_limit_stops_the_worker_says_what_to_do_and_the_next_runs_in_a_fresh_one(show,
                                                                                                          guarded):
    """A layout running in the worker longer than layoutWorkerLimits' jobMs (60 s by default; 0.1 s here, for a
    picture that takes ~0.5-1 s) terminates the worker: the view says what happened and what to do, keeps its old
    picture, and a layout queued behind the stopped one runs in a fresh worker, not on the main thread. The user is
    left where they were: the open set goes back to the picture shown (Python's `opened` too), and the next picture
    shown, or Collapse all back to the one shown, clears the error (data-state="ready" again)."""
    page = guarded.page
    root, budget = lost_edge_moons()
    widget = GraphWidget(root, node_budget=budget)
    tape = Tape.from_value(root)
    view = show(widget)
    default = drawn(view)
    assert view.root.evaluate(THREAD) == "worker" and workers(page) == 1
    after = page.evaluate(f"""async () => {{
      const views = {_VIEWS};
      views.layoutWorkerLimits({{ jobMs: 100 }});
      document.querySelector('[data-action="expand-all"]').click();
      await new Promise((resolve) => setTimeout(resolve, 0)); // the view's layout is sent to the worker
      views.layoutWorkerLimits({{ jobMs: 60000 }}); // what is sent from now on (the running layout keeps 0.1 s)
      const svg = await views.layoutSVG('digraph {{ a -> b }}');
      return {{ svg: svg.includes('<svg'), thread: views.lastLayoutThread() }};
    }}""")
    assert after == {"svg": True, "thread": "worker"}, "the layout queued behind ran in the worker"
    poll(view.error_text, lambda text: "Graphviz was stopped" in text, "the view to say the layout was stopped")
    text = view.error_text()
    assert text.startswith("The widget could not draw the new picture: Graphviz was stopped after laying out this "
                           "picture for 0.1 s"), text
    assert "close opened boxes, or lower the node budget" in text, text
    assert text.endswith("It still shows the picture before, and the boxes opened for the new one are closed "
                         "again."), text
    assert view.root.get_attribute("data-state") == "error"
    poll(lambda: workers(page), lambda n: n == 1, "the stopped worker to end (one fresh worker runs)")
    assert drawn(view) == default, "the picture before stays"
    _expect_python_opened(page, widget, tape, budget, default, [])
    # Collapse all, back to the picture shown: nothing to lay out, and the error is over
    view.root.locator('[data-action="collapse-all"]').click()
    poll(view.error_text, lambda t: t == "", "Collapse all to clear the error")
    assert view.root.get_attribute("data-state") == "ready"

    # fails again, then Expand of another box lays out (in time) and clears the error
    page.evaluate(f"""async () => {{
      const views = {_VIEWS};
      views.layoutWorkerLimits({{ jobMs: 100 }});
      document.querySelector('[data-action="expand-all"]').click();
      await new Promise((resolve) => setTimeout(resolve, 0));
      views.layoutWorkerLimits({{ jobMs: 60000 }});
    }}""")
    poll(view.error_text, lambda t: "Graphviz was stopped" in t, "the second stopped layout")
    assert view.root.get_attribute("data-state") == "error"
    _expect_python_opened(page, widget, tape, budget, default, [])
    key = "layers.2"
    view.root.locator(f'{GRAPH} g.mgw-fold[data-fold="{key}"]').dblclick()
    opened = poll(lambda: drawn(view, settle=False), lambda d: key in d["clusters"] and not d["busy"], "Expand")
    assert view.error_text() == ""
    assert view.root.get_attribute("data-state") == "ready"
    _expect_python_opened(page, widget, tape, budget, opened, None)
    assert key in widget.opened


def _expect_python_opened(page, widget: GraphWidget, tape: Tape, budget: int, shown: dict, want) -> None:
    """Python's `opened`, after the view's saves reach it, is the open set of the picture `shown` (drawn()): Python's
    picture for it draws the same nodes and closed boxes (and, when `want` is given, it is `want`)."""
    for save in page.evaluate("() => window.__mgw.log.save"):
        if "opened" in save:
            widget._handle_msg({"content": {"data": {"method": "update", "state": {"opened": save["opened"]},
                                                     "buffer_paths": []}}, "buffers": []})
    assert sorted(page.evaluate("() => window.__mgw.model.get('opened')")) == sorted(widget.opened)
    if want is not None:
        assert sorted(widget.opened) == want
    static = graph_view(tape, node_budget=budget, open_keys=widget.opened)
    assert sorted(static.shown) == sorted(shown["nodes"])
    assert sorted(f.key for f in static.folds) == sorted(shown["boxes"])
