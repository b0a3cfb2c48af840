"""The training view's picture of a model: which boxes it draws, the model's DOT, and each box's grad norm.

A model becomes ``ModelBoxes``: ``LayerBox`` clusters of ``NeuronBox`` boxes, each box holding the indices of its
parameters in ``model.parameters()``. ``model_dot`` writes the picture as DOT (laid out by Graphviz in the
browser), built on text.py's ``escape`` and ``format_number`` and colors.py's ``grad_color``; ``neuron_norms``
gives the number each box shows, the norm of its parameters' grads (js/training/widget.js computes the same in the
browser).

The SVG hooks js/training/widget.js binds to: clusters ``id="group<g>"``, boxes ``id="u<k>"`` of class ``mgw-neuron``
(in ``ModelBoxes.neurons`` order), inputs ``in<i>`` (or one ``in``) of class ``mgw-input``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

import graphviz

from micrograd_widget.picture.colors import ZERO_COLOR, ColorScale, grad_color, grad_scale
from micrograd_widget.picture.text import MAX_LABEL_CHARS, MAX_TOOLTIP_CHARS, clean_text, escape, format_number

__all__ = ["LayerBox", "NeuronBox", "ModelBoxes", "model_boxes", "model_dot", "neuron_norms"]

MAX_BOXES = 400            # more neurons than this: one box per layer
MAX_INPUT_BOXES = 16       # more inputs than this: one box for all of them
EDGE_BUDGET = 100          # more neuron-to-neuron edges than this: one edge between consecutive layers


@dataclass(frozen=True)
class LayerBox:
    """A cluster of boxes (a layer): ``id`` like ``layers.0``, ``title`` its caption."""

    id: str
    title: str


@dataclass(frozen=True)
class NeuronBox:
    """One box: a neuron's parameters (or, merged, a layer's; for any other Module, a scope's; or the parameters
    no structure names). ``id`` is the ``data-neuron`` hook (``layers.0.neurons.3``), ``layer`` the index of its
    ``LayerBox``, ``params`` indices into ``model.parameters()`` and ``names`` their names (``w0``, ``w1``, ``b``)."""

    id: str
    layer: int
    title: str
    params: tuple[int, ...]
    names: tuple[str, ...]


@dataclass(frozen=True)
class ModelBoxes:
    """What the picture of a model draws: ``layers`` (clusters), ``neurons`` (boxes), ``nin`` (input boxes to draw,
    0 when the wiring is unknown) and ``message`` (what was merged, if anything)."""

    layers: list[LayerBox]
    neurons: list[NeuronBox]
    nin: int
    message: str = ""


def _is_neuron(n: object) -> bool:
    return isinstance(getattr(n, "w", None), (list, tuple)) and getattr(n, "b", None) is not None


def _neurons(layer: object) -> list[Any] | None:
    neurons = getattr(layer, "neurons", None)
    if isinstance(neurons, (list, tuple)) and neurons and all(_is_neuron(n) for n in neurons):
        return list(neurons)
    return None


def _kind(neuron: object) -> str:
    """'ReLU', 'tanh', 'sigmoid' or 'linear': what a neuron applies (ours and micrograd's)."""
    if getattr(neuron, "nonlin", True) is False:
        return "linear"
    return {"relu": "ReLU", "tanh": "tanh", "sigmoid": "sigmoid"}.get(str(getattr(neuron, "act", "relu")), "ReLU")


def _parent(scope: str) -> str:
    """The layer a scope's neuron sits in: ``layers.0.neurons.3`` -> ``layers.0``; ``neurons.3`` -> ''."""
    parts = scope.split(".")
    return ".".join(parts[:-2]) if len(parts) > 2 else ""


def model_boxes(model: object, params: Sequence[Any]) -> ModelBoxes:
    """The boxes of ``model`` (whose ``parameters()`` are ``params``).

    An MLP (``.layers`` of ``.neurons`` with ``.w``/``.b``, ours or PyPI micrograd's) gives one box per neuron,
    one cluster per layer and ``nin`` its inputs; a Layer or a Neuron alike; any other Module one box per
    parameter scope (nn.py's ``layers.0.neurons.3``), clustered by layer, with ``nin = 0`` (no known wiring).
    Parameters the structure does not name go in a last box, ``other``. Beyond ``MAX_BOXES`` boxes,
    one box per layer."""
    boxes = _boxes_by_structure(model, {id(p): k for k, p in enumerate(params)}) or _boxes_by_scope(params)
    layers, neurons = boxes.layers, boxes.neurons
    covered = {k for u in neurons for k in u.params}
    rest = tuple(k for k in range(len(params)) if k not in covered)
    if rest:
        layers.append(LayerBox("other", "other parameters"))
        neurons.append(NeuronBox("other", len(layers) - 1, "other", rest,
                                 tuple(_param_name(params[k], k) for k in rest)))
    message = ""
    if len(neurons) > MAX_BOXES:
        message = f"{len(neurons):,} neurons: one box per layer (at most {MAX_BOXES} boxes are drawn one per neuron)"
        neurons = [NeuronBox(g.id, gi, g.id, tuple(k for u in neurons if u.layer == gi for k in u.params),
                             tuple(f"{u.id}.{name}" for u in neurons if u.layer == gi for name in u.names))
                   for gi, g in enumerate(layers)]
    return ModelBoxes(layers, neurons, boxes.nin, message)


def _boxes_by_structure(model: object, index: dict[int, int]) -> ModelBoxes | None:
    """An MLP, a Layer or a Neuron (ours or micrograd's, by their attributes): one box per neuron, one cluster per
    layer, and the number of inputs; None for any other model, or when a neuron's ``w``/``b`` are not among
    the parameters (``index``: ``id(parameter)`` -> its position)."""
    layers = getattr(model, "layers", None)
    plan: list[tuple[str, str, list[Any]]]
    if isinstance(layers, (list, tuple)) and layers and all(_neurons(layer) for layer in layers):
        plan = [(f"layers.{i}", f"layers.{i}.neurons.", _neurons(layer) or []) for i, layer in enumerate(layers)]
    elif _neurons(model):
        plan = [("layer", "neurons.", _neurons(model) or [])]
    elif _is_neuron(model):
        plan = [("neuron", "", [model])]
    else:
        return None
    clusters: list[LayerBox] = []
    boxes: list[NeuronBox] = []
    for gi, (gid, prefix, neurons) in enumerate(plan):
        kinds = "/".join(sorted({_kind(n) for n in neurons}))
        clusters.append(LayerBox(gid, f"{gid} \u00b7 {len(neurons)} {kinds} neuron{'s' * (len(neurons) > 1)}"))
        for j, n in enumerate(neurons):
            members = [*n.w, n.b]
            if any(id(p) not in index for p in members):
                return None
            boxes.append(NeuronBox(f"{prefix}{j}" if prefix else gid, gi, str(j), tuple(index[id(p)] for p in members),
                                   (*(f"w{k}" for k in range(len(n.w))), "b")))
    return ModelBoxes(clusters, boxes, len(plan[0][2][0].w))


def _param_name(p: object, k: int) -> str:
    label = getattr(p, "label", "")
    return clean_text(label, MAX_LABEL_CHARS) if isinstance(label, str) and label else f"p{k}"


def _boxes_by_scope(params: Sequence[Any]) -> ModelBoxes:
    """Any Module: one box per parameter scope, clustered by the scope's layer; no known wiring (``nin = 0``)."""
    by_scope: dict[str, list[int]] = {}
    for k, p in enumerate(params):
        s = getattr(p, "scope", "")
        by_scope.setdefault(s if isinstance(s, str) else "", []).append(k)
    cluster_of: dict[str, int] = {}
    clusters: list[LayerBox] = []
    boxes: list[NeuronBox] = []
    for s, members in by_scope.items():
        parent = _parent(s)
        if parent not in cluster_of:
            cluster_of[parent] = len(clusters)
            clusters.append(LayerBox(parent or "model", parent or "model"))
        uid = s or "parameters"
        title = s.rsplit(".", 1)[-1] if parent else uid
        boxes.append(NeuronBox(uid, cluster_of[parent], title, tuple(members),
                               tuple(_param_name(params[k], k) for k in members)))
    return ModelBoxes(clusters, boxes, 0)


def neuron_norms(grads: Sequence[float], boxes: Sequence[NeuronBox]) -> list[float]:
    """Per box, the norm of its parameters' grads, ``sqrt(sum(g * g))`` in parameter order (js/training/widget.js
    computes the same, so the browser's numbers equal these)."""
    out = []
    for u in boxes:
        total = 0.0
        for k in u.params:
            g = grads[k]
            total += g * g
        out.append(math.sqrt(total))
    return out


def model_dot(layers: Sequence[LayerBox], boxes: Sequence[NeuronBox], nin: int, norms: Sequence[float],
              precision: int = 4) -> str:
    """The model as DOT: a cluster per layer (``id="group<g>"``), a record box per neuron box (``id="u<k>"``,
    class ``mgw-neuron``, two texts: its title and its norm), input boxes (``in<i>``) and edges when the wiring is
    known (an MLP's: every neuron to every neuron of the next layer, or one edge per pair of consecutive
    layers beyond ``EDGE_BUDGET``). Every user string goes through ``text.escape``; fills are ``colors.grad_color``."""
    nohtml = graphviz.nohtml
    scale = ColorScale(grad_scale(norms), precision)     # a norm shown as 0 is white
    g = graphviz.Digraph(
        name="model",
        graph_attr={"rankdir": "LR", "compound": "true", "bgcolor": "white", "fontname": "Helvetica",
                    "fontsize": "10", "nodesep": "0.06", "ranksep": "0.8", "newrank": "true"},
        node_attr={"style": "filled", "fillcolor": ZERO_COLOR, "fontname": "Helvetica",
                   "fontsize": "10", "shape": "box", "margin": "0.04,0.02", "height": "0.2"},
        edge_attr={"color": "#a0a0a0", "arrowsize": "0.4", "penwidth": "0.6"},
    )
    members: list[list[int]] = [[] for _ in layers]
    for k, u in enumerate(boxes):
        members[u.layer].append(k)
    for gi, layer in enumerate(layers):
        with g.subgraph(name=f"cluster_{gi}") as c:
            c.attr(label=nohtml(escape(clean_text(layer.title, 60), "dot")), id=f"group{gi}",
                   style="rounded", color="#bdbdbd", fontsize="10", labeljust="l")
            for k in members[gi]:
                u = boxes[k]
                label = ('<<TABLE BORDER="0" CELLBORDER="0" CELLSPACING="0" CELLPADDING="1"><TR><TD ALIGN="LEFT">'
                         + escape(clean_text(u.title, 16), "html") + '</TD><TD WIDTH="48" ALIGN="RIGHT">'
                         + format_number(norms[k], precision) + "</TD></TR></TABLE>>")
                tip = f"{u.id}: {len(u.params)} parameters; number and fill: the norm of their grads. Click for each."
                c.node(f"u{k}", label, id=f"u{k}", fillcolor=grad_color(norms[k], scale),
                       tooltip=nohtml(escape(clean_text(tip, MAX_TOOLTIP_CHARS), "dot")),
                       **{"class": "mgw-neuron"})
            # Keep the boxes in order, top to bottom: a same-rank chain of invisible edges (drawn upwards in LR).
            for upper, lower in pairwise(members[gi]):
                c.edge(f"u{lower}", f"u{upper}", style="invis")
            if len(members[gi]) > 1:
                c.attr(rank="same")
    if not nin:
        return str(g.source)
    layer_boxes = [m for m in members if m and boxes[m[0]].id != "other"]
    inputs = [f"in{i}" for i in range(nin)] if nin <= MAX_INPUT_BOXES else ["in"]
    with g.subgraph(name="inputs") as c:
        c.attr(rank="same")
        for name in inputs:
            text = f"x{name[2:]}" if name != "in" else f"{nin} inputs"
            c.node(name, text, id=name, shape="ellipse", fillcolor="#f5f5f5", width="0.4", height="0.25",
                   **{"class": "mgw-input"})
        for upper_input, lower_input in pairwise(inputs):  # outside a cluster, a flat edge runs downwards
            c.edge(upper_input, lower_input, style="invis")
    columns = [inputs] + [[f"u{k}" for k in m] for m in layer_boxes]
    edges = sum(len(left) * len(right) for left, right in pairwise(columns))
    if edges <= EDGE_BUDGET:
        for left, right in pairwise(columns):
            for tail in left:
                for head in right:
                    g.edge(tail, head)
    else:
        clusters: list[str | None] = [None] + [f"cluster_{boxes[m[0]].layer}" for m in layer_boxes]
        for (left, cl), (right, cr) in pairwise(zip(columns, clusters)):
            for tail in (left if cl is None else left[len(left) // 2:len(left) // 2 + 1]):
                g.edge(tail, right[len(right) // 2], lhead=cr, **({"ltail": cl} if cl else {}))
    return str(g.source)
