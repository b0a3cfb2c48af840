"""Writes the shared folding vectors tests/vectors/folds/*.json: tape + fold hierarchy + open sets -> pictures.

Run ``.venv/bin/python tests/vectors/generate_folds.py`` after changing the folding rules (fold_rules.py, fold.py,
fold_children.py, fold_tree.py, fold_fit.py) or the DOT writing (dot.py) and commit the result; tests/test_fold_tree.py
regenerates them in memory and fails if the files are stale. js/picture/fold_tree.test.js holds js/picture/fold_tree.js
to them: the same open set must give the same units, boxes, members, edges and DOT, byte for byte.

Each file is ``{"name", "budget", "spec", "data", "grad", "folds", "cases", "reveal"}``: ``spec`` is the tape
spec as generate.py writes it, ``data``/``grad`` every node's numbers (encode_number), ``folds`` the
``FoldTree.spec()`` with ``group_of`` as a list; each case is an open set reached by an action
(``{"action": "expand" | "collapse" | "expand_all" | "none", "from": [...], "key"}``) with what it draws and
its DOT under ``options``; ``reveal`` lists, for some nodes, ``keys_to_reveal`` and ``closed_box_of`` under
the default open set. Deterministic: the only randomness is seeded.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from micrograd_widget.core.spec import encode_number, from_buffer
from micrograd_widget.core.tape import Tape
from micrograd_widget.engine import Value, scope
from micrograd_widget.nn import MLP
from micrograd_widget.picture.dot import graph_view
from micrograd_widget.picture.fold_tree import (
    build_tree,
    closed_box_of,
    collapse,
    expand,
    expand_all_that_fits,
    keys_to_reveal,
    picture,
)

HERE = Path(__file__).resolve().parent
OUT = HERE / "folds"
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))
if str(HERE.parent) not in sys.path:
    sys.path.insert(0, str(HERE.parent))
import builders  # noqa: E402  (tests/ is on the path)


def lecture_L() -> Value:
    return builders.lecture_L()["L"]


def lecture_mlp() -> Value:
    """The lecture's MLP loss: MLP(3, [4, 4, 1]) on its four examples, squared error."""
    random.seed(1337)
    model = MLP(3, [4, 4, 1])
    xs = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
    ys = [1.0, -1.0, -1.0, 1.0]
    loss = sum((model(x) - y) ** 2 for x, y in zip(xs, ys, strict=True))
    assert isinstance(loss, Value)
    loss.backward()
    return loss


def long_sum() -> Value:
    """A sum of 100 squares: a Σ box, its terms, and terms drawn in full with the spare budget."""
    xs = [Value(0.01 * i - 0.5, label=f"x{i}") for i in range(100)]
    total = sum((x * x for x in xs), Value(0.0, label="zero"))
    total.label = "total"
    total.backward()
    return total


def squares() -> Value:
    """A sum of 300 squares of leaves: its Σ chain, opened, draws each term's edge to a '+' one rank further (the
    moons loss's regularisation sum): a layout cost past LAYOUT_COST_LIMIT that its units and edges would allow."""
    xs = [Value(0.01 * i - 0.5, label=f"x{i}") for i in range(300)]
    total = sum((x * x for x in xs), Value(0.0, label="zero"))
    total.label = "total"
    total.backward()
    return total


def chain() -> Value:
    """A chain with no scopes: folded by distance from the output, nested 'farther' groups inside."""
    v = Value(0.5, label="v")
    for j in range(150):
        v = v * 1.0000001 if j % 2 == 0 else v / (v + 0.1) + 0.1
    v.backward()
    return v


def moons() -> Value:
    """The shape of micrograd's moons loss, small: MLP(2, [16, 16, 1]) on 3 points, SVM loss + L2."""
    return builders.small_moons(16)


def hostile() -> Value:
    """Labels and scopes a learner could type: quotes, backslashes, record syntax, HTML, newlines, controls."""
    names = ['a"b', "c\\d", "{e|f}", "<b>g</b>", "h&i", "line\nbreak", "tab\tx", "nul\x00", "\u2028sep", "é👍",
             "node", "  spaced   out  ", "x" * 60, "rtl\u202eevil\u200f"]
    parts = []
    for k, name in enumerate(names):
        with scope(f'mod"{k % 3}|<{k % 2}>'):
            v = Value(0.1 * (k + 1), label=name)
            parts.append((v * v).tanh())
    total = sum(parts, Value(0.0, label='sum "all"'))
    total.backward()
    return total


def nonfinite() -> Value:
    """Fold boxes holding inf and nan grads (and one whose every grad is inf): what "max |grad|" and the fill show,
    the colour scale staying finite (dot.py's box_max)."""
    return builders.nonfinite_grads()


def saturated() -> Value:
    """A saturated tanh (builders.saturated_tanh): every grad but the output's ~1e-8, shown as 0.0000, so white on
    the relative scale (and the legend says so in words) and tinted on the log scale (colors.py)."""
    return builders.saturated_tanh()


def all_zero() -> Value:
    """An MLP's output before any backward: every grad 0, the legend says so in words."""
    random.seed(7)
    out = MLP(3, [4, 4, 1])([1.0, -2.0, 0.5])
    assert isinstance(out, Value)
    return out


GRAPHS: dict[str, tuple[Callable[[], Value], int | None]] = {
    "lecture_L": (lecture_L, 10), "lecture_mlp": (lecture_mlp, 60), "long_sum": (long_sum, 60),
    "chain": (chain, 40), "moons": (moons, 60), "hostile": (hostile, 10), "nonfinite": (nonfinite, 10),
    "saturated": (saturated, 10), "all_zero": (all_zero, 10),
    "lecture_mlp_whole": (lecture_mlp, None),   # node_budget=None: a hierarchy with no groups, the graph drawn whole
}
# Vectors of one action each, for a threshold the standard actions above never reach.
EDGE_CAP = ("edge_cap", moons, 60)   # Expand all that fits with twice the room, from the default picture (below)
COST_CAP = ("cost_cap", squares, 400)   # the same: the layout cost keeps the Σ box closed (units and edges fit)
# Expand all that fits at the budget: its edges (279) cross 3,000+ ranks beyond the next, so dot.py large_layout lays it
# out as a large picture by its far ranks alone (the standard actions reach it only past 1,000 edges).
FAR_LAYOUT = ("far_layout", moons, 100)
# The third: the log colour scale (colors.py), which tints grads the digits show as 0.
OPTIONS = [{"precision": 4, "rankdir": "LR", "color": True}, {"precision": 2, "rankdir": "TB", "color": False},
           {"precision": 4, "rankdir": "LR", "color": True, "color_scale": "log"}]


def options_for(tape: Tape) -> list[dict[str, Any]]:
    """``OPTIONS``, the second with a differentiated output other than the root (the node before it): the DOT
    marks that node (bold, mgw-output-node) and leaves it out of the colour scale, not the root."""
    return [OPTIONS[0], {**OPTIONS[1], "output": len(tape) - 2}, OPTIONS[2]]


def _numbers(values: Any) -> list[float | str]:
    return [encode_number(x) for x in values]


def _case(tape: Tape, tree: Any, action: dict[str, Any], open_keys: list[str],
          every_option: bool = False) -> dict[str, Any]:
    """What ``open_keys`` draws; its DOT under the first of ``options_for(tape)`` (all of them with
    ``every_option``)."""
    pic = picture(tape, tree, open_keys)
    views = [graph_view(tape, tree=tree, open_keys=open_keys, node_budget=tree.budget, **opts)
             for opts in options_for(tape)[:None if every_option else 1]]
    view = views[0]
    return {**action, "open": open_keys, "units": len(pic.shown) + len(pic.boxes), "shown": pic.shown,
            "boxes": [{"id": f.id, "key": f.key, "kind": f.kind, "title": f.title, "members": list(f.members)}
                      for f in view.folds],
            "clusters": [tree.groups[g].key for g in pic.clusters], "message": pic.message,
            "dot": [v.dot for v in views]}


def edge_cap_cases(tape: Tape, tree: Any, budget: int) -> list[dict[str, Any]]:
    """Expand all that fits from the default picture with twice the room: on the moons loss at a budget of 60 the
    edge cap (max(EDGES_PER_BOX x budget, edges now)) stops it before the unit budget does, so the open set, and
    the picture, change with EDGES_PER_BOX (with 4, one more layer's boxes open); on the squares at 400 the layout
    cost keeps the Σ box closed (with no LAYOUT_COST_LIMIT it opens)."""
    room = 2 * budget
    every = expand_all_that_fits(tape, tree, [], room)
    return [_case(tape, tree, {"action": "none", "from": [], "key": None}, []),
            _case(tape, tree, {"action": "expand_all", "from": [], "key": None, "budget": room}, every)]


def expand_all_cases(tape: Tape, tree: Any, budget: int) -> list[dict[str, Any]]:
    """The default picture and Expand all that fits from it, at the budget."""
    every = expand_all_that_fits(tape, tree, [], budget)
    return [_case(tape, tree, {"action": "none", "from": [], "key": None}, []),
            _case(tape, tree, {"action": "expand_all", "from": [], "key": None}, every, True)]


def vector(name: str, build: Callable[[], Value], budget: int,
           actions: Callable[[Tape, Any, int], list[dict[str, Any]]] | None = None) -> dict[str, Any]:
    """One vector file: the standard actions' cases, or ``actions``' (tape, tree, budget -> cases)."""
    tape = Tape.from_value(build())
    tree = build_tree(tape, budget)
    spec = tree.spec()
    spec["group_of"] = from_buffer(spec["group_of"], "i").tolist()
    cases = actions(tape, tree, budget) if actions else [
        _case(tape, tree, {"action": "none", "from": [], "key": None}, [], True)]
    top = [g.key for g in tree.groups if g.parent < 0]
    if top and not actions:
        biggest = max(top, key=lambda k: tree.groups[tree.by_key[k]].count)
        one = expand(tape, tree, [], biggest, budget)
        cases.append(_case(tape, tree, {"action": "expand", "from": [], "key": biggest}, one))
        inner = [tree.groups[c].key for g in one for c in tree.groups[tree.by_key[g]].children
                 if tree.groups[c].key not in one]
        if inner:
            nested = expand(tape, tree, one, inner[0], budget)
            cases.append(_case(tape, tree, {"action": "expand", "from": one, "key": inner[0]}, nested))
        closed = collapse(tree, one, biggest)
        cases.append(_case(tape, tree, {"action": "collapse", "from": one, "key": biggest}, closed))
        every = expand_all_that_fits(tape, tree, [], budget)
        cases.append(_case(tape, tree, {"action": "expand_all", "from": [], "key": None}, every))
        # The planner's picture often fills the budget: the same actions with twice the room.
        room = 2 * budget
        one = expand(tape, tree, [], biggest, room)
        cases.append(_case(tape, tree, {"action": "expand", "from": [], "key": biggest, "budget": room}, one, True))
        every = expand_all_that_fits(tape, tree, one, room)
        cases.append(_case(tape, tree, {"action": "expand_all", "from": one, "key": None, "budget": room}, every))
        deepest = max(range(len(tape)), key=lambda i: (len(keys_to_reveal(tree, i)), i))
        path = keys_to_reveal(tree, deepest)
        cases.append(_case(tape, tree, {"action": "set", "from": [], "key": None, "node": deepest}, path))
    probes = sorted({0, len(tape) // 3, len(tape) // 2, len(tape) - 2, len(tape) - 1} & set(range(len(tape))))
    reveal = [{"node": i, "keys": keys_to_reveal(tree, i), "closed_box": closed_box_of(tree, [], i)} for i in probes]
    return {"name": name, "budget": budget, "spec": tape.to_json(), "data": _numbers(tape.data),
            "grad": _numbers(tape.grad), "options": options_for(tape), "folds": spec, "cases": cases, "reveal": reveal}


def render() -> dict[str, str]:
    """Every vector file's name and text."""
    vectors = [vector(name, build, budget) for name, (build, budget) in GRAPHS.items()]
    for name, build, budget in (EDGE_CAP, COST_CAP):
        vectors.append(vector(name, build, budget, edge_cap_cases))
    vectors.append(vector(*FAR_LAYOUT, expand_all_cases))
    return {f"{v['name']}.json": json.dumps(v, ensure_ascii=True, separators=(",", ":")) + "\n" for v in vectors}


def main() -> int:
    """Write tests/vectors/folds/*.json, removing vector files no graph produces any more."""
    OUT.mkdir(exist_ok=True)
    files = render()
    for stale in {p.name for p in OUT.glob("*.json")} - set(files):
        (OUT / stale).unlink()
    for name, text in files.items():
        (OUT / name).write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
