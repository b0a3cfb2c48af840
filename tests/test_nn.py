"""nn: micrograd's Module/Neuron/Layer/MLP behaviour, the lecture's tanh option and its network one call away
(lecture_mlp, lecture_data, squared_error, against PyTorch), scopes, zero_grad."""

from __future__ import annotations

import random

import pytest

from micrograd_widget.engine import Value, topological_order
from micrograd_widget.nn import MLP, Layer, Module, Neuron, lecture_data, lecture_mlp, squared_error


def test_moons_mlp_has_337_parameters_relu_hidden_and_linear_output() -> None:
    model = MLP(2, [16, 16, 1])
    assert len(model.parameters()) == 337
    assert all(isinstance(p, Value) for p in model.parameters())
    assert [n.nonlin for layer in model.layers for n in layer.neurons] == [True] * 32 + [False]
    out = model([0.5, -1.0])
    assert isinstance(out, Value) and out._op == "+"
    hidden = model.layers[0]([0.5, -1.0])
    assert len(hidden) == 16 and {h._op for h in hidden} == {"ReLU"}
    assert all(h.data >= 0 for h in hidden)


def test_same_weights_values_grads_and_repr_as_micrograd_for_the_same_seed(micrograd) -> None:
    random.seed(42)
    ours = MLP(3, [4, 4, 1])
    random.seed(42)
    theirs = micrograd.nn.MLP(3, [4, 4, 1])
    assert [p.data for p in ours.parameters()] == [p.data for p in theirs.parameters()]
    assert repr(ours) == repr(theirs)
    x = [1.0, -2.0, 0.5]
    a = ours(x)
    b = theirs(x)
    assert a.data == pytest.approx(b.data, rel=1e-12)
    (a * a).backward()
    (b * b).backward()
    assert [p.grad for p in ours.parameters()] == pytest.approx([p.grad for p in theirs.parameters()], rel=1e-12)


def test_tanh_neurons_as_in_the_lecture() -> None:
    n = Neuron(2, act="tanh")
    assert n([2.0, 0.0])._op == "tanh" and repr(n) == "TanhNeuron(2)"
    model = MLP(3, [4, 4, 1], act="tanh", output_nonlin=True)
    out = model([2.0, 3.0, -1.0])
    assert out._op == "tanh" and -1 < out.data < 1
    assert {v._op for v in topological_order(out)} >= {"tanh", "*", "+"} \
        and "ReLU" not in {v._op for v in topological_order(out)}
    assert Neuron(2, act="sigmoid")([1.0, 1.0])._op == "sigmoid"
    assert Neuron(2, nonlin=False)([1.0, 1.0])._op == "+" and repr(Neuron(2, nonlin=False)) == "LinearNeuron(2)"


def test_the_lecture_training_loop_lowers_the_loss() -> None:
    random.seed(1)
    model = MLP(3, [4, 4, 1], act="tanh", output_nonlin=True)
    xs = [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
    ys = [1.0, -1.0, -1.0, 1.0]
    losses = []
    for _ in range(20):
        ypred = [model(x) for x in xs]
        loss = sum((yout - ygt) ** 2 for ygt, yout in zip(ys, ypred))
        model.zero_grad()
        loss.backward()
        for p in model.parameters():
            p.data += -0.05 * p.grad
        losses.append(loss.data)
    assert losses[-1] < 0.5 * losses[0]


def test_lecture_mlp_is_the_lectures_tanh_network_seeded_without_touching_the_global_state() -> None:
    random.seed(5)
    state = random.getstate()
    model = lecture_mlp(seed=1337)
    assert random.getstate() == state, "lecture_mlp(seed=...) changed the caller's random state"
    random.seed(1337)
    spelled_out = MLP(3, [4, 4, 1], act="tanh", output_nonlin=True)
    assert [p.data for p in model.parameters()] == [p.data for p in spelled_out.parameters()]
    assert len(model.parameters()) == 41 and repr(model) == repr(spelled_out)
    assert [n.act for layer in model.layers for n in layer.neurons] == ["tanh"] * 9
    assert all(n.nonlin for layer in model.layers for n in layer.neurons), "the lecture's output neuron is tanh too"
    assert lecture_mlp(seed=1337).parameters()[0].data == model.parameters()[0].data
    assert lecture_mlp(seed=1).parameters()[0].data != model.parameters()[0].data


def test_lecture_data_is_the_lectures_four_examples_fresh_on_each_call() -> None:
    xs, ys = lecture_data()
    assert xs == [[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]]
    assert ys == [1.0, -1.0, -1.0, 1.0]
    xs[0][0], ys[0] = 99.0, 99.0
    assert lecture_data() == ([[2.0, 3.0, -1.0], [3.0, -1.0, 0.5], [0.5, 1.0, 1.0], [1.0, 1.0, -1.0]],
                              [1.0, -1.0, -1.0, 1.0]), "a caller's edit leaked into the next call"


def test_the_lecture_network_loss_and_grads_match_torch(torch) -> None:
    model = lecture_mlp(seed=1337)
    xs, ys = lecture_data()
    loss = squared_error(model, xs, ys)
    loss.backward()
    layers = [(torch.tensor([[w.data for w in n.w] for n in layer.neurons], dtype=torch.float64, requires_grad=True),
               torch.tensor([n.b.data for n in layer.neurons], dtype=torch.float64, requires_grad=True))
              for layer in model.layers]
    h = torch.tensor(xs, dtype=torch.float64)
    for w, b in layers:
        h = torch.tanh(h @ w.T + b)   # every layer tanh, the output's too
    ref = ((h[:, 0] - torch.tensor(ys, dtype=torch.float64)) ** 2).sum()
    ref.backward()
    assert loss.data == pytest.approx(ref.item(), rel=1e-12)
    ref_grads = [g for w, b in layers for row_w, row_b in zip(w.grad, b.grad) for g in [*row_w.tolist(), row_b.item()]]
    assert [p.grad for p in model.parameters()] == pytest.approx(ref_grads, rel=1e-10, abs=1e-14)


def test_squared_error_by_hand_and_its_bad_inputs() -> None:
    def total(x):
        return Value(sum(x))

    assert squared_error(total, [[1.0, 2.0], [3.0]], [0.0, 1.0]).data == 13.0   # (3 - 0)**2 + (3 - 1)**2
    with pytest.raises(ValueError, match="one target per example"):
        squared_error(total, [[1.0]], [1.0, 2.0])
    with pytest.raises(ValueError, match="at least one example"):
        squared_error(total, [], [])
    with pytest.raises(ValueError, match="one output; this one gives 2"):
        squared_error(MLP(1, [2]), [[1.0]], [1.0])


def test_nodes_made_inside_modules_carry_their_scope() -> None:
    model = MLP(2, [4, 1])
    assert model.layers[0].neurons[3].w[0].scope == "layers.0.neurons.3"
    assert model.layers[1].neurons[0].b.scope == "layers.1.neurons.0"
    x = [Value(0.5, label="x0"), Value(-1.0, label="x1")]
    out = model(x)
    loss = (out - 1.0) ** 2
    scopes = {v.scope for v in topological_order(loss)}
    assert {"", "layers.0.neurons.0", "layers.0.neurons.3", "layers.1.neurons.0"} <= scopes
    assert x[0].scope == "" and loss.scope == "" and out.scope == "layers.1.neurons.0"


def test_zero_grad_resets_every_parameter() -> None:
    model = MLP(2, [3, 1])
    model([1.0, 2.0]).backward()
    assert any(p.grad != 0.0 for p in model.parameters())
    model.zero_grad()
    assert all(p.grad == 0.0 for p in model.parameters())
    assert Module().parameters() == [] and Module().zero_grad() is None


def test_a_layer_of_one_neuron_returns_a_value_and_many_return_a_list() -> None:
    assert isinstance(Layer(2, 1)([1.0, 2.0]), Value)
    assert len(Layer(2, 3)([1.0, 2.0])) == 3
    assert len(Layer(2, 3).parameters()) == 9


@pytest.mark.parametrize(
    "make,kind,words",
    [
        (lambda: Neuron(0), ValueError, ["nin", "0"]),
        (lambda: Neuron(2, act="gelu"), ValueError, ["relu", "tanh", "'gelu'"]),
        (lambda: Layer(2, 0), ValueError, ["nout"]),
        (lambda: MLP(2, 16), TypeError, ["[16, 16, 1]"]),
        (lambda: Neuron(3)([1.0, 2.0]), ValueError, ["expects 3 inputs, got 2"]),
        (lambda: MLP(2, [3, 1])([1.0]), ValueError, ["expects 2 inputs, got 1"]),
    ],
)
def test_bad_arguments_say_what_was_wrong(make, kind: type, words: list[str]) -> None:
    with pytest.raises(kind) as err:
        make()
    for word in words:
        assert word in str(err.value)
