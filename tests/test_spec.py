"""spec.py, the tape spec's wire codec: numbers as JSON (non-finite as strings), user strings made JSON-safe,
per-node string tables, typed arrays as shared little-endian buffers, and the whole spec as plain JSON."""

from __future__ import annotations

import json
import math

import pytest

from micrograd_widget.core.spec import decode_number, encode_number, from_buffer, json_safe
from micrograd_widget.core.tape import SPEC_VERSION, Tape
from micrograd_widget.engine import Value


def test_spec_buffers_share_the_tapes_arrays_and_travel_as_ipywidgets_binary_buffers() -> None:
    from ipywidgets.widgets.widget import _remove_buffers

    x = Value(1.5, label="x")
    tape = Tape.from_value((x * x).tanh())
    spec = tape.spec()
    assert spec["op"].obj is tape.rows and spec["inputs"].obj is tape.flat and spec["k"].obj is tape.k
    state, paths, buffers = _remove_buffers({"spec": spec})
    assert sorted("/".join(p[1:]) for p in paths) == ["input_start", "inputs", "k", "label/index", "leaf_data",
                                                      "leaves", "op", "scope/index", "symbol/index"]
    text = json.dumps(state, allow_nan=False, ensure_ascii=False)  # the rest is plain JSON (NaN k's are in buffers)
    assert json.loads(text)["spec"]["label"] == {"strings": ["x", ""]}
    assert all(isinstance(b, memoryview) for b in buffers)
    assert list(from_buffer(spec["label"]["index"], "i")) == [0, 1, 1]


def test_json_safe_replaces_lone_surrogates_and_keeps_everything_else() -> None:
    for text in ("", "a", "naïve Σ x_i 🙂", "tab\there", "\u202eRTL"):
        assert json_safe(text) is text
    assert json_safe("a\ud800b") == "a\ufffdb" and json_safe("\udfff") == "\ufffd"
    assert json_safe("\ud83d\ude42") == "🙂"  # a pair written as two code points is its character
    assert json_safe(7) == "7"
    for text in ("\ud800", "x\udc80y", "ok\ud83d"):
        json.dumps(json_safe(text), ensure_ascii=False).encode("utf-8")  # what a kernel's JSON packing does


def test_every_user_string_in_the_spec_is_json_safe() -> None:
    a = Value(1.0, label="bad\ud800label")
    b = Value(2.0, label="fine")
    with __import__("micrograd_widget.engine", fromlist=["scope"]).scope("sc\udcffope"):
        c = a * b
    tape = Tape.from_value(c)
    spec = tape.spec()
    assert spec["label"]["strings"][:2] == ["bad\ufffdlabel", "fine"]
    assert spec["scope"]["strings"] == ["", "sc\ufffdope"]
    assert tape.labels[0] == "bad\ud800label", "the tape keeps the Values' own strings"
    json.dumps([spec[k]["strings"] for k in ("symbol", "label", "scope")], ensure_ascii=False).encode("utf-8")
    assert Tape.from_value(b * b).spec()["label"]["strings"] == ["fine", ""]


@pytest.mark.parametrize("x,encoded", [(1.5, 1.5), (-0.0, -0.0), (math.inf, "Infinity"), (-math.inf, "-Infinity")])
def test_number_encoding_round_trips(x: float, encoded) -> None:
    assert encode_number(x) == encoded and decode_number(encoded) == x
    assert encode_number(math.nan) == "NaN" and math.isnan(decode_number("NaN"))


def test_to_json_is_the_spec_as_plain_json_numbers_worked_by_hand() -> None:
    """Tape.to_json() (the README's API): the lecture's first product e = a * b as plain JSON, every field written
    out here by hand, buffers as number lists and string tables as lists."""
    a, b = Value(2.0, label="a"), Value(-3.0, label="b")
    e = a * b
    e.label = "e"
    doc = Tape.from_value(e).to_json()
    assert json.loads(json.dumps(doc, allow_nan=False)) == doc
    assert doc["version"] == SPEC_VERSION and doc["n"] == 3 and doc["root"] == 2
    assert [row["name"] for row in doc["ops"]] == ["mul"]
    assert doc["op"] == {"int32": [-1, -1, 0]}
    assert doc["input_start"] == {"int32": [0, 0, 0, 2]} and doc["inputs"] == {"int32": [0, 1]}
    assert doc["leaves"] == {"int32": [0, 1]} and doc["leaf_data"] == {"float64": [2.0, -3.0]}
    assert doc["k"] == {"float64": ["NaN", "NaN", "NaN"]}
    assert doc["label"] == ["a", "b", "e"] and doc["symbol"] == ["", "", "*"] and doc["scope"] == ["", "", ""]
