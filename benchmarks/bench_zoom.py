"""Zoom never slows a slider frame (issue 9: "slider frames must stay fast").

Opens a chain graph (default node budget: at most 250 boxes) in the fake-model page in headless Chromium and times
slider frames (set the value, dispatch 'input', wait two animation frames: the frame is painted) at 100%,
zoomed in (~300%, the overview map shown), zoomed in with the map taken out, and fitted (the whole picture in the
box), 60 frames each in 4 interleaved rounds, and
prints the medians, each as a ratio to 100% in the same run (the levels are reached in the zoom buttons' 1.25x
steps from the fitted scale, so they are near 100% and 300%, as printed).
Run: ``.venv/bin/python benchmarks/bench_zoom.py [nodes ...]`` (default 250 and 1000 graph nodes)."""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT / "tests") not in sys.path:
    sys.path.insert(0, str(ROOT / "tests"))

# E402: these imports need tests/ on sys.path (the browser helpers are shared with the browser tests).
from browser.mgw_browser.chromium import launch, missing_chromium_reason  # noqa: E402
from browser.mgw_browser.fake_model import open_view  # noqa: E402
from browser.mgw_browser.graphs import chain_graph  # noqa: E402
from browser.mgw_browser.http import StaticServer  # noqa: E402

FRAMES = 60
ROUNDS = 4
STEP_IN = 1.25 ** 5
# Fit, then zoom by `scale` / the fitted scale with the zoom buttons' own code path (the view's zoomBy).
_SET = """([scale]) => {
  document.querySelector('[data-action=fit]').click();
  const zoom = document.querySelector('[data-role=graph]');
  const now = Number(zoom.getAttribute('data-zoom'));
  const steps = Math.round(Math.log(scale / now) / Math.log(1.25));
  const button = document.querySelector(steps > 0 ? '[data-action=zoom-in]' : '[data-action=zoom-out]');
  for (let k = 0; k < Math.abs(steps); k++) button.click();
  return zoom.getAttribute('data-zoom');
}"""
# The overview map (graph/overview.js) out of the page, as if the view had none; and whether it is shown.
_NO_MAP = "() => { document.querySelector('[data-role=overview]').style.display = 'none'; }"
_MAP_BACK = "() => { document.querySelector('[data-role=overview]').style.display = ''; }"
_MAP_SHOWN = """() => { const m = document.querySelector('[data-role=overview]');
  return !m.hidden && m.style.display !== 'none'; }"""
_FRAMES = """async (n) => {
  const el = document.querySelector('input[type=range]');
  const lo = Number(el.min), hi = Number(el.max), times = [];
  for (let k = 0; k < n; k++) {
    const t0 = performance.now();
    el.value = String(lo + (hi - lo) * ((k % 10) + 1) / 12);
    el.dispatchEvent(new Event('input', { bubbles: true }));
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    times.push(performance.now() - t0);
  }
  return times;
}"""


def measure(page, server, nodes: int) -> None:
    view = open_view(page, server, chain_graph(nodes))
    page.evaluate(_FRAMES, 10)  # warm up
    boxes = page.evaluate("() => document.querySelectorAll('[data-role=graph] g.node').length")
    zoom = view.root.locator('[data-role="graph"]')
    states = {  # each state from any other: fit first (the box's own height), then the zoom
        "100%": lambda: page.evaluate(_SET, [1]),
        "zoomed in": lambda: page.evaluate(_SET, [STEP_IN]),
        "fitted": lambda: view.root.locator('button[data-action="fit"]').click(),
        # zoomed in with the overview map taken out: what the map costs a slider frame (issue 19)
        "no map": lambda: (page.evaluate(_SET, [STEP_IN]), page.evaluate(_NO_MAP)),
    }
    times: dict[str, list[float]] = {name: [] for name in states}
    levels: dict[str, str] = {}
    shown: dict[str, bool] = {}
    for _ in range(ROUNDS):  # interleaved, so that a busy machine slows every state alike
        for name, enter in states.items():
            page.evaluate(_MAP_BACK)  # after "no map"
            enter()
            levels[name] = view.root.locator('[data-role="zoom-level"]').text_content() or "?"
            times[name] += page.evaluate(_FRAMES, FRAMES // ROUNDS)
            shown[name] = page.evaluate(_MAP_SHOWN)
    assert zoom.count() == 1
    base = statistics.median(times["100%"])
    for name, values in times.items():
        median = statistics.median(values)
        print(f"chain of {nodes} nodes, {boxes} boxes drawn, {name:9s} ({levels[name]:>5s}): slider frame median "
              f"{median:6.1f} ms = {median / base:4.2f}x 100%")
    mapped, bare = statistics.median(times["zoomed in"]), statistics.median(times["no map"])
    print(f"chain of {nodes} nodes, zoomed in: the overview map {'shown' if shown['zoomed in'] else 'NOT shown'}, "
          f"slider frame with it / without it = {mapped / bare:4.2f}x")


def main(sizes: list[int] | None = None) -> None:
    """Slider frames at several zoom levels for chains of ``sizes`` nodes (default 250 and 1,000)."""
    reason = missing_chromium_reason()
    if reason:
        sys.exit(f"bench_zoom needs Chromium: {reason}")
    from playwright.sync_api import sync_playwright

    sizes = sizes or [250, 1000]
    with sync_playwright() as pw, StaticServer(Path(tempfile.mkdtemp())) as server:
        browser = launch(pw)
        try:
            for nodes in sizes:
                page = browser.new_page(viewport={"width": 1400, "height": 1000})
                measure(page, server, nodes)
                page.close()
        finally:
            browser.close()


if __name__ == "__main__":
    main([int(a) for a in sys.argv[1:]])  # python benchmarks/bench_zoom.py [nodes ...]
