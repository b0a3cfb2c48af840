// @ts-check
// Pan and zoom of the picture: the one fitting path. Zooming sets the <svg>'s CSS size (its viewBox scales
// the drawing), never the DOT nor Graphviz's layout, so node positions in SVG user units never move and a
// slider frame paints exactly as before. The picture's box (`.mgw-graph`) scrolls; drag pans it.
//
// Gestures: Ctrl/Cmd + wheel and trackpad pinch (which browsers deliver as Ctrl + wheel; Safari's gesture
// events too) zoom around the pointer; a plain wheel scrolls the notebook as usual. Drag with the mouse pans
// (a drag never counts as a click on a box). On a touch screen one finger scrolls the box natively and two
// fingers pinch-zoom the picture around their midpoint (touch-action: pan-x pan-y keeps the page's own zoom out). With the focus on the picture's box or on a box in it: `]`
// zooms in, `[` zooms out, `0` fits the whole picture, `1` shows it at 100% (+ and - on a fold box open and close it: graph/picture.js). The toolbar's buttons: zoom-in, zoom-out, fit, and the zoom shown (actual-size, back to 100%).
//
// The first picture opens fitted to the box's width when that keeps it readable (READABLE of its size or more),
// else at READABLE and scrolled to the region of interest (the output): never on blank space. Every later picture
// (Expand, Collapse, Expand all, Collapse all, a search's reveal) keeps the zoom shown, and `settle` puts what
// changed where the box that was acted on was on screen, moved the least to lie in sight (the part of the picture
// that did not change stays put). The overview map of a picture that does not fit: graph/overview.js.

import { h } from "../ui/dom.js";

export const MIN_SCALE = 0.05;
export const MAX_SCALE = 8;
export const STEP = 1.25;
export const READABLE = 0.6; // the default font at 60% or more is readable (issue 19)
// The level of detail: below LOW_DETAIL the boxes' 11 pt text is under 5 px tall, too small to read, and is not drawn
// (widget.css, data-detail="low"); it comes back at FULL_DETAIL, a zoom step above, so that a pinch hovering at the
// threshold does not make it flicker. The exports always hold the full text (the DOM keeps it).
export const LOW_DETAIL = 0.3;
export const FULL_DETAIL = 0.375;
const SIGHT_MARGIN = 16; // px kept between what is put in sight and the box's edges
const DRAG_PX = 4; // a press that moves less than this is a click, not a pan

/** A length attribute in CSS pixels ("620pt" -> 826.7, "321px"/"321" -> 321), else NaN. */
function lengthPx(text) {
  const m = /^\s*([0-9.]+)\s*(pt|px)?\s*$/.exec(text || "");
  return m ? Number(m[1]) * (m[2] === "pt" ? 4 / 3 : 1) : NaN;
}

function viewBoxOf(viewBox) {
  const box = String(viewBox || "").trim().split(/[\s,]+/).map(Number);
  return box.length === 4 && box.every(Number.isFinite) ? box : null;
}

/** The picture's natural width in CSS pixels, from the SVG's width attribute ("620pt") or its viewBox. */
export function svgWidthPx(width, viewBox) {
  const px = lengthPx(width);
  if (Number.isFinite(px)) return px;
  const box = viewBoxOf(viewBox);
  return box ? box[2] : 0;
}

/** The natural size { width, height } in CSS pixels of an <svg> element (Graphviz writes pt). */
export function svgSizePx(svg) {
  const viewBox = svg.getAttribute("viewBox");
  const box = viewBoxOf(viewBox);
  const height = lengthPx(svg.getAttribute("height"));
  return {
    width: svgWidthPx(svg.getAttribute("width"), viewBox),
    height: Number.isFinite(height) ? height : box ? box[3] : 0,
  };
}

/** The scale a picture `natural` px wide opens at in a box `box` px wide: 100% when it fits, else fitted to the
 * width, but never below `readable` (the box then scrolls to what matters). */
export function openingScale(natural, box, readable = READABLE) {
  if (!(box > 0) || !(natural > box)) return 1;
  return Math.max(readable, box / natural);
}

/** The level of detail at `scale`, "low" or "full", given the one shown now (`shown`): the thresholds' hysteresis. */
export function detailAt(scale, shown) {
  return scale < (shown === "low" ? FULL_DETAIL : LOW_DETAIL) ? "low" : "full";
}

export function clampScale(scale) {
  return Math.min(MAX_SCALE, Math.max(MIN_SCALE, scale));
}

/**
 * The scale that shows a `width` x `height` picture whole in a box `boxWidth` x `boxHeight` (a height of
 * 0 or Infinity: no limit), never above 100%.
 */
export function fitScale(width, height, boxWidth, boxHeight) {
  if (!(width > 0) || !(boxWidth > 0)) return 1;
  let scale = Math.min(1, boxWidth / width);
  if (height > 0 && boxHeight > 0 && Number.isFinite(boxHeight)) scale = Math.min(scale, boxHeight / height);
  return clampScale(scale);
}

/**
 * Where to scroll along one axis so that the picture point under the pointer stays there: `scroll` is the
 * box's scroll offset, `pointer` the pointer's offset in the box's visible area, `offset` where the picture
 * starts in the scrolled content; the picture goes from `before` to `after` scale.
 */
export function anchoredScroll(scroll, pointer, offset, before, after) {
  const u = (scroll + pointer - offset) / before; // the point in the picture's own (100%) pixels
  return offset + u * after - pointer;
}

/**
 * Where to scroll along one axis so that an element spanning [lo, hi] (content px: its place in the scrolled
 * content) is in sight in a visible area `size` px long: its centre at `place` px into the visible area (null: from
 * the scroll `scroll` it has now), then moved the least to lie within `margin` of the edges, or, when it is longer
 * than that, to fill the visible area.
 */
export function scrollToPlace(lo, hi, size, place, scroll, margin = SIGHT_MARGIN) {
  margin = Math.max(0, Math.min(margin, (size - (hi - lo)) / 2));
  const s = place === null ? scroll : (lo + hi) / 2 - place;
  const [low, high] = hi - lo <= size - 2 * margin ? [hi + margin - size, lo - margin] : [lo, hi - size];
  return Math.min(Math.max(s, low), high);
}

/** True when keys pressed on `target` are text typed into it (a field, a list, an editable element). */
function isTyping(target) {
  return target.isContentEditable || ["INPUT", "TEXTAREA", "SELECT"].includes(target.tagName);
}

/** The zoom button's name at `scale`: the zoom it shows, and what pressing it does. */
const ACTUAL_SIZE_LABEL = (scale) => `Zoom ${Math.round(scale * 100)}%: show at 100% (1)`;

/** The zoom of one picture box `el`; `controls` are its toolbar buttons, `fitted` tells the state. */
export class Zoom {
  constructor(el) {
    this.el = el;
    this.svg = null;
    this.natural = { width: 0, height: 0 };
    this.scale = 1;
    this.interest = null; // what an automatic fit keeps in sight (settle())
    this.changed = () => {}; // told when the scale or the box's size changed (graph/overview.js's map follows)
    this.chosen = false; // the user zoomed or fitted: no more automatic fitting
    this.drag = null;
    this.swallowClick = false;
    this.touches = new Map(); // pointerId -> { x, y } of the fingers on the picture
    this.pinch = null; // { distance, scale } when two fingers went down
    const button = (action, text, label) => {
      const b = h("button", { type: "button", className: "mgw-button", "data-action": action, "aria-label": label,
        title: label, text });
      b.addEventListener("click", () => this.act(action));
      return b;
    };
    // The zoom shown is also the button back to 100%, the size the picture's text was written for.
    this.level = button("actual-size", "100%", ACTUAL_SIZE_LABEL(1));
    this.level.classList.add("mgw-zoom-level");
    this.level.setAttribute("data-role", "zoom-level");
    this.controls = h("span", { className: "mgw-zoom", role: "group", "aria-label": "Zoom" },
      button("zoom-out", "\u2212", "Zoom out ([)"), this.level, button("zoom-in", "+", "Zoom in (])"),
      button("fit", "Fit", "Fit the whole picture (0)"));
    el.setAttribute("tabindex", "0");
    el.style.touchAction = "pan-x pan-y";
    el.setAttribute("role", "group");
    el.setAttribute("aria-label", "Graph picture: drag or scroll to pan, Ctrl+wheel, ] and [ to zoom, 0 to fit, 1 for 100%");
    this.listeners = [
      ["wheel", (e) => this.onWheel(e), { passive: false }],
      ["keydown", (e) => this.onKey(e)],
      ["pointerdown", (e) => this.onPointerDown(e)],
      ["pointermove", (e) => this.onPointerMove(e)],
      ["pointerup", (e) => this.onPointerUp(e)],
      ["pointercancel", (e) => this.onPointerUp(e)],
      ["click", (e) => this.onClick(e), true],
      ["gesturestart", (e) => this.onGesture(e, true), { passive: false }],
      ["gesturechange", (e) => this.onGesture(e, false), { passive: false }],
    ];
    for (const [type, fn, options] of this.listeners) el.addEventListener(type, fn, options);
    this.resizeObserver = null;
    if (typeof ResizeObserver !== "undefined") {
      this.resizeObserver = new ResizeObserver(() => {
        this.autoFit();
        this.changed();
      });
      this.resizeObserver.observe(el);
    }
  }

  /** A new picture for the box: the first opens at openingScale (until the user zooms), a later one keeps the zoom
   * shown (the learner's place: graph/picture.js then settle()s it). Call it before the picture goes in (the box is
   * measured as it is), so that the browser lays the new picture out once, at its size. */
  show(svg) {
    // A picture replacing one the learner has seen keeps its zoom: no automatic fit after it (the box growing with
    // the new picture would otherwise fit it again, away from what was opened).
    if (this.svg && this.el.clientWidth > 0) this.chosen = true;
    this.svg = svg;
    this.natural = svgSizePx(svg);
    this.interest = null;
    if (this.chosen) this.apply(this.scale);
    else {
      this.scale = 0; // force apply() to size the new picture
      this.autoFit();
    }
  }

  /** Where element `el` is in sight now: the centre of its part inside the box's visible area, in px from that area's
   * top-left corner; null when it is out of sight (or absent). */
  placeOf(el) {
    if (!el || !this.el.contains(el)) return null;
    const r = el.getBoundingClientRect();
    const v = this.visibleRect();
    const left = Math.max(r.left, v.left), right = Math.min(r.right, v.right);
    const top = Math.max(r.top, v.top), bottom = Math.min(r.bottom, v.bottom);
    if (right <= left || bottom <= top) return null;
    return { x: (left + right) / 2 - v.left, y: (top + bottom) / 2 - v.top };
  }

  /** The box's visible area (inside its borders and scrollbars), in client px. */
  visibleRect() {
    const r = this.el.getBoundingClientRect();
    const left = r.left + this.el.clientLeft, top = r.top + this.el.clientTop;
    return { left, top, right: left + this.el.clientWidth, bottom: top + this.el.clientHeight };
  }

  /**
   * Scroll so that element `el` of the picture is in sight: its centre where `place` says (placeOf() of what stood
   * for it in the picture before, so what did not change stays put), moved the least to lie in sight; with no place,
   * moved the least from where the box is scrolled now. `el` is also what an automatic fit keeps in sight.
   */
  settle(el, place = null) {
    if (!el || !this.el.contains(el)) return;
    this.interest = el;
    const r = el.getBoundingClientRect();
    const v = this.visibleRect();
    const { scrollLeft, scrollTop } = this.el;
    const x = scrollToPlace(r.left - v.left + scrollLeft, r.right - v.left + scrollLeft, v.right - v.left,
      place && place.x, scrollLeft);
    const y = scrollToPlace(r.top - v.top + scrollTop, r.bottom - v.top + scrollTop, v.bottom - v.top,
      place && place.y, scrollTop);
    this.el.scrollLeft = x;
    this.el.scrollTop = y;
  }

  act(action) {
    if (action === "zoom-in") this.zoomBy(STEP);
    else if (action === "zoom-out") this.zoomBy(1 / STEP);
    else if (action === "fit") this.fit();
    else if (action === "actual-size") this.zoomBy(1 / this.scale);
  }

  /** The box's inner size (without its padding and scrollbars) in CSS pixels. */
  boxSize() {
    const style = getComputedStyle(this.el);
    const padX = parseFloat(style.paddingLeft) + parseFloat(style.paddingRight) || 0;
    const padY = parseFloat(style.paddingTop) + parseFloat(style.paddingBottom) || 0;
    const maxHeight = parseFloat(style.maxHeight); // the box grows with the picture up to max-height
    const borders = this.el.offsetHeight - this.el.clientHeight;
    return { width: this.el.clientWidth - padX, height: Number.isFinite(maxHeight) ? maxHeight - padY - borders : 0 };
  }

  /** Show the whole picture in the box (never above 100%); from now on the user's choice is kept. */
  fit() {
    this.chosen = true;
    this.el.style.height = ""; // the box follows the fitted picture again
    const box = this.boxSize();
    this.apply(fitScale(this.natural.width, this.natural.height, box.width, box.height));
    this.el.scrollLeft = 0;
    this.el.scrollTop = 0;
  }

  /** Until the user zooms: the opening scale for the box's width (openingScale), the region of interest kept in sight. */
  autoFit() {
    if (this.chosen || !this.svg) return;
    const scale = openingScale(this.natural.width, this.boxSize().width);
    if (Math.abs(scale - this.scale) <= 1e-3) return;
    this.apply(scale);
    if (this.interest) this.settle(this.interest);
  }

  /** Zoom by `factor` around the client point (x, y), or around the middle of the visible box. */
  zoomBy(factor, x = null, y = null) {
    if (!this.svg) return;
    this.chosen = true;
    const rect = this.el.getBoundingClientRect();
    if (x === null) x = rect.left + this.el.clientLeft + this.el.clientWidth / 2;
    if (y === null) y = rect.top + this.el.clientTop + this.el.clientHeight / 2;
    // The box keeps its height while the user zooms: were it to grow with the picture, the point under the
    // pointer would drift down instead of scrolling.
    if (!this.el.style.height) this.el.style.height = `${this.el.offsetHeight}px`;
    const before = this.scale;
    const pic = this.svg.getBoundingClientRect();
    // Where the picture starts in the scrolled content, and the pointer in the visible area.
    const offsetX = pic.left - rect.left - this.el.clientLeft + this.el.scrollLeft;
    const offsetY = pic.top - rect.top - this.el.clientTop + this.el.scrollTop;
    const pointerX = x - rect.left - this.el.clientLeft;
    const pointerY = y - rect.top - this.el.clientTop;
    const { scrollLeft, scrollTop } = this.el; // read before resizing: shrinking the picture clamps them
    const after = this.apply(before * factor);
    this.el.scrollLeft = anchoredScroll(scrollLeft, pointerX, offsetX, before, after);
    this.el.scrollTop = anchoredScroll(scrollTop, pointerY, offsetY, before, after);
  }

  /** Size the picture at `scale` (clamped); returns the scale taken. */
  apply(scale) {
    scale = clampScale(scale);
    this.scale = scale;
    this.level.textContent = `${Math.round(scale * 100)}%`;
    const label = ACTUAL_SIZE_LABEL(scale);
    this.level.setAttribute("aria-label", label);
    this.level.title = label;
    if (this.svg) {
      this.svg.style.width = `${this.natural.width * scale}px`;
      this.svg.style.height = `${this.natural.height * scale}px`;
      this.el.setAttribute("data-zoom", scale.toFixed(4));
      this.el.setAttribute("data-detail", detailAt(scale, this.el.getAttribute("data-detail")));
    }
    this.changed();
    return scale;
  }

  onWheel(event) {
    if (!(event.ctrlKey || event.metaKey) || !this.svg) return; // a plain wheel scrolls the notebook
    event.preventDefault();
    const lines = event.deltaMode === 1 ? 40 : event.deltaMode === 2 ? 800 : 1;
    this.zoomBy(Math.exp(-event.deltaY * lines * 0.002), event.clientX, event.clientY);
  }

  onGesture(event, start) {
    event.preventDefault();
    if (start) this.gestureScale = this.scale;
    else if (this.gestureScale) this.zoomBy((this.gestureScale * event.scale) / this.scale, event.clientX, event.clientY);
  }

  /** `]`, `[`, `0` and `1` with the focus on the picture's box or anywhere inside it (a box of the picture, after Expand or
   * Tab), never while typing in a field, nor a key the picture already took (graph/picture.js: Enter, +, -). */
  onKey(event) {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    if (!this.el.contains(event.target) || isTyping(event.target)) return;
    const action = { "]": "zoom-in", "[": "zoom-out", 0: "fit", 1: "actual-size" }[event.key];
    if (!action) return;
    event.preventDefault();
    this.act(action);
  }

  onPointerDown(event) {
    if (event.pointerType === "touch") {
      this.touches.set(event.pointerId, { x: event.clientX, y: event.clientY });
      if (this.touches.size === 2 && this.svg) this.pinch = { distance: this.fingerSpan().distance, scale: this.scale };
      return; // one finger scrolls natively
    }
    if (event.button !== 0 || !this.svg) return;
    this.drag = { id: event.pointerId, x: event.clientX, y: event.clientY, left: this.el.scrollLeft,
      top: this.el.scrollTop, moved: false };
  }

  /** The two fingers' distance and midpoint. */
  fingerSpan() {
    const [p, q] = [...this.touches.values()];
    return { distance: Math.hypot(p.x - q.x, p.y - q.y), x: (p.x + q.x) / 2, y: (p.y + q.y) / 2 };
  }

  onPointerMove(event) {
    if (this.touches.has(event.pointerId)) {
      this.touches.set(event.pointerId, { x: event.clientX, y: event.clientY });
      if (this.pinch && this.touches.size === 2) {
        const span = this.fingerSpan();
        if (this.pinch.distance > 0) this.zoomBy((this.pinch.scale * span.distance) / this.pinch.distance / this.scale, span.x, span.y);
        event.preventDefault();
      }
      return;
    }
    const drag = this.drag;
    if (!drag || drag.id !== event.pointerId) return;
    const dx = event.clientX - drag.x;
    const dy = event.clientY - drag.y;
    if (!drag.moved && Math.hypot(dx, dy) < DRAG_PX) return;
    if (!drag.moved) {
      drag.moved = true;
      this.el.classList.add("mgw-panning");
      if (this.el.setPointerCapture) this.el.setPointerCapture(event.pointerId);
    }
    this.el.scrollLeft = drag.left - dx;
    this.el.scrollTop = drag.top - dy;
    event.preventDefault();
  }

  onPointerUp(event) {
    if (this.touches.delete(event.pointerId) && this.touches.size < 2) this.pinch = null;
    const drag = this.drag;
    if (!drag || drag.id !== event.pointerId) return;
    this.drag = null;
    if (drag.moved) {
      this.el.classList.remove("mgw-panning");
      this.swallowClick = event.type === "pointerup";
      setTimeout(() => (this.swallowClick = false), 0); // the click, if any, comes in this same task
    }
  }

  /** The click that ends a drag is not a click on a box. */
  onClick(event) {
    if (!this.swallowClick) return;
    this.swallowClick = false;
    event.stopImmediatePropagation();
    event.preventDefault();
  }

  destroy() {
    for (const [type, fn, options] of this.listeners) this.el.removeEventListener(type, fn, options);
    if (this.resizeObserver) this.resizeObserver.disconnect();
    this.svg = null;
  }
}
