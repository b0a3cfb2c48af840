"""params.py: which leaves are parameters. Expected sets are the model's own ``parameters()``, or the leaves the
graph was built from by hand (the lecture's a, b, c, f; the neuron's x1, x2, w1, w2, b), never the rule's output."""

from __future__ import annotations

import pytest
from builders import lecture_L, lecture_mlp_and_loss, moons_like_loss, tanh_spelled_out

from micrograd_widget import explore
from micrograd_widget.core.params import leaf_roles
from micrograd_widget.core.spec import from_buffer
from micrograd_widget.core.tape import Tape
from micrograd_widget.engine import Value
from micrograd_widget.nn import MLP, Neuron


def _params(tape: Tape, params: object = None) -> list[Value]:
    """The Values the rule names as parameters, in tape order."""
    return [tape.values[tape.leaves[j]] for j in leaf_roles(tape, params).positions]


def _same(values: list[Value], want: list[Value]) -> bool:
    return sorted(map(id, values)) == sorted(map(id, want)) and len(values) == len(want)


def test_the_lecture_mlp_loss_has_exactly_the_models_parameters() -> None:
    model, loss = lecture_mlp_and_loss()
    tape = Tape.from_value(loss)
    roles = leaf_roles(tape)
    assert roles.rule == "nn"
    assert _same(_params(tape), model.parameters())
    assert len(roles.positions) == 41 and roles.total > 41, "41 parameters, and the data, targets and 0s besides"
    assert roles.text.startswith("Parameters: the weights and biases of nn's neurons (41 of ")


def test_a_labelled_input_beside_a_model_is_not_a_parameter() -> None:
    neuron = Neuron(2)
    x = [Value(0.5, label="x0"), Value(-1.0, label="x1")]
    tape = Tape.from_value(neuron(x) * 0.01)
    assert _same(_params(tape), neuron.parameters())


def test_the_moons_loss_leaves_the_regularisation_factor_and_data_out() -> None:
    tape = Tape.from_value(moons_like_loss(points=5))
    params = {id(v) for v in _params(tape)}
    assert len(params) == 337
    factor = [i for i in tape.leaves if tape.data[i] == 1.0 / 5]
    assert factor and all(id(tape.values[i]) not in params for i in factor), "the 1/5 factor is a constant"
    assert all(id(tape.values[i]) not in params for i in tape.leaves if not tape.labels[i])


def test_the_tanh_spelled_out_neuron_keeps_its_constants_out() -> None:
    nodes = tanh_spelled_out()
    tape = Tape.from_value(nodes["o"])
    roles = leaf_roles(tape)
    assert roles.rule == "labelled"
    assert _same(_params(tape), [nodes[k] for k in ("x1", "x2", "w1", "w2", "b")])
    constants = sorted(tape.data[tape.leaves[j]] for j in range(len(tape.leaves)) if j not in roles.positions)
    assert constants == [1.0, 1.0, 2.0], "the 2 of 2*n and the two 1s are inputs and constants"
    assert roles.text == ("Parameters: the labelled leaves (5 of 8 leaves); the other 3 are inputs and constants.")


def test_a_labelled_expression_has_its_labelled_leaves_as_parameters() -> None:
    nodes = lecture_L()
    tape = Tape.from_value(nodes["L"])
    assert _same(_params(tape), [nodes[k] for k in "abcf"])
    assert leaf_roles(tape).text == "Parameters: the labelled leaves (4 of 4 leaves)."


def test_a_graph_with_no_label_lists_every_leaf_as_a_parameter() -> None:
    a, b = Value(2.0), Value(3.0)
    tape = Tape.from_value(a * b + 1)
    roles = leaf_roles(tape)
    assert roles.rule == "all" and len(roles.positions) == 3


def test_params_overrides_the_rule_a_module_a_list_or_none() -> None:
    model, loss = lecture_mlp_and_loss()
    tape = Tape.from_value(loss)
    first = model.layers[0].neurons[0]
    assert _same(_params(tape, first.parameters()), first.parameters())
    assert _same(_params(tape, model), model.parameters())
    assert _params(tape, []) == []
    assert leaf_roles(tape, first.parameters()).text.startswith("Parameters: the Values given as params= (4 of ")


@pytest.mark.parametrize(("bad", "error", "words"), [
    (Value(1.0), TypeError, "list of Values"),
    ("w0", TypeError, "list of Values"),
    (3, TypeError, "list of Values"),
    ([1.0], TypeError, "must hold Values"),
    ([Value(1.0)], ValueError, "not in this graph"),
])
def test_bad_params_get_a_clear_error(bad: object, error: type[Exception], words: str) -> None:
    tape = Tape.from_value(lecture_L()["L"])
    with pytest.raises(error, match=words):
        leaf_roles(tape, bad)


def test_a_computed_node_given_as_a_param_is_refused() -> None:
    nodes = lecture_L()
    with pytest.raises(ValueError, match=r"computed \(by \*\), not a leaf"):
        explore(nodes["L"], params=[nodes["e"]])


def test_the_widget_carries_the_roles_in_its_state() -> None:
    model = MLP(2, [3, 1])
    loss = (model([1.0, 2.0]) - 1.0) ** 2  # type: ignore[operator]  # one output neuron: a Value
    widget = explore(loss)
    try:
        tape = widget.tape
        roles = widget.leaf_roles
        positions = from_buffer(roles["params"], "i").tolist()
        assert _same([tape.values[tape.leaves[j]] for j in positions], model.parameters())
        assert roles["rule"] == "nn" and roles["text"] == leaf_roles(tape).text
        state = widget.get_state()
        assert state["leaf_roles"]["rule"] == "nn"
        given = explore(loss, params=model.layers[1].parameters())
        assert len(from_buffer(given.leaf_roles["params"], "i")) == 4
        given.close()
    finally:
        widget.close()
