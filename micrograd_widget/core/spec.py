"""The tape spec's wire codec: how numbers, user strings and typed arrays travel to the browser and into saved
widget state. ``Tape.spec()`` (tape.py) is built from these; js/core/spec.js reads what they write.

- numbers as JSON: non-finite values as the strings JavaScript's ``Number()`` reads (``encode_number``);
- user strings: made JSON-safe in ONE place (``json_safe``: lone surrogates become U+FFFD);
- per-node strings: a string table (the distinct strings + an Int32 index per node);
- typed arrays: little-endian bytes (``to_buffer`` / ``from_buffer``), sent by ipywidgets as binary buffers;
- ``spec_to_json``: the whole spec as plain JSON (buffers as number lists), for files and the shared vectors.
"""

from __future__ import annotations

import math
import sys
from array import array
from collections.abc import Mapping
from operator import itemgetter
from typing import Any

__all__ = ["SPEC_BUFFERS", "decode_number", "encode_number", "from_buffer", "json_safe", "spec_to_json",
           "string_table", "to_buffer"]

# The spec's binary buffers and their element types (the rest of the spec is JSON as it is).
SPEC_BUFFERS = {"op": "int32", "input_start": "int32", "inputs": "int32", "k": "float64", "leaves": "int32",
                "leaf_data": "float64"}


def encode_number(x: float) -> float | str:
    """A float as JSON can carry it: non-finite values become the strings JavaScript's Number() reads."""
    if math.isfinite(x):
        return x
    return "NaN" if math.isnan(x) else ("Infinity" if x > 0 else "-Infinity")


def decode_number(x: float | int | str) -> float:
    """The inverse of ``encode_number``."""
    return float(x) if not isinstance(x, str) else {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}[x]


def json_safe(text: object) -> str:
    """``text`` as every widget state can carry it (JSON packed as UTF-8): lone surrogates, which UTF-8
    cannot encode, become U+FFFD. THE one place the widget state's user strings are made safe."""
    if not isinstance(text, str):
        text = str(text)
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # Through UTF-16: a surrogate pair written as two code points becomes its character, a lone one U+FFFD.
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
    return text


def _json_safe_all(strings: tuple[str, ...]) -> tuple[str, ...]:
    """``strings`` itself when every one is JSON-safe (checked in one pass), else a copy made safe."""
    try:
        "".join(strings).encode("utf-8")
    except (UnicodeEncodeError, TypeError):
        return tuple(map(json_safe, strings))
    return strings


def string_table(strings: tuple[str, ...]) -> dict[str, Any]:
    """Per-node strings as the spec carries them: ``{"strings": the distinct ones (JSON-safe, in order of first
    use), "index": Int32 buffer, node -> its string's position}``. JSON only for what differs (a graph's labels are
    mostly empty, its symbols a handful), so the widget state has no per-node JSON list for ipywidgets to walk."""
    distinct = dict.fromkeys(strings)  # first-use order, at C speed
    if len(distinct) <= 1:  # e.g. no node labelled: every index is 0
        index = array("i", [0]) * len(strings)
    else:  # one itemgetter call looks every string up in C (faster than a map of __getitem__)
        position = dict(zip(distinct, range(len(distinct))))
        index = array("i", itemgetter(*strings)(position))  # two strings or more: itemgetter gives a tuple
    return {"strings": list(_json_safe_all(tuple(distinct))), "index": to_buffer(index)}


def to_buffer(values: array[int] | array[float]) -> memoryview | bytes:
    """An array as the spec carries it: its little-endian bytes, shared (not copied) on little-endian machines."""
    if sys.byteorder == "little":
        return memoryview(values).cast("B")
    swapped = array(values.typecode, values)
    swapped.byteswap()
    return swapped.tobytes()


def from_buffer(buffer: bytes | memoryview, typecode: str) -> array[Any]:
    """The inverse of the spec's buffers: little-endian bytes as an ``array(typecode)`` ('i' or 'd')."""
    out = array(typecode)
    out.frombytes(bytes(buffer))
    if sys.byteorder != "little":
        out.byteswap()
    return out


def spec_to_json(spec: Mapping[str, Any]) -> dict[str, Any]:
    """A spec (``Tape.spec()``) as plain JSON: each binary buffer as ``{"int32": [...]}`` or ``{"float64": [...]}``
    (non-finite numbers encoded), each string table (symbol, label, scope) as the list of n strings it stands for.
    js/core/spec.js reads the string lists; the JS tests turn the buffers back into bytes (js/core/tapes.fixture.js)."""
    out: dict[str, Any] = {}
    for key, value in spec.items():
        if key in SPEC_BUFFERS:
            kind = SPEC_BUFFERS[key]
            numbers = from_buffer(value, "i" if kind == "int32" else "d").tolist()
            value = {kind: numbers if kind == "int32" else [encode_number(x) for x in numbers]}
        elif isinstance(value, dict) and set(value) == {"strings", "index"}:
            value = [value["strings"][k] for k in from_buffer(value["index"], "i")]
        elif isinstance(value, tuple):
            value = list(value)
        out[key] = value
    return out
