"""User strings and numbers as a picture shows them: ``clean_text``, THE one escaping function ``escape``,
``format_number`` and ``plural`` (a count and its noun). Everything drawn (dot.py's DOT, display.py's tables,
model_picture.py, the exported page) goes through them, so a picture and a table agree; js/picture/text.js (cleanText),
js/picture/dot.js (escape) and js/picture/format.js (formatNumber, plural) are the same code in the browser.
``short`` cuts what an error message quotes.
"""

from __future__ import annotations

import html
import math
import re
import reprlib
from typing import Literal

__all__ = ["clean_text", "escape", "format_number", "plural", "short", "PLURALS", "MAX_LABEL_CHARS",
           "MAX_TOOLTIP_CHARS", "MAX_SYMBOL_CHARS"]

MAX_LABEL_CHARS = 40      # longer labels are shortened with '…' in the picture (full text in the tooltip)
MAX_TOOLTIP_CHARS = 300
MAX_SYMBOL_CHARS = 24
# The nouns a count is printed with whose plural is not the noun + "s" (js/core/shared.js carries it to
# js/picture/format.js).
PLURALS = {"leaf": "leaves", "box": "boxes", "match": "matches"}

_SHORT = reprlib.Repr()
_SHORT.maxstring, _SHORT.maxother, _SHORT.maxlist, _SHORT.maxdict, _SHORT.maxlevel = 60, 60, 6, 4, 2

_NEWLINES = re.compile(r"\r\n|[\r\n\u2028\u2029\x0b\x0c\x85]")
# C0/C1 controls, lone surrogates and XML non-characters (invalid in SVG, unprintable in HTML), and the
# bidirectional controls (ALM, LRM, RLM, embeddings, overrides, isolates), which shown raw reorder the text around them.
_UNPRINTABLE = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f\ud800-\udfff\ufffe\uffff"
                          "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_SPACES = re.compile(r"[ \t]+")
_RECORD = str.maketrans({"\\": "\\\\", '"': '\\"', "&": "&amp;", "{": "\\{", "}": "\\}",
                         "|": "\\|", "<": "\\<", ">": "\\>"})
_DOT = str.maketrans({"\\": "\\\\", '"': '\\"', "&": "&amp;"})


def clean_text(text: object, max_chars: int | None = None) -> str:
    """The plain text a user string shows as: newlines as '↵', unprintable and bidirectional-control characters
    as '\ufffd', runs of spaces as one space, trimmed, and shortened to ``max_chars`` with '…' (js/picture/text.js's
    ``cleanText`` is the same function in the browser)."""
    if text == "":
        return ""
    s = _NEWLINES.sub(" \u21b5 ", str(text))
    s = _SPACES.sub(" ", _UNPRINTABLE.sub("\ufffd", s)).strip(" ")
    if max_chars is not None and len(s) > max_chars:
        s = s[: max(max_chars - 1, 0)].rstrip(" ") + "\u2026"
    return s


def escape(text: object, target: Literal["record", "dot", "html"] = "record") -> str:
    """Make a user string (label, scope, op symbol) safe: THE one escaping function for DOT and HTML.

    ``"record"``: one field of a DOT record label; ``"dot"``: any other DOT string (op label, tooltip);
    ``"html"``: HTML text or a quoted attribute value. The text is ``clean_text(text)`` first, so what
    a picture shows and what a table shows agree, and nothing can break out of its field or tag.
    """
    s = clean_text(text)
    if target == "record":
        return s.translate(_RECORD)
    if target == "dot":
        return s.translate(_DOT)
    if target == "html":
        return html.escape(s, quote=True)
    raise ValueError(f"escape(target=...) must be 'record', 'dot' or 'html', got {target!r}")


def format_number(x: float, precision: int = 4) -> str:
    """A number as a picture shows it: fixed point with ``precision`` decimals (the lecture's
    ``%.4f``), scientific from 1e6 up, and 'nan' / 'inf' / '-inf'."""
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if abs(x) >= 1e6:
        return f"{x:.{precision}e}"
    return f"{x:.{precision}f}"


def plural(count: int, noun: str) -> str:
    """``count`` and ``noun`` as a sentence says them: '1 node', '2 nodes', '99,754 leaves' (thousands
    separated, the plural from ``PLURALS`` or the noun + 's'; a noun of several words pluralises its last).
    js/picture/format.js's ``plural`` is the same function."""
    if count == 1:
        return f"{count:,} {noun}"
    head, _, last = noun.rpartition(" ")
    many = PLURALS.get(last, last + "s")
    return f"{count:,} {head + ' ' if head else ''}{many}"


def short(value: object) -> str:
    """A repr of ``value`` cut to a few dozen characters, for error messages (never a huge value in full); a
    repr that itself fails (an int past Python's digit limit) reads as the type's name."""
    try:
        return _SHORT.repr(value)
    except Exception:
        return f"<{type(value).__name__} that cannot be shown>"
