"""model_picture.py, the training view's picture of the model: one box per neuron in a cluster per layer (one per
layer for a huge model), boxes for every other module and for parameters no structure names, each box's number
the norm of its parameters' grads, coloured and written by colors.py and text.py, names escaped for DOT."""

from __future__ import annotations

import math
import random
import re

import pytest
from builders import train_step

from micrograd_widget.engine import Value, scope
from micrograd_widget.nn import MLP, Layer, Module, Neuron, lecture_data
from micrograd_widget.picture import colors, text
from micrograd_widget.training.model_picture import MAX_BOXES, model_boxes, model_dot, neuron_norms
from micrograd_widget.training.widget import watch


def test_neuron_norms_are_the_norms_of_the_parameter_grads(model):
    xs, ys = lecture_data()
    train_step(model, xs, ys)
    w = watch(model)
    norms = neuron_norms([p.grad for p in model.parameters()], w.boxes)
    for u, norm in zip(w.boxes, norms):
        i, j = map(int, re.findall(r"\d+", u.id))
        assert norm == pytest.approx(math.sqrt(sum(p.grad ** 2 for p in model.layers[i].neurons[j].parameters())),
                                     rel=1e-15)


def test_the_dot_has_one_box_per_neuron_in_a_cluster_per_layer(model):
    w = watch(model)
    source = w.dot
    assert len(re.findall(r'class="mgw-neuron"', source)) == 9
    assert len(re.findall(r"subgraph cluster_\d", source)) == 3
    assert all(f"id=in{i}" in source for i in range(3))
    assert source.count("->") - source.count("style=invis") == 3 * 4 + 4 * 4 + 4 * 1


def test_the_box_colours_and_numbers_come_from_colors_and_text(model):
    xs, ys = lecture_data()
    train_step(model, xs, ys)
    w = watch(model, precision=3)
    norms = neuron_norms([p.grad for p in model.parameters()], w.boxes)
    scale = colors.grad_scale(norms)
    for k, norm in enumerate(norms):
        node = re.search(rf"\bu{k} \[label=<(.*?)> .*fillcolor=\"([^\"]+)\"", w.dot)
        assert node, f"no box u{k}"
        assert text.format_number(norm, 3) in node.group(1)
        assert node.group(2) == colors.grad_color(norm, colors.ColorScale(scale, 4))


def test_hostile_names_are_escaped_by_dot_escape():
    hostile = '<b>"x"</b> & {y}|'

    class Odd(Module):
        def __init__(self) -> None:
            with scope(f"{hostile}.neurons.0"):
                self.a = Value(1.0)

        def parameters(self) -> list[Value]:
            return [self.a]

    source = watch(Odd()).dot
    assert hostile not in source
    assert text.escape(hostile, "dot") in source


def test_layer_neuron_and_other_modules_get_boxes():
    random.seed(1)
    layer = Layer(2, 3)
    assert [u.id for u in model_boxes(layer, layer.parameters()).neurons] == ["neurons.0", "neurons.1", "neurons.2"]
    neuron = Neuron(4)
    boxes = model_boxes(neuron, neuron.parameters())
    assert [u.id for u in boxes.neurons] == ["neuron"] and boxes.neurons[0].params == (0, 1, 2, 3, 4)

    class Two(Module):
        def __init__(self) -> None:
            with scope("enc"):
                self.enc = MLP(2, [3])
            self.extra = Value(0.5, label="temperature")

        def parameters(self) -> list[Value]:
            return [*self.enc.parameters(), self.extra]

    two = Two()
    boxes = model_boxes(two, two.parameters())
    assert [u.id for u in boxes.neurons] == ["enc.layers.0.neurons.0", "enc.layers.0.neurons.1",
                                          "enc.layers.0.neurons.2", "parameters"]
    assert boxes.neurons[-1].names == ("temperature",)
    assert boxes.nin == 0


def test_a_huge_model_gets_one_box_per_layer(clock):
    random.seed(0)
    big = MLP(1, [MAX_BOXES, 2])
    w = watch(big, clock=clock)
    assert [u["id"] for u in w.structure["units"]] == ["layers.0", "layers.1"]
    assert "one box per layer" in w.structure["message"]
    assert sum(len(u["params"]) for u in w.structure["units"]) == len(big.parameters())
    model_dot([], [], 0, [])  # an empty picture is still valid DOT


def test_parameters_the_structure_does_not_name_get_their_own_box():
    random.seed(3)

    class Scaled(MLP):
        def __init__(self) -> None:
            super().__init__(2, [2, 1])
            self.scale = Value(1.0, label="scale")

        def parameters(self) -> list[Value]:
            return [*super().parameters(), self.scale]

    model = Scaled()
    boxes = model_boxes(model, model.parameters())
    assert [u.id for u in boxes.neurons][-1] == "other" and boxes.neurons[-1].names == ("scale",)
    assert boxes.neurons[-1].params == (len(model.parameters()) - 1,)
    assert boxes.nin == 2
