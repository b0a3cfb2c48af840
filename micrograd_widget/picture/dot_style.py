"""The DOT writers' style facts: the header's attributes, each kind of node's fixed attributes, the ``mgw-*``
classes and the legend's table. dot.py's write_dot (and its graphviz.Digraph) and js/picture/dot.js writeDot read
them from here, the browser through js/core/shared.js (shared.py), so both write the same DOT byte for byte.
The classes are a contract with the JS view and the tests (js/host/svg-contract.md).
"""

from __future__ import annotations

from typing import Final

from micrograd_widget.picture.colors import ZERO_COLOR

__all__ = ["DOT_STYLE", "LEGEND_TABLE", "LARGE_PICTURE_EDGES"]

_FONT: Final = {"fontname": "Helvetica", "fontsize": "11"}

# Each entry: DOT attributes (name -> value) a writer puts on one kind of statement, except ``classes``: the
# class names a value node combines.
DOT_STYLE: Final[dict[str, dict[str, str]]] = {
    "graph": {"bgcolor": "white", **_FONT},                 # the graph's attributes beside its rankdir
    "folded": {"ranksep": "0.25", "nodesep": "0.2"},        # added when the picture has a closed box
    # added past LARGE_PICTURE_EDGES edges or FAR_RANKS_LIMIT far ranks, with a smaller nslimit (dot.py large_layout):
    # a tenth of the crossing-minimisation passes (the moons loss at node_budget=2000 opened: 0.95 s -> 0.33 s in
    # Debian's dot, with 0.5% fewer crossings; at 1000: 0.6% more), one global ranking (no "lost edge" retry, which
    # doubled the time) and straight edges drawn before the boxes (which hide them where they pass behind): routing
    # ~7,000 splines around the boxes was a quarter of the page's layout there
    "large": {"mclimit": "0.1", "newrank": "true", "outputorder": "edgesfirst", "splines": "line"},
    "node": {"fillcolor": ZERO_COLOR, **_FONT, "shape": "record", "style": "filled"},
    "edge": {"arrowsize": "0.7", "class": "mgw-edge", "color": "#555555"},
    "message": {"labeljust": "l", "labelloc": "t"},         # where the picture's message (its label) sits
    "leaf": {"shape": "Mrecord"},
    "output": {"style": "filled,bold", "penwidth": "2.5"},  # the differentiated output
    "op": {"class": "mgw-op", "margin": "0.02", "shape": "ellipse"},
    "fold": {"class": "mgw-fold", "shape": "record", "style": "filled,dashed"},
    "cluster": {"class": "mgw-cluster", "color": "#999999", "fontcolor": "#555555", "style": "dashed"},
    "legend": {"class": "mgw-legend", "id": "mgw-legend", "shape": "plaintext",
               "tooltip": "node colour = grad: blue negative, white zero, orange positive"},
    "classes": {"value": "mgw-value", "leaf": "mgw-leaf", "output": "mgw-output-node"},
}

# A picture with more edges than this (or whose edges cross more than far_ranks.py's FAR_RANKS_LIMIT ranks beyond the
# next) is laid out with DOT_STYLE["large"] and a network simplex limit that keeps its x-coordinate pass at the work
# it has at this many short edges: every default picture of the default budget has fewer.
LARGE_PICTURE_EDGES: Final = 1000

# The legend's HTML-like label opens with this table, one row of swatches: grad, -scale .. +scale.
LEGEND_TABLE: Final = '<TABLE BORDER="0" CELLBORDER="1" CELLSPACING="0" CELLPADDING="3">'
