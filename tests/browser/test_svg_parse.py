"""js/ui/svg.js parsePicture (Graphviz's SVG read by the HTML parser from its <svg> tag, then adopted) against the
browser's XML parser + importNode, the reference it replaced: the same elements, namespaces, attributes (xlink:title
included) and texts for Graphviz-WASM's pictures of the fold vectors (hostile labels among them), and no script run.
The page imports js/ui/svg.js from the sources (an import map finds @viz-js/viz in js/node_modules)."""

from __future__ import annotations

from pathlib import Path

import pytest

from browser.mgw_browser.graphs import vector_dots
from browser.mgw_browser.http import StaticServer

JS = Path(__file__).resolve().parents[2] / "js"

pytestmark = pytest.mark.browser

_PAGE = """<!doctype html><html><head><meta charset="utf-8">
<script type="importmap">{"imports": {"@viz-js/viz": "/node_modules/@viz-js/viz/dist/viz.js"}}</script>
</head><body><div id="box"></div></body></html>"""

# Every element (in document order) as namespace, name, its attributes (with their namespaces; their order is not
# kept by either parser's API contract) and its own text.
_SIGNATURE = """el => [el, ...el.querySelectorAll('*')].map(e => [e.namespaceURI, e.localName,
  [...e.attributes].map(a => [a.namespaceURI, a.localName, a.value])
    .sort((x, y) => (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0)),
  [...e.childNodes].filter(c => c.nodeType === 3).map(c => c.nodeValue).join('')])"""


@pytest.fixture
def svg_page(guarded):
    """A page that imported js/ui/svg.js and js/host/graphviz.js (as window.svgjs / window.gv) from the sources."""
    if not (JS / "node_modules" / "@viz-js" / "viz").exists():
        pytest.fail("js/node_modules is missing: run `npm --prefix js ci`")
    with StaticServer(JS) as server:
        page = guarded.page
        page.route(f"{server.url}/parse-test.html", lambda route: route.fulfill(body=_PAGE, content_type="text/html"))
        page.goto(f"{server.url}/parse-test.html")
        page.evaluate("async () => { window.svgjs = await import('/ui/svg.js');"
                      " window.gv = await import('/host/graphviz.js'); }")
        yield page


def test_html_parsing_reads_graphviz_svg_as_the_xml_parser_does(svg_page):
    for k, dot in enumerate(vector_dots()):
        same = svg_page.evaluate(
            """async ([dot, signature]) => {
              const sig = eval(signature);
              const text = await gv.layoutSVG(dot);
              const reference = document.importNode(
                new DOMParser().parseFromString(text, 'image/svg+xml').documentElement, true);
              const parsed = svgjs.parsePicture(text);
              if (parsed.ownerDocument !== document) return 'not adopted into the page';
              const a = JSON.stringify(sig(reference)), b = JSON.stringify(sig(parsed));
              const titled = parsed.querySelectorAll('a').length;
              const withTitle = [...parsed.querySelectorAll('a')].filter(
                e => e.getAttributeNS('http://www.w3.org/1999/xlink', 'title')).length;
              if (titled === 0 || withTitle !== titled) return `xlink:title lost (${withTitle} of ${titled})`;
              if (a === b) return 'same';
              const at = [...a].findIndex((c, i) => c !== b[i]);
              return `differs: ${a.slice(Math.max(0, at - 60), at + 60)} VS ${b.slice(Math.max(0, at - 60), at + 60)}`;
            }""", [dot, _SIGNATURE])
        assert same == "same", f"picture {k}: {same}"


def test_no_script_in_the_svg_text_runs_and_other_text_is_refused(svg_page):
    ran = svg_page.evaluate(
        """async () => {
          window.ran = [];
          const svg = svgjs.parsePicture('<?xml version="1.0"?>\\n<!DOCTYPE svg>\\n'
            + '<svg xmlns="http://www.w3.org/2000/svg"><script>window.ran.push("script")</script>'
            + '<text>&lt;script&gt;window.ran.push("text")&lt;/script&gt;</text></svg>');
          document.getElementById('box').replaceChildren(svg);
          await new Promise(r => requestAnimationFrame(() => setTimeout(r, 50)));
          const refused = [];
          for (const text of ['<html><body>no picture</body></html>', 'plain text', '<svgx>an HTML element</svgx>']) {
            try { svgjs.parsePicture(text); } catch (err) { refused.push(err.message); }
          }
          return { ran: window.ran, text: svg.querySelector('text').textContent, refused };
        }""")
    assert ran["ran"] == [], f"a script in the SVG text ran: {ran['ran']}"
    assert ran["text"] == '<script>window.ran.push("text")</script>', "escaped markup did not stay text"
    assert len(ran["refused"]) == 3, f"text that is no SVG picture was accepted: {ran['refused']}"
    assert all("something other than an SVG picture" in m for m in ran["refused"])
