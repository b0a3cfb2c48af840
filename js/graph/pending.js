// @ts-check
// The edges and op circles of a new picture that are not in it yet (issue 22: a gesture costs what is in sight). A
// large picture's edges are most of its elements (the moons loss with 1,684 boxes drawn: 6,653 edges, 20,000 of its
// 37,500 elements), and its op circles a fifth of the rest; the page parsed, styled and laid out every one of them
// before the picture was painted. So the picture goes in without them (a composed picture's edges come as numbers,
// js/picture/edges.js EdgeTable, and their markup is written here only then; js/ui/svg.js splitEdges takes another
// large picture's out, splitOps the op circles) and each is parsed and put in when it is first needed:
// - it comes into sight (graph/visible.js look()'s "sight", a box's margin around the view), in one parse for all that
//   did, before the frame is painted;
// - it comes near sight (look()'s "near", as the boxes painted: so it is there before it scrolls in), when the page is
//   idle, SLICE at a time: a long jump (a focus, a search, a click on the map) brought up to ~2,000 edges near at
//   once, all parsed in its frame (docs/benchmarks.md: the worst jump frame at node_budget=2000, 72-76 -> 56 ms);
// - something reads it by id (a traced path's or the stepper's mark: get());
// - something reads the whole picture (an export, the edge raster at low detail: all()).
// An edge goes in before the first box (Graphviz draws the edges first, under the boxes), an op circle after the last
// (it overlaps no box), painted or culled as visible.js watchMore() says. Its place is the bounding box of its
// shapes' numbers (shapeBounds, edgeBounds), in user units. Neither is focusable: Tab, and a box's accessible name,
// never need one.

import { parseGroups, shapeBounds } from "../ui/svg.js";
import { edgeBounds, edgeMarkup } from "../picture/edges.js";
import { whenIdle } from "../ui/idle.js";
import { meets } from "./visible.js";

/** @import { EdgeTable } from "../picture/edges.js" */

const SLICE = 250; // groups near sight put in per idle callback (2,000 edges of the moons loss took ~140 ms under load: ~18 ms)
const IDLE_MS = 2000; // at the latest this long after a look when the page is never idle (a drag; scrolling puts them in anyway)

/**
 * Groups not in the picture: how many, each one's id and markup (asked once, as it goes in), and their bounding
 * boxes, 4 numbers [x0, y0, x1, y1] each, in user units.
 * @typedef {{count: number, id: (k: number) => string | null, markup: (k: number) => string, bounds: Float64Array}} Groups
 */

/**
 * Groups given as their markup (splitEdges' or splitOps'): each text is let go once it is in.
 * @param {string[]} texts
 * @returns {Groups}
 */
export function textGroups(texts) {
  const bounds = new Float64Array(4 * texts.length);
  texts.forEach((text, k) => bounds.set(shapeBounds(text) || [0, 0, 0, 0], 4 * k));
  return {
    count: texts.length,
    id: (k) => /^<g id="([^"]*)"/.exec(texts[k])?.[1] ?? null,
    markup: (k) => {
      const text = texts[k];
      texts[k] = "";
      return text;
    },
    bounds,
  };
}

/**
 * A composed picture's edges, given as numbers (js/picture/edges.js EdgeTable): each one's markup written as it goes in,
 * as leanSVG would have left it (the moons loss opened at node_budget=2000: 6,653 edges, of which a view brings ~100-400
 * near sight).
 * @param {EdgeTable} table
 * @returns {Groups}
 */
export function tableGroups(table) {
  /** @type {string[]} */
  const buf = [];
  return {
    count: table.ids.length,
    id: (k) => table.ids[k],
    markup: (k) => {
      buf.length = 0;
      edgeMarkup(buf, table, k, true);
      return buf.join("");
    },
    bounds: edgeBounds(table),
  };
}

export class PendingGroups {
  /**
   * `groups`: the groups not in yet; `graph`: the picture's `<g class="graph">`, into which they go (before its first
   * box when `first`, else after its last element); `added(groups, bounds)`: told of the groups about to go in and
   * their bounding boxes (4 numbers each).
   * @param {Groups} groups
   * @param {Element | null} graph
   * @param {(groups: Element[], bounds: Float64Array) => void} added
   * @param {{first?: boolean}} [where]
   */
  constructor(groups, graph, added, { first = false } = {}) {
    this.graph = graph;
    this.added = added;
    this.first = first;
    /** @type {Element | null} */
    this.firstBox = null; // the picture's first box, before which edges go (when `first`)
    this.groups = groups;
    const n = graph ? groups.count : 0;
    this.out = new Uint8Array(n).fill(1); // 1 while group k is still out of the picture
    this.left = n;
    /** @type {(() => void) | null} */
    this.cancelSoon = null; // the idle callback putting groups near sight in (putSoon)
    this.bounds = groups.bounds;
    /** @type {Map<string, number>} */
    this.index = new Map();
    for (let k = 0; k < n; k++) {
      const id = groups.id(k);
      if (id) this.index.set(id, k);
    }
  }

  /** Put in now every group still out whose bounding box meets `sight`, and those that meet `near` (around it) when
   * the page is idle (a later look's replace them). Rectangles are [x0, y0, x1, y1] in user units.
   * @param {number[]} near
   * @param {number[]} [sight] */
  near(near, sight = near) {
    this.stopSoon();
    if (!this.left) return;
    const b = this.bounds;
    /** @type {number[]} */
    const now = [];
    /** @type {number[]} */
    const soon = [];
    for (let k = 0; k < this.out.length; k++) {
      if (this.out[k] && meets(b, 4 * k, near)) (meets(b, 4 * k, sight) ? now : soon).push(k);
    }
    this.put(now);
    if (soon.length) this.putSoon(soon);
  }

  /** Put groups `ks` in when the page is idle, SLICE at a time (those put in meanwhile are passed over).
   * @param {number[]} ks */
  putSoon(ks) {
    const step = () => {
      this.cancelSoon = null;
      this.put(ks.splice(0, SLICE).filter((k) => this.out[k]));
      if (ks.length) this.cancelSoon = whenIdle(step, IDLE_MS, 0);
    };
    this.cancelSoon = whenIdle(step, IDLE_MS, 0);
  }

  /** Drop the groups waiting for the page to be idle (a new look, or the picture replaced). */
  stopSoon() {
    if (this.cancelSoon) this.cancelSoon();
    this.cancelSoon = null;
  }

  /** Whether the group with id `id` is still out of the picture (get() puts it in).
   * @param {string} id */
  has(id) {
    const k = this.index.get(id);
    return k !== undefined && !!this.out[k];
  }

  /** The group with id `id`, put in now if it was still out; undefined when none is out with that id.
   * @param {string} id */
  get(id) {
    const k = this.index.get(id);
    if (k === undefined || !this.out[k]) return undefined;
    return this.put([k])[0];
  }

  /** Put in now, in one parse, every group still out whose id is one of `ids` (a traced path's marks).
   * @param {Iterable<string>} ids */
  bring(ids) {
    /** @type {Set<number>} */
    const ks = new Set();
    for (const id of ids) {
      const k = this.index.get(id);
      if (k !== undefined && this.out[k]) ks.add(k);
    }
    this.put([...ks]);
  }

  /** Put in every group still out (before the whole picture is read). */
  all() {
    this.stopSoon();
    if (!this.left) return;
    /** @type {number[]} */
    const found = [];
    for (let k = 0; k < this.out.length; k++) if (this.out[k]) found.push(k);
    this.put(found);
  }

  /** Let go of what the groups were made from, once every one is in (a composed picture's edge table, the texts). */
  forget() {
    this.groups = textGroups([]);
    this.bounds = this.groups.bounds;
    this.index.clear();
  }

  /** Parse groups `ks`, tell `added` (which culls those out of sight), put them in; returns their elements.
   * @param {number[]} ks */
  put(ks) {
    if (!ks.length || !this.graph) return [];
    const groups = parseGroups(ks.map((k) => this.groups.markup(k)));
    const bounds = new Float64Array(4 * groups.length);
    ks.forEach((k, j) => {
      this.out[k] = 0;
      bounds.set(this.bounds.subarray(4 * k, 4 * k + 4), 4 * j);
    });
    this.left -= ks.length;
    if (!this.left) this.forget(); // every group in: their text or numbers are no longer needed
    this.added(groups, bounds);
    const fragment = document.createDocumentFragment();
    fragment.append(...groups);
    if (!this.first) this.graph.append(fragment);
    else {
      // the first box, found once: edges already in come before it, and a search past them each time was quadratic
      if (!this.firstBox || this.firstBox.parentNode !== this.graph) this.firstBox = this.graph.querySelector(":scope > g.node");
      this.graph.insertBefore(fragment, this.firstBox);
    }
    return groups;
  }
}
