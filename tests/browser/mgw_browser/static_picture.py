"""Where a static picture (``svg_html``'s ``.mgw-static``: an ``<img>`` of the SVG in a scroller) puts the output's
box on screen, measured from the SVG itself (laid out inline off screen, its ``g.mgw-output-node`` found by class),
not from the markup under test."""

from __future__ import annotations

from typing import Any

# For the scroller: the output box's rect on screen, the rect one sees of the scroller (its client area, clipped by
# the window), and the zoom shown (drawn width / the SVG's own width). None until the image has loaded.
_MEASURE = r"""(scroller) => {
  const img = scroller.querySelector('img');
  if (!img || !img.complete || !img.naturalWidth) return null;
  const text = atob(img.src.split(',')[1]);
  const host = document.createElement('div');
  host.style.cssText = 'position:absolute;left:-100000px;top:0';
  host.innerHTML = text.slice(text.indexOf('<svg'));
  document.body.appendChild(host);
  const svg = host.querySelector('svg'), vb = svg.viewBox.baseVal;
  svg.setAttribute('width', vb.width); svg.setAttribute('height', vb.height);
  const s = svg.getBoundingClientRect(), o = svg.querySelector('g.mgw-output-node').getBoundingClientRect();
  host.remove();
  const r = img.getBoundingClientRect(), k = r.width / s.width, v = scroller.getBoundingClientRect();
  const left = v.left + scroller.clientLeft, top = v.top + scroller.clientTop;
  return {
    box: {left: r.left + (o.left - s.left) * k, right: r.left + (o.right - s.left) * k,
          top: r.top + (o.top - s.top) * k, bottom: r.top + (o.bottom - s.top) * k},
    seen: {left: Math.max(left, 0), right: Math.min(left + scroller.clientWidth, window.innerWidth),
           top: Math.max(top, 0), bottom: Math.min(top + scroller.clientHeight, window.innerHeight)},
    zoom: r.width / img.naturalWidth, width: r.width, natural: img.naturalWidth};
}"""


def measure(scroller: Any) -> dict[str, Any] | None:
    """``_MEASURE`` for a Playwright locator of one ``.mgw-static`` scroller."""
    result: dict[str, Any] | None = scroller.evaluate(_MEASURE)
    return result


def in_sight(m: dict[str, Any]) -> bool:
    """Whether the output's box lies wholly inside the rect one sees of the scroller (half a pixel of rounding)."""
    box, seen = m["box"], m["seen"]
    return (box["left"] >= seen["left"] - 0.5 and box["right"] <= seen["right"] + 0.5
            and box["top"] >= seen["top"] - 0.5 and box["bottom"] <= seen["bottom"] + 0.5)
