"""The graphs many tests (and benchmarks) share, built once here: the lecture's ``L = (a*b + c) * f``, micrograd's
README expression, moons-like losses, chains, graphs with hostile labels or non-finite grads, and ``Interrupting``,
a leaf that raises KeyboardInterrupt on cue. Import them as ``from builders import lecture_L, micrograd_readme``
(tests/ is on sys.path under pytest; scripts such as tests/vectors/generate.py put it there). Helpers that are not
graphs live in tests/helpers.py."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from micrograd_widget.core.ops import define_op
from micrograd_widget.core.tape import Tape
from micrograd_widget.engine import Value, scope
from micrograd_widget.host.demo import lecture_neuron
from micrograd_widget.nn import MLP, lecture_data, lecture_mlp, squared_error

_GRAD_SLOT: Any = vars(Value)["grad"]  # Value's own grad slot, which Interrupting's property reads and writes


class Interrupting(Value):
    """A leaf whose ``grad`` assignments raise KeyboardInterrupt at the ``arm(n)``-th one from now, once: the stop
    button pressed at a chosen moment of a loop, deterministically (the assignment itself does not happen)."""

    def __init__(self, data: float, label: str = "") -> None:
        self.countdown = 0  # 0: disarmed
        self.assignments = 0
        super().__init__(data, label=label)

    def arm(self, n: int) -> None:
        self.countdown = n

    @property
    def grad(self) -> float:
        value: float = _GRAD_SLOT.__get__(self)
        return value

    @grad.setter
    def grad(self, x: float) -> None:
        self.assignments += 1
        if self.countdown:
            self.countdown -= 1
            if not self.countdown:
                raise KeyboardInterrupt
        _GRAD_SLOT.__set__(self, x)


def _labelled(x: float, name: str) -> Value:
    return Value(x, label=name)


def lecture_L(a: float = 2.0, b: float = -3.0, c: float = 10.0, f: float = -2.0,
              backward: bool = True, leaf: Callable[[float, str], Value] = _labelled) -> dict[str, Value]:
    """The lecture's first graph ``L = (a*b + c) * f`` with every node labelled (a, b, c, e, d, f, L); nodes by label.

    At the defaults L = -8 and dL/da = 6, dL/db = -4, dL/dc = -2, dL/df = 4 (the article's dL/da = 4.0 is an
    erratum: dL/da = b * f = 6). ``backward`` runs ``L.backward()``; ``leaf(x, name)`` makes the leaves.
    """
    va, vb, vc = leaf(a, "a"), leaf(b, "b"), leaf(c, "c")
    e = va * vb
    e.label = "e"
    d = e + vc
    d.label = "d"
    vf = leaf(f, "f")
    L = d * vf
    L.label = "L"
    if backward:
        L.backward()
    return {v.label: v for v in (va, vb, vc, e, d, vf, L)}


def micrograd_readme(leaf: Callable[[float, str], Any] = _labelled) -> tuple[Any, Any, Any]:
    """micrograd's README expression, ``(a, b, g)``: g = 24.7041, dg/da = 138.8338, dg/db = 645.5773.

    ``leaf(x, name)`` makes the two inputs (a = -4, b = 2): our labelled Value by default; pass e.g.
    ``lambda x, _: micrograd.engine.Value(x)`` or a float64 torch tensor to build the same expression elsewhere.
    """
    a = leaf(-4.0, "a")
    b = leaf(2.0, "b")
    c = a + b
    d = a * b + b**3
    c += c + 1
    c += 1 + c + (-a)
    d += d * 2 + (b + a).relu()
    d += 3 * d + (b - a).relu()
    e = c - d
    f = e**2
    g = f / 2.0
    g += 10.0 / f
    return a, b, g


def picture_view(widget: Any) -> dict[str, Any]:
    """What a GraphWidget's view draws for its open set, output and options, as Python's picture says (dot.py's
    graph_view; the shared vectors hold js/picture/fold_tree.js to the same): ``shown`` (node ids drawn), ``folds`` (per
    closed
    box its id, key, title, kind, member count, note), ``open``, ``message`` and ``fold_of`` (per node the index of
    its closed box, -1 drawn)."""
    from micrograd_widget.picture.dot import graph_view

    picture = graph_view(widget.tape, output=widget.output, open_keys=widget.opened, precision=widget.precision,
                         rankdir=widget.rankdir, node_budget=widget.node_budget, color=widget.color)
    boxes = [-1] * len(widget.tape)
    for k, f in enumerate(picture.folds):
        for i in f.members:
            boxes[i] = k
    return {"shown": list(picture.shown), "open": list(picture.open), "message": picture.message,
            "folds": [{"id": f.id, "key": f.key, "title": f.title, "kind": f.kind, "count": len(f.members),
                       "note": f.note} for f in picture.folds],
            "fold_of": boxes if picture.folds else [], "dot": picture.dot}


def box_outputs(inputs: Sequence[Sequence[int]], root: int, boxes: Sequence[int]) -> set[int]:
    """The nodes inside closed boxes that a node outside their box uses, and the root when it is inside one (per
    node ``boxes``: its closed box, -1 drawn): what makes a box's "one output"."""
    used = {c for i, ins in enumerate(inputs) for c in ins if boxes[c] >= 0 and boxes[c] != boxes[i]}
    if boxes[root] >= 0:
        used.add(root)
    return used


def small_moons(hidden: int = 16, points: int = 3) -> Value:
    """The shape of micrograd's moons loss, small: MLP(2, [hidden, hidden, 1]) on `points` seeded points, SVM loss
    + L2, backpropagated."""
    import random

    from micrograd_widget.nn import MLP

    rng = random.Random(0)
    random.seed(0)
    model = MLP(2, [hidden, hidden, 1])
    xs = [[rng.uniform(-1, 2), rng.uniform(-1, 1)] for _ in range(points)]
    ys = [rng.choice((-1.0, 1.0)) for _ in range(points)]
    losses = [(1 + -y * model([Value(a), Value(b)])).relu() for y, (a, b) in zip(ys, xs, strict=True)]
    total = sum(losses) * (1.0 / len(losses)) + 1e-4 * sum(p * p for p in model.parameters())
    assert isinstance(total, Value)
    total.backward()
    return total


def sum_of_squares(n: int) -> Value:
    """n labelled leaves x_i, their squares and the running sum (3n + 1 nodes): the memory tests' graph."""
    xs = [Value(float(i % 7) - 3.0, label=f"x{i}") for i in range(n)]
    return sum(x * x for x in xs)  # type: ignore[return-value]  # 0 + Value is a Value


def lost_edge_moons() -> tuple[Value, int]:
    """micrograd's moons loss in small (MLP(2, [8, 8, 1]) on 3 points, SVM loss + L2; 922 nodes) and the node
    budget (120) at which Expand all that fits opens 5 boxes whose clusters make Graphviz's default ranking drop
    an edge ("lost fold24 n861_op edge": an error in Debian's dot 2.43, a silently missing edge in @viz-js/viz)."""
    return small_moons(8), 120


def slow_layout_moons() -> Value:
    """micrograd's moons loss in smaller still (MLP(2, [4, 4, 1]) on 3 points, 334 nodes): drawn unfolded
    (node_budget=None), Debian's dot 2.43 lays it out in ~0.3 s, 30 times the stopped_dot fixture's limit."""
    return small_moons(4, 3)


def nonfinite_grads() -> Value:
    """A loss whose data are all finite but some grads are not, each inside a fold box at a small node budget (10):
    d sqrt(x)/dx = 0.5 / sqrt(x) overflows to inf at x = 0, and a weight of 0 makes it 0 * inf = nan. The boxes: 8
    leaves x_i = 0 feeding module 'roots' (every grad inf), module 'mixed' (two outputs; an inf grad, then a nan one
    later in tape order), module 'steep' (two outputs; a -inf grad among finite ones) and module 'finite'."""
    from micrograd_widget.engine import scope

    xs = [Value(0.0, label=f"x{i}") for i in range(8)]
    parts = []
    with scope("roots"):
        parts += [x**0.5 for x in xs]
    with scope("mixed"):
        parts.append(Value(0.0, label="a") ** 0.5 * Value(1.0, label="one"))    # d/da = inf
        parts.append(Value(0.0, label="b") ** 0.5 * Value(0.0, label="zero"))   # d/db = 0 * inf = nan
    with scope("steep"):
        parts.append(Value(0.0, label="c") ** 0.5 * Value(-1.0, label="minus"))  # d/dc = -inf
        d = Value(2.0, label="d")
        parts.append(d * d)
    with scope("finite"):
        e = Value(1.5, label="e")
        parts.append((e * e).tanh() * Value(-3.0, label="k"))
    total = sum(parts, Value(0.0, label="start"))
    total.label = "total"
    total.backward()
    return total


def seeded_mlp(seed: int, nin: int, nouts: list[int]) -> Any:
    """``nn.MLP(nin, nouts)`` with weights drawn under ``random.seed(seed)``; the global random state is kept."""
    import random

    from micrograd_widget.nn import MLP

    state = random.getstate()
    random.seed(seed)
    try:
        return MLP(nin, nouts)
    finally:
        random.setstate(state)


LECTURE_XS, LECTURE_YS = lecture_data()   # the lecture's four examples and their targets


def lecture_mlp_loss() -> Value:
    """The lecture's network (``nn.lecture_mlp``, weights drawn under seed 1) on its four examples: the squared-error
    loss (398 nodes), backpropagated."""
    return lecture_mlp_and_loss()[1]


def lecture_mlp_and_loss() -> tuple[MLP, Value]:
    """``lecture_mlp_loss()`` with the model it was computed by."""
    model = lecture_mlp(seed=1)
    loss = squared_error(model, LECTURE_XS, LECTURE_YS)
    loss.backward()
    return model, loss


def tanh_spelled_out() -> dict[str, Value]:
    """The lecture's neuron with tanh written out, ``o = (e - 1) / (e + 1)``, ``e = exp(2n)`` (not backpropagated):
    its labelled nodes by label; the 2, 1 and 1 are unlabelled constants."""
    x1, x2 = Value(2.0, label="x1"), Value(0.0, label="x2")
    w1, w2 = Value(-3.0, label="w1"), Value(1.0, label="w2")
    b = Value(6.8813735870195432, label="b")
    n = x1 * w1 + x2 * w2 + b
    n.label = "n"
    e = (2 * n).exp()
    o = (e - 1) / (e + 1)
    o.label = "o"
    return {v.label: v for v in (x1, x2, w1, w2, b, n, o)}


# ---- pictures' graphs: the lecture's, moons-like losses, chains, hostile labels


HOSTILE = [
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(1)>",
    'say "hi" \'there\'',
    "{a|b}<c> | {",
    "back\\slash \\N \\G \\l end\\",
    "two\nlines\r\nand\rmore",
    "&lt;b&gt; &amp; &#60;i&#62;",
    "]]> <!-- --> <![CDATA[x]]>",
    "\x00nul \x1b[31m esc \x7f",
    "lone \ud800 surrogate",
    "",
    "   ",
]


def lecture_graph() -> Value:
    """The lecture's first example: L = (a*b + c) * f, backpropagated (the shared builder's root)."""
    return lecture_L()["L"]


def moons_like_loss(points: int = 100, seed: int = 0) -> Value:
    """The shape of micrograd's moons training loss: MLP(2,[16,16,1]), SVM loss + L2, backpropagated."""
    rng = random.Random(seed)
    random.seed(seed)
    model = MLP(2, [16, 16, 1])
    X = [[rng.uniform(-1, 2), rng.uniform(-1, 1)] for _ in range(points)]
    y = [rng.choice((-1.0, 1.0)) for _ in range(points)]
    scores = [model([Value(a), Value(b)]) for a, b in X]
    losses = [(1 + -yi * si).relu() for yi, si in zip(y, scores)]
    total = sum(losses) * (1.0 / len(losses)) + 1e-4 * sum(p * p for p in model.parameters())
    total.backward()
    return total


def tanh_chain(n: int) -> Value:
    """x -> tanh -> tanh ... : n nodes, as deep as a graph of n nodes can be, backpropagated."""
    v = Value(0.5, label="x")
    for _ in range(n - 1):
        v = v.tanh()
    v.backward()
    return v


def horner(degree: int, x: float = 0.5) -> Value:
    """A polynomial by Horner's rule, ``y = y * x + c``: one input ``x`` feeding every step of a chain of
    3 * degree + 2 nodes, so its edges reach back across the whole picture (dot's slowest kind of graph)."""
    xv = Value(x, label="x")
    y = Value(1.0, label="c0")
    for k in range(degree):
        y = y * xv + Value(0.1, label=f"c{k + 1}")
    y.backward()
    return y


def chain(n: int) -> Value:
    """A graph of about ``n`` nodes with no scopes."""
    x = Value(0.5, label="x")
    for _ in range(n // 4):
        x = (x * Value(1.01) + 0.01).tanh()
    x.backward()
    return x


def lecture_neuron_spelled(w1_data: float = -3.0) -> Value:
    """The lecture's neuron with tanh spelled out, o = (e - 1) / (e + 1) with e = exp(2n), as the lecture labels it
    (a picture ~3,500 px wide: wider than a notebook column even at the readable 60%), backpropagated."""
    x1, x2 = Value(2.0, label="x1"), Value(0.0, label="x2")
    w1, w2 = Value(w1_data, label="w1"), Value(1.0, label="w2")
    b = Value(6.8813735870195432, label="b")
    x1w1, x2w2 = x1 * w1, x2 * w2
    x1w1.label, x2w2.label = "x1*w1", "x2*w2"
    x1w1x2w2 = x1w1 + x2w2
    x1w1x2w2.label = "x1*w1 + x2*w2"
    n = x1w1x2w2 + b
    n.label = "n"
    e = (2 * n).exp()
    e.label = "e"
    o = (e - 1) / (e + 1)
    o.label = "o"
    o.backward()
    return o


def saturated_neuron() -> Value:
    """The lecture's neuron with w1 = -1: o = tanh(n) = 0.99988..., every other grad 0.0002-0.0005."""
    return lecture_neuron(w1=-1.0)["o"]


def saturated_tanh() -> Value:
    """The lecture's neuron with w1 = 1.3: n = 9.48, o = tanh(n) = 1 - 1.2e-8, every other grad 1e-8 to 5e-8, all
    shown as 0.0000 at 4 decimals: the vanishing gradient."""
    return lecture_neuron(w1=1.3)["o"]


def hostile_graph() -> tuple[Value, list[str]]:
    cube = define_op("cube", lambda a: a ** 3, lambda a, out: 3 * a * a, symbol='<b onclick="x">|{c}')
    leaves = []
    for k, label in enumerate(HOSTILE):
        with scope(f"evil<{k}>\"|{{}}\\"):
            leaves.append(Value(float(k), label=label))
    total = Value.apply(cube, sum(leaves[1:], leaves[0]))
    total.label = HOSTILE[0]
    total.backward()
    return total, [v.label for v in Tape.from_value(total).values]


def log_graph(x: float = 2.0, backward: bool = False) -> dict[str, Value]:
    """``z = log(x) * k`` on labelled leaves x, k (k = 3); nodes by label. Moving ``x`` to zero or below is an op
    error (log of a non-positive number). ``backward`` runs ``z.backward()``."""
    vx, vk = Value(x, label="x"), Value(3.0, label="k")
    y = vx.log()
    y.label = "y"
    z = y * vk
    z.label = "z"
    if backward:
        z.backward()
    return {v.label: v for v in (vx, vk, y, z)}


def tape_graph() -> tuple[Value, tuple[Value, Value, Value]]:
    """L = tanh((a*b + c) * -2) + a**2 / b on labelled leaves a=2, b=-3, c=10: the tape tests' graph."""
    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    c = Value(10.0, label="c")
    L = ((a * b + c) * -2.0).tanh() + a ** 2 / b
    return L, (a, b, c)


def train_step(model: Any, xs: Sequence[Sequence[float]], ys: Sequence[float], lr: float = 0.05) -> Value:
    """One step of plain gradient descent on the squared error of ``model`` over ``xs``, ``ys``: its loss."""
    loss = squared_error(model, xs, ys)
    model.zero_grad()
    loss.backward()
    for p in model.parameters():
        p.data -= lr * p.grad
    return loss
