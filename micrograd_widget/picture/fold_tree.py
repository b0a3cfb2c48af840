"""The fold hierarchy: every fold box a picture of a tape can draw, as one tree computed once per tape and budget.

fold.py's planner decides the default picture (what is drawn with nothing opened). This module turns its
boxes into a tree of groups: each box's members are grouped again by the same rules (fold_rules.py) applied to
those members alone (fold_children.py: sub-modules, long sums as Σ boxes, the nodes only their terms use, leaves
feeding the same units), and a group with more than ``child_cap(budget)`` units keeps the units nearest its
output and folds the rest, computed earlier, into an "earlier steps" group (so a neuron of 3,317 nodes opens into a few
boxes, and a chain of 1,000,000 nodes into nested groups). Each group has a stable key (the scope path for
modules, ``"<kind>:<its largest node id>"`` otherwise), a kind, a title, a note, a parent, and, for a Σ box, the
node holding its total; each node has its innermost group (``group_of``, -1 for none).

A picture for a set of opened keys (``picture``) is then simple, and js/picture/fold_tree.js computes the same one:
each node is drawn as its outermost closed group (or itself), opened groups are clusters around what they
hold. Opening a box never moves the others. ``expand`` / ``collapse`` / ``expand_all_that_fits`` /
``check_open`` change an open set within the node budget (at most ``budget`` units and
``max(EDGES_PER_BOX * budget, edges now)`` edges between units), growing it through fold_fit.py's one loop.
Linear time: groups are built breadth first, each node visited once per level.
"""

from __future__ import annotations

from array import array
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from micrograd_widget.core.spec import json_safe, to_buffer
from micrograd_widget.core.tape import Tape
from micrograd_widget.picture.fold import Fold, Plan, plan
from micrograd_widget.picture.fold_children import child_units, nodes_only
from micrograd_widget.picture.fold_fit import FitBase, OpenSetFit
from micrograd_widget.picture.fold_rules import Box, FoldKind, TapeFacts, distance_note, distance_title, module_box
from micrograd_widget.picture.text import plural, short

__all__ = ["FoldTree", "Group", "Picture", "build_tree", "picture", "expand", "collapse", "expand_all_that_fits",
           "closed_box_of", "keys_to_reveal", "child_cap", "FOLD_SPEC_VERSION"]

# ---------------------------------------------------------------- the hierarchy

FOLD_SPEC_VERSION = 1
MIN_CHILD_CAP = 16


def child_cap(budget: int) -> int:
    """The most units (nodes and groups) one group opens into: a quarter of the budget (at least 16), so a
    box opens into something a learner reads at a glance (the lecture's neuron whole, a moons neuron of 3,317
    nodes into 61 units and a box of the rest) and a picture has room for several opened boxes."""
    return max(MIN_CHILD_CAP, budget // 4)


@dataclass
class Group:
    """One fold box of the hierarchy (``index`` in ``FoldTree.groups``, parents before children)."""

    key: str
    kind: FoldKind
    title: str
    note: str
    parent: int
    total: int = -1          # a Σ box: the node whose '+' it stands in for when that node is drawn
    count: int = 0           # how many tape nodes it holds
    children: list[int] = field(default_factory=list)    # child groups, nearest the output first
    nodes: int = 0           # how many tape nodes it holds directly (not inside a child group)


@dataclass
class FoldTree:
    """The hierarchy of one tape for one node budget; ``message`` is the default picture's folding message."""

    n: int
    budget: int | None
    groups: list[Group]
    group_of: array[int]
    message: str
    by_key: dict[str, int] = field(default_factory=dict)
    nested: bool = True      # False: the top level only (enough to draw the default picture, nothing to open)
    fit_base: FitBase | None = field(default=None, repr=False, compare=False)  # fold_fit.py's, made when first needed

    def spec(self) -> dict[str, Any]:
        """What the browser needs (js/picture/fold_tree.js compileFolds; js/host/folds-contract.md): rows of small JSON,
        one little-endian Int32 buffer."""
        return {"version": FOLD_SPEC_VERSION, "budget": self.budget, "message": self.message,
                "groups": [[g.key, g.kind, g.title, g.note, g.parent, g.total] for g in self.groups],
                "group_of": to_buffer(self.group_of)}

    def ancestors(self, g: int) -> list[int]:
        """``g`` and the groups holding it, innermost first."""
        out = []
        while g >= 0:
            out.append(g)
            g = self.groups[g].parent
        return out


@dataclass
class _Pending:
    """A group whose children are still to be found: from ``members``, or already known as ``units[start:]``."""

    index: int
    members: list[int] | None
    units: list[int | Box] | None = None
    start: int = 0
    depth: int = 0           # a module's scope depth (its children are its sub-modules one level down)


def build_tree(tape: Tape, budget: int | None, folding: Plan | None = None, nested: bool = True) -> FoldTree:
    """The fold hierarchy of ``tape`` for ``budget`` (see ``_build_tree``), every node's inputs read from one list."""
    with tape.shared_inputs():
        return _build_tree(tape, budget, folding, nested)


def _build_tree(tape: Tape, budget: int | None, folding: Plan | None, nested: bool) -> FoldTree:
    """The fold hierarchy of ``tape`` for ``budget``: its top level is ``plan(tape, budget)``'s boxes (the
    default picture), each box grouped again inside, breadth first (``nested=False``: the top level only, all
    a static picture of the default open set needs)."""
    n = len(tape)
    facts = TapeFacts(tape)           # what the planner finds, read again by the inner levels
    folding = folding if folding is not None else plan(tape, budget, facts)
    group_of = array("i", [-1]) * n
    tree = FoldTree(n, budget, [], group_of, folding.message, nested=nested)
    if not folding.folds or budget is None:
        return tree
    if not nested:
        for f in folding.folds:
            g = _add(tree, _box_of(f), -1)
            for i in f.members:
                group_of[i] = g
            tree.groups[g].nodes = len(f.members)
        _count(tree)
        return tree
    cap = child_cap(budget)
    queue: deque[_Pending] = deque()
    tails: dict[int, tuple[list[int | Box], list[int], list[int]]] = {}
    for f in folding.folds:
        box = _box_of(f)
        queue.append(_Pending(_add(tree, box, -1), box.members, depth=box.depth))
    with tape.shared_inputs() as inputs:
        facts.inputs = inputs
        while queue:
            item = queue.popleft()
            if item.units is not None:
                units = item.units
            else:
                assert item.members is not None
                depth = item.depth if tree.groups[item.index].kind == "scope" else 0
                units = child_units(facts, item.members, depth, cap)
            _fill(tree, item.index, units, item.start, cap, queue, tails, facts)
    _count(tree)
    return tree


def _box_of(f: Fold) -> Box:
    """A box of the planner's picture as a group to number."""
    if f.kind == "scope":
        return module_box(f.title, list(f.members))
    return Box(f.title, list(f.members), f.kind, f.note, total=f.total)


def _add(tree: FoldTree, spec: Box, parent: int) -> int:
    """Number a new group; its key is unique (a clash, possible only with odd scope names, gets '~2', '~3') and
    JSON-safe (spec.json_safe), so the view sends back exactly the keys it was given."""
    key = json_safe(spec.key) or f"{spec.kind}:{max(spec.members)}"      # keys travel as JSON
    base, k = key, 2
    while key in tree.by_key:
        key, k = f"{base}~{k}", k + 1
    index = len(tree.groups)
    tree.groups.append(Group(key, spec.kind, spec.title, spec.note, parent, -1 if spec.total is None else spec.total))
    tree.by_key[key] = index
    if parent >= 0:
        tree.groups[parent].children.append(index)
    return index


def _fill(tree: FoldTree, g: int, units: list[int | Box], start: int, cap: int, queue: deque[_Pending],
          tails: dict[int, tuple[list[int | Box], list[int], list[int]]], facts: TapeFacts) -> None:
    """Give group ``g`` the units ``units[start:]`` (nearest the output first): at most ``cap`` of them, the
    rest folded into an "earlier steps" group that holds them in the same order. A child group that
    opens into its own nodes only (``nodes_only``: most groups of a large graph) is filled at once; the others
    wait in ``queue`` for their units. Either way it is numbered here, so the numbering is breadth first."""
    end = len(units) if len(units) - start <= cap else start + cap - 1
    group_of, nodes = tree.group_of, 0
    for u in units[start:end]:
        if isinstance(u, int):
            group_of[u] = g
            nodes += 1
        else:
            child = _add(tree, u, g)
            if nodes_only(facts, u.kind, u.members, u.depth, cap):
                for i in u.members:
                    group_of[i] = child
                tree.groups[child].nodes = len(u.members)
            else:
                queue.append(_Pending(child, u.members, depth=u.depth))
    tree.groups[g].nodes += nodes
    if end < len(units):
        if id(units) not in tails:       # per suffix of ``units``: how many nodes it holds and its largest
            count, largest = [0] * (len(units) + 1), [-1] * (len(units) + 1)
            for k in range(len(units) - 1, -1, -1):
                u = units[k]
                size, top = (1, u) if isinstance(u, int) else (len(u.members), u.members[-1])   # members ascend
                count[k] = count[k + 1] + size
                largest[k] = top if top > largest[k + 1] else largest[k + 1]
            tails[id(units)] = (units, count, largest)      # ``units`` held, so its id stays its own
        _, count, largest = tails[id(units)]
        farther = Box(distance_title(), [], "distance", distance_note(count[end]), key=f"distance:{largest[end]}")
        queue.append(_Pending(_add(tree, farther, g), None, units, end))


def _count(tree: FoldTree) -> None:
    for g in tree.groups:
        g.count = g.nodes
    for g in reversed(tree.groups):
        if g.parent >= 0:
            tree.groups[g.parent].count += g.count


# ---------------------------------------------------------------- a picture for an open set

@dataclass(frozen=True)
class Picture:
    """What one open set draws: per node its unit (the node id, or ``n + group``), the nodes drawn in full
    (ascending), the closed boxes drawn (group indices, ascending), the opened groups drawn as clusters."""

    unit: list[int]
    shown: list[int]
    boxes: list[int]
    clusters: list[int]
    message: str


def _is_open(tree: FoldTree, open_keys: Iterable[str]) -> list[bool]:
    """Per group: opened and inside opened groups only (a key whose parent is closed does nothing)."""
    keys = set(open_keys)
    out = [False] * len(tree.groups)
    for g, group in enumerate(tree.groups):
        out[g] = group.key in keys and (group.parent < 0 or out[group.parent])
    return out


def picture(tape: Tape, tree: FoldTree, open_keys: Iterable[str] = ()) -> Picture:
    """The picture of ``open_keys``: each node drawn as its outermost closed group, or itself."""
    n = tree.n
    is_open = _is_open(tree, open_keys)
    box = [-1] * len(tree.groups)          # the outermost closed group at or above each group (-1: all open)
    for g, group in enumerate(tree.groups):
        above = box[group.parent] if group.parent >= 0 else -1
        box[g] = above if above >= 0 else (-1 if is_open[g] else g)
    unit_of_group = [n + b if b >= 0 else -1 for b in box]     # a group's unit (-1: drawn open)
    unit_of_group.append(-1)                                    # group_of -1 (no group) reads it
    unit = [i if u < 0 else u for i, u in enumerate(map(unit_of_group.__getitem__, tree.group_of))]
    shown = [i for i in range(n) if unit[i] == i]
    boxes = [g for g in range(len(tree.groups)) if box[g] == g]
    clusters = [g for g in range(len(tree.groups)) if is_open[g]]
    if not clusters:
        message = tree.message
    else:
        message = (f"showing {len(shown):,} of {plural(n, 'node')}; {plural(len(boxes), 'box')} folded, "
                   f"{len(clusters):,} opened")
    return Picture(unit, shown, boxes, clusters, message)


def _canonical(tree: FoldTree, is_open: list[bool]) -> list[str]:
    return [g.key for g, o in zip(tree.groups, is_open, strict=True) if o]


def _key_index(tree: FoldTree, key: str) -> int:
    g = tree.by_key.get(key)
    if g is None:
        raise KeyError(f"no fold box has the key {key!r}")
    return g


def expand(tape: Tape, tree: FoldTree, open_keys: Iterable[str], key: str, budget: int) -> list[str]:
    """Open ``key`` (and the groups holding it), then its child groups nearest the output first while the
    picture stays within ``budget`` units (and the edge limit); unchanged when ``key`` itself does not fit."""
    g = _key_index(tree, key)
    fit = OpenSetFit(tape, tree, budget, _is_open(tree, open_keys))
    before = _canonical(tree, fit.is_open)
    # Opening a box never lowers the units or edges drawn: the ancestors fit one by one iff they fit together.
    if not all(fit.open(a) for a in reversed(tree.ancestors(g)) if not fit.is_open[a]) or fit.units > budget:
        return before
    fit.grow(tree.groups[g].children)
    return _canonical(tree, fit.is_open)


def collapse(tree: FoldTree, open_keys: Iterable[str], key: str) -> list[str]:
    """Close ``key`` and every group inside it."""
    g = _key_index(tree, key)
    is_open = _is_open(tree, open_keys)
    is_open[g] = False
    return _canonical(tree, _is_open(tree, _canonical(tree, is_open)))


def expand_all_that_fits(tape: Tape, tree: FoldTree, open_keys: Iterable[str], budget: int) -> list[str]:
    """Open groups breadth first (nearest the output first) while the picture stays within the budget."""
    fit = OpenSetFit(tape, tree, budget, _is_open(tree, open_keys))
    fit.grow(range(len(tree.groups)))
    return _canonical(tree, fit.is_open)


def closed_box_of(tree: FoldTree, open_keys: Iterable[str], node: int) -> str | None:
    """The key of the outermost closed group holding ``node``, or None when it is drawn in full."""
    is_open = _is_open(tree, open_keys)
    g = tree.group_of[node]
    found = None
    while g >= 0:
        if not is_open[g]:
            found = g
        g = tree.groups[g].parent
    return None if found is None else tree.groups[found].key


def keys_to_reveal(tree: FoldTree, node: int) -> list[str]:
    """The keys of the groups holding ``node``, outermost first: open them all to draw it."""
    g = tree.group_of[node]
    return [tree.groups[a].key for a in reversed(tree.ancestors(g))] if g >= 0 else []


def check_open(tape: Tape, tree: FoldTree, open_keys: Sequence[Any], budget: int | None,
               refused: dict[str, str] | None = None) -> list[str]:
    """An open set as the widget keeps it: known keys only (a ``ValueError`` names the unknown ones), in tree
    order, groups inside closed ones dropped, and cut to what the budget allows (in tree order); ``refused``, when
    given, gets each key asked for and left closed with the limit it was past ("units", "edges" or "cost"). Its
    cost is the keys and the boxes tried (fold_fit.py), not a picture of the graph per key."""
    if isinstance(open_keys, str) or not all(isinstance(k, str) for k in open_keys):
        raise ValueError(f"open is a list of fold box keys (strings), got {short(open_keys)}")
    wanted = {tree.by_key.get(k, -1) for k in open_keys}
    if -1 in wanted:
        unknown = [k for k in open_keys if k not in tree.by_key]
        known = [g.key for g in tree.groups[:10]]
        raise ValueError(f"unknown fold box key(s) {short(unknown[:5])}; keys look like {short(known)}")
    fit = OpenSetFit(tape, tree, budget)
    fit.grow(sorted(wanted))                     # tree order: a parent before its children
    if refused is not None:
        refused.update((tree.groups[g].key, why) for g, why in fit.refused.items())
    return _canonical(tree, fit.is_open)


def left_closed_words(refused: dict[str, str], budget: int | None) -> str:
    """What a user who set ``opened`` is told of the boxes ``check_open`` left closed (``refused``), or ""."""
    if not refused:
        return ""
    keys = ", ".join(repr(k) for k in list(refused)[:3]) + (", ..." if len(refused) > 3 else "")
    why = []
    if "units" in refused.values() or "edges" in refused.values():
        why.append(f"they do not fit in the node budget ({budget:,} boxes) beside what is open: raise node_budget "
                   "or open fewer")
    if "cost" in refused.values():
        why.append("their edges reach far back across the picture, which would make it too slow to lay out: a larger "
                   "node_budget does not help, close other boxes first")
    return f"opened: {plural(len(refused), 'box')} left closed ({keys}): " + "; ".join(why)
