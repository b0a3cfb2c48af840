"""Module, Neuron, Layer, MLP: micrograd's tiny neural-net API on top of Value, and the lecture's network
(``lecture_mlp``, its data ``lecture_data`` and loss ``squared_error``) one call away.

Every node a module creates (its parameters and the nodes of its forward pass) is tagged with the
module's path, e.g. ``layers.0.neurons.3``, so a large graph can be folded one box per module.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from micrograd_widget.core.params import mark_parameters
from micrograd_widget.engine import Value, scope

__all__ = ["Module", "Neuron", "Layer", "MLP", "lecture_mlp", "lecture_data", "squared_error"]

_NONLINEARITIES = ("relu", "tanh", "sigmoid")


class Module:
    """Something with parameters: ``parameters()`` lists them, ``zero_grad()`` resets their grads."""

    def zero_grad(self) -> None:
        """Set every parameter's grad to 0 (before the next backward, which accumulates)."""
        for p in self.parameters():
            p.grad = 0.0

    def parameters(self) -> list[Value]:
        """The trainable Values of this module, in a fixed order (micrograd's)."""
        return []


def _check_inputs(x: Sequence[Value | float], nin: int, who: str) -> None:
    """A clear error when a module gets the wrong number of inputs (zip would silently drop some)."""
    if len(x) != nin:
        raise ValueError(f"{who} expects {nin} inputs, got {len(x)}")


class Neuron(Module):
    """``act(w . x + b)``: micrograd's neuron. ``nonlin=False`` makes it linear; ``act`` picks
    'relu' (micrograd's default), 'tanh' (the lecture's) or 'sigmoid'."""

    def __init__(self, nin: int, nonlin: bool = True, act: str = "relu") -> None:
        if not isinstance(nin, int) or nin < 1:
            raise ValueError(f"Neuron(nin=...) needs a positive number of inputs, got {nin!r}")
        if act not in _NONLINEARITIES:
            raise ValueError(f"Neuron(act=...) must be one of {', '.join(_NONLINEARITIES)}; got {act!r}")
        self.w = [Value(random.uniform(-1, 1), label=f"w{i}") for i in range(nin)]
        self.b = Value(0.0, label="b")
        mark_parameters(self.parameters())  # the leaf list's rule (params.py): these are the graph's parameters
        self.nonlin = nonlin
        self.act = act

    def __call__(self, x: Sequence[Value | float]) -> Value:
        _check_inputs(x, len(self.w), "Neuron")
        # Start the sum from the bias as micrograd does: sum(w*x, b) gives the same graph and grads.
        act = self.b
        for wi, xi in zip(self.w, x):
            act = act + wi * xi
        return getattr(act, self.act)() if self.nonlin else act

    def parameters(self) -> list[Value]:
        return [*self.w, self.b]

    def __repr__(self) -> str:
        kind = {"relu": "ReLU", "tanh": "Tanh", "sigmoid": "Sigmoid"}[self.act] if self.nonlin else "Linear"
        return f"{kind}Neuron({len(self.w)})"


class Layer(Module):
    """``nout`` neurons that each see the same ``nin`` inputs."""

    def __init__(self, nin: int, nout: int, nonlin: bool = True, act: str = "relu") -> None:
        """``nonlin`` and ``act`` are each neuron's (see ``Neuron``)."""
        if not isinstance(nout, int) or nout < 1:
            raise ValueError(f"Layer(nout=...) needs a positive number of neurons, got {nout!r}")
        self.neurons: list[Neuron] = []
        for j in range(nout):
            with scope(f"neurons.{j}"):
                self.neurons.append(Neuron(nin, nonlin=nonlin, act=act))

    def __call__(self, x: Sequence[Value | float]) -> Value | list[Value]:
        out: list[Value] = []
        for j, n in enumerate(self.neurons):
            with scope(f"neurons.{j}"):
                out.append(n(x))
        return out[0] if len(out) == 1 else out

    def parameters(self) -> list[Value]:
        return [p for n in self.neurons for p in n.parameters()]

    def __repr__(self) -> str:
        return f"Layer of [{', '.join(str(n) for n in self.neurons)}]"


class MLP(Module):
    """A multi-layer perceptron: non-linear hidden layers, a linear output layer (micrograd's).

    ``MLP(3, [4, 4, 1])`` is micrograd's ReLU network; the lecture's is ``lecture_mlp()``, that is
    ``MLP(3, [4, 4, 1], act='tanh', output_nonlin=True)``."""

    def __init__(self, nin: int, nouts: Sequence[int], act: str = "relu", output_nonlin: bool = False) -> None:
        """``act`` is the hidden layers' non-linearity; ``output_nonlin=True`` applies it to the output
        layer too (the lecture's ``MLP`` with ``act='tanh'``)."""
        if isinstance(nouts, int):
            raise TypeError(f"MLP(nouts=...) takes a list of layer sizes such as [16, 16, 1], got {nouts!r}")
        if not nouts:
            raise ValueError("MLP(nouts=...) needs at least one layer size, such as [16, 16, 1]; got none")
        sizes = [nin, *nouts]
        self.layers: list[Layer] = []
        for i in range(len(nouts)):
            with scope(f"layers.{i}"):
                last = i == len(nouts) - 1
                self.layers.append(Layer(sizes[i], sizes[i + 1], nonlin=output_nonlin or not last, act=act))

    def __call__(self, x: Sequence[Value | float] | Value | float) -> Value | list[Value]:
        """The output layer's Value (one neuron) or Values; ``x`` may be a bare Value or number when ``nin`` is 1."""
        inputs: Sequence[Value | float] = x if isinstance(x, Sequence) else [x]
        out: Value | list[Value] = []
        for i, layer in enumerate(self.layers):
            with scope(f"layers.{i}"):
                out = layer(inputs)
            inputs = out if isinstance(out, list) else [out]
        return out

    def parameters(self) -> list[Value]:
        return [p for layer in self.layers for p in layer.parameters()]

    def __repr__(self) -> str:
        return f"MLP of [{', '.join(str(layer) for layer in self.layers)}]"


@contextmanager
def _seeded(seed: int | None) -> Iterator[None]:
    """Draw under ``random.seed(seed)`` (nothing when None), leaving the global random state as it was."""
    if seed is None:
        yield
        return
    state = random.getstate()
    random.seed(seed)
    try:
        yield
    finally:
        random.setstate(state)


def lecture_mlp(seed: int | None = None) -> MLP:
    """The lecture's network: ``MLP(3, [4, 4, 1], act='tanh', output_nonlin=True)``, tanh in every neuron, the
    output's too. (``MLP(3, [4, 4, 1])`` alone is micrograd's: ReLU and a linear output, which the lecture's
    loop trains badly.) ``seed`` draws the weights as after ``random.seed(seed)``, the global state kept."""
    with _seeded(seed):
        return MLP(3, [4, 4, 1], act="tanh", output_nonlin=True)


def lecture_data() -> tuple[list[list[float]], list[float]]:
    """The lecture's four examples ``xs`` (three inputs each) and their targets ``ys``: new lists on each call."""
    xs = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
    ys = [1.0, -1.0, -1.0, 1.0]
    return xs, ys


def squared_error(model: Callable[[Sequence[Value | float]], Value | list[Value]],
                  xs: Sequence[Sequence[Value | float]], ys: Sequence[Value | float]) -> Value:
    """The lecture's loss, ``sum((model(x) - y) ** 2 for x, y in zip(xs, ys))``, the same graph as the lecture's
    line builds (not yet backpropagated); ``model`` has one output."""
    if len(xs) != len(ys) or not xs:
        raise ValueError(f"squared_error needs one target per example and at least one example; got {len(xs)} "
                         f"examples and {len(ys)} targets")

    def error(x: Sequence[Value | float], y: Value | float) -> Value:
        out = model(x)
        if not isinstance(out, Value):
            raise ValueError(f"squared_error needs a model with one output; this one gives {len(out)}")
        return (out - y) ** 2

    total = sum(error(x, y) for x, y in zip(xs, ys))
    assert isinstance(total, Value)  # at least one example, so a Value, not sum's start 0
    return total
