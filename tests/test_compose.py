"""A large opened picture laid out box by box (micrograd_widget/picture/compose.py): the shared vectors (the JS twin,
js/picture/compose.js, is held to the same files), and what Graphviz draws of a composition, checked against the
DOT's own nesting: every node inside each opened box around it, no two nodes overlapping, every edge drawn."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from micrograd_widget.core.tape import Tape
from micrograd_widget.picture import layout
from micrograd_widget.picture.compose import composable, compose, lean_layout
from micrograd_widget.picture.dot import graph_view
from micrograd_widget.picture.fold_tree import build_tree

VECTORS = Path(__file__).resolve().parent / "vectors"
sys.path.insert(0, str(VECTORS))
import generate_compose  # noqa: E402  (tests/vectors/ is on the path only from here)
import generate_folds  # noqa: E402  (the same)

FILES = sorted((VECTORS / "compose").glob("*.json"))


def test_there_are_composition_vectors() -> None:
    assert {f.stem for f in FILES} == set(generate_compose.SOURCES), "run tests/vectors/generate_compose.py"


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_the_composition_asks_for_the_vectors_parts_and_composes_their_dot(path: Path) -> None:
    v = json.loads(path.read_text())
    dot = generate_compose.source_dot(*v["source"], v["large"])
    assert composable(dot)
    asked: list[str] = []

    def lay(part: str) -> str:
        asked.append(part)
        return str(v["layouts"][len(asked) - 1])

    composed = compose(dot, lay)
    assert composed.dot == v["composed"]
    assert composed.edges == v["edges"]
    assert asked == v["parts"]


def test_only_a_large_picture_with_an_opened_box_is_composed() -> None:
    v = json.loads((VECTORS / "compose" / "hostile.json").read_text())
    assert not composable(generate_compose.source_dot(*v["source"], False)), "a small picture is laid out whole"
    assert not composable("digraph micrograd {\n\tgraph [splines=line]\n\tnode []\n\tedge []\n\ta -> b [id=e_a_b]\n}\n")


def _rectangles(doc: dict[str, Any]) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Each drawn node's and each opened box's rectangle (points) in Graphviz's json0."""
    nodes, frames = {}, {}
    for o in doc.get("objects", ()):
        if "bb" in o:
            frames[o["name"]] = [float(x) for x in o["bb"].split(",")]
        elif "pos" in o:
            x, y = (float(t) for t in o["pos"].split(","))
            w, h = float(o["width"]) * 36, float(o["height"]) * 36
            nodes[o["name"]] = [x - w, y - h, x + w, y + h]
    return nodes, frames


def test_graphviz_draws_a_composition_with_each_node_in_its_boxes_and_none_overlapping(dot_program: str) -> None:
    v = json.loads((VECTORS / "compose" / "moons_nested.json").read_text())
    dot = generate_compose.source_dot(*v["source"], v["large"])
    composed = compose(dot, lambda part: layout.lay_part(part, time.monotonic() + 60, 60))
    done = subprocess.run(["neato", "-n2", "-Tjson0"], input=composed.dot, capture_output=True, text=True, check=True)
    nodes, frames = _rectangles(json.loads(done.stdout))
    within: dict[str, list[str]] = {}
    stack: list[str] = []
    for line in dot.split("\n"):
        if m := re.match(r"\t+subgraph (cluster_\S+) \{$", line):
            stack.append(m.group(1))
        elif re.fullmatch(r"\t+\}", line):
            stack.pop()
        elif m := re.match(r"\t+(n\d+(?:_op)?|fold\d+) \[", line):
            within[m.group(1)] = list(stack)
    assert len(within) > 200 and len(frames) == 23
    for name, around in within.items():
        x0, y0, x1, y1 = nodes[name]
        for c in around:
            f = frames[c]
            assert f[0] - 0.5 <= x0 and f[1] - 0.5 <= y0 and x1 <= f[2] + 0.5 and y1 <= f[3] + 0.5, f"{name} in {c}"
    drawn = sorted(nodes.items(), key=lambda kv: kv[1][0])
    for i, (a, ra) in enumerate(drawn):
        for b, rb in drawn[i + 1:]:
            if rb[0] >= ra[2] - 1:
                break
            overlap = min(ra[3], rb[3]) - max(ra[1], rb[1]) > 1 and min(ra[2], rb[2]) - max(ra[0], rb[0]) > 1
            assert not overlap, f"{a} and {b} overlap"


def test_the_kernel_draws_a_composed_picture_with_every_node_edge_and_box(dot_program: str) -> None:
    """render_svg of a large opened picture (the vectors' nested one: the moons loss at a budget of 60, its deepest
    node revealed) goes box by box and draws every node, edge and opened box the DOT holds."""
    v = json.loads((VECTORS / "compose" / "moons_nested.json").read_text())
    case = json.loads((VECTORS / "folds" / "moons.json").read_text())["cases"][7]
    tape = Tape.from_value(generate_folds.moons())
    view = graph_view(tape, tree=build_tree(tape, 60), open_keys=case["open"], node_budget=60)
    assert view.dot == generate_compose.source_dot(*v["source"], v["large"])
    svg = layout.render_svg(view)
    ids = {i.replace("&#45;", "-") for i in re.findall(r'<g id="([^"]+)"', svg)}
    wanted = {w.strip('"') for w in re.findall(r"\bid=(\S+?)[\] ]", view.dot)}
    assert len(wanted) > 500 and not wanted - ids, f"not drawn: {sorted(wanted - ids)[:5]}"
    assert svg.count('class="cluster') == 23 and svg.count('class="edge') == view.dot.count(" -> ")


def test_a_part_is_laid_out_once_per_composition() -> None:
    v = json.loads((VECTORS / "compose" / "far_layout.json").read_text())
    dot = generate_compose.source_dot(*v["source"], v["large"])
    asked: list[str] = []
    compose(dot, lambda part: asked.append(part) or str(v["layouts"][len(asked) - 1]))
    assert len(asked) == len(set(asked)) == dot.count("subgraph cluster_") + 1
    assert json.loads(lean_layout('{"bb":"0,0,1,1","objects":[{"name":"a","pos":"1,2","width":"1","height":"0.5",'
                                  '"label":"x"},{"name":"cluster_0","bb":"0,0,1,1"}]}')) \
        == {"bb": "0,0,1,1", "objects": [{"name": "a", "pos": "1,2", "width": "1", "height": "0.5"}]}

