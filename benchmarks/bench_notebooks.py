"""Notebook weight and the static picture's speed (issue 10).

1. Notebooks of 1, 5 and 20 widgets (the lecture's ``L = (a*b + c) * f`` each, ``explore(L)``) executed by nbclient
   with ``store_widget_state=True`` (as docs builds and CI do: every widget model's state, ``_esm`` included, is
   saved in the notebook's metadata): their sizes in KB and the KB each extra widget adds (target <= 60 KB).
2. The static picture (``Value._repr_html_``: display.py's inline SVG, laid out by Graphviz's ``dot``) of a
   ~1,000-node graph drawn in full (``node_budget=None``), against the lecture's own ``draw_dot`` + ``pipe('svg')``
   of the same graph, median of 5 each, and the ratio (target <= 1.0x), with where the time goes.

Run: ``python benchmarks/run.py notebooks`` (or this file directly).
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # `common`, `bench_display` when run directly

from bench_display import lecture_draw_dot, thousand_nodes
from common import ms, summary, time_runs

from micrograd_widget.core.tape import Tape
from micrograd_widget.display import svg_html, value_html
from micrograd_widget.host.options import DEFAULT_OPTIONS
from micrograd_widget.picture.dot import graph_view
from micrograd_widget.picture.layout import render_svg

REPEATS = 5
WIDGETS = (1, 5, 20)
TARGET_KB_PER_WIDGET = 60

SETUP = """\
from micrograd_widget import Value, explore

def lecture():
    a, b, c, f = Value(2.0, label="a"), Value(-3.0, label="b"), Value(10.0, label="c"), Value(-2.0, label="f")
    e = a * b; e.label = "e"
    d = e + c; d.label = "d"
    L = d * f; L.label = "L"
    L.backward()
    return L
"""


def notebook_bytes(widgets: int, folder: Path) -> tuple[int, float]:
    """(bytes, seconds) of a notebook of ``widgets`` cells ``explore(lecture())`` executed and saved by nbclient."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(SETUP)] +
                                  [nbformat.v4.new_code_cell("explore(lecture())") for _ in range(widgets)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}
    start = time.perf_counter()
    NotebookClient(nb, timeout=300, kernel_name="python3", store_widget_state=True,
                   resources={"metadata": {"path": str(folder)}}).execute()
    seconds = time.perf_counter() - start
    path = folder / f"widgets{widgets}.ipynb"
    nbformat.write(nb, str(path))
    return path.stat().st_size, seconds


def notebook_sizes() -> None:
    folder = Path(tempfile.mkdtemp(prefix="mgw-bench-notebooks-"))
    try:
        sizes = {}
        for n in WIDGETS:
            size, seconds = notebook_bytes(n, folder)
            sizes[n] = size
            print(f"notebook  {n:2d} widget{'s' if n != 1 else ' '} executed by nbclient (store_widget_state=True): "
                  f"{size / 1e3:9.1f} KB   ({seconds:.1f} s)")
        lo, hi = WIDGETS[0], WIDGETS[-1]
        per = (sizes[hi] - sizes[lo]) / (hi - lo) / 1e3
        verdict = "within" if per <= TARGET_KB_PER_WIDGET else "OVER"
        print(f"          each extra widget adds {per:.1f} KB ({verdict} the {TARGET_KB_PER_WIDGET} KB target); "
              f"the first widget's notebook {sizes[lo] / 1e3:.1f} KB")
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def static_speed() -> None:
    if shutil.which("dot") is None:
        print("static picture: skipped, Graphviz's dot is not installed (apt-get install graphviz)")
        return
    root = thousand_nodes()
    n = len(Tape.from_value(root))
    html = value_html(root, node_budget=None)
    if 'src="data:image/svg+xml;base64,' not in html:  # Value._repr_html_ is an <img> of the SVG (display.svg_html)
        raise SystemExit(f"the {n:,}-node picture fell back to a table; the benchmark expects an SVG")
    base_t, _ = summary(time_runs(lambda: lecture_draw_dot(root).pipe(encoding="utf-8"), REPEATS, warmup=1))
    ours_t, _ = summary(time_runs(lambda: value_html(root, node_budget=None), REPEATS, warmup=1))
    print(f"baseline  lecture draw_dot + pipe('svg'), {n:,} nodes, median of {REPEATS}: {ms(base_t)}")
    print(f"ours      Value._repr_html_ (value_html, node_budget=None):   {ms(ours_t)}   "
          f"x{ours_t / base_t:.2f} of the lecture's ({'within' if ours_t <= base_t else 'OVER'} the 1.0x target)")
    # Where the time goes: the lecture's Python part vs its dot run, ours split the same way.
    options = {**DEFAULT_OPTIONS, "node_budget": None}
    lecture_py, _ = summary(time_runs(lambda: lecture_draw_dot(root).source, REPEATS))
    freeze, _ = summary(time_runs(lambda: Tape.from_value(root), REPEATS))
    tape = Tape.from_value(root)
    plan, _ = summary(time_runs(lambda: graph_view(tape, **options).graph.source, REPEATS))
    view = graph_view(tape, **options)
    layout, _ = summary(time_runs(lambda: render_svg(view), REPEATS, warmup=1))
    svg = render_svg(view)
    wrap, _ = summary(time_runs(lambda: svg_html(svg), REPEATS))
    print(f"          lecture: Python (trace + DOT) {ms(lecture_py)}, dot {ms(base_t - lecture_py)}")
    print(f"          ours:    freeze tape {ms(freeze)}, plan + DOT {ms(plan)}, dot {ms(layout)}, HTML wrap {ms(wrap)}")
    print("          (each part is its own median of 5; on a shared machine dot's times vary by 2x between runs)")


def main() -> None:
    static_speed()
    notebook_sizes()


if __name__ == "__main__":
    main()
