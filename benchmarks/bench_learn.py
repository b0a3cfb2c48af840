"""Training in the exported page (issue 21): steps per second of Train on the moons loss (65,818 nodes, 337
parameters) in save_html's page while the picture follows, as ratios to the kernel's own Tape.replay loop on the same
tape and to micrograd 0.1.0's training step (forward, zero_grad, backward, update) on the same network and data, all
measured in this run; and the page's frame interval while training as a ratio to its idle frame interval, same picture.
Targets: >= 20x the kernel loop, >= 300x micrograd, frame interval <= 1.5x idle.
Run: ``.venv/bin/python benchmarks/run.py learn``."""

from __future__ import annotations

import itertools
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT / "tests") not in sys.path:
    sys.path.insert(0, str(ROOT / "tests"))

# E402: these imports need tests/ on sys.path (the browser helpers and builders are shared with the tests).
from browser.mgw_browser.chromium import launch, missing_chromium_reason  # noqa: E402
from builders import moons_like_loss  # noqa: E402

from micrograd_widget.core.params import leaf_roles  # noqa: E402
from micrograd_widget.core.tape import Tape  # noqa: E402
from micrograd_widget.host.export import save_html  # noqa: E402

H = 0.01
SECONDS = 4.0

# Frame intervals over `ms` milliseconds of animation frames: their median.
FRAMES = """(ms) => new Promise((done) => {
  const times = [];
  const start = performance.now();
  const tick = (t) => { times.push(t); if (t - start < ms) requestAnimationFrame(tick); else done(times); };
  requestAnimationFrame(tick);
})"""
STEPS = "() => Number(document.querySelector('[data-role=\"steps\"]').textContent.replace(/,/g, ''))"


def median_interval(times: list[float]) -> float:
    return statistics.median(b - a for a, b in itertools.pairwise(times))


def kernel_steps_per_second(tape: Tape, params: tuple[int, ...]) -> float:
    """The kernel's own loop on the same tape: Tape.replay, then p -= h * grad for the parameters."""
    values = [tape.data[i] for i in tape.leaves]
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < SECONDS:
        tape.replay(values)
        for j in params:
            values[j] -= H * tape.grad[tape.leaves[j]]
        steps += 1
    return steps / (time.perf_counter() - start)


def micrograd_steps_per_second() -> float:
    """micrograd 0.1.0 (PyPI) training the same shape: MLP(2, [16, 16, 1]) on 100 points, SVM loss + L2."""
    from micrograd.engine import Value as MValue
    from micrograd.nn import MLP as MMLP
    rng = random.Random(0)
    random.seed(0)
    model = MMLP(2, [16, 16, 1])
    X = [[rng.uniform(-1, 2), rng.uniform(-1, 1)] for _ in range(100)]
    y = [rng.choice((-1.0, 1.0)) for _ in range(100)]
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < SECONDS:
        scores = [model([MValue(a), MValue(b)]) for a, b in X]
        losses = [(1 + -yi * si).relu() for yi, si in zip(y, scores)]
        total = sum(losses) * (1.0 / len(losses)) + 1e-4 * sum(p * p for p in model.parameters())
        model.zero_grad()
        total.backward()
        for p in model.parameters():
            p.data -= H * p.grad
        steps += 1
    return steps / (time.perf_counter() - start)


def main() -> None:
    reason = missing_chromium_reason()
    if reason:
        sys.exit(f"bench_learn needs Chromium: {reason}")
    from playwright.sync_api import sync_playwright

    loss = moons_like_loss()
    tape = Tape.from_value(loss)
    params = leaf_roles(tape).positions
    print(f"moons loss: {len(tape):,} nodes, {len(params)} parameters")
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        page_path = save_html(loss, Path(tmp) / "moons.html")
        browser = launch(pw)
        try:
            page = browser.new_page(viewport={"width": 1000, "height": 900})
            page.goto(page_path.as_uri())
            page.wait_for_selector('.mgw-root[data-state="ready"]', timeout=120_000)
            page.wait_for_timeout(1000)
            idle = median_interval(page.evaluate(FRAMES, 2000))
            box = page.locator('input[data-role="step-size"]')
            box.fill(str(H))
            box.press("Enter")
            page.locator('[data-action="train"]').click()
            page.wait_for_timeout(500)
            before, start = page.evaluate(STEPS), time.perf_counter()
            training = median_interval(page.evaluate(FRAMES, SECONDS * 1000))
            after, took = page.evaluate(STEPS), time.perf_counter() - start
            thread = page.locator('[data-role="learn"]').get_attribute("data-thread")
            page.locator('[data-action="train"]').click()
            in_page = (after - before) / took
        finally:
            browser.close()
    kernel = kernel_steps_per_second(tape, params)
    micrograd = micrograd_steps_per_second()
    print(f"the exported page, training with the picture following: {in_page:,.0f} steps/s "
          f"(descent on the {thread} thread)")
    print(f"the kernel's Tape.replay loop on the same tape:          {kernel:,.1f} steps/s -> page "
          f"{in_page / kernel:,.1f}x   (target >= 20x)")
    print(f"micrograd 0.1.0's training step, same network and data:  {micrograd:,.2f} steps/s -> page "
          f"{in_page / micrograd:,.0f}x   (target >= 300x)")
    print(f"frame interval: idle {idle:.1f} ms, training {training:.1f} ms -> {training / idle:.2f}x"
          "   (target <= 1.5x)")


if __name__ == "__main__":
    main()
