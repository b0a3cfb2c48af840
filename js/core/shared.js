// Generated from micrograd_widget/core/shared.py by `python -m micrograd_widget.core.shared`; do not edit.
// @ts-check
// The facts the browser shares with Python, each from the Python module named beside it.

/** colors.py palette(): the grad colours a view fills nodes with. */
export const PALETTE = Object.freeze({"negative": "#5b9bd5", "positive": "#f0913a", "zero": "#ffffff", "nonfinite": "#bdbdbd"});

/** colors.py: the log colour scale fades to white over this many powers of ten. */
export const LOG_DECADES = 12;

/** options.py color_scale: the colour scales, each with what it means (the toolbar's choice, the legend). */
export const COLOR_SCALES = Object.freeze({"relative": "stronger for larger |grad|, full colour at the largest drawn", "log": "one step per power of ten, full colour at 1, white from 1e-12"});

/** colors.py FOLD_COLOR: a closed box with colouring off or no member counted. */
export const FOLD_COLOR = "#eeeeee";

/** text.py: a label is cut to this many characters in a picture. */
export const MAX_LABEL_CHARS = 40;

/** text.py: a tooltip is cut to this many characters. */
export const MAX_TOOLTIP_CHARS = 300;

/** text.py: an op symbol is cut to this many characters. */
export const MAX_SYMBOL_CHARS = 24;

/** text.py: the nouns whose plural is not the noun + 's' (plural()). */
export const PLURALS = Object.freeze({"leaf": "leaves", "box": "boxes", "match": "matches"});

/** fold.py: a picture keeps at most max(this x budget, edges now) edges. */
export const EDGES_PER_BOX = 3;

/** fold.py: a picture keeps its layout cost (fold_fit layoutCost) at most max(this, its cost now). */
export const LAYOUT_COST_LIMIT = 10000;

/** far_ranks.py: the planner's bound on a default picture's far ranks; past it a DOT is large (dot.js largeLayout). */
export const FAR_RANKS_LIMIT = 3000;

/** far_ranks.py: a picture drawn whole whose edges cross more ranks beyond the next is not laid out. */
export const REFUSED_FAR_RANKS = 12000;

/** tape.py: the tape spec version (trait `spec`) a view reads. */
export const SPEC_VERSION = 2;

/** fold_tree.py: the fold spec version (trait `folds`). */
export const FOLD_SPEC_VERSION = 1;

/** picture/layout.py: network simplex iterations per node, a default of every layout. */
export const NSLIMIT = 8;

/** picture/layout.py: Graphviz's error on a lost edge, retried with newrank. */
export const LOST_EDGE = new RegExp("lost \\S+ \\S+ edge");

/** picture/layout.py DOT_TIME_LIMIT: one layout's time, ms. */
export const LAYOUT_TIME_LIMIT_MS = 60000;

/** gradcheck.py: the check's eps, rtol and atol. */
export const GRADCHECK_DEFAULTS = Object.freeze({"eps": 1e-06, "rtol": 0.0001, "atol": 1e-06});

/** requests.py MAX_GRADCHECK_LEAVES: leaves per kernel check. */
export const MAX_KERNEL_LEAVES = 256;

/** requests.py MAX_GRADCHECK_WORK: leaves x nodes per kernel check. */
export const MAX_KERNEL_WORK = 4000000;

/** dot_style.py: the DOT writers' fixed attributes and classes. */
export const DOT_STYLE = Object.freeze({"graph": Object.freeze({"bgcolor": "white", "fontname": "Helvetica", "fontsize": "11"}), "folded": Object.freeze({"ranksep": "0.25", "nodesep": "0.2"}), "large": Object.freeze({"mclimit": "0.1", "newrank": "true", "outputorder": "edgesfirst", "splines": "line"}), "node": Object.freeze({"fillcolor": "#ffffff", "fontname": "Helvetica", "fontsize": "11", "shape": "record", "style": "filled"}), "edge": Object.freeze({"arrowsize": "0.7", "class": "mgw-edge", "color": "#555555"}), "message": Object.freeze({"labeljust": "l", "labelloc": "t"}), "leaf": Object.freeze({"shape": "Mrecord"}), "output": Object.freeze({"style": "filled,bold", "penwidth": "2.5"}), "op": Object.freeze({"class": "mgw-op", "margin": "0.02", "shape": "ellipse"}), "fold": Object.freeze({"class": "mgw-fold", "shape": "record", "style": "filled,dashed"}), "cluster": Object.freeze({"class": "mgw-cluster", "color": "#999999", "fontcolor": "#555555", "style": "dashed"}), "legend": Object.freeze({"class": "mgw-legend", "id": "mgw-legend", "shape": "plaintext", "tooltip": "node colour = grad: blue negative, white zero, orange positive"}), "classes": Object.freeze({"value": "mgw-value", "leaf": "mgw-leaf", "output": "mgw-output-node"})});

/** dot_style.py: past this many edges a picture is laid out with DOT_STYLE.large (dot.js largeLayout). */
export const LARGE_PICTURE_EDGES = 1000;

/** dot_style.py: the opening of the legend's HTML-like table. */
export const LEGEND_TABLE = "<TABLE BORDER=\"0\" CELLBORDER=\"1\" CELLSPACING=\"0\" CELLPADDING=\"3\">";
