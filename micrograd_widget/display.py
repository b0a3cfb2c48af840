"""The static display of a Value: its graph as an SVG drawn by Graphviz's ``dot``, or an HTML table.

Functions, not methods on Value (the engine knows nothing of display): ``Value._repr_html_`` calls
``value_html`` (any notebook, no setup), ``%load_ext micrograd_widget`` uses ``value_mimebundle``, and a
widget's fallback for viewers without a widget manager is ``view_mimebundle`` of the picture it drew. Only
standard mimetypes, so JupyterLab, Notebook, VS Code, Colab and nbviewer all show it; ``text/plain``
stays the Value's short repr for terminals and logs.
"""

from __future__ import annotations

import base64
import os
import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import graphviz

from micrograd_widget.core.tape import Tape
from micrograd_widget.engine import Value
from micrograd_widget.host.files import replace_file, writable_path
from micrograd_widget.host.options import DEFAULT_OPTIONS, current_drawing_options
from micrograd_widget.picture import layout
from micrograd_widget.picture.colors import grad_color
from micrograd_widget.picture.dot import GraphView, color_scale_of, graph_view
from micrograd_widget.picture.fold_tree import FoldTree
from micrograd_widget.picture.layout import LayoutRefused, in_browser, render_svg
from micrograd_widget.picture.text import MAX_LABEL_CHARS, clean_text, escape, format_number, plural

__all__ = ["value_mimebundle", "value_html", "tape_mimebundle", "view_mimebundle", "svg_html",
           "html_table", "save_svg", "write_svg", "in_sight_styles", "with_html", "INSTALL_HINT", "MAX_SVG_BYTES",
           "READABLE_ZOOM", "BROWSER_HINT", "no_dot_hint"]

INSTALL_HINT = (
    "Graphviz's <code>dot</code> program was not found, so this is a table, not a picture: install it with "
    "<code>apt-get install graphviz</code>, <code>brew install graphviz</code> or "
    "<code>conda install graphviz</code>, then display the value again."
)
# In a browser's Python (Pyodide: JupyterLite) no program runs, Graphviz's dot included, and nothing can be installed
# that would: the live widget (Graphviz in WebAssembly) draws the graph there.
BROWSER_HINT = (
    "This Python runs in your browser (Pyodide), where Graphviz's <code>dot</code> program cannot run, so this is "
    "a table, not a picture: the live widget draws the graph here (<code>explore(value)</code>, or the value "
    "itself as a cell's last line)."
)


def no_dot_hint() -> str:
    """What a table drawn for want of ``dot`` says to do: install Graphviz, or, in a browser, use the live widget."""
    return BROWSER_HINT if in_browser() else INSTALL_HINT


# Jupyter drops outputs that exceed its IOPub data rate (1 MB/s over 3 s by default): stay below it.
MAX_SVG_BYTES = 2_500_000
# Readable: the default font at this zoom or more (issue 19); a static picture is never fitted below it.
READABLE_ZOOM = 0.6


def value_mimebundle(value: Value, *, precision: int = DEFAULT_OPTIONS["precision"],
                     rankdir: str = DEFAULT_OPTIONS["rankdir"],
                     node_budget: int | None = DEFAULT_OPTIONS["node_budget"],
                     color: bool = DEFAULT_OPTIONS["color"],
                     color_scale: str = DEFAULT_OPTIONS["color_scale"]) -> dict[str, str]:
    """``{"image/svg+xml": ..., "text/plain": repr}``, or ``text/html`` (a table of the nodes with a
    one-line reason) when ``dot`` is missing, fails, or the picture would be too large for a notebook."""
    if not isinstance(value, Value):
        raise TypeError(f"value_mimebundle() takes a Value, got {type(value).__name__}")
    bundle = {"text/plain": repr(value)}
    bundle.update(tape_mimebundle(Tape.from_value(value), precision=precision, rankdir=rankdir,
                                  node_budget=node_budget, color=color, color_scale=color_scale))
    return bundle


def value_html(value: Value, **options: Any) -> str:
    """The static picture of ``value``'s graph as one HTML fragment (``Value._repr_html_``): the SVG inline,
    or the table when ``dot`` cannot draw it. Options default to those in force (``%config``)."""
    settings = current_drawing_options()
    settings.update(options)
    bundle = value_mimebundle(value, **settings)
    svg = bundle.get("image/svg+xml")
    return svg_html(svg, f"the graph of {value!r}") if svg is not None else bundle["text/html"]


def svg_html(svg: str, alt: str = "the graph of a Value") -> str:
    """An SVG document as HTML: an ``<img>`` of it (a base64 data URL) in a scrolling block, fitted to the column
    while the fit stays readable (``READABLE_ZOOM`` or more, never above 100%), else shown at that zoom and scrolled
    so the output's box is in sight on first render, with no script (``in_sight_styles``). Not the SVG inline:
    JupyterLab sanitizes the HTML of an untrusted notebook (one saved elsewhere, then opened) and drops inline
    SVG, leaving its texts as a jumble; an image survives the sanitizer (and GitHub/nbviewer's) unchanged."""
    data = base64.b64encode(svg.encode("utf-8")).decode("ascii")
    scroller, frame, image, mark = in_sight_styles(svg)
    size = _SVG_SIZE.search(svg)
    # Its size as attributes too: the frame has its height before the image is decoded, so the first layout (where
    # the scroller takes its initial position) is the final one.
    dims = "" if size is None else " ".join(f'{side}="{float(size[k]) * PX_PER_PT:.0f}"'
                                            for k, side in ((1, "width"), (2, "height"))) + " "
    marker = f'<span style="{mark}"></span>' if mark else ""
    return (f'<div class="mgw-static" style="{scroller}"><div style="{frame}"><img alt="{escape(alt, "html")}" '
            f'{dims}style="{image}" src="data:image/svg+xml;base64,{data}">{marker}</div></div>')


def in_sight_styles(svg: str) -> tuple[str, str, str, str]:
    """The inline styles (scroller, frame, image, output mark) that keep a picture readable with its output in
    sight in any column, CSS only (a notebook's outputs may run no script; JupyterLab's sanitizer keeps these
    properties). The frame is 100% of the column between ``READABLE_ZOOM`` and 100% of the picture's own width, so
    it is fitted when that is readable and scrolls otherwise; the scroller is at most 80% of the window high. It
    starts at the ends nearer the output (``direction: rtl`` starts at the right: a rankdir LR picture's root;
    ``column-reverse`` at the bottom: TB's), and a mark over the output's box is its ``scroll-initial-target``
    (browsers that have it, Chromium 133+, scroll to it wherever it is). No mark when the SVG names no output box
    (a fold box holds the root); no sizes when the SVG has none in pt."""
    size = _SVG_SIZE.search(svg)
    if size is None:
        return "overflow:auto", "", "", ""
    width, _, view_w, view_h = (float(x) for x in size.groups())
    px = width * PX_PER_PT
    box = _output_box(svg, view_w, view_h)
    right = box is None or box[0] + box[2] / 2 > 0.5        # the output in the right half (or unknown: LR's root)
    low = box is not None and box[1] + box[3] / 2 > 0.5
    scroller = (f"overflow:auto;max-height:80vh;direction:{'rtl' if right else 'ltr'}"
                + (";display:flex;flex-direction:column-reverse" if low else ""))
    frame = (f"position:relative;direction:ltr;flex:none;width:100%;min-width:{px * READABLE_ZOOM:.0f}px;"
             f"max-width:{px:.0f}px;margin-right:auto")    # a picture narrower than the column stays at the left
    image = "display:block;width:100%;height:auto;max-width:none"
    mark = "" if box is None else (
        "position:absolute;scroll-initial-target:nearest;pointer-events:none;"
        f"left:{box[0]:.4%};top:{box[1]:.4%};width:{box[2]:.4%};height:{box[3]:.4%}")
    return scroller, frame, image, mark


PX_PER_PT = 96 / 72     # Graphviz sizes its SVG in pt; a browser draws an <img> of it at 96 px per inch
_SVG_SIZE = re.compile(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"\s+viewBox="[-\d.]+ [-\d.]+ ([\d.]+) ([\d.]+)"')
_TRANSLATE = re.compile(r'<g id="graph0" class="graph" transform="[^"]*translate\(([-\d.]+) ([-\d.]+)\)"')
# The differentiated output's value box (js/host/svg-contract.md: class mgw-output-node), up to its first polygon.
_OUTPUT = re.compile(r'<g id="n\d+" class="[^"]*mgw&#45;output&#45;node[^"]*">.*?points="([^"]+)"', re.DOTALL)


def _output_box(svg: str, view_w: float, view_h: float) -> tuple[float, float, float, float] | None:
    """The output's box in ``svg`` as (left, top, width, height), fractions of the picture's viewBox; None when the
    SVG has no output box (a fold box holds the root) or no graph transform."""
    found, shift = _OUTPUT.search(svg), _TRANSLATE.search(svg)
    if found is None or shift is None or view_w <= 0 or view_h <= 0:
        return None
    tx, ty = float(shift.group(1)), float(shift.group(2))
    xs, ys = zip(*((float(x) + tx, float(y) + ty) for x, y in
                   (p.split(",") for p in found.group(1).split())), strict=True)
    return min(xs) / view_w, min(ys) / view_h, (max(xs) - min(xs)) / view_w, (max(ys) - min(ys)) / view_h


def with_html(bundle: dict[str, str], alt: str = "the graph of a Value") -> dict[str, str]:
    """``bundle`` with its SVG also as ``svg_html`` (``text/html``), what a notebook shows of it (Jupyter front ends
    prefer HTML to an SVG, which they draw at its full size, the output off the column's right edge); the bare
    SVG stays for tools that read it, while both together stay within ``MAX_SVG_BYTES``."""
    svg = bundle.get("image/svg+xml")
    if svg is None:
        return bundle
    html = svg_html(svg, alt)
    rest = {k: v for k, v in bundle.items() if k != "image/svg+xml"}
    if len(svg.encode("utf-8")) + len(html) <= MAX_SVG_BYTES:
        rest["image/svg+xml"] = svg
    return {**rest, "text/html": html}


def tape_mimebundle(tape: Tape, *, output: int | None = None, precision: int = DEFAULT_OPTIONS["precision"],
                    rankdir: str = DEFAULT_OPTIONS["rankdir"],
                    node_budget: int | None = DEFAULT_OPTIONS["node_budget"],
                    color: bool = DEFAULT_OPTIONS["color"], color_scale: str = DEFAULT_OPTIONS["color_scale"],
                    open_keys: Iterable[str] = (),
                    tree: FoldTree | None = None) -> dict[str, str]:
    """The picture of ``tape`` as it holds its numbers now, its grads those of node ``output`` (default the
    root), the fold boxes ``open_keys`` opened (``tree``: its fold hierarchy, if built already):
    ``{"image/svg+xml": ...}``, or ``{"text/html": table}`` when ``dot`` cannot draw it."""
    return view_mimebundle(graph_view(tape, precision=precision, rankdir=rankdir, node_budget=node_budget,
                                      color=color, color_scale=color_scale, output=output, open_keys=open_keys,
                                      tree=tree))


def view_mimebundle(view: GraphView, table: Callable[[], GraphView] | None = None, *,
                    table_if_stopped: bool = True) -> dict[str, str]:
    """A picture already planned (``graph_view``) as ``tape_mimebundle`` shows it; ``table()`` (default: ``view``)
    is the picture a table is drawn from. A widget's fallback passes its static picture (planned once per state), kept
    without its fold boxes' members (a node id per folded node, for the widget's life), and plans it again only for
    a table (planning is the costly part on a large graph). ``table_if_stopped=False`` raises render_svg's
    ``TimeoutError`` instead of showing the table when dot ran past ``layout.DOT_TIME_LIMIT`` (save_html: the page's
    view would be stopped laying it out too)."""
    full = table or (lambda: view)
    try:
        svg = render_svg(view)
    except graphviz.ExecutableNotFound:
        return {"text/html": html_table(full(), no_dot_hint())}
    except LayoutRefused as err:
        if not table_if_stopped:
            raise
        return {"text/html": html_table(full(), escape(f"{err}; here is a table of its nodes instead.", "html"))}
    except TimeoutError:
        if not table_if_stopped:
            raise
        stopped = layout.DOT_TIME_LIMIT
        return {"text/html": html_table(
            full(), f"Graphviz's <code>dot</code> was stopped after laying out this picture for {stopped:g} s "
                  "(at the default node budget a picture takes a few seconds), so here is a table; for a picture, "
                  "draw fewer boxes: close opened boxes, or lower the node budget "
                  "(<code>%config MicrogradWidget.node_budget = 100</code>).")}
    except (graphviz.CalledProcessError, OSError) as err:
        reason = escape(clean_text(getattr(err, "stderr", None) or err, 300), "html")
        return {"text/html": html_table(full(), f"Graphviz's <code>dot</code> could not draw this graph ({reason}); "
                                                "here is a table of its nodes instead.")}
    size = len(svg.encode("utf-8"))
    if size > MAX_SVG_BYTES:
        return {"text/html": html_table(
            full(), f"The picture would be {size / 1e6:.1f} MB, over the {MAX_SVG_BYTES / 1e6:.1f} MB a notebook "
                  "output can carry, so here is a table; for a picture, lower the node budget "
                  "(<code>%config MicrogradWidget.node_budget = 250</code>).")}
    return {"image/svg+xml": svg}


def html_table(view: GraphView, note: str = "") -> str:
    """The nodes of ``view`` (label, op, data, grad) in topological order, fold boxes where their first
    node would be, under the folding message and ``note`` (trusted HTML written by this module)."""
    tape, opts = view.tape, view.options
    precision, color = opts.get("precision", 4), opts.get("color", True)
    scale = color_scale_of(view.scale, {**DEFAULT_OPTIONS, **opts})
    output = tape.root if view.output is None else view.output
    rows: list[tuple[int, str]] = []
    for i in view.shown:
        d, g = tape.data[i], tape.grad[i]
        grad_style = f' style="background-color:{grad_color(g, scale)}"' if color else ""
        weight = ' style="font-weight:bold"' if i == output else ""
        rows.append((i, (
            f"<tr{weight}><td>n{i}</td><td>{escape(clean_text(tape.labels[i], MAX_LABEL_CHARS * 3), 'html')}</td>"
            f"<td>{escape(tape.symbols[i], 'html') if tape.symbols[i] else ('leaf' if not tape.inputs[i] else '')}</td>"
            f'<td title="{d!r}">{format_number(d, precision)}</td>'
            f'<td title="{g!r}"{grad_style}>{format_number(g, precision)}</td></tr>'
        )))
    for f in view.folds:
        title = escape(clean_text(f.title, MAX_LABEL_CHARS * 3), "html")
        rows.append((min(f.members), (
            f'<tr style="font-style:italic"><td>{f.id}</td><td>{title}'
            f'</td><td>folded</td><td colspan="2">{plural(len(f.members), "node")}</td></tr>'
        )))
    rows.sort(key=lambda r: r[0])
    parts = ['<div class="mgw-table">']
    if view.message:
        parts.append(f"<p>{escape(view.message, 'html')}</p>")
    if note:
        parts.append(f"<p>{note}</p>")
    if color:
        parts.append("<p>grad colour: blue negative, white zero, orange positive (bold row: the output).</p>")
    parts.append("<table><thead><tr><th>node</th><th>label</th><th>op</th><th>data</th><th>grad</th></tr></thead>"
                 "<tbody>")
    parts.extend(row for _, row in rows)
    parts.append("</tbody></table></div>")
    return "".join(parts)


def save_svg(root: Value, path: str | os.PathLike[str], *, output: Value | int | None = None,
             **options: Any) -> Path:
    """Write the static picture of ``root``'s graph to ``path`` as an SVG file (laid out by the kernel's
    Graphviz ``dot``) and return the path. ``options`` are the drawing options (``precision``,
    ``rankdir``, ``node_budget``, ``color``; defaults as ``%config`` set them), ``output`` the node
    differentiated (a Value of the graph or a node id; default the root). ``GraphWidget.save_svg`` writes
    a widget's picture as it is shown. Raises RuntimeError when ``dot`` is not installed, TimeoutError when it
    runs past ``layout.DOT_TIME_LIMIT`` seconds, and, before any work, the OSError ``files.writable_path`` gives for a
    path it cannot write (a missing folder, a folder, a FIFO). The file is written as ``files.replace_file``
    writes (atomically; through a link, into the file it points to; a device in place; ``~`` expanded)."""
    if not isinstance(root, Value):
        raise TypeError(f"save_svg() takes a Value (the root of a graph), got {type(root).__name__}")
    target = writable_path(path, "save_svg", "graph.svg")
    settings = current_drawing_options()
    settings.update(options)
    tape = Tape.from_value(root)
    out = tape.index(output) if isinstance(output, Value) else output
    return write_svg(graph_view(tape, output=out, **settings), target)


def write_svg(view: GraphView, target: Path) -> Path:
    """Lay out ``view`` with ``dot`` and write the SVG to ``target`` (a path ``writable_path`` checked before the
    picture was planned) with ``replace_file``, so a failure, a layout stopped at ``layout.DOT_TIME_LIMIT`` included,
    leaves an existing file as it was and no new one."""
    try:
        svg = render_svg(view)
    except graphviz.ExecutableNotFound as err:
        if in_browser():
            raise RuntimeError(
                "save_svg needs Graphviz's dot program, which cannot run in this browser's Python (Pyodide): the live "
                "widget's Download button saves the picture as SVG (explore(value))") from err
        raise RuntimeError(
            "save_svg needs Graphviz's dot program to lay out the picture, and it was not found on PATH: install "
            "it with `apt-get install graphviz`, `brew install graphviz` or `conda install graphviz` (in the "
            "widget, the SVG button downloads the picture without it)") from err
    replace_file(target, svg)
    return target
