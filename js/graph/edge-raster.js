// @ts-check
// The edges as a raster at low detail (issue 22). At Fit a large picture is all in sight, so culling (graph/visible.js)
// leaves everything painted, and Chromium re-records the paint of every element of the SVG when any fill changes: on
// the moons loss opened to node_budget=2000 (1,685 boxes, 6,653 edges, each a <g> of a path and an arrowhead) the edges
// were about a third of a slider frame there, and a slider never changes them. So while the boxes draw no text
// (graph/zoom.js data-detail="low"), the edges are drawn once into a <canvas> under the SVG (one image, which a frame
// does not record again), and the SVG's edges are not rendered (widget.css: `canvas.mgw-edge-raster + svg`), except the
// ones a mark outlines (a traced path, the stepper's), which stay drawn in the SVG over the raster. The SVG keeps every
// edge in its DOM (each put in first: graph/pending.js): exports, search and the stepper read it as before; at full
// detail the canvas is gone.
// The raster is drawn again when the picture's size on screen changes (a zoom step, a resize, the display's pixel
// ratio); a picture too large on screen for a canvas of MAX_PIXELS keeps its SVG edges (a picture at Fit is the box's
// size: the limit is for low zooms of very large pictures, e.g. 30% of one 70,000 px tall).

import { h } from "../ui/dom.js";

/** Where measure() found the raster goes: the SVG's size in device pixels at `ratio`, its place in the graph box (CSS px)
 * and the graph group's transform.
 * @typedef {{w: number, hgt: number, ratio: number, left: number, top: number, ctm: DOMMatrix | null}} RasterPlace */

export const MAX_PIXELS = 16 * 1024 * 1024; // device pixels of the raster (64 MB)
const MAX_SIDE = 16384; // a canvas side every browser allows

/** What the raster draws of `svg`, in the coordinates of its graph group and in the SVG's order: Graphviz's page and the
 * opened boxes' (clusters') fills, which lie under the edges, then each edge's <path> (its line) and <polygon>s (its
 * arrowhead): [{ path, stroke, fill, width }]. Each shape is drawn on its own, as the SVG draws it: where edges overlap
 * (many pass close together at a low zoom) they darken as they do there. */
export function rasterShapes(svg) {
  const shapes = [];
  const add = (shape, under) => {
    const path = shape.tagName === "path";
    const d = path ? shape.getAttribute("d") : `M${shape.getAttribute("points")}Z`;
    const fill = shape.getAttribute("fill") || (path ? "none" : "black");
    if (!d || (under && fill === "none")) return;
    shapes.push({ path: new Path2D(d), stroke: under ? "none" : shape.getAttribute("stroke") || "none", fill,
      width: Number(shape.getAttribute("stroke-width")) || 1 });
  };
  const page = svg.querySelector("g.graph > polygon");
  if (page) add(page, true);
  for (const cluster of svg.querySelectorAll("g.cluster")) {
    const frame = cluster.querySelector("polygon, path");
    if (frame) add(frame, true);
  }
  for (const shape of svg.querySelectorAll("g.edge path, g.edge polygon")) add(shape, false);
  return shapes;
}

/** The raster of one picture's edges: `svg` (a Graphviz picture in `box`, the graph's scroll box); `whole()` puts every
 * edge not in the picture yet in (graph/pending.js) before the raster reads them. */
export class EdgeRaster {
  constructor(svg, box, whole = () => {}) {
    this.svg = svg;
    this.box = box;
    this.whole = whole;
    this.canvas = h("canvas", { className: "mgw-edge-raster", "aria-hidden": "true" });
    this.shapes = null; // rasterShapes(svg), made the first time the picture is drawn at low detail
    this.drawn = ""; // the size and pixel ratio the canvas was drawn at
  }

  /**
   * What show() needs of the page at low detail (`low`): the SVG's size in device pixels, its place in the graph box and
   * the graph group's transform; null when no raster is drawn (full detail, or too large on screen for a canvas). Read
   * before the look changes the picture (graph/picture.js look): read after it, they made the browser lay the page
   * out again (a trace of `+` on a box counted 17 layouts before, 16 after in the default picture; 19 and 17 at
   * node_budget=2000; the time saved was within the machine's noise).
   * @param {boolean} low
   * @returns {RasterPlace | null}
   */
  measure(low) {
    if (!low) return null; // read nothing at full detail: this runs on every look
    const { svg, box } = this;
    const graph = /** @type {SVGGraphicsElement | null} */ (svg.querySelector("g.graph"));
    if (!graph || !svg.isConnected) return null;
    const ratio = window.devicePixelRatio || 1;
    const w = Math.ceil(svg.clientWidth * ratio), hgt = Math.ceil(svg.clientHeight * ratio);
    if (!w || !hgt || w > MAX_SIDE || hgt > MAX_SIDE || w * hgt > MAX_PIXELS) return null;
    const s = svg.getBoundingClientRect(), b = box.getBoundingClientRect();
    return {
      w, hgt, ratio, ctm: graph.getCTM(), // graph units -> the <svg>'s CSS px
      left: s.left - b.left - box.clientLeft + box.scrollLeft, top: s.top - b.top - box.clientTop + box.scrollTop,
    };
  }

  /** The edges drawn on the canvas under the picture (and its own edges not rendered) where measure() placed it;
   * with no place, the canvas taken out (the SVG draws its edges). Writes only.
   * @param {RasterPlace | null} at */
  show(at) {
    const { svg, canvas } = this;
    if (!at) {
      this.release();
      return;
    }
    const { w, hgt, ratio, ctm: m } = at;
    const key = `${w} ${hgt} ${ratio}`;
    if (canvas.nextSibling !== svg) svg.before(canvas);
    canvas.style.left = `${at.left}px`;
    canvas.style.top = `${at.top}px`;
    if (key === this.drawn) return;
    this.drawn = key;
    if (!this.shapes) {
      this.whole();
      this.shapes = rasterShapes(svg);
    }
    canvas.width = w;
    canvas.height = hgt;
    canvas.style.width = `${w / ratio}px`;
    canvas.style.height = `${hgt / ratio}px`;
    const ctx = canvas.getContext("2d");
    if (!ctx || !m) return;
    ctx.setTransform(ratio * m.a, ratio * m.b, ratio * m.c, ratio * m.d, ratio * m.e, ratio * m.f);
    for (const { path, stroke, fill, width: lineWidth } of this.shapes) {
      if (fill !== "none") {
        ctx.fillStyle = fill;
        ctx.fill(path);
      }
      if (stroke !== "none") {
        ctx.strokeStyle = stroke;
        ctx.lineWidth = lineWidth;
        ctx.stroke(path);
      }
    }
  }

  /** The canvas out of the page and its pixels freed (full detail, or the picture replaced). */
  release() {
    if (!this.drawn && !this.canvas.isConnected) return;
    this.canvas.remove();
    this.canvas.width = 0;
    this.canvas.height = 0;
    this.drawn = "";
  }
}
