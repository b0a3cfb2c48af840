"""save_html's page (issue 10's target: at most 1.5 MB for the lecture's expression, zero outside requests).

Writes the lecture's L and the demo neuron with save_html, prints each page's size and what it is made of (the
saved models, their binary buffers, the inline host), then opens the lecture's page in headless Chromium from
file:// and from http://127.0.0.1, five times each, and prints the median time from navigation to the view's
data-state="ready" and the requests the page made beyond itself (there must be none). Run:
``.venv/bin/python benchmarks/bench_export.py``."""

from __future__ import annotations

import json
import re
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT / "tests") not in sys.path:
    sys.path.insert(0, str(ROOT / "tests"))

# E402: these imports need tests/ on sys.path (the browser helpers are shared with the browser tests).
from browser.mgw_browser.chromium import launch, missing_chromium_reason  # noqa: E402
from browser.mgw_browser.http import StaticServer  # noqa: E402
from builders import lecture_L  # noqa: E402

from micrograd_widget.host.demo import neuron  # noqa: E402
from micrograd_widget.host.export import save_html  # noqa: E402

RUNS = 5
_STATE = re.compile(r'<script type="application/vnd.jupyter.widget-state\+json">\n(.*?)\n</script>', re.S)
_HOST = re.compile(r'<script type="module">\n(.*?)\n</script>', re.S)


def describe(path: Path) -> str:
    """One line: the page's size, each saved model's JSON size and buffers, the inline host's size."""
    text = path.read_text(encoding="utf-8")
    state = _STATE.search(text)
    host = _HOST.search(text)
    parts = []
    if state:
        for model in json.loads(state.group(1))["state"].values():
            buffers = sum(len(b["data"]) for b in model.get("buffers", []))
            parts.append(f"{model['model_name']} {len(json.dumps(model)) / 1e3:,.0f} KB"
                         + (f" ({buffers / 1e3:,.1f} KB of it base64 buffers)" if buffers else ""))
    if host:
        parts.append(f"host {len(host.group(1)) / 1e3:,.1f} KB")
    return f"{path.stat().st_size / 1e6:.2f} MB = " + ", ".join(parts)


def time_to_ready(page, url: str) -> tuple[float, list[str]]:
    """Seconds from navigation to the view's data-state="ready", and the requests beyond the page and blob: URLs."""
    requests: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    start = time.perf_counter()
    page.goto(url)
    page.wait_for_selector('.mgw-root[data-state="ready"]', timeout=60_000)
    took = time.perf_counter() - start
    own = urlsplit(url)
    extra = [r for r in requests if urlsplit(r).scheme != "blob"
             and (urlsplit(r).netloc, urlsplit(r).path) != (own.netloc, own.path)
             and urlsplit(r).path != "/favicon.ico"]
    return took, extra


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        lecture = save_html(lecture_L()["L"], folder / "lecture.html")
        demo = save_html(neuron(), folder / "demo.html")
        print(f"save_html(lecture's L): {describe(lecture)}   (target <= 1.5 MB)")
        print(f"save_html(demo neuron): {describe(demo)}")
        reason = missing_chromium_reason()
        if reason:
            print(f"browser part skipped: {reason}")
            return
        from playwright.sync_api import sync_playwright

        www = folder / "www"
        www.mkdir()
        shutil.copy(lecture, www / "lecture.html")
        with StaticServer(www) as server, sync_playwright() as pw:
            browser = launch(pw)
            try:
                for origin, url in (("file://", lecture.as_uri()), ("http://127.0.0.1", f"{server.url}/lecture.html")):
                    times, extra = [], []
                    for _ in range(RUNS):
                        context = browser.new_context(viewport={"width": 1400, "height": 1000})
                        took, more = time_to_ready(context.new_page(), url)
                        context.close()
                        times.append(took)
                        extra += more
                    print(f"lecture's page from {origin:17s}: ready in {statistics.median(times) * 1e3:6.0f} ms "
                          f"(median of {RUNS}), requests beyond the page: {len(extra)}")
            finally:
                browser.close()


if __name__ == "__main__":
    main()
