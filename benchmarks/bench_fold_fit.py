"""The fit loop (fold_fit.py) in the kernel: ``expand_all_that_fits`` and ``expand`` of the largest box on micrograd's
moons loss (65,818 nodes), at node budgets 250 and 1,000, against ``Tape.from_value`` + ``backward()`` on the same
graph (blocks of each in turn, GC on). Each call grows an open set box by box at the cost of the boxes tried (the
first call on a tree also makes fold_fit's tables, timed apart); before, each box tried drew a picture of the graph.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT / "tests") not in sys.path:
    sys.path.insert(0, str(ROOT / "tests"))

# E402: these imports need tests/ on sys.path (the moons loss is the browser tests' builder).
from browser.mgw_browser.graphs import moons_loss  # noqa: E402
from common import ms, summary, time_runs  # noqa: E402

from micrograd_widget.core.tape import Tape  # noqa: E402
from micrograd_widget.engine import Value  # noqa: E402
from micrograd_widget.picture.fold_tree import build_tree, expand, expand_all_that_fits  # noqa: E402

ROUNDS, REPEATS = 3, 3


def fit_loop(root: Value, tape: Tape, budget: int) -> None:
    """One budget's rows: the first call, then blocks of the baseline, expand_all_that_fits and expand in turn."""
    tree = build_tree(tape, budget)
    first = summary(time_runs(lambda: expand_all_that_fits(tape, tree, (), budget), 1, warmup=0))[0]
    largest = max((g for g in tree.groups if g.parent < 0), key=lambda g: g.count).key
    t_base: list[float] = []
    t_all: list[float] = []
    t_one: list[float] = []
    for _ in range(ROUNDS):
        t_base += time_runs(lambda: Tape.from_value(root).backward(), REPEATS)
        t_all += time_runs(lambda: expand_all_that_fits(tape, tree, (), budget), REPEATS)
        t_one += time_runs(lambda: expand(tape, tree, (), largest, budget), REPEATS)
    mb, ma, mo = summary(t_base)[0], summary(t_all)[0], summary(t_one)[0]
    print(f"  budget {budget:,} ({len(tree.groups):,} boxes):")
    print(f"    Tape.from_value + backward        median {ms(mb)}   (baseline, same run)")
    print(f"    expand_all_that_fits, first call  {ms(first)}   (x{first / mb:.2f}; fold_fit's tables made)")
    print(f"    expand_all_that_fits              median {ms(ma)}   x{ma / mb:.2f}")
    print(f"    expand {largest!r:<26} median {ms(mo)}   x{mo / mb:.2f}")


def main() -> None:
    root = moons_loss()
    tape = Tape.from_value(root)
    print(f"moons loss: {len(tape):,} nodes")
    for budget in (250, 1000):
        fit_loop(root, tape, budget)

if __name__ == "__main__":
    main()
