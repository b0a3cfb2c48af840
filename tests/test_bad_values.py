"""Bad values a user can put into a graph, each refused in words that say what was wrong and where: a custom op
returning a string, an exponent too large for a float, a label that is not a str, a node's data that is not a
number; and a widget whose user op fails at construction shows the failure instead of raising.

Across modules on purpose (engine, ops, tape, widget, export): one suite of the messages a user reads,
so their wording is reviewed side by side."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from micrograd_widget.core.ops import define_op
from micrograd_widget.core.tape import Tape
from micrograd_widget.engine import Value
from micrograd_widget.graph.widget import explore
from micrograd_widget.host.export import save_html


@pytest.mark.parametrize("returned", ["str", "2.5", b"2.5", [2.5], None])
def test_a_custom_forward_returning_a_non_number_names_the_op_and_what_it_returned(returned: object) -> None:
    op = define_op("shout", lambda a: returned, lambda a, out: 1.0)
    with pytest.raises(TypeError) as err:
        Value.apply(op, Value(1.0))
    message = str(err.value)
    assert "'shout'" in message and "forward" in message and type(returned).__name__ in message
    assert repr(returned)[:10] in message and "could not convert" not in message


def test_a_custom_local_grad_returning_a_string_names_the_op() -> None:
    op = define_op("twice", lambda a: 2 * a, lambda a, out: "2")
    y = Value.apply(op, Value(1.0))
    with pytest.raises(TypeError, match=r"op 'twice': local_grad must return a real number .*str: '2'"):
        y.backward()


def test_numbers_of_any_real_type_are_still_taken() -> None:
    from fractions import Fraction
    op = define_op("third", lambda a: Fraction(1, 3) + int(a), lambda a, out: (True,))
    x = Value(1.0)
    y = Value.apply(op, x)
    y.backward()
    assert y.data == 1 + 1 / 3 and x.grad == 1.0


def test_explore_of_a_graph_whose_op_fails_on_replay_shows_the_failure_and_works() -> None:
    """README: a failure in your own code is shown in the view in words; here the custom op works once (building
    the graph) and returns a string when the widget replays it."""
    calls = []

    def flaky(a: float) -> object:
        calls.append(a)
        return 2 * a if len(calls) == 1 else "str"

    op = define_op("flaky", flaky, lambda a, out: 2.0)
    x = Value(1.5, label="x")
    y = Value.apply(op, x) * 3
    y.backward()
    w = explore(y)
    assert w.error.startswith("TypeError: op 'flaky': forward must return a real number") and "'str'" in w.error
    assert (x.data, x.grad, y.data, y.grad) == (1.5, 6.0, 9.0, 1.0)  # the Values are as they were
    calls.clear()  # the op works again: the widget is usable
    w.set_leaf(x, 2.0)
    assert y.data == 12.0 and w.error == ""
    w.close()


@pytest.mark.parametrize("k,digits", [(10 ** 5000, 5001), (10 ** 400, 401), (-(10 ** 400), 401)],
                         ids=["10**5000", "10**400", "-10**400"])
@pytest.mark.parametrize("base", [2.0, 0.5, -2.0, 1.0])
def test_an_exponent_too_large_for_a_float_says_so_briefly(base: float, k: int, digits: int) -> None:
    with pytest.raises(OverflowError) as err:
        Value(base) ** k
    message = str(err.value)
    assert len(message) < 200, message
    assert f"about {digits} digits" in message and "too large" in message and "1.8e308" in message


def test_a_large_exponent_that_fits_a_float_overflows_in_short_words() -> None:
    with pytest.raises(OverflowError) as err:
        Value(2.0) ** (10 ** 300)
    assert str(err.value) == "'**1e+300': 2.0 ** 1e+300 overflows a float"
    assert (Value(1.0) ** (10 ** 300)).data == 1.0


@pytest.mark.parametrize("label", [["a"], {"a": 1}, 3, None])
def test_a_label_that_is_not_a_str_is_shown_as_its_str(label: object, tmp_path: Path) -> None:
    # micrograd's lecture formats labels with "%s": any object names its node by its str(), at construction and
    # when assigned later (an assigned list used to break explore and save_html with "unhashable type").
    v = Value(1.0, label=label)  # type: ignore[arg-type]
    assert v.label == str(label) and type(v.label) is str
    w = Value(2.0, label="w")
    w.label = label  # type: ignore[assignment]
    assert w.label == str(label) and type(w.label) is str
    root = v * w
    assert list(explore(root).tape.labels[:2]) == [str(label), str(label)]
    assert str(label) in save_html(root, tmp_path / "page.html").read_text(encoding="utf-8")


def test_a_str_label_of_any_kind_is_kept_as_its_text() -> None:
    class Name(str):
        pass

    v = Value(1.0, label=Name("w1"))
    assert v.label == "w1" and type(v.label) is str
    v.label = "w2"
    assert v.label == "w2" and Tape.from_value(v * 2).labels[0] == "w2"


@pytest.mark.parametrize("what", ["data", "grad"])
def test_a_node_whose_number_is_not_a_number_is_named_when_the_graph_is_frozen(what: str, tmp_path: Path) -> None:
    a, b = Value(1.0, label="a"), Value(2.0)
    c = a + b
    L = c * 3
    L.label = "L"
    setattr(c, what, "x")
    for freeze in (Tape.from_value, explore, lambda root: save_html(root, tmp_path / "page.html")):
        with pytest.raises(TypeError) as err:
            freeze(L)
        assert str(err.value) == (f"node 2 ('+') has .{what} = 'x', a str: a Value's {what} must be a real "
                                  "number; set it to a float")
    c.label = "c"
    with pytest.raises(TypeError, match=rf"node 2 \('c'\) has .{what} = 'x'"):
        Tape.from_value(L)
    setattr(c, what, math.nan)  # NaN is a number: frozen and shown
    assert math.isnan(getattr(Tape.from_value(L), what)[2])
