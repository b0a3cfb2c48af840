"""Displaying a Value: time and output size, against the lecture's draw_dot measured in the same run.

Graphs: micrograd's moons training loss (MLP(2,[16,16,1]) on 100 points, SVM loss + L2, about 65,800
nodes), shown folded (the default node budget; also printed: how many boxes and edges the folded picture
draws and its size in points, which says whether a screen shows it at a readable scale), and a graph of
about 1,000 nodes (the same MLP's squared error on one point) shown in full. Baseline: the lecture's
``draw_dot`` (nodes named by id(), sets) followed by ``pipe('svg')`` on the same ~1,000-node graph; the lecture's
draw_dot is not run on the moons graph (Graphviz needs many minutes to lay out 130,000 boxes). All timings
include Graphviz's ``dot``. Last row (issue 12): the static picture of a chain of 1,000,000 ops against
``Tape.from_value`` + ``backward()`` on the same chain, in its own process (chain_scale.py).
"""

from __future__ import annotations

import random
import re
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # `common`, `bench_engine` when run directly

from bench_engine import SEED, loss, make_moons
from chain_scale import measure, row
from common import ms, summary, time_runs
from graphviz import Digraph

from micrograd_widget.core.tape import Tape
from micrograd_widget.display import html_table, value_mimebundle
from micrograd_widget.engine import Value
from micrograd_widget.nn import MLP
from micrograd_widget.picture.dot import graph_view
from micrograd_widget.picture.fold_tree import build_tree
from micrograd_widget.picture.layout import render_svg

REPEATS = 5


def lecture_draw_dot(root: Value) -> Digraph:
    """The lecture's trace + draw_dot, as written there (recursive, sets, id() names)."""
    nodes, edges = set(), set()

    def build(v: Value) -> None:
        if v not in nodes:
            nodes.add(v)
            for child in v._prev:
                edges.add((child, v))
                build(child)
    build(root)
    dot = Digraph(format="svg", graph_attr={"rankdir": "LR"})
    for n in nodes:
        uid = str(id(n))
        # The lecture's code verbatim, its %-formatting included (hence the noqa).
        label = "{ %s | data %.4f | grad %.4f }" % (n.label, n.data, n.grad)  # noqa: UP031
        dot.node(name=uid, label=label, shape="record")
        if n._op:
            dot.node(name=uid + n._op, label=n._op)
            dot.edge(uid + n._op, uid)
    for n1, n2 in edges:
        dot.edge(str(id(n1)), str(id(n2)) + n2._op)
    return dot


def moons_loss() -> Value:
    """micrograd's moons training loss, backpropagated (as in bench_engine)."""
    random.seed(SEED)
    model = MLP(2, [16, 16, 1])
    X, y = make_moons()
    total = loss(model, Value, X, y)
    total.backward()
    return total


def thousand_nodes() -> Value:
    """MLP(2,[16,16,1])'s squared error on one point: about 1,000 nodes."""
    random.seed(SEED)
    model = MLP(2, [16, 16, 1])
    total = (model([Value(0.5), Value(-0.25)]) - 1.0) ** 2
    total.backward()
    return total


def svg_size(svg: str) -> tuple[float, float]:
    """The width and height, in points, that Graphviz wrote on an SVG's root element."""
    found = re.search(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"', svg)
    if found is None:
        raise SystemExit("the folded picture's SVG has no width/height in points")
    return float(found.group(1)), float(found.group(2))


def main() -> None:
    if shutil.which("dot") is None:
        print("skipped: Graphviz's dot is not installed (apt-get install graphviz)")
        return
    small = thousand_nodes()
    n_small = len(Tape.from_value(small))

    base_svg = lecture_draw_dot(small).pipe(encoding="utf-8")
    base_t, _ = summary(time_runs(lambda: lecture_draw_dot(small).pipe(encoding="utf-8"), REPEATS, warmup=0))

    full = value_mimebundle(small, node_budget=None)
    if "image/svg+xml" not in full:
        raise SystemExit(f"the {n_small:,}-node picture fell back to a table; the benchmark expects an SVG")
    full_t, _ = summary(time_runs(lambda: value_mimebundle(small, node_budget=None), REPEATS, warmup=0))
    full_bytes = len(full["image/svg+xml"].encode())
    base_bytes = len(base_svg.encode())

    big = moons_loss()
    tape = Tape.from_value(big)
    view = graph_view(tape)
    folded = value_mimebundle(big)["image/svg+xml"]
    fold_t, _ = summary(time_runs(lambda: value_mimebundle(big), REPEATS, warmup=0))
    freeze_t, _ = summary(time_runs(lambda: Tape.from_value(big), REPEATS))
    plan_t, _ = summary(time_runs(lambda: graph_view(tape), REPEATS))
    layout_t, _ = summary(time_runs(lambda: render_svg(view), REPEATS, warmup=0))
    table_t, _ = summary(time_runs(lambda: html_table(view), REPEATS))
    table_bytes = len(html_table(view).encode())

    print(f"baseline  lecture draw_dot + pipe('svg'), {n_small:,} nodes: {ms(base_t)}   {base_bytes / 1e6:6.2f} MB")
    print(f"full      value_mimebundle, {n_small:,} nodes, unfolded:      {ms(full_t)}   {full_bytes / 1e6:6.2f} MB"
          f"   time x{full_t / base_t:.2f}, size x{full_bytes / base_bytes:.2f} of baseline")
    folded_bytes = len(folded.encode())
    print(f"folded    value_mimebundle, moons loss {len(tape):,} nodes:   {ms(fold_t)}   {folded_bytes / 1e6:6.2f} MB"
          f"   time x{fold_t / base_t:.2f}, size x{folded_bytes / base_bytes:.2f} of baseline")
    print(f"          {view.message}")
    width, height = svg_size(folded)
    print(f"          picture: {len(view.shown) + len(view.folds)} boxes ({len(view.folds)} folded), "
          f"{sum(' -> ' in line for line in view.graph.body)} edges, "
          f"SVG {width:,.0f} x {height:,.0f} pt")
    print(f"          of which: freeze tape {ms(freeze_t)}, fold + DOT {ms(plan_t)}, dot layout {ms(layout_t)}")
    print(f"no dot    HTML table of the folded moons view:         {ms(table_t)}   {table_bytes / 1e6:6.2f} MB")
    chain = measure("static")  # issue 12: within 3x of Tape.from_value + backward on the same chain
    print(row(chain) + f"; {chain['kind']} {chain['bytes'] / 1e6:.2f} MB")
    print(alternating_chain_row())


def alternating_chain_row(iterations: int = 1_000_000) -> str:
    """Issue 9's scale row: ``v = v*1.0000001`` and ``v = v / v + 0.1`` alternating (2.5 nodes per step, no
    scopes, folded by distance into nested 'farther' groups): the static picture's plan, fold hierarchy and
    DOT (graph_view, no layout) against Tape.from_value + backward on the same chain (target: within 3x)."""
    v = Value(1.0)
    for j in range(iterations):
        v = v * 1.0000001 if j % 2 == 0 else v / v + 0.1
    base_t, _ = summary(time_runs(lambda: Tape.from_value(v).backward(), 1, warmup=0))
    tape = Tape.from_value(v)
    view_t, _ = summary(time_runs(lambda: graph_view(tape), 1, warmup=0))
    trees = []
    tree_t, _ = summary(time_runs(lambda: trees.append(build_tree(tape, 250)), 1, warmup=0))
    return (f"chain     {iterations:,} steps of v*1.0000001 / v + 0.1 ({len(tape):,} nodes): graph_view {ms(view_t)}"
            f" = x{view_t / base_t:.2f} of Tape.from_value + backward ({ms(base_t)}); the widget's fold hierarchy "
            f"({len(trees[0].groups):,} groups) {ms(tree_t)} = x{tree_t / base_t:.2f}")


if __name__ == "__main__":
    main()
