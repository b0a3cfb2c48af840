"""save_html: one self-contained page with a live widget, for people who only have a browser.

The page holds the widget state (ipywidgets' embedding format, ``drop_defaults=False`` so anywidget's ``_esm``
is kept, with every model the widget references, e.g. a shared assets model) and, inline, our own small widget
host (js/host/host.js, built into static/host.js): it reads that state, resolves ``"IPY_MODEL_<id>"`` references,
decodes the binary buffers and renders each view where its view script stands. No CDN, no kernel, no
ipywidgets manager: the sliders work because the browser replays the tape itself (js/core/tape.js). With scripts off
(or in a viewer that runs none) the page shows the widget's static picture instead, from a ``<noscript>``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ipywidgets.embed import dependency_state, embed_data, escape_script

from micrograd_widget.core.tape import Tape
from micrograd_widget.display import svg_html, view_mimebundle
from micrograd_widget.engine import Value
from micrograd_widget.graph.widget import GraphWidget
from micrograd_widget.host.files import replace_file, writable_path
from micrograd_widget.picture.text import escape, plural

__all__ = ["save_html"]

_STATIC = Path(__file__).parent.parent / "static"
_HOST = "host.js"  # the page's widget host, a module script

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
<style>
  body {{ margin: 0; padding: 16px; font-family: system-ui, sans-serif; }}
  @media (prefers-color-scheme: dark) {{ body {{ background: #1e1e1e; color: #e6e6e6; }} }}
  .mgw-page-intro {{ max-width: 60em; margin: 0 0 10px; font-size: 14px; line-height: 1.4; }}
  .mgw-page-intro h1 {{ font-size: 20px; margin: 0 0 6px; }}
  .mgw-page-intro p {{ margin: 0 0 3px; }}
  .mgw-page-note {{ font-size: 12px; opacity: 0.7; margin: 0 0 8px; }}
  .mgw-host-error {{ color: #d32f2f; }}
</style>
<script type="application/vnd.jupyter.widget-state+json">
{state}
</script>
</head>
<body>
{intro}<p class="mgw-page-note">{note}</p>
<noscript>
<p class="mgw-page-note">Scripts are off in this page, so here is its static picture: the sliders need them.</p>
{static}
</noscript>
{views}
{host}
</body>
</html>
"""


def _host() -> str:
    """The page's widget host as an inline module script (a file:// page may not load a module from a URL)."""
    path = _STATIC / _HOST
    if not path.is_file():
        raise FileNotFoundError(
            f"micrograd_widget/static/ lacks {_HOST}; rebuild with `npm --prefix js ci && npm --prefix js run build`"
        )
    text = path.read_text(encoding="utf-8")
    if "</script" in text.lower() or "<!--" in text:
        raise ValueError(f"static/{_HOST} holds '</script' or '<!--' and cannot be inlined: keep both out of host.js")
    return f'<script type="module">\n{text}\n</script>'


def save_html(root_or_widget: Value | GraphWidget, path: str | os.PathLike[str], *,
              title: str = "micrograd-widget", intro: Sequence[str] = (), **options: Any) -> Path:
    """Write a self-contained HTML page with a live widget of ``root_or_widget`` (a Value, drawn with
    ``options`` as GraphWidget takes them, or an existing GraphWidget as it is now); returns the path.

    The page opens offline in any modern browser; its sliders replay the graph in the browser. Graphs
    with user-defined ops show their numbers but need a kernel to change them. The page is written as
    ``files.replace_file`` writes (atomically; through a link, into the file it points to; a device in place;
    ``~`` expanded), so a failure leaves an existing file untouched. Raises, before any work, the OSError
    ``files.writable_path`` gives for a path it cannot write (a missing folder, a folder, a FIFO), and
    TimeoutError when the kernel's ``dot`` was stopped laying out the page's static picture
    (``picture.layout.DOT_TIME_LIMIT``).

    ``intro``, paragraphs of plain text, shows ``title`` as a heading and them above the widget: a page that
    explains itself (the demo page's).
    """
    if isinstance(intro, str):
        raise TypeError("save_html(intro=...) takes a list of paragraphs, not one string: wrap it as [text]")
    if isinstance(root_or_widget, GraphWidget):
        if options:
            raise TypeError("save_html: options apply only when you pass a Value; this widget already has its own")
        root_or_widget.tape  # noqa: B018 -- a closed widget has no graph left to save: its RuntimeError says so
        return _write(root_or_widget, writable_path(path, "save_html", "graph.html"), title, intro)
    if not isinstance(root_or_widget, Value):
        raise TypeError(f"save_html() takes a Value or a GraphWidget, got {type(root_or_widget).__name__}")
    target = writable_path(path, "save_html", "graph.html")
    widget = GraphWidget(root_or_widget, **options)
    try:
        return _write(widget, target, title, intro)
    finally:
        widget.close()  # made only for this page: it must not keep the graph alive


def _write(widget: GraphWidget, target: Path, title: str, intro: Sequence[str]) -> Path:
    """The page for ``widget``, written atomically to ``target``."""
    data = embed_data(views=[widget], drop_defaults=False, state=dependency_state(widget, drop_defaults=False))
    state = escape_script(json.dumps(data["manager_state"], allow_nan=False, ensure_ascii=False))
    views = "\n".join(
        f'<script type="application/vnd.jupyter.widget-view+json">\n{escape_script(json.dumps(spec))}\n</script>'
        for spec in data["view_specs"]
    )
    page = _PAGE.format(title=escape(title, "html"), intro=_intro(title, intro), host=_host(), state=state, views=views,
                        note=escape(_note(widget.tape), "html"), static=_static(widget))
    replace_file(target, page)
    return target


def _intro(title: str, paragraphs: Sequence[str]) -> str:
    """The page's heading and paragraphs above the widget, escaped; nothing when there are no paragraphs."""
    if not paragraphs:
        return ""
    body = "".join(f"<p>{escape(p, 'html')}</p>\n" for p in paragraphs)
    return f'<header class="mgw-page-intro">\n<h1>{escape(title, "html")}</h1>\n{body}</header>\n'


def _static(widget: GraphWidget) -> str:
    """The widget's static picture as HTML for the page's ``<noscript>``: the SVG its fallback and save_svg lay out
    (as an ``<img>`` of a base64 data URL: no markup of it is parsed), or the table when ``dot`` cannot draw it.
    Raises TimeoutError when ``dot`` was stopped laying it out: the page's view would be stopped too."""
    bundle = view_mimebundle(widget._drawing(), widget._plan, table_if_stopped=False)
    svg = bundle.get("image/svg+xml")
    if svg is not None:
        return svg_html(svg, "the graph, as the widget showed it when the page was saved")
    html: str = bundle.get("text/html", "")
    return html


def _note(tape: Tape) -> str:
    """The line above the widget: what the page can do with this graph without a kernel, and its size."""
    size = f"{plural(len(tape), 'node')}, {plural(len(tape.leaves), 'leaf')}."
    if tape.opaque:
        return ("Numbers as saved: this graph has a node built by hand outside the op table, so it cannot be "
                f"replayed. {size}")
    if not tape.builtin_only:
        return ("Numbers as saved: this graph uses an op defined in Python (define_op), which only a running kernel "
                f"can replay, so the sliders need one. {size}")
    return f"Drag a slider: every value and gradient is recomputed in this page (no kernel). {size}"


