"""Writes the shared composition vectors tests/vectors/compose/*.json: a large opened picture's DOT -> the parts it
is laid out in, their layouts, the composed DOT and its edges' SVG (micrograd_widget/picture/compose.py).

Run ``.venv/bin/python tests/vectors/generate_compose.py`` after changing compose.py, edges.py or the DOT writing (after
generate_folds.py: the DOTs are the folding vectors') and commit the result. The layouts are the kernel's Graphviz's
(picture/layout.py ``lay_part``, kept lean), so tests replay them without Graphviz: tests/test_compose.py holds
compose.py to the parts, the composed DOT and the edges, js/picture/compose.test.js holds js/picture/compose.js to
them, byte for byte.

Each file is ``{"name", "source", "large", "parts", "layouts", "composed", "edges"}``: ``source`` is ``[folds
vector, case, option]``, whose DOT is composed; ``large`` true when that DOT (a small picture's) is given
DOT_STYLE["large"]'s straight edges first (``forced``), to compose a picture whose box titles are hostile.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from micrograd_widget.picture.compose import compose, lean_layout
from micrograd_widget.picture.layout import lay_part

HERE = Path(__file__).resolve().parent
OUT = HERE / "compose"

# name -> (folds vector, case, option, forced large)
SOURCES: dict[str, tuple[str, int, int, bool]] = {
    "moons_nested": ("moons", 7, 0, False),        # 23 opened boxes, 3 deep
    "far_layout": ("far_layout", 1, 0, False),     # large by far ranks, LR
    "far_layout_tb": ("far_layout", 1, 1, False),  # TB, no colour, another output
    "hostile": ("hostile", 5, 0, True),            # a box titled with DOT's and HTML's specials
}


def source_dot(folds: str, case: int, option: int, large: bool) -> str:
    """The DOT a composition vector composes: a folding vector's, with straight edges when ``large``."""
    dot: str = json.loads((HERE / "folds" / f"{folds}.json").read_text())["cases"][case]["dot"][option]
    return forced(dot) if large else dot


def forced(dot: str) -> str:
    """``dot`` with DOT_STYLE["large"]'s straight edges in its graph attributes (what makes it composable)."""
    head, graph, rest = dot.split("\n", 2)
    return f"{head}\n{graph[:-1]} splines=line]\n{rest}"


def vector(name: str) -> dict[str, Any]:
    folds, case, option, large = SOURCES[name]
    parts: list[str] = []
    layouts: list[str] = []

    def lay(part: str) -> str:
        parts.append(part)
        layouts.append(lean_layout(lay_part(part, time.monotonic() + 60, 60)))
        return layouts[-1]

    composed = compose(source_dot(folds, case, option, large), lay)
    return {"name": name, "source": [folds, case, option], "large": large, "parts": parts, "layouts": layouts,
            "composed": composed.dot, "edges": composed.edges}


def main() -> None:
    OUT.mkdir(exist_ok=True)
    for name in SOURCES:
        (OUT / f"{name}.json").write_text(json.dumps(vector(name), indent=1) + "\n")
        print("wrote", OUT / f"{name}.json")


if __name__ == "__main__":
    main()
