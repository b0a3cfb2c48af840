"""The live widget in headless Chromium: slider 'input' -> updated DOM, against re-rendering the same widget.

For graphs of ~100 and ~1,000 nodes and the folded moons loss graph (~65,800 nodes), the fake-model page of
tests/browser renders the built widget (micrograd_widget/static/loader.js + views.js); in the page, performance.now()
times a slider 'input' event until the output node's shown number changes (DOM) and until the frame that
shows it has been painted (the input is dispatched in a requestAnimationFrame callback; a message-channel
task posted there runs after that frame's style, layout and paint). The baseline,
measured in the same page, is what the widget avoids doing per slider frame: a full re-render of the same
graph (Graphviz layout of the same DOT, SVG insertion, sliders) until the new view is ready and painted.
Targets (issue 4): 1,000 nodes under one frame (16 ms), folded moons under 100 ms.

Construction, without a browser: ``GraphWidget(root)`` on micrograd's moons loss (65,818 nodes; what a learner
waits for each time such a graph is displayed, explore() and %load_ext included), as a ratio to
``Tape.from_value(root)`` + ``backward()`` on the same graph, timed in alternating blocks of the same run: the
least any live picture of the graph does (freeze it, differentiate it once), and the baseline of the 1,000,000-op
rows below. Printed with it, for where the time goes: the fold hierarchy alone (fold_tree.build_tree).

An ``opened`` message from a front end, as the kernel handles it (the check, the answer to every front end), against
the same baseline: an Expand of the moons loss's largest box (issue 20: the kernel planned a new picture, 1.9x;
target <= 0.1x), and one listing every box (issue 24: 11-15 s).

Memory (issue 12), measured first and without a browser: the bytes an open widget costs beyond its graph
(tracemalloc around GraphWidget(root) after a full GC) on the Decisions' graph (20,000 leaves, sum(x*x),
60,001 nodes) and on the moons loss, per node (target <= ~150 B), and the size of its saved state as
ipywidgets serializes it (JSON + binary buffers; a notebook stores the buffers in base64). Then a chain of
1,000,000 ops (chain_scale.py, each part in its own process): the widget's construction time and the exported
page's (save_html) as ratios to Tape.from_value + backward on the same chain, their synced state / page size and
peak memory.
"""

from __future__ import annotations

import base64
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT / "tests") not in sys.path:
    sys.path.insert(0, str(ROOT / "tests"))

# E402: these imports need tests/ on sys.path (the browser helpers are shared with the browser tests).
from browser.mgw_browser.chromium import launch, missing_chromium_reason  # noqa: E402
from browser.mgw_browser.fake_model import open_view  # noqa: E402
from browser.mgw_browser.graphs import chain_graph, moons_loss  # noqa: E402
from browser.mgw_browser.http import STATIC_DIR, StaticServer  # noqa: E402
from chain_scale import measure, row  # noqa: E402
from common import ms, summary, time_runs, traced_bytes  # noqa: E402
from ipywidgets.widgets.widget import _remove_buffers  # noqa: E402

from micrograd_widget.core.tape import Tape  # noqa: E402
from micrograd_widget.engine import Value  # noqa: E402
from micrograd_widget.graph.widget import GraphWidget  # noqa: E402
from micrograd_widget.picture.fold_tree import build_tree, check_open  # noqa: E402
from micrograd_widget.picture.fold_tree import expand as fold_expand  # noqa: E402

SLIDER_FRAMES = 40
RERENDERS = 5
RERENDERS_LARGE = 3
CONSTRUCTION_ROUNDS = 3      # alternating blocks of the widget and the baseline
CONSTRUCTION_REPEATS = 3     # runs per block

# Times `n` slider 'input' events on leaf `leaf`, alternating between the slider's ends, in ms: until the output
# node's shown data changes (dom), and until the frame showing it has been painted (frame). Each input is
# dispatched at the start of a frame (in a requestAnimationFrame callback); a message-channel task posted
# there runs once that frame's style, layout and paint are done. An update deferred to a later frame is
# waited for (MutationObserver, then the next painted frame). The floor starts once the page is quiet: the
# numbers the slider frames left pending out of sight (js/graph/visible.js) are written in idle chunks that
# would otherwise land in the floor's frames and inflate it.
_SLIDER_FRAMES = """async ({leaf, watch, n}) => {
  // leaf === null: the floor, a one-text-node change outside the widget timed the same way.
  const root = document.querySelector('.mgw-root');
  if (leaf === null) {
    const started = performance.now();
    while (document.querySelector('[data-numbers="pending"]')) {
      if (performance.now() - started > 10000) throw new Error('numbers still pending after 10 s');
      await new Promise(ok => setTimeout(ok, 20));
    }
    for (let i = 0; i < 3; i++) await new Promise(ok => requestAnimationFrame(() => setTimeout(ok, 0)));
  }
  let probe = document.getElementById('mgw-bench-probe');
  if (!probe) {
    probe = Object.assign(document.createElement('span'), {id: 'mgw-bench-probe'});
    document.body.prepend(probe);
  }
  const slider = leaf === null ? null
    : [...root.querySelectorAll('input[type=range]')].find(e => e.getAttribute('data-leaf') === leaf);
  const target = leaf === null ? probe : [...root.querySelectorAll('[data-field="data"]')]
    .find(e => e.getAttribute('data-node') === watch && !e.closest('[data-role="inspector"]'));
  if ((leaf !== null && !slider) || !target) throw new Error(`no slider for ${leaf} or no shown data for ${watch}`);
  const act = (i) => {
    if (leaf === null) { probe.textContent = String(i); return; }
    slider.value = i % 2 ? slider.min : slider.max;
    slider.dispatchEvent(new Event('input', {bubbles: true}));
  };
  const afterPaint = () => new Promise(resolve => {
    const ch = new MessageChannel(); ch.port1.onmessage = () => resolve(performance.now()); ch.port2.postMessage(0); });
  const nextPaint = () => new Promise(resolve => requestAnimationFrame(() => resolve(afterPaint())));
  const dom = [], frame = [];
  for (let i = 0; i < n; i++) {
    await nextPaint();
    const before = target.textContent;
    const changed = new Promise(resolve => {
      const obs = new MutationObserver(() => {
        if (target.textContent !== before) { obs.disconnect(); resolve(performance.now()); }
      });
      obs.observe(target, {characterData: true, childList: true, subtree: true});
      setTimeout(() => { obs.disconnect(); resolve(NaN); }, 5000);
    });
    const [t0, tDom, tPaint] = await new Promise(resolve => requestAnimationFrame(() => {
      const t0 = performance.now();
      act(i);
      const tDom = target.textContent !== before ? performance.now() : null;
      afterPaint().then(async tPaint => tDom !== null ? resolve([t0, tDom, tPaint])
                                                      : resolve([t0, await changed, await nextPaint()]));
    }));
    dom.push(tDom - t0); frame.push(tPaint - t0);
  }
  return {dom, frame};
}"""

# Times `n` fresh renders of the same model into a new element until its view is ready and painted, in ms.
_RERENDERS = """async ({n}) => {
  const def = window.__mgw.def;  // the graph view's own { render } (pages/fake_model.html), past the loader
  const painted = () => new Promise(resolve => requestAnimationFrame(() => {
    const ch = new MessageChannel();
    ch.port1.onmessage = () => resolve(performance.now());
    ch.port2.postMessage(0);
  }));
  const times = [];
  for (let i = 0; i < n; i++) {
    await painted();
    const el = document.createElement('div'); document.body.append(el);
    const ready = () => el.querySelector('.mgw-root')?.getAttribute('data-state') === 'ready';
    const t0 = performance.now();
    const cleanup = await def.render({model: window.__mgw.model, el});
    if (!ready()) await new Promise(resolve => {
      const obs = new MutationObserver(() => { if (ready()) { obs.disconnect(); resolve(); } });
      obs.observe(el, {attributes: true, childList: true, subtree: true});
    });
    times.push(await painted() - t0);
    if (typeof cleanup === 'function') await cleanup();
    el.remove();
  }
  return times;
}"""


def _median(xs: list[float]) -> float:
    finite = [x for x in xs if x == x]
    return statistics.median(finite) if finite else float("nan")


def _measure(page, server, name: str, root, rerenders: int, **options) -> None:
    tape = Tape.from_value(root)
    view = open_view(page, server, root, **options)
    drawn = view.root.evaluate(
        "r => new Set([...r.querySelectorAll('[data-node][data-field]')].map(e => e.getAttribute('data-node'))).size")
    leaf = view.root.locator("input[type=range]").first.get_attribute("data-leaf")
    watch = root.label or str(tape.root)
    frames = page.evaluate(_SLIDER_FRAMES, {"leaf": leaf, "watch": watch, "n": SLIDER_FRAMES})
    missed = sum(1 for x in frames["dom"] if x != x)
    floor = _median(page.evaluate(_SLIDER_FRAMES, {"leaf": None, "watch": None, "n": SLIDER_FRAMES})["frame"])
    rerender = page.evaluate(_RERENDERS, {"n": rerenders})
    dom, frame, full = _median(frames["dom"]), _median(frames["frame"]), _median(rerender)
    print(f"{name}: {len(tape):,} nodes, {drawn:,} drawn, {len(tape.leaves):,} leaves")
    print(f"  slider input -> DOM text     median {dom:8.2f} ms   max {max(frames['dom']):8.2f} ms"
          + (f"   ({missed} of {SLIDER_FRAMES} showed no change)" if missed else ""))
    print(f"  slider input -> painted frame median {frame:8.2f} ms   max {max(frames['frame']):8.2f} ms")
    print(f"  floor: one text change outside the widget -> painted frame median {floor:8.2f} ms"
          f"  (the widget's frame is {frame / floor:.1f}x it)")
    print(f"  baseline: full re-render (layout of the same DOT + SVG + sliders) median {full:8.1f} ms"
          f"  ->  {full / frame:,.0f}x the slider frame")


def _sum_of_squares(n: int = 20_000) -> Value:
    """Issue 12's memory graph: n labelled leaves x_i, their squares and the running sum (3n + 1 nodes)."""
    xs = [Value(float(i % 7) - 3.0, label=f"x{i}") for i in range(n)]
    return sum(x * x for x in xs)  # type: ignore[return-value]  # 0 + Value is a Value


def _memory(name: str, root: Value) -> None:
    """Bytes per node of an open widget beyond its graph, and of its saved state."""
    widget, used = traced_bytes(lambda: GraphWidget(root))
    n = len(widget.tape)
    state = {k: v for k, v in widget.get_state().items() if k not in ("_esm", "_css")}
    text, _, buffers = _remove_buffers(state)
    json_bytes = len(json.dumps(text, allow_nan=False, ensure_ascii=False).encode("utf-8"))
    binary = sum(memoryview(b).nbytes for b in buffers)
    saved = json_bytes + sum(len(base64.b64encode(b)) for b in buffers)
    print(f"{name}: {n:,} nodes")
    print(f"  open widget beyond the graph {used / n:6.1f} B/node   (target <= ~150; {used / 1e6:.1f} MB)")
    print(f"  synced state {(json_bytes + binary) / n:6.1f} B/node (JSON {json_bytes / n:.1f} + buffers "
          f"{binary / n:.1f}); saved in a notebook (base64) {saved / n:.1f} B/node ({saved / 1e6:.2f} MB)")
    widget.close()


def construction(name: str, root: Value) -> None:
    """``GraphWidget(root)``'s construction time against ``Tape.from_value(root)`` + ``backward()`` (blocks of each
    in turn, GC on), and the fold hierarchy's share."""
    t_widget: list[float] = []
    t_base: list[float] = []
    for _ in range(CONSTRUCTION_ROUNDS):
        t_base += time_runs(lambda: Tape.from_value(root).backward(), CONSTRUCTION_REPEATS)
        t_widget += time_runs(lambda: GraphWidget(root).close(), CONSTRUCTION_REPEATS)
    tape = Tape.from_value(root)
    with tape.shared_inputs():      # as the widget builds it: every node's inputs made into tuples once, before
        mt = summary(time_runs(lambda: build_tree(tape, 250), CONSTRUCTION_REPEATS))[0]
    (mw, lw), (mb, lb) = summary(t_widget), summary(t_base)
    print(f"{name}: {len(tape):,} nodes")
    print(f"  GraphWidget(root)               median {ms(mw)}   min {ms(lw)}")
    print(f"  Tape.from_value + backward      median {ms(mb)}   min {ms(lb)}   (baseline, same run)")
    print(f"  construction / baseline         median x{mw / mb:.2f}   min vs min x{lw / lb:.2f}")
    print(f"  of which the fold hierarchy     median {ms(mt)}   ({mt / mw:.0%} of the construction)")


def opened_message(name: str, root: Value, node_budget: int, expand: bool = False) -> None:
    """A front end's ``opened`` against ``Tape.from_value(root)`` + ``backward()``: the whole message (check, answer)
    as the kernel handles it, the first on a widget (fold_fit's tables made then) and later ones, and the check alone.
    It lists every box (issue 24: 11-15 s on the moons loss; the check was 0.36 s at the default budget, 9.7 s at
    1,000: a picture of the graph per box tried), or, with ``expand``, what an Expand of the largest closed box sends
    (issue 20: 1.9x the baseline when the kernel planned a picture for every change; target <= 0.1x)."""
    widget = GraphWidget(root, node_budget=node_budget)
    widget.comm.send = lambda *args, **kwargs: None  # type: ignore[method-assign]  # the kernel's work, not the wire
    tree = widget._fold_tree()
    if expand:
        largest = max((g for g in tree.groups if g.parent < 0), key=lambda g: g.count).key
        asked = fold_expand(widget.tape, tree, [], largest, node_budget)
    else:
        asked = [g.key for g in tree.groups]

    def message() -> float:
        """Seconds the kernel takes over the message; the open set is put back first, untimed."""
        widget.set_state({"opened": []})
        start = time.perf_counter()
        widget._handle_msg({"content": {"data": {"method": "update", "state": {"opened": asked}}}, "buffers": []})
        seconds = time.perf_counter() - start
        assert widget.error == "" and widget.opened, widget.error
        return seconds

    first = message()
    t_base: list[float] = []
    t_message: list[float] = []
    for _ in range(CONSTRUCTION_ROUNDS):
        t_base += time_runs(lambda: Tape.from_value(root).backward(), CONSTRUCTION_REPEATS)
        t_message += [message() for _ in range(CONSTRUCTION_REPEATS)]
    check = summary(time_runs(lambda: check_open(widget.tape, tree, asked, widget.node_budget), 5))[0]
    (mm, lm), (mb, lb) = summary(t_message), summary(t_base)
    kept = check_open(widget.tape, tree, asked, widget.node_budget)
    what = f"an Expand of {asked[0]!r} ({len(asked)} boxes)" if expand else f"every one of {len(asked):,} boxes"
    print(f"{name}: {len(widget.tape):,} nodes, {what} asked for, {len(kept)} kept")
    print(f"  first opened message            {ms(first)}   (x{first / mb:.2f} the baseline; fold_fit's tables made)")
    print(f"  opened message                  median {ms(mm)}   min {ms(lm)}")
    print(f"  Tape.from_value + backward      median {ms(mb)}   min {ms(lb)}   (baseline, same run)")
    print(f"  message / baseline              median x{mm / mb:.2f}   min vs min x{lm / lb:.2f}")
    print(f"  of which check_open             median {ms(check)}   (x{check / mb:.2f} the baseline)")
    widget.close()


def main() -> None:
    GraphWidget(_sum_of_squares(10)).close()  # first-use costs (imports, caches) are not a widget's
    moons = moons_loss()
    opened_message("an Expand (opened message), moons loss, node_budget=250", moons, 250, expand=True)
    for budget in (250, 1000):
        opened_message(f"an all-boxes opened message, moons loss, node_budget={budget}", moons, budget)
    construction("construction, moons loss", moons)
    _memory("memory, sum(x*x) of 20,000 leaves", _sum_of_squares())
    _memory("memory, moons loss", moons)
    widget = measure("widget")  # issue 12: within 3x of Tape.from_value + backward on the same chain
    print(row(widget))
    print(f"        synced/saved state {(widget['state_json'] + widget['state_buffers']) / 1e6:.1f} MB (JSON "
          f"{widget['state_json'] / 1e6:.1f} + buffers {widget['state_buffers'] / 1e6:.1f}); its static fallback "
          f"(_repr_mimebundle_) {widget['fallback_s']:.2f} s more")
    page = measure("export")
    print(row(page) + f"; page {page['page_bytes'] / 1e6:.1f} MB")
    reason = missing_chromium_reason()
    if reason:
        print(f"skipped: {reason}")
        return
    if not (STATIC_DIR / "views.js").exists():
        print(f"skipped: {STATIC_DIR / 'views.js'} is not built (npm --prefix js run build)")
        return
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp, StaticServer(Path(tmp)) as server, sync_playwright() as pw:
        browser = launch(pw)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(120_000)
            _measure(page, server, "~100 nodes", chain_graph(100), RERENDERS)
            _measure(page, server, "~1,000 nodes (default node budget)", chain_graph(1000), RERENDERS)
            _measure(page, server, "~1,000 nodes (unfolded: node_budget=None)", chain_graph(1000), RERENDERS,
                     node_budget=None)
            _measure(page, server, "moons loss (folded)", moons_loss(), RERENDERS_LARGE)
            print("targets (issue 4): ~1,000 nodes under 16 ms, folded moons under 100 ms"
                  " (slider input -> painted frame)")
        finally:
            browser.close()


if __name__ == "__main__":
    main()
