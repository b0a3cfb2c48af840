// @ts-check
// What the graph box has in sight, and what a frame pays for. Chromium re-records the paint of every element of the
// SVG on any change in it, and lays out every changed SVG <text> in the next frame (~30 us each, measured: 182
// texts, 5.6 ms of layout). So:
// - a box (value node, op, closed fold box) or edge well out of the scroll box's sight (more than half the box's
//   size, NEAR, beyond its edges) is not painted: class mgw-culled (widget.css: its shapes hidden, its texts not
//   laid out; its <g> keeps its place, focus and accessible name, so Tab, the overview and scrolling work as before);
// - a frame writes the texts and fills of boxes in (or within SIGHT_PX of) sight; the others once the numbers have
//   been still for a while, in idle chunks; at once when their box comes within NEAR of sight (before it is painted
//   again, so it scrolls in current) or gets focus (its accessible name is the text it shows); and on flush() before
//   anything reads the picture (the SVG/PNG export). The graph element says which:
//   data-numbers="current" | "pending" (js/host/svg-contract.md).
// - at low detail (graph/zoom.js: boxes a few px tall) a fill in sight is written in the frame only when it changes
//   visibly (more than FILL_STEP on an RGB channel from the fill shown); a smaller change waits, as the numbers out of
//   sight do, and goes out once the sliders rest (all such fills in one idle chunk: one repaint). Any fill change
//   makes Chromium restyle those shapes and re-record and raster the whole SVG: ~6 of a 16 ms frame at Fit on the
//   moons loss opened to node_budget=2000 (what a move changes there: FILL_STEP).
// Where each box is comes from its bounding box in the picture's user units (measured once per picture: the
// layout never moves, zoom only scales it), against the scroll box's visible area mapped into those units, on each
// scroll, zoom and resize (look()), before that frame is painted. A new picture goes in with every box and edge
// culled (start()) and its first look() paints what is near sight: inserting it lays out those texts only.

import { whenIdle } from "../ui/idle.js";

const SIGHT_PX = 80; // about one box: a box about to scroll in is already current
const NEAR_MIN_PX = 200; // boxes within max(this, half the scroll box's size) of sight stay painted
const QUIET_MS = 250; // out-of-sight numbers wait until the numbers were still this long
const CHUNK = 40; // texts per idle chunk (~30 us of layout each in Chromium: ~1.2 ms per frame)
/** @type {[number, number]} */
const IDLE = [500, 16]; // whenIdle's timeout, and its timer where the browser has no idle callbacks (ms)
const FAR = 0, NEAR = 1, IN_SIGHT = 2; // a watched element's state
// At low detail, a fill within this many levels (of 255) of the one shown on every RGB channel is not written during a
// drag: 1/16 of a channel, a step not seen between two frames on a box a few px tall (the exact fill follows once the
// sliders rest). Measured at Fit on the moons loss opened to node_budget=2000: a slider's move changes ~210 of the
// 1,685 fills, by 1-10 levels each (the largest: a box near white turning from faint orange to faint blue).
export const FILL_STEP = 16;

// A Text node's text, or a shape's fill.
function put(node, value) {
  if (node.nodeType === 3) node.nodeValue = value;
  else node.setAttribute("fill", value);
}

/** Whether fills `a` and `b` ("#rrggbb") differ by FILL_STEP or less on every channel (any other string: only if equal). */
export function looksAlike(a, b) {
  if (a === b) return true;
  if (!a || !b || a.length !== 7 || b.length !== 7 || a[0] !== "#" || b[0] !== "#") return false;
  for (let k = 1; k < 7; k += 2) {
    const x = parseInt(a.slice(k, k + 2), 16), y = parseInt(b.slice(k, k + 2), 16);
    if (!(Math.abs(x - y) <= FILL_STEP)) return false;
  }
  return true;
}

/**
 * Whether the bounding box starting at `bounds[j]` ([x0, y0, x1, y1], as watched boxes and pending edges keep them)
 * meets rectangle `r` (the same form, user units).
 * @param {ArrayLike<number>} bounds
 * @param {number} j
 * @param {ArrayLike<number>} r
 * @returns {boolean}
 */
export function meets(bounds, j, r) {
  return bounds[j] <= r[2] && bounds[j + 2] >= r[0] && bounds[j + 1] <= r[3] && bounds[j + 3] >= r[1];
}

/** The rectangle [left, top, right, bottom] of client px `r` grown by `m`, in the user units of matrix `u`
 * (client px -> user units: an SVGMatrix, which has no transformPoint in Chromium). */
function userRect(u, r, m) {
  const x0 = r.left - m, y0 = r.top - m, x1 = r.right + m, y1 = r.bottom + m;
  const xs = [x0, x1, x0, x1].map((x, k) => u.a * x + u.c * (k < 2 ? y0 : y1) + u.e);
  const ys = [x0, x1, x0, x1].map((x, k) => u.b * x + u.d * (k < 2 ? y0 : y1) + u.f);
  return [Math.min(...xs), Math.min(...ys), Math.max(...xs), Math.max(...ys)];
}

export class LazyTexts {
  /** `root`: the graph's scroll box (what is in its sight counts, and where data-numbers is set). */
  constructor(root) {
    this.root = root;
    this.pending = new Map(); // Text node -> the text it should show
    this.hidden = new Set(); // Text nodes whose box is out of sight
    this.textsOf = new Map(); // box g -> its live Text nodes
    this.watched = []; // the boxes and edges whose sight is tracked, in watch() order
    this.state = new Uint8Array(0); // per watched element: FAR, NEAR or IN_SIGHT (all in sight until look())
    this.bounds = null; // per watched element: its bounding box in user units (x0, y0, x1, y1), once measured
    this.cancel = null; // cancels the scheduled quiet wait or idle chunk, while one is
    this.deferred = false; // this frame deferred a write (endFrame() schedules it)
    this.fillsWaiting = false; // a fill may be pending (the next idle chunk writes every pending fill)
    this.low = false; // the boxes draw no text (graph/zoom.js's low detail): every text is written as if out of sight
    this.rects = null; // the last look()'s sight and near rectangles, in user units
    this.onNear = null; // (near, sight) => void: called by look() before it sets what is painted (graph/pending.js)
    this.onFocus = (event) => this.focused(event.target);
    this.onScroll = () => this.look();
    if (root) {
      root.addEventListener("focusin", this.onFocus);
      root.addEventListener("scroll", this.onScroll, { passive: true });
      root.setAttribute("data-numbers", "current");
    }
  }

  /** Watch box or edge `g`; a box's live numbers are the Text nodes (and shape) `texts` (written through write()). */
  watch(g, texts = []) {
    if (!this.root) return;
    this.watched.push(g);
    if (texts.length) this.textsOf.set(g, texts);
  }

  /** Watch edges `gs` put in the picture after it was bound (graph/pending.js), whose bounding boxes in user units
   * are `boxes` (4 numbers each): each is painted if the last look() saw it near sight, else culled until a look() does. */
  watchMore(gs, boxes) {
    if (!this.root || !gs.length) return;
    const n = this.watched.length, m = gs.length;
    for (const g of gs) this.watched.push(g);
    const state = new Uint8Array(n + m);
    state.set(this.state.subarray(0, n));
    this.state = state;
    if (this.bounds) {
      const bounds = new Float64Array(4 * (n + m));
      bounds.set(this.bounds.subarray(0, 4 * n));
      bounds.set(boxes, 4 * n);
      this.bounds = bounds;
    }
    for (let k = n; k < n + m; k++) {
      const s = this.bounds && this.rects ? this.stateOf(4 * k) : FAR;
      state[k] = s;
      if (s === FAR) this.watched[k].classList.add("mgw-culled");
    }
  }

  /** Show `text` (a Text node's text, or a shape's fill) in `node` now if its box is in sight (or `now`), else when it
   * comes into sight or the page is idle (once endFrame() was called). At low detail a text is shown in the frame only
   * if `now`, and a fill (even `now`: the output's) only when it looks unlike the one shown (looksAlike). */
  write(node, text, now = false) {
    const isText = node.nodeType === 3;
    const later = this.low && (isText ? !now : looksAlike(/** @type {Element} */ (node).getAttribute("fill"), text));
    if ((!now && this.hidden.has(node)) || later) {
      if (!this.pending.size) this.mark("pending");
      this.pending.set(node, text);
      this.deferred = true;
      if (!isText) this.fillsWaiting = true;
    } else {
      put(node, text);
      if (this.pending.size && this.pending.delete(node) && !this.pending.size) this.mark("current");
    }
  }

  /** A frame's writes are done: restart the quiet wait if any of them was deferred (one clock read per frame). */
  endFrame() {
    if (!this.deferred) return;
    this.deferred = false;
    this.schedule();
  }

  /** Each watched element's bounding box in user units (the picture is in the page: Graphviz's layout is final). */
  measure() {
    const n = this.watched.length;
    const bounds = new Float64Array(4 * n);
    for (let k = 0; k < n; k++) {
      const b = this.watched[k].getBBox();
      bounds.set([b.x, b.y, b.x + b.width, b.y + b.height], 4 * k);
    }
    this.bounds = bounds;
    if (this.state.length !== n) this.state = new Uint8Array(n).fill(IN_SIGHT);
  }

  /**
   * Every box and edge is watched (the picture is bound, before it goes in): when the graph box is in the page and has
   * a size, they all start out of sight (culled, their numbers written later) and the first look() paints those near
   * sight, so that inserting the picture styles and lays out the texts in sight only, not every text of it (most of
   * that cost: the moons loss with 1,684 boxes drawn has 5,700 texts). A graph box not shown yet keeps them painted.
   */
  start() {
    const root = this.root;
    const n = this.watched.length;
    this.state = new Uint8Array(n).fill(IN_SIGHT);
    if (!root || !root.isConnected || !root.clientWidth) return;
    for (let k = 0; k < n; k++) this.become(k, FAR);
  }

  /** Where the scroll box's visible area is now: paint what is near it, write the numbers that came in sight.
   * Called on scroll, zoom, resize and a new picture, before the frame is painted. */
  look() {
    const root = this.root;
    if (!root || !this.watched.length || !this.watched[0].isConnected || !root.clientWidth) return;
    const ctm = /** @type {SVGGraphicsElement} */ (this.watched[0]).getScreenCTM();
    if (!ctm) return;
    if (!this.bounds) this.measure();
    const r = root.getBoundingClientRect();
    const area = { left: r.left + root.clientLeft, top: r.top + root.clientTop };
    const v = { ...area, right: area.left + root.clientWidth, bottom: area.top + root.clientHeight };
    const inverse = ctm.inverse();
    const near = userRect(inverse, v, Math.max(NEAR_MIN_PX, root.clientWidth / 2, root.clientHeight / 2));
    this.rects = { sight: userRect(inverse, v, SIGHT_PX), near };
    if (this.onNear) this.onNear(near, this.rects.sight); // the edges not in yet: those in sight now, near ones soon
    for (let k = 0; k < this.watched.length; k++) {
      const s = this.stateOf(4 * k);
      if (s !== this.state[k]) this.become(k, s);
    }
  }

  /** The state the last look() gives the watched element whose bounding box starts at `this.bounds[j]`. */
  stateOf(j) {
    const b = this.bounds, { sight, near } = this.rects;
    if (!meets(b, j, near)) return FAR;
    return meets(b, j, sight) ? IN_SIGHT : NEAR;
  }

  /** Watched element k goes to state `s`: its numbers written before it is painted again, painted or not. */
  become(k, s) {
    const g = this.watched[k];
    const was = this.state[k];
    this.state[k] = s;
    const texts = this.textsOf.get(g);
    if (texts) {
      for (const node of texts) {
        if (s === IN_SIGHT) this.hidden.delete(node);
        else this.hidden.add(node);
      }
      if (s === IN_SIGHT || was === FAR) this.flushBox(g);
    }
    if (s === FAR) g.classList.add("mgw-culled");
    else if (was === FAR) g.classList.remove("mgw-culled");
  }

  /** The boxes draw their text (`low` false) or not (graph/zoom.js's level of detail): not drawn, texts are written
   * as those out of sight are; drawn again, those of the boxes in sight are written at once. */
  setDetail(low) {
    if (low === this.low) return;
    this.low = low;
    if (!low) for (let k = 0; k < this.watched.length; k++) if (this.state[k] === IN_SIGHT) this.flushBox(this.watched[k]);
  }

  /** `target` got focus: if it is a watched box, its numbers are written and it is painted. */
  focused(target) {
    const k = this.watched.indexOf(target);
    if (k >= 0 && this.state[k] === FAR) this.become(k, NEAR);
    else this.flushBox(target);
  }

  flushBox(g) {
    const texts = this.pending.size ? this.textsOf.get(g) : null;
    if (!texts) return;
    for (const node of texts) {
      if (this.pending.has(node)) {
        put(node, this.pending.get(node));
        this.pending.delete(node);
      }
    }
    if (!this.pending.size) this.mark("current");
  }

  /** Write every pending number now (before the picture is read, e.g. exported). */
  flush() {
    for (const [node, text] of this.pending) put(node, text);
    this.pending.clear();
    this.mark("current");
  }

  // Out-of-sight numbers wait until the numbers have been still for QUIET_MS (a slider drag paints a frame per
  // input: texts written between two frames would be laid out in the next one, costing the drag what it saved),
  // then go out CHUNK texts per idle period (each chunk's layout lands in its own frame).
  schedule() {
    this.lastWrite = performance.now();
    if (this.cancel !== null) return;
    const wait = (ms) => {
      const timer = setTimeout(quiet, ms);
      this.cancel = () => clearTimeout(timer);
    };
    const quiet = () => {
      const left = this.lastWrite + QUIET_MS - performance.now();
      if (left > 1) wait(left);
      else this.cancel = whenIdle(chunk, ...IDLE);
    };
    const chunk = () => {
      this.cancel = null;
      if (performance.now() - this.lastWrite < QUIET_MS) return this.schedule(); // numbers moved meanwhile
      if (this.fillsWaiting) { // fills cost no layout, and each chunk that changes one re-records the whole SVG
        this.fillsWaiting = false;
        for (const [node, fill] of this.pending) {
          if (node.nodeType === 3) continue;
          put(node, fill);
          this.pending.delete(node);
        }
      }
      let count = 0;
      for (const [node, text] of this.pending) {
        put(node, text);
        this.pending.delete(node);
        if (++count === CHUNK) break;
      }
      if (this.pending.size) this.cancel = whenIdle(chunk, ...IDLE);
      else this.mark("current");
      return undefined;
    };
    wait(QUIET_MS);
  }

  mark(state) {
    if (this.root) this.root.setAttribute("data-numbers", state);
  }

  /** Stop watching (the picture was replaced: what is pending is dropped with it). */
  release() {
    this.pending.clear();
    if (this.cancel !== null) this.cancel();
    this.cancel = null;
    if (this.root) {
      this.root.removeEventListener("focusin", this.onFocus);
      this.root.removeEventListener("scroll", this.onScroll);
    }
  }
}
