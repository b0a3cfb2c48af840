"""The graphs the browser tests and the widget benchmark show, built with the engine (the oracle for
every number the browser displays)."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from builders import lecture_L  # noqa: F401  (the browser tests import the shared builder from here)

from micrograd_widget.engine import Value
from micrograd_widget.host.demo import lecture_neuron  # the tests import it from here too
from micrograd_widget.nn import MLP

REPO = Path(__file__).resolve().parents[3]
FOLD_VECTORS = REPO / "tests" / "vectors" / "folds"


def vector_dots() -> list[str]:
    """The first and last case's DOT of three fold vectors (hostile labels, the lecture's MLP, a long sum): pictures
    to lay out in the browser, folded and opened."""
    dots = []
    for name in ("hostile.json", "lecture_mlp.json", "long_sum.json"):
        cases = json.loads((FOLD_VECTORS / name).read_text(encoding="utf-8"))["cases"]
        dots += [cases[0]["dot"][0], cases[-1]["dot"][0]]
    return dots
HOSTILE_LABELS = ("<img src=x onerror=alert(1)>", "<script>alert(2)</script>")


def hostile_graph() -> dict[str, Value]:
    """Two leaves whose labels are HTML that would run script if it ever reached innerHTML."""
    x, y = Value(1.5, label=HOSTILE_LABELS[0]), Value(-2.0, label=HOSTILE_LABELS[1])
    out = x * y
    out.label = "out"
    out.backward()
    return {v.label: v for v in (x, y, out)}


def chain_graph(n_nodes: int, seed: int = 7) -> Value:
    """A graph of about ``n_nodes`` nodes: sums of products of tanh'd leaves, unique labels, backpropagated."""
    rng = random.Random(seed)
    n_leaves = max(2, n_nodes // 4)
    leaves = [Value(rng.uniform(-1, 1), label=f"x{i}") for i in range(n_leaves)]
    acc = leaves[0]
    for i, leaf in enumerate(leaves[1:], start=1):
        t = (leaf * leaves[i - 1]).tanh()
        acc = acc + t
    acc.label = "out"
    acc.backward()
    return acc


def labelled_chain(length: int = 40, a: float = 0.5) -> dict[str, Value]:
    """A long chain n1 = a * c1 + d1, n2 = n1 * c2 + d2, ... (every node labelled), backpropagated, by label: drawn
    left to right it is far wider than the graph box, so most of its boxes are out of sight at 100%."""
    nodes = {"a": Value(a, label="a")}
    x = nodes["a"]
    for k in range(1, length + 1):
        c, d = Value(1.0 + k / 100, label=f"c{k}"), Value(0.1 * k, label=f"d{k}")
        m = x * c
        m.label = f"m{k}"
        x = m + d
        x.label = f"n{k}"
        nodes.update({c.label: c, d.label: d, m.label: m, x.label: x})
    x.backward()
    return nodes


def moons_loss(numbered: bool = True) -> Value:
    """micrograd's moons demo loss (MLP(2,[16,16,1]), 100 points, ~65,800 nodes), from benchmarks/bench_engine.py;
    ``numbered``: every parameter gets a unique label (p0, p1, ...) so each slider names one leaf; otherwise the
    parameters keep nn's own labels (w0, b), as a learner's graph has them (the screenshots)."""
    bench_dir = str(REPO / "benchmarks")
    if bench_dir not in sys.path:
        sys.path.insert(0, bench_dir)
    from bench_engine import SEED, loss, make_moons

    X, y = make_moons()
    random.seed(SEED)
    model = MLP(2, [16, 16, 1])
    if numbered:
        for i, p in enumerate(model.parameters()):
            p.label = f"p{i}"
    root = loss(model, Value, X, y)
    root.label = "loss"
    root.backward()
    return root


# The same graph as notebook code (the JupyterLab tests run it in a real kernel).
LECTURE_L_SOURCE = """\
from micrograd_widget import Value
a = Value(2.0, label='a'); b = Value(-3.0, label='b'); c = Value(10.0, label='c')
e = a * b; e.label = 'e'
d = e + c; d.label = 'd'
f = Value(-2.0, label='f')
L = d * f; L.label = 'L'
L.backward()
"""
# Prints the kernel-side numbers of LECTURE_L_SOURCE's nodes as one JSON line after a marker.
KERNEL_STATE_MARKER = "MGW-KERNEL-STATE "
PRINT_LECTURE_L_SOURCE = f"""\
import json
print({KERNEL_STATE_MARKER!r}
      + json.dumps({{v.label: {{'data': v.data, 'grad': v.grad}} for v in (a, b, c, e, d, f, L)}}))
"""


def lecture_mlp() -> Value:
    """The lecture's MLP loss (MLP(3, [4, 4, 1]) on its four examples, seeded), backpropagated."""
    import random

    from micrograd_widget.nn import MLP

    random.seed(1)
    model = MLP(3, [4, 4, 1])
    xs = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
    loss = sum((model(x) - y) ** 2 for x, y in zip(xs, [1.0, -1.0, -1.0, 1.0]))
    loss.backward()
    return loss


def lecture_neuron_spelled_out(w1: float = -3.0) -> Value:
    """The lecture's neuron with its tanh spelled out, ``o = (e - 1) / (e + 1)`` with ``e = exp(2n)``: a picture
    ~3,300 px wide, its output at the far right (examples/02_neuron.ipynb's second graph)."""
    nodes = lecture_neuron(w1)
    e = (2 * nodes["n"]).exp()
    e.label = "e"
    o = (e - 1) / (e + 1)
    o.label = "o"
    o.backward()
    return o


# The lecture's MLP trained 40 steps under watch() in a cell, which prints its last step, loss and each neuron's grad
# norm as JSON after a marker (the kernel-side oracle of the training view's numbers).
TRAIN_CELL = """\
import json, random
from micrograd_widget import MLP, watch
random.seed(7)
model = MLP(3, [4, 4, 1], act='tanh', output_nonlin=True)
xs = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
ys = [1.0, -1.0, -1.0, 1.0]
w = watch(model)
display(w)
for k in range(40):
    loss = sum((model(x) - y) ** 2 for x, y in zip(xs, ys))
    model.zero_grad()
    loss.backward()
    for p in model.parameters():
        p.data -= 0.05 * p.grad
    w.log(loss)
print('MGW-TRAINED ' + json.dumps({'step': k, 'loss': loss.data,
      'grads': {f'layers.{i}.neurons.{j}': sum(p.grad ** 2 for p in n.parameters()) ** 0.5
                for i, layer in enumerate(model.layers) for j, n in enumerate(layer.neurons)}}))
"""
