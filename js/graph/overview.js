// @ts-check
// The overview of a picture much larger than its box (issue 19): a small map in the box's bottom-left corner, the
// picture's boxes as grey rectangles (the output in the accent colour, opened boxes as dashed frames) and the part in
// sight outlined. Click or drag on it to go there; with the focus on it, the arrow keys pan. It is shown only when it
// helps (under half the picture in sight across or down, `needsMap`), it is see-through until hovered or focused,
// and its button (beside it, always opaque) hides it down to that button and shows it again, so it never keeps a
// box out of reach. Its boxes are drawn once per picture, once the page is idle (their places never change after
// layout), and its outline moves only when the box scrolls or zooms: a slider frame touches nothing of it
// (benchmarks/bench_zoom.py measures that).

import { h } from "../ui/dom.js";
import { svgElement } from "../ui/svg.js";
import { whenIdle } from "../ui/idle.js";

const MAP_PX = { width: 180, height: 120 }; // the map's largest size; it keeps the picture's proportions
const MIN_SIDE_PX = 24; // a very long picture's map is at least this wide or tall
const KEY_STEP = 0.25; // an arrow key pans by this fraction of the part in sight
// Shown when less than this share of the picture is in sight across or down: a picture up to twice its box is found
// again with one scroll (the lecture's L at 60% in a notebook column), where the map would only cover boxes.
const MAP_BELOW = 0.5;
/** @type {[number, number]} */
const BOXES_IDLE = [500, 50]; // whenIdle's timeout for drawing a new picture's boxes, and its timer without idle callbacks

/** Whether a picture `content` px (width, height) seen through a box `view` px needs the map (see MAP_BELOW). */
export function needsMap(content, view) {
  return content.width * MAP_BELOW > view.width + 1 || content.height * MAP_BELOW > view.height + 1;
}

/** The map's size for a picture `width` x `height` px: within MAP_PX, proportional, no side below MIN_SIDE_PX. */
export function mapSize(width, height) {
  if (!(width > 0) || !(height > 0)) return { width: 0, height: 0 };
  const k = Math.min(MAP_PX.width / width, MAP_PX.height / height);
  return { width: Math.max(MIN_SIDE_PX, width * k), height: Math.max(MIN_SIDE_PX, height * k) };
}

/** The scroll offset that centres the part in sight (`view` px long) on the map point `at` of a map `map` px long
 * showing `content` px, within [0, content - view]. */
export function scrollForMapPoint(at, map, content, view) {
  const s = (at / map) * content - view / 2;
  return Math.max(0, Math.min(s, content - view));
}

/** The overview map of scroll box `box` (the graph box); `el` goes beside it in a positioned frame. */
export class Overview {
  constructor(box) {
    this.box = box;
    this.picture = null; // the <svg> the map is sized for
    this.boxesOf = null; // the <svg> whose boxes the map shows
    this.boxesDue = null; // cancels the idle drawing of the boxes, while one is scheduled
    this.due = 0; // the animation frame of a pending update
    this.drag = null;
    this.map = svgElement("svg", { class: "mgw-overview-map", "aria-hidden": "true" });
    this.boxes = svgElement("g", {});
    this.sight = svgElement("rect", { class: "mgw-overview-sight" });
    this.map.append(this.boxes, this.sight);
    this.pane = h("div", { className: "mgw-overview-pane", "data-role": "overview", tabindex: "0", role: "group",
      "aria-label": "Overview of the picture: the outlined part is in sight; click or drag to go elsewhere, arrow keys pan",
      title: "Overview: click or drag to go there" });
    this.pane.append(this.map);
    this.toggle = h("button", { type: "button", className: "mgw-button mgw-overview-toggle", "data-role": "overview-toggle" });
    this.el = h("div", { className: "mgw-overview", hidden: true }, this.pane, this.toggle);
    this.setOpen(true);
    this.listeners = [
      [box, "scroll", () => this.update(), { passive: true }],
      [this.pane, "pointerdown", (e) => this.onPointerDown(e)],
      [this.pane, "pointermove", (e) => this.onPointerMove(e)],
      [this.pane, "pointerup", (e) => this.onPointerUp(e)],
      [this.pane, "pointercancel", (e) => this.onPointerUp(e)],
      [this.pane, "keydown", (e) => this.onKey(e)],
      [this.toggle, "click", () => this.setOpen(this.pane.hidden)],
    ];
    for (const [target, type, fn, options] of this.listeners) target.addEventListener(type, fn, options);
  }

  /** Update the map at the next animation frame (a scroll, a zoom, a new picture): once per frame however many asked. */
  update() {
    if (this.due) return;
    this.due = requestAnimationFrame(() => {
      this.due = 0;
      this.draw();
    });
  }

  /** Show the map (`open`) or only its button; the learner's choice holds for every later picture of this view. */
  setOpen(open) {
    this.pane.hidden = !open;
    this.toggle.textContent = open ? "×" : "Map";
    this.toggle.setAttribute("aria-expanded", String(open));
    this.toggle.setAttribute("aria-label", open ? "Hide the overview map" : "Show the overview map");
    this.toggle.title = open ? "Hide the overview map" : "Show the overview map";
    if (open) this.update();
  }

  /** Show the map when it helps (`needsMap`), with its boxes (drawn again for a new picture) and the part in sight. */
  draw() {
    const box = this.box;
    const svg = box.querySelector("svg");
    const hide = !svg || !needsMap({ width: box.scrollWidth, height: box.scrollHeight },
      { width: box.clientWidth, height: box.clientHeight });
    this.el.hidden = hide;
    if (hide) return;
    // In the box's bottom-left corner, above its horizontal scrollbar.
    const frame = /** @type {HTMLElement | null} */ (this.el.offsetParent);
    this.el.style.left = `${box.offsetLeft + box.clientLeft + 8}px`;
    if (frame) this.el.style.bottom = `${frame.clientHeight - (box.offsetTop + box.clientTop + box.clientHeight) + 8}px`;
    if (this.pane.hidden) return;
    const pic = svg.getBoundingClientRect();
    if (svg !== this.picture) this.newPicture(svg, pic);
    if (this.boxesOf !== svg && !this.boxesDue) {
      // Once the page is idle: a new picture is painted first (the moons loss with 1,684 boxes drawn: 2,500 rectangles
      // measured and made, ~50-100 ms, held its first frame).
      this.boxesDue = whenIdle(() => {
        this.boxesDue = null;
        if (this.picture === svg && svg.isConnected && !this.pane.hidden) this.drawBoxes(svg, svg.getBoundingClientRect());
      }, ...BOXES_IDLE);
    }
    const { width, height } = this.size;
    const kx = width / pic.width, ky = height / pic.height;
    const v = box.getBoundingClientRect();
    const left = v.left + box.clientLeft, top = v.top + box.clientTop;
    const x = Math.max(0, (left - pic.left) * kx), y = Math.max(0, (top - pic.top) * ky);
    this.sight.setAttribute("x", x.toFixed(1));
    this.sight.setAttribute("y", y.toFixed(1));
    this.sight.setAttribute("width", Math.min(width - x, box.clientWidth * kx).toFixed(1));
    this.sight.setAttribute("height", Math.min(height - y, box.clientHeight * ky).toFixed(1));
  }

  /** A new picture `svg`, `pic` its client rectangle: the map sized for it, its old boxes gone (drawBoxes draws the new). */
  newPicture(svg, pic) {
    this.picture = svg;
    const size = (this.size = mapSize(pic.width, pic.height));
    this.map.setAttribute("width", size.width.toFixed(1));
    this.map.setAttribute("height", size.height.toFixed(1));
    this.boxes.replaceChildren();
    this.forgetBoxes();
  }

  /** No boxes drawn for any picture, none to be drawn. */
  forgetBoxes() {
    if (this.boxesDue) this.boxesDue();
    this.boxesDue = null;
    this.boxesOf = null;
  }

  /** The picture's boxes as rectangles on the map, in the map's own px (the picture shrunk to the map's size). */
  drawBoxes(svg, pic) {
    this.boxesOf = svg;
    const size = this.size;
    const kx = size.width / pic.width, ky = size.height / pic.height;
    const shapes = [];
    for (const g of svg.querySelectorAll("g.cluster, g.node")) {
      const r = g.getBoundingClientRect();
      if (!r.width) continue;
      const cls = g.classList.contains("cluster") ? "mgw-overview-cluster"
        : g.classList.contains("mgw-output-node") ? "mgw-overview-output" : g.classList.contains("mgw-fold") ? "mgw-overview-fold" : "";
      shapes.push(svgElement("rect", { x: ((r.left - pic.left) * kx).toFixed(1), y: ((r.top - pic.top) * ky).toFixed(1),
        width: Math.max(0.8, r.width * kx).toFixed(1), height: Math.max(0.8, r.height * ky).toFixed(1), class: cls }));
    }
    this.boxes.replaceChildren(...shapes);
  }

  /** Scroll the box so the part in sight is centred on the client point (x, y) of the map. */
  goTo(x, y) {
    const r = this.map.getBoundingClientRect();
    const box = this.box;
    box.scrollLeft = scrollForMapPoint(x - r.left, r.width, box.scrollWidth, box.clientWidth);
    box.scrollTop = scrollForMapPoint(y - r.top, r.height, box.scrollHeight, box.clientHeight);
  }

  onPointerDown(event) {
    if (event.button !== 0) return;
    this.drag = event.pointerId;
    if (this.pane.setPointerCapture) this.pane.setPointerCapture(event.pointerId);
    this.goTo(event.clientX, event.clientY);
    event.preventDefault();
  }

  onPointerMove(event) {
    if (this.drag === event.pointerId) this.goTo(event.clientX, event.clientY);
  }

  onPointerUp(event) {
    if (this.drag === event.pointerId) this.drag = null;
  }

  onKey(event) {
    const step = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[event.key];
    if (!step || event.ctrlKey || event.metaKey || event.altKey) return;
    this.box.scrollLeft += step[0] * KEY_STEP * this.box.clientWidth;
    this.box.scrollTop += step[1] * KEY_STEP * this.box.clientHeight;
    event.preventDefault();
  }

  destroy() {
    cancelAnimationFrame(this.due);
    this.forgetBoxes();
    for (const [target, type, fn, options] of this.listeners) target.removeEventListener(type, fn, options);
    this.picture = null;
  }
}
