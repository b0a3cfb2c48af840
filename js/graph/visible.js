// @ts-check
// Numbers of boxes out of sight are written lazily. Chromium lays out every changed SVG <text> in the next frame
// (~30 us each, measured: 182 texts, 5.6 ms of layout), so a frame writes only the texts and fills of boxes in
// (or within a margin of) the picture's scroll box; the others once the numbers have been still for a while, in
// idle chunks; at once when their box scrolls into sight or gets focus (its accessible name is the text it
// shows); and on flush() before anything reads the picture (the SVG/PNG export). The graph element says which:
// data-numbers="current" | "pending" (js/host/svg-contract.md).

import { whenIdle } from "../ui/idle.js";

const MARGIN = "80px"; // about one box: a box about to scroll in is already current
const QUIET_MS = 250; // out-of-sight numbers wait until the numbers were still this long
const CHUNK = 40; // texts per idle chunk (~30 us of layout each in Chromium: ~1.2 ms per frame)
/** @type {[number, number]} */
const IDLE = [500, 16]; // whenIdle's timeout, and its timer where the browser has no idle callbacks (ms)

// A Text node's text, or a shape's fill.
function put(node, value) {
  if (node.nodeType === 3) node.nodeValue = value;
  else node.setAttribute("fill", value);
}

export class LazyTexts {
  /** `root`: the graph's scroll box (the observer's root, and where data-numbers is set). */
  constructor(root) {
    this.root = root;
    this.pending = new Map(); // Text node -> the text it should show
    this.hidden = new Set(); // Text nodes whose box is out of sight
    this.textsOf = new Map(); // box g -> its live Text nodes
    this.cancel = null; // cancels the scheduled quiet wait or idle chunk, while one is
    this.deferred = false; // this frame deferred a write (endFrame() schedules it)
    this.observer = root && typeof IntersectionObserver === "function"
      ? new IntersectionObserver((entries) => this.seen(entries), { root, rootMargin: MARGIN }) : null;
    this.onFocus = (event) => this.flushBox(event.target);
    if (root) {
      root.addEventListener("focusin", this.onFocus);
      root.setAttribute("data-numbers", "current");
    }
  }

  /** Watch box `g`, whose live numbers are the Text nodes `texts` (written through write()). */
  watch(g, texts) {
    if (!this.observer || !texts.length) return;
    this.textsOf.set(g, texts);
    this.observer.observe(g);
  }

  /** Show `text` in `node` now if its box is in sight (or `now`), else when it comes into sight or the page is
   * idle (once endFrame() was called). */
  write(node, text, now = false) {
    if (!now && this.hidden.has(node)) {
      if (!this.pending.size) this.mark("pending");
      this.pending.set(node, text);
      this.deferred = true;
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

  seen(entries) {
    for (const { target, isIntersecting } of entries) {
      const texts = this.textsOf.get(target);
      if (!texts) continue;
      for (const node of texts) {
        if (isIntersecting) this.hidden.delete(node);
        else this.hidden.add(node);
      }
      if (isIntersecting) this.flushBox(target);
    }
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
    if (this.observer) this.observer.disconnect();
    if (this.root) this.root.removeEventListener("focusin", this.onFocus);
  }
}
