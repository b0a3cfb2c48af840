"""The facts Python and the browser must share, written as the ES module js/core/shared.js by
``python -m micrograd_widget.core.shared`` (js/build.mjs runs it, as it runs ops.py for js/core/ops.js).

Each fact is defined once, in the Python module it belongs to (named in its row below); this module only
gathers them, so a change there reaches the browser at the next build, and the test command fails on a
committed js/core/shared.js that is stale (.ci/setup.sh fingerprints it; tests/test_shared.py compares it).
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any

from micrograd_widget.core import tape
from micrograd_widget.core.gradcheck import GRADCHECK_DEFAULTS
from micrograd_widget.graph import requests
from micrograd_widget.host import options
from micrograd_widget.picture import colors, dot_style, far_ranks, fold, fold_tree, layout, text

__all__ = ["SHARED", "js_module"]

# (JS name, value, where Python defines it and what it is), in the order js/core/shared.js lists them.
SHARED: tuple[tuple[str, Any, str], ...] = (
    ("PALETTE", colors.palette(), "colors.py palette(): the grad colours a view fills nodes with"),
    ("LOG_DECADES", colors.LOG_DECADES, "colors.py: the log colour scale fades to white over this many powers of ten"),
    ("COLOR_SCALES", dict(options.OPTIONS["color_scale"].choices),
     "options.py color_scale: the colour scales, each with what it means (the toolbar's choice, the legend)"),
    ("FOLD_COLOR", colors.FOLD_COLOR, "colors.py FOLD_COLOR: a closed box with colouring off or no member counted"),
    ("MAX_LABEL_CHARS", text.MAX_LABEL_CHARS, "text.py: a label is cut to this many characters in a picture"),
    ("MAX_TOOLTIP_CHARS", text.MAX_TOOLTIP_CHARS, "text.py: a tooltip is cut to this many characters"),
    ("MAX_SYMBOL_CHARS", text.MAX_SYMBOL_CHARS, "text.py: an op symbol is cut to this many characters"),
    ("PLURALS", text.PLURALS, "text.py: the nouns whose plural is not the noun + 's' (plural())"),
    ("EDGES_PER_BOX", fold.EDGES_PER_BOX, "fold.py: a picture keeps at most max(this x budget, edges now) edges"),
    ("LAYOUT_COST_LIMIT", fold.LAYOUT_COST_LIMIT,
     "fold.py: a picture keeps its layout cost (fold_fit layoutCost) at most max(this, its cost now)"),
    ("FAR_RANKS_LIMIT", far_ranks.FAR_RANKS_LIMIT,
     "far_ranks.py: the planner's bound on a default picture's far ranks; past it a DOT is large (dot.js largeLayout)"),
    ("REFUSED_FAR_RANKS", far_ranks.REFUSED_FAR_RANKS,
     "far_ranks.py: a picture drawn whole whose edges cross more ranks beyond the next is not laid out"),
    ("SPEC_VERSION", tape.SPEC_VERSION, "tape.py: the tape spec version (trait `spec`) a view reads"),
    ("FOLD_SPEC_VERSION", fold_tree.FOLD_SPEC_VERSION, "fold_tree.py: the fold spec version (trait `folds`)"),
    ("NSLIMIT", layout.NSLIMIT, "picture/layout.py: network simplex iterations per node, a default of every layout"),
    ("LOST_EDGE", layout.LOST_EDGE, "picture/layout.py: Graphviz's error on a lost edge, retried with newrank"),
    ("LAYOUT_TIME_LIMIT_MS", round(layout.DOT_TIME_LIMIT * 1000),
     "picture/layout.py DOT_TIME_LIMIT: one layout's time, ms"),
    ("GRADCHECK_DEFAULTS", dict(GRADCHECK_DEFAULTS), "gradcheck.py: the check's eps, rtol and atol"),
    ("MAX_KERNEL_LEAVES", requests.MAX_GRADCHECK_LEAVES, "requests.py MAX_GRADCHECK_LEAVES: leaves per kernel check"),
    ("MAX_KERNEL_WORK", requests.MAX_GRADCHECK_WORK, "requests.py MAX_GRADCHECK_WORK: leaves x nodes per kernel check"),
    ("DOT_STYLE", dot_style.DOT_STYLE, "dot_style.py: the DOT writers' fixed attributes and classes"),
    ("LARGE_PICTURE_EDGES", dot_style.LARGE_PICTURE_EDGES,
     "dot_style.py: past this many edges a picture is laid out with DOT_STYLE.large (dot.js largeLayout)"),
    ("LEGEND_TABLE", dot_style.LEGEND_TABLE, "dot_style.py: the opening of the legend's HTML-like table"),
)


def _js_value(value: Any) -> str:
    """``value`` as a JS expression: a regular expression as a RegExp, a dict frozen (its dicts too), anything else
    as JSON."""
    if isinstance(value, re.Pattern):
        if value.flags & ~re.UNICODE:
            raise ValueError(f"a shared pattern takes no flags (JS and Python spell them apart): {value.pattern!r}")
        return f"new RegExp({json.dumps(value.pattern)})"
    if isinstance(value, dict):
        return f"Object.freeze({{{', '.join(f'{json.dumps(k)}: {_js_value(v)}' for k, v in value.items())}}})"
    return json.dumps(value)


def js_module() -> str:
    """js/core/shared.js: one ``export const`` per row of ``SHARED``, its Python home in the comment above it."""
    lines = [
        "// Generated from micrograd_widget/core/shared.py by `python -m micrograd_widget.core.shared`; do not edit.",
        "// @ts-check",
        "// The facts the browser shares with Python, each from the Python module named beside it.",
    ]
    for name, value, doc in SHARED:
        lines += ["", f"/** {doc}. */", f"export const {name} = {_js_value(value)};"]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    sys.stdout.write(js_module())
