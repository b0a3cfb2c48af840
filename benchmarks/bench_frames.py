"""Slider frames that cost what is in sight (issue 22), in the exported page of micrograd's moons loss (65,818 nodes),
measured in headless Chromium, printed as ratios to a frame on the same page in the same run.

1. With ``layers.1`` open (~213 boxes, a few percent of them in sight) at the zoom the page keeps: slider input
   -> painted frame against the same page's frame with the default picture (target <= 1.3x). Rounds alternate the
   two pictures on one page (Expand, Collapse all); the ratio is the median of the per-round ratios (load drifts less
   within a round than across the run). Also the time until every number in the picture is current (boxes out of
   sight are written once the sliders rest, js/graph/visible.js).
2. The same with every box opened at ``node_budget=2000`` (Expand all that fits: over 1,000 boxes drawn), at the zoom
   step nearest 100% and at Fit, against that page's default-picture frame measured after each (Collapse all), in
   rounds as in 1 (target <= 2x).
   When Expand all at 2000 does not lay out within EXPAND_S, the smallest open set on its way that draws 1,000+ boxes
   (opened one box at a time) is measured instead; when that does not lay out either, Expand all at FALLBACK_BUDGET
   (fewer boxes); the output says which.
   Also long jumps in that picture (the graph box scrolled to six far places, one frame each, as a focus, a search or
   a click on the overview map moves it): jump -> painted frame against a 40-px scroll's frame on the same page, each
   after the page was idle, and the edges parsed in the jump's frame (js/graph/pending.js: those in sight; the
   ones near sight follow when the page is idle).
3. One unrelated text change beside the widget (a span at the top of the page) -> painted frame, ``layers.1`` open,
   with the widget isolated (js/graph/widget.css: containment) against the same page with the isolation turned off.
The slider frames are timed as benchmarks/bench_widget.py times them (until the watched number, the loss's, in sight,
shows the move, then that frame painted).
Run: ``.venv/bin/python benchmarks/run.py frames``."""

from __future__ import annotations

import math
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT / "tests") not in sys.path:
    sys.path.insert(0, str(ROOT / "tests"))

# E402: these imports need tests/ on sys.path (the browser helpers are shared with the browser tests).
from bench_folding import _RELAYOUT, _largest_box, _open_page, moons_pages  # noqa: E402
from bench_widget import _SLIDER_FRAMES  # noqa: E402

from micrograd_widget.core.tape import Tape  # noqa: E402
from micrograd_widget.host.export import save_html  # noqa: E402
from micrograd_widget.picture import fold_tree  # noqa: E402

ROUNDS = 5
BIG_ROUNDS = 3  # item 2's rounds (each lays out Expand all at node_budget=2000 again: a few seconds)
SLIDER_FRAMES = 30
EXPAND_S = 90  # Expand all at node_budget=2000 given this long (the layout worker's own watchdog stops it at 60 s)
FALLBACK_BUDGET = 1500  # Expand all that fits at this budget lays out today (749 boxes)
EXPAND_ALL = '.mgw-fold-controls [data-action="expand-all"]'
COLLAPSE_ALL = '.mgw-fold-controls [data-action="collapse-all"]'
# Slider input -> every number in the picture current (js/graph/visible.js writes the numbers of boxes out of the
# graph box's sight in idle time: the graph says data-numbers="current" again) and that frame painted, in ms each.
_ALL_CURRENT = """async ({leaf, n}) => {
  const root = document.querySelector('.mgw-root');
  const graph = root.querySelector('[data-role="graph"]');
  const slider = [...root.querySelectorAll('input[type=range]')].find(e => e.getAttribute('data-leaf') === leaf);
  const afterPaint = () => new Promise(resolve => {
    const ch = new MessageChannel(); ch.port1.onmessage = () => resolve(performance.now()); ch.port2.postMessage(0); });
  const nextPaint = () => new Promise(resolve => requestAnimationFrame(() => resolve(afterPaint())));
  const current = () => graph.getAttribute('data-numbers') !== 'pending';
  const times = [];
  for (let i = 0; i < n; i++) {
    await nextPaint();
    while (!current()) await new Promise(ok => setTimeout(ok, 20));
    const t0 = await new Promise(resolve => requestAnimationFrame(() => {
      const t = performance.now();
      slider.value = i % 2 ? slider.min : slider.max;
      slider.dispatchEvent(new Event('input', {bubbles: true}));
      resolve(t);
    }));
    await new Promise((resolve, reject) => {
      const check = () => graph.getAttribute('data-numbers') === 'current';
      const obs = new MutationObserver(() => { if (check()) { obs.disconnect(); resolve(); } });
      obs.observe(graph, {attributes: true, attributeFilter: ['data-numbers']});
      // the frame's numbers are computed in this frame or the next: wait for one paint before trusting "current"
      nextPaint().then(() => { if (check()) { obs.disconnect(); resolve(); } });
      setTimeout(() => { obs.disconnect(); reject(new Error('numbers still pending after 10 s')); }, 10000);
    });
    times.push(await nextPaint() - t0);
  }
  return times;
}"""


# The widget's isolation from the page turned off (item 3's baseline).
_NOT_ISOLATED = """() => {
  const s = Object.assign(document.createElement('style'), {id: 'mgw-bench-no-isolation'});
  s.textContent = '.mgw-root, .mgw-graph { contain: none !important; isolation: auto !important; }';
  document.head.append(s);
}"""


def _frame(page, leaf: str | None, watch: str = "loss") -> float:
    """Median slider input (leaf None: one text change beside the widget) -> painted frame on this page (ms). The
    watched box is scrolled into the graph box's sight first, as the user watching it sees it."""
    if leaf is not None:
        page.evaluate("""watch => {
          const g = document.querySelector(`.mgw-root [data-role="graph"] g[data-node="${watch}"]`);
          if (!g) throw new Error(`no box for ${watch}`);
          g.scrollIntoView({block: 'center', inline: 'center'});
        }""", watch)
    frames = page.evaluate(_SLIDER_FRAMES, {"leaf": leaf, "watch": watch if leaf else None, "n": SLIDER_FRAMES})
    return statistics.median(frames["frame"])


def _relayout(page, selector: str, timeout_s: float = 30, press: str = "") -> dict:
    """Click `selector` (or press key `press` on it) and wait until the new picture is painted (bench_folding's
    _RELAYOUT, with a longer wait)."""
    script = _RELAYOUT.replace("30000", str(int(timeout_s * 1000))).replace("within 30 s", f"within {timeout_s:.0f} s")
    return page.evaluate(script, {"selector": selector, "press": press})


def _shown(page) -> str:
    return page.evaluate("""() => {
      const g = document.querySelector('.mgw-root [data-role="graph"]');
      return `zoom ${Math.round(100 * Number(g.getAttribute('data-zoom')))}%, detail ${g.getAttribute('data-detail')}`;
    }""")


def _isolation(page) -> tuple[float, float]:
    """Median one text change beside the widget -> painted frame (ms): with the widget isolated (measured before and
    after, averaged), and with the isolation turned off."""
    isolated = [_frame(page, None)]
    page.evaluate(_NOT_ISOLATED)
    loose = _frame(page, None)
    page.evaluate("() => document.getElementById('mgw-bench-no-isolation').remove()")
    isolated.append(_frame(page, None))
    return statistics.mean(isolated), loose


def _layers_1(browser, url: str) -> None:
    context, page = _open_page(browser, url)
    try:
        leaf = page.locator(".mgw-root input[type=range]").first.get_attribute("data-leaf")
        key = _largest_box(page, select=False)
        box = f'[data-role="graph"] g.node.mgw-fold[data-fold="{key}"]'
        plain, opened, ratios, big, current, shown = [], [], [], {}, 0.0, ""
        for k in range(ROUNDS):
            plain.append(_frame(page, leaf))
            page.click(f".mgw-root {box}")
            big = _relayout(page, '[data-role="inspector"] [data-action="expand"]')
            opened.append(_frame(page, leaf))
            ratios.append(opened[-1] / plain[-1])
            if k == ROUNDS - 1:
                current = statistics.median(page.evaluate(_ALL_CURRENT, {"leaf": leaf, "n": 5}))
                shown = _shown(page)
                isolated, loose = _isolation(page)
            _relayout(page, COLLAPSE_ALL)
        print(f"moons loss with {key} open ({big['nodes']} nodes + {big['boxes']} boxes drawn, {shown}): slider input "
              f"-> painted frame median {statistics.median(opened):6.2f} ms vs the same page's frame with the default "
              f"picture {statistics.median(plain):6.2f} ms: {statistics.median(ratios):.2f}x (target <= 1.3x; per "
              f"round {', '.join(f'{r:.2f}' for r in sorted(ratios))}; {SLIDER_FRAMES} frames each, {ROUNDS} rounds)")
        print(f"  the same moves -> every number in the picture current and painted: median {current:6.0f} ms")
        print(f"  one unrelated text change beside the widget -> painted frame, {key} open: {isolated:6.2f} ms with "
              f"the widget isolated vs {loose:6.2f} ms without: {loose / isolated:.2f}x cheaper")
    finally:
        context.close()


def _near_100(page) -> None:
    """Zoom (] and [, steps of 1.25x) to the step nearest 100%: a first picture opens fitted to the box's width."""
    graph = page.locator('.mgw-root [data-role="graph"]')
    graph.focus()
    steps = round(-math.log(float(graph.get_attribute("data-zoom"))) / math.log(1.25))
    for _ in range(abs(steps)):
        graph.press("]" if steps > 0 else "[")


def _opened_set(root) -> tuple[str, list[str]]:
    """Item 2's fallback: the smallest open set Expand all at node_budget=2000 grows through (a prefix of its keys)
    that draws 1,000 boxes or more, as (what it is, its keys)."""
    tape = Tape.from_value(root)
    tree = fold_tree.build_tree(tape, 2000)
    keys = fold_tree.expand_all_that_fits(tape, tree, [], 2000)
    for k in range(1, len(keys)):
        drawn = fold_tree.picture(tape, tree, keys[:k])
        if len(drawn.shown) + len(drawn.boxes) >= 1000:
            return f"the first {k} of the {len(keys)} boxes Expand all opens", keys[:k]
    return f"all {len(keys)} boxes Expand all opens", keys


def _big_frames(page, leaf: str, what: str, big: dict, first: float, rounds: int = BIG_ROUNDS) -> None:
    """Frames with the big picture shown, near 100% and at Fit, then with the default picture again (Collapse all), in
    `rounds` rounds (Expand all again for each after the first; 1 when Expand all did not make the picture): each
    round's frames as ratios to the mean of the default picture's frames measured after the round before (Collapse
    all) and after this one; printed as the median of the per-round ratios (the machine's load drifts less within a
    round than across the run). The page's first frame (`first`, measured as it opened) is printed, not counted: under
    load it was 2-3x the later ones (the page's early layouts in the worker compete with it for the CPU)."""
    hundreds, fits, bases, shown = [], [], [], ("", "")
    before: float | None = None
    for k in range(rounds):
        if k:
            _relayout(page, EXPAND_ALL, EXPAND_S)
        _near_100(page)
        hundreds.append(_frame(page, leaf))
        hundred_shown = _shown(page)
        page.click('.mgw-root [data-action="fit"]')
        fits.append(_frame(page, leaf))
        shown = (hundred_shown, _shown(page))
        _relayout(page, COLLAPSE_ALL, EXPAND_S)
        after = _frame(page, leaf)
        bases.append(after if before is None else (before + after) / 2)
        before = after
    drawn = big["nodes"] + big["boxes"]

    def row(frames: list[float]) -> str:
        ratios = sorted(f / b for f, b in zip(frames, bases, strict=True))
        return (f"{statistics.median(frames):6.2f} ms, {statistics.median(ratios):.2f}x "
                f"(per round {', '.join(f'{r:.2f}' for r in ratios)})")

    print(f"moons loss, {what} ({big['nodes']} nodes + {big['boxes']} boxes = {drawn:,} drawn, "
          f"{big['clusters']} opened): slider input -> painted frame vs the same page's default picture (median "
          f"{statistics.median(bases):6.2f} ms, the page's first {first:6.2f} ms, not counted; {SLIDER_FRAMES} frames "
          f"each, {rounds} rounds; target <= 2x):")
    print(f"  at {shown[0]}: {row(hundreds)}")
    print(f"  at Fit, {shown[1]}: {row(fits)}")


# Scroll the graph box to each far place in one frame (a jump), and by 40 px (a short scroll), each after the page was
# idle: per place [jump ms, edges put in during the jump's frame, short scroll ms], input -> painted.
_JUMPS = """async () => {
  const graph = document.querySelector('.mgw-root [data-role=graph]');
  const painted = () => new Promise(ok => requestAnimationFrame(() => {
    const ch = new MessageChannel(); ch.port1.onmessage = () => ok(performance.now()); ch.port2.postMessage(0); }));
  const idle = async () => {
    await painted();
    for (let k = 0; k < 10; k++) await new Promise(ok => requestIdleCallback(ok, {timeout: 2000}));
  };
  const edges = () => graph.querySelectorAll('svg g.edge').length;
  const W = graph.scrollWidth - graph.clientWidth, H = graph.scrollHeight - graph.clientHeight;
  const out = [];
  for (const [fx, fy] of [[0.5, 0.5], [0.1, 0.9], [0.9, 0.2], [0.3, 0.3], [0.7, 0.7], [0.5, 0.1]]) {
    await idle();
    const n = edges();
    let t = performance.now();
    graph.scrollLeft = W * fx; graph.scrollTop = H * fy;
    const jump = await painted() - t, put = edges() - n;
    await idle();
    t = performance.now();
    graph.scrollTop += 40;
    out.push([jump, put, await painted() - t]);
  }
  return out;
}"""


def _jumps(page, what: str) -> None:
    """Item 2's long jumps in the big picture shown, against short scrolls on the same page."""
    rows = page.evaluate(_JUMPS)
    jumps, put, short = ([r[k] for r in rows] for k in range(3))
    print(f"  long jumps in {what}: jump -> painted frame median {statistics.median(jumps):6.1f} ms, worst "
          f"{max(jumps):6.1f} ms; {statistics.median(jumps) / statistics.median(short):.1f}x a 40-px scroll's "
          f"(median {statistics.median(short):5.1f} ms); edges parsed in the jump's frame median "
          f"{statistics.median(put):.0f}, most {max(put):.0f}")


def _expand_all(browser, server, www: Path, root, budget: int) -> tuple:
    """A page of the moons loss at `budget`, its default picture's frame measured, then Expand all that fits:
    (context, page, leaf, that frame, the new picture's _RELAYOUT result or None when it was not laid out)."""
    save_html(root, www / f"moons-{budget}.html", node_budget=budget)
    context, page = _open_page(browser, f"{server.url}/moons-{budget}.html")
    leaf = page.locator(".mgw-root input[type=range]").first.get_attribute("data-leaf")
    before = _frame(page, leaf)
    try:
        return context, page, leaf, before, _relayout(page, EXPAND_ALL, EXPAND_S)
    except Exception as err:  # the layout did not finish (the worker's watchdog, or our wait)
        print(f"node_budget={budget}: Expand all that fits was not laid out within {EXPAND_S} s "
              f"({str(err).splitlines()[0]})")
        return context, page, leaf, before, None


def _every_box(browser, server, www: Path, root) -> None:
    """Item 2: Expand all at node_budget=2000; when it does not lay out, the smallest open set on its way with 1,000+
    boxes, opened on the same page one box at a time (+ on each box, as a keyboard user opens them); when that does
    not either, Expand all at FALLBACK_BUDGET (fewer boxes: said so)."""
    context, page, leaf, before, full = _expand_all(browser, server, www, root, 2000)
    try:
        if full:
            _jumps(page, f"that picture ({full['nodes'] + full['boxes']:,} drawn)")
            return _big_frames(page, leaf, f"node_budget=2000, Expand all that fits (laid out in {full['ms']:,.0f} ms)",
                               full, before)
        what, keys = _opened_set(root)
        try:
            for key in keys:
                big = _relayout(page, f'[data-role="graph"] g.node.mgw-fold[data-fold="{key}"]', EXPAND_S, "+")
        except Exception as err:
            print(f"  {what} (1,000+ boxes): not laid out ({str(err).splitlines()[0]})")
        else:
            last = f"the last in {big['ms']:,.0f} ms"
            return _big_frames(page, leaf, f"node_budget=2000, {what}, opened one at a time ({last})", big, before, 1)
    finally:
        context.close()
    context, page, leaf, before, full = _expand_all(browser, server, www, root, FALLBACK_BUDGET)
    try:
        if full:
            drawn = full["nodes"] + full["boxes"]
            print(f"  falling back to the largest picture laid out here: node_budget={FALLBACK_BUDGET} ({drawn} boxes, "
                  "fewer than the 1,000 the target is about)")
            return _big_frames(page, leaf, f"Expand all that fits at node_budget={FALLBACK_BUDGET} (laid out in "
                               f"{full['ms']:,.0f} ms)", full, before)
        print("  item 2 not measured")
        return None
    finally:
        context.close()


def _measure(browser, server, www: Path, root) -> None:
    _layers_1(browser, f"{server.url}/moons.html")
    _every_box(browser, server, www, root)


def main() -> None:
    moons_pages(_measure)


if __name__ == "__main__":
    main()
