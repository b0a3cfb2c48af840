"""Module, Neuron, Layer, MLP: micrograd's tiny neural-net API on top of Value.

Every node a module creates (its parameters and the nodes of its forward pass) is tagged with the
module's path, e.g. ``layers.0.neurons.3``, so a large graph can be folded one box per module.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from .engine import Value, scope
from .params import mark_parameters

__all__ = ["Module", "Neuron", "Layer", "MLP"]

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
    """A multi-layer perceptron: non-linear hidden layers, a linear output layer (micrograd's)."""

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
