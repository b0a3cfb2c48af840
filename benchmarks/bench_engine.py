"""The training step of micrograd's moons demo, micrograd_widget against PyPI micrograd==0.1.0.

One step = zero_grad, forward over a batch of 100 points (MLP(2,[16,16,1]), SVM max-margin loss
averaged + 1e-4 * L2), backward, SGD update: about 65,800 nodes; backward() alone is timed too. Both
engines start from the same weights (same seed) and must agree on the loss. Also printed: memory per
node (tracemalloc) and the cost of replaying the frozen tape (Tape.forward with new leaf values +
Tape.backward, and Tape.replay, which runs both on one list of the data) against rebuilding the graph,
and of freezing it and making its spec.
GC stays on, as users run it.
"""

from __future__ import annotations

import math
import random

from common import ms, summary, time_runs, traced_bytes

from micrograd_widget.core.tape import Tape
from micrograd_widget.engine import Value, topological_order
from micrograd_widget.nn import MLP

SEED = 1337
N_POINTS = 100
REPEATS = 9
ROUNDS = 3


def make_moons(n: int = N_POINTS, noise: float = 0.1, seed: int = SEED) -> tuple[list[list[float]], list[float]]:
    """Two interleaving half circles with Gaussian noise (as sklearn's make_moons), labels -1/+1."""
    rng = random.Random(seed)
    n_out = n // 2
    n_in = n - n_out
    X: list[list[float]] = []
    y: list[float] = []
    for i in range(n_out):
        t = math.pi * i / max(n_out - 1, 1)
        X.append([math.cos(t) + rng.gauss(0, noise), math.sin(t) + rng.gauss(0, noise)])
        y.append(-1.0)
    for i in range(n_in):
        t = math.pi * i / max(n_in - 1, 1)
        X.append([1 - math.cos(t) + rng.gauss(0, noise), 1 - math.sin(t) - 0.5 + rng.gauss(0, noise)])
        y.append(1.0)
    order = list(range(n))
    rng.shuffle(order)
    return [X[i] for i in order], [y[i] for i in order]


def loss(model, value_cls, X: list[list[float]], y: list[float]):
    """micrograd's demo loss: mean SVM max-margin loss + 1e-4 * sum of squared parameters."""
    inputs = [[value_cls(v) for v in row] for row in X]
    scores = [model(x) for x in inputs]
    losses = [(1 + -yi * si).relu() for yi, si in zip(y, scores)]
    data_loss = sum(losses) * (1.0 / len(losses))
    reg_loss = 1e-4 * sum(p * p for p in model.parameters())
    return data_loss + reg_loss


def step(model, value_cls, X, y, lr: float = 0.01):
    """One training step: zero_grad, forward, backward, SGD update. Returns the loss node."""
    model.zero_grad()
    total = loss(model, value_cls, X, y)
    total.backward()
    for p in model.parameters():
        p.data -= lr * p.grad
    return total


def count_nodes_micrograd(root) -> int:
    """Nodes of a micrograd graph, iteratively (its _prev is a set)."""
    seen = {id(root)}
    stack = [root]
    while stack:
        for c in stack.pop()._prev:
            if id(c) not in seen:
                seen.add(id(c))
                stack.append(c)
    return len(seen)


def main() -> None:
    import micrograd.engine
    import micrograd.nn

    X, y = make_moons()
    random.seed(SEED)
    ours = MLP(2, [16, 16, 1])
    random.seed(SEED)
    theirs = micrograd.nn.MLP(2, [16, 16, 1])
    a = loss(ours, Value, X, y).data
    b = loss(theirs, micrograd.engine.Value, X, y).data
    if abs(a - b) > 1e-9 * max(1.0, abs(b)):
        raise SystemExit(f"the two engines disagree on the loss: {a!r} vs {b!r}")

    graph, our_bytes = traced_bytes(lambda: loss(ours, Value, X, y))
    n_ours = len(topological_order(graph))
    del graph
    graph, their_bytes = traced_bytes(lambda: loss(theirs, micrograd.engine.Value, X, y))
    n_theirs = count_nodes_micrograd(graph)
    del graph

    # Alternate short blocks of each engine so machine noise hits both alike; a full collection
    # before each block keeps one engine's garbage from being charged to the other.
    t_ours: list[float] = []
    t_theirs: list[float] = []
    for _ in range(ROUNDS):
        t_theirs += time_runs(lambda: step(theirs, micrograd.engine.Value, X, y), REPEATS // ROUNDS)
        t_ours += time_runs(lambda: step(ours, Value, X, y), REPEATS // ROUNDS)
    (mo, lo), (mt, lt) = summary(t_ours), summary(t_theirs)

    # backward() alone on a built graph (its grads already there, so both engines add to them).
    ours_root, their_root = loss(ours, Value, X, y), loss(theirs, micrograd.engine.Value, X, y)
    b_ours: list[float] = []
    b_theirs: list[float] = []
    for _ in range(ROUNDS):
        b_theirs += time_runs(their_root.backward, REPEATS // ROUNDS)
        b_ours += time_runs(ours_root.backward, REPEATS // ROUNDS)
    (mbo, lbo), (mbt, lbt) = summary(b_ours), summary(b_theirs)
    del ours_root, their_root

    # Tape replay: freeze once, then replay forward+backward for new leaf values.
    root = loss(ours, Value, X, y)
    tape = Tape.from_value(root)
    rng = random.Random(SEED + 1)
    new_leaves = [tape.data[i] + rng.uniform(-0.01, 0.01) for i in tape.leaves]

    def replay() -> None:
        tape.forward(new_leaves)
        tape.backward()

    def replay_once() -> None:  # what a widget runs per settle, but for writing into the Values
        tape.replay(new_leaves)

    def replay_written() -> None:  # what a widget runs per settle: into the Values too, all or nothing
        tape.replay(new_leaves, write_back=True)

    def rebuild() -> None:
        loss(ours, Value, X, y).backward()

    t_replay: list[float] = []
    t_once: list[float] = []
    t_written: list[float] = []
    t_rebuild: list[float] = []
    for _ in range(ROUNDS):
        t_rebuild += time_runs(rebuild, REPEATS // ROUNDS)
        t_replay += time_runs(replay, REPEATS // ROUNDS)
        t_once += time_runs(replay_once, REPEATS // ROUNDS)
        t_written += time_runs(replay_written, REPEATS // ROUNDS)
    (mr, lr_), (m1, l1), (mb, lb) = summary(t_replay), summary(t_once), summary(t_rebuild)
    mw, lw = summary(t_written)
    t_freeze = summary(time_runs(lambda: Tape.from_value(root), 5, warmup=0))[0]
    t_spec = summary(time_runs(tape.spec, 5))[0]

    print(f"moons training step, batch {N_POINTS}, MLP(2,[16,16,1]); {n_ours:,} nodes (micrograd: {n_theirs:,})")
    print(f"  micrograd==0.1.0   median {ms(mt)}   min {ms(lt)}")
    print(f"  micrograd_widget   median {ms(mo)}   min {ms(lo)}")
    print(f"  step speed-up      median {mt / mo:5.2f}x    min {lt / lo:5.2f}x   (target >= 5x)")
    print("backward() alone on the built graph")
    print(f"  micrograd==0.1.0   median {ms(mbt)}   min {ms(lbt)}")
    print(f"  micrograd_widget   median {ms(mbo)}   min {ms(lbo)}   ({mbt / mbo:.2f}x faster; min {lbt / lbo:.2f}x)")
    print("memory per node (tracemalloc, forward graph)")
    print(f"  micrograd==0.1.0   {their_bytes / n_theirs:6.0f} B")
    ratio = our_bytes / n_ours / (their_bytes / n_theirs)
    print(f"  micrograd_widget   {our_bytes / n_ours:6.0f} B   ratio {ratio:.2f} (target <= 0.33)")
    print("frozen tape replay (forward with new leaf values + backward) vs rebuilding the graph + backward")
    print(f"  rebuild            median {ms(mb)}   min {ms(lb)}")
    print(f"  tape replay        median {ms(mr)}   min {ms(lr_)}   ({mb / mr:.2f}x faster than rebuilding)")
    print(f"  Tape.replay()      median {ms(m1)}   min {ms(l1)}   ({mb / m1:.2f}x; both passes on one list)")
    print(f"  + write_back=True  median {ms(mw)}   min {ms(lw)}   ({mw / m1:.2f}x Tape.replay(); into the Values, "
          "all or nothing)")
    print(f"  freezing the tape  median {ms(t_freeze)} (once per graph; {t_freeze / mb:.2f}x the rebuild)")
    print(f"  tape.spec()        median {ms(t_spec)} (once per widget)")


if __name__ == "__main__":
    main()
