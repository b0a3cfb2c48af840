"""text.py: the one escaping function, clean_text and format_number (their use in pictures: test_dot.py)."""

from __future__ import annotations

import math

import pytest

from micrograd_widget.picture.text import clean_text, escape, format_number, plural


def test_format_number() -> None:
    assert format_number(2.0) == "2.0000"
    assert format_number(-1e-9) == "-0.0000"
    assert format_number(1234567.0, 2) == "1.23e+06"
    assert [format_number(x) for x in (math.nan, math.inf, -math.inf)] == ["nan", "inf", "-inf"]


def test_escape_targets() -> None:
    assert escape('<a href="x">&</a>', "html") == "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;"
    assert escape("a|b{c}<d>", "record") == "a\\|b\\{c\\}\\<d\\>"
    assert escape('q"\\', "dot") == 'q\\"\\\\'
    assert escape("two\nlines") == "two \u21b5 lines"
    assert clean_text("x" * 50, 10) == "x" * 9 + "\u2026"
    # Bidirectional controls would reorder the text around them (an RTL override reverses "#12 (root)").
    assert clean_text("a\u202eb\u2066c\u200fd\u061ce") == "a\ufffdb\ufffdc\ufffdd\ufffde"
    with pytest.raises(ValueError, match="'record', 'dot' or 'html'"):
        escape("x", "js")  # type: ignore[arg-type]


@pytest.mark.parametrize(("count", "noun", "said"), [
    (1, "node", "1 node"), (0, "node", "0 nodes"), (2, "node", "2 nodes"), (1, "leaf", "1 leaf"),
    (99_754, "leaf", "99,754 leaves"), (1, "box", "1 box"), (9, "box", "9 boxes"),
    (1_000_000, "term", "1,000,000 terms"),
    (2, "long sum", "2 long sums"), (1, "other node", "1 other node"), (3, "partial sum", "3 partial sums"),
])
def test_plural_says_a_count_with_its_noun(count: int, noun: str, said: str) -> None:
    """Issue 19: every count printed to the user goes through plural (it read "99,754 leaf", "1 other nodes")."""
    assert plural(count, noun) == said
