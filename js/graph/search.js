// @ts-check
// Search and trace in the picture: the search box of the toolbar (find a node by label, dotted name, op or
// #id: js/core/search.js), and the marks both put on the bound picture: `mgw-match` on the found node's box,
// `mgw-path` on the boxes, op circles and edges of a traced path (js/core/trace.js). A node hidden in a fold box
// marks that box. Marks survive a new layout (`apply` binds them again). Text only through dom.js's h().
//
// Keys: in the search box, Enter = next match, Shift+Enter = previous, Esc = clear; Esc anywhere in the view
// clears the marks. The view hands in what this file cannot know: `reveal(i)`, which makes node i drawn if the
// view can open the fold boxes holding it (resolves true when the picture changed, false when it cannot), and
// `inspect(i)`.

import { h } from "../ui/dom.js";
import { plural, thousands } from "../picture/format.js";
import { findStatus, indexOf, parseQuery, search } from "../core/search.js";
import { inputsTrace, pathToOutput } from "../core/trace.js";

/** The marks of one picture: which element carries `mgw-match` / `mgw-path`, found from node ids. */
export class Marks {
  constructor() {
    this.match = -1; // the node found by search, or -1
    this.path = null; // { nodes: Int32Array, anchor } of the traced path, or null
    this.marked = []; // [element, class] set on the current picture
  }

  get active() {
    return this.match >= 0 || this.path !== null;
  }

  /** Mark the current state on `bound` (graph/bound-picture.js's BoundPicture); returns the match's element, if any. */
  apply(bound, tape) {
    for (const [el, cls] of this.marked) el.classList.remove(cls);
    this.marked = [];
    if (!bound) return null;
    const add = (el, cls) => {
      if (el && !el.classList.contains(cls)) {
        el.classList.add(cls);
        this.marked.push([el, cls]);
      }
    };
    if (this.path) this.markPath(bound, tape, add);
    if (this.match < 0) return null;
    const el = elementOf(bound, this.match);
    add(el, "mgw-match");
    return el;
  }

  markPath(bound, tape, add) {
    const { nodes, anchor } = this.path;
    const { groupOf, opGroupOf, edges } = bound.outline;
    const inPath = new Set(nodes);
    if (anchor >= 0) inPath.add(anchor); // the node traced from: its own edges belong to the path
    const unit = (i) => (bound.shownSet.has(i) ? `n${i}` : foldId(bound, i));
    for (const i of nodes) add(elementOf(bound, i), "mgw-path");
    const ops = []; // the path's op circles, by node
    const ids = []; // the path's edges, by id (some of them none of the picture's)
    for (const i of inPath) {
      const head = unit(i);
      if (!head) continue;
      if (groupOf.has(i) && opGroupOf.has(i)) {
        ops.push(i);
        ids.push(`e_${head}_op_${head}`);
      }
      for (let e = tape.inputStart[i]; e < tape.inputStart[i + 1]; e++) {
        const j = tape.inputs[e];
        const tail = inPath.has(j) ? unit(j) : null;
        if (!tail || tail === head) continue;
        ids.push(`e_${tail}_${head}_op`, `e_${tail}_${head}`);
      }
    }
    // Those of a large picture not in the page yet go in together, one parse (graph/pending.js): one at a time, the
    // 2,000-box chain's 6,000 took the trace 2.7 s.
    opGroupOf.bring(ops);
    edges.bring(ids);
    for (const i of ops) add(opGroupOf.get(i), "mgw-path");
    for (const id of ids) add(edges.get(id), "mgw-path");
  }
}

/** The id of the fold box drawn for hidden node i ("fold<k>"), or null. */
function foldId(bound, i) {
  const k = bound.outline.foldOf[i];
  return k >= 0 && bound.outline.foldGroups[k] ? `fold${k}` : null;
}

/** The `g` that stands for node i in the picture: its own box, or the fold box holding it (null: neither). */
export function elementOf(bound, i) {
  const own = bound.outline.groupOf.get(i);
  if (own) return own;
  const k = bound.outline.foldOf[i];
  return k >= 0 ? bound.outline.foldGroups[k] || null : null;
}

export class Search {
  /**
   * `view` gives `tape`, `names`, `output`, `picture` (its `bound`), `reveal(i)` (a Promise of true when the
   * picture now draws node i) and `inspect(i)`.
   */
  constructor(view) {
    this.view = view;
    this.index = null; // js/core/search.js's index, built on focus or first use
    this.query = "";
    /** @type {Int32Array} */
    this.results = new Int32Array(0);
    this.at = -1; // the position in `results` shown last
    this.marks = new Marks();
    this.traced = null; // { direction, i } of the last trace, redone when the output changes
    this.box = h("input", {
      type: "search", className: "mgw-search", "data-role": "search", placeholder: "Find a node",
      "aria-label": "find a node by label, dotted name (layers.0.neurons.3.w2), op (tanh) or #id; Enter: next match",
      "data-lm-suppress-shortcuts": "true", autocomplete: "off", spellcheck: "false",
    });
    const button = (action, text, label, step) => {
      const b = h("button", { type: "button", className: "mgw-button mgw-search-step", "data-action": action, "aria-label": label, text });
      b.title = label;
      b.addEventListener("click", () => this.step(step));
      return b;
    };
    this.status = h("span", { className: "mgw-search-status", "data-role": "search-status", role: "status" });
    this.el = h("span", { className: "mgw-search-group", role: "search" }, this.box,
      button("search-prev", "\u2191", "previous match (Shift+Enter)", -1),
      button("search-next", "\u2193", "next match (Enter)", +1), this.status);
    // The index (~50-80 ms for 65,818 nodes) is built when the box gets focus, so no keystroke waits for it.
    this.box.addEventListener("focus", () => {
      if (!this.index) this.index = indexOf(this.view.tape);
    });
    this.box.addEventListener("input", () => this.find());
    this.box.addEventListener("keydown", (event) => {
      if (event.key === "Enter") {
        this.step(event.shiftKey ? -1 : +1);
        event.preventDefault();
      } else if (event.key === "Escape" && (this.box.value || this.marks.active)) {
        this.clear();
        event.preventDefault();
        event.stopPropagation();
      }
    });
  }

  /** The typed text changed: find its matches (nothing is revealed until Enter). */
  find() {
    const text = this.box.value;
    if (!this.index) this.index = indexOf(this.view.tape);
    this.query = text;
    this.results = search(this.index, parseQuery(text));
    this.at = -1;
    this.say(findStatus(text, this.results.length));
  }

  /** Show the next (`+1`) or previous (`-1`) match. */
  async step(direction) {
    if (this.box.value !== this.query || !this.index) this.find();
    const n = this.results.length;
    if (n === 0) return;
    this.at = this.at < 0 ? (direction > 0 ? 0 : n - 1) : (this.at + direction + n) % n;
    await this.show(this.results[this.at], `Match ${thousands(this.at + 1)} of ${thousands(n)}`);
  }

  /** Mark node i (revealing it first when the view can open the boxes holding it) and scroll it into view. */
  async show(i, prefix) {
    const { names } = this.view;
    this.marks.match = i;
    let revealed = false;
    try {
      revealed = await this.view.reveal(i);
    } catch {
      revealed = false;
    }
    if (this.marks.match !== i) return; // a newer search or Esc came first
    const bound = this.view.picture.bound;
    const el = this.marks.apply(bound, this.view.tape);
    const name = names.describe(i);
    const scope = this.view.tape.scopes[i];
    const where = scope ? ` in ${scope}` : "";
    if (bound && bound.outline.groupOf.has(i)) {
      this.say(`${prefix}: ${name}${where}${revealed ? " (its fold boxes opened)" : ""}.`);
    } else if (el) {
      const picked = bound.targets.get(el);
      const title = picked && picked.fold ? picked.fold.title : "a fold box";
      this.say(`${prefix}: ${name}${where} is folded inside the box \u201c${title}\u201d (marked).`);
    } else {
      this.say(`${prefix}: ${name}${where} is not drawn in this picture.`);
    }
    if (el) { // the match in sight in the graph box (a reveal's layout put it there already), the box in the page
      this.view.picture.zoom.settle(el);
      this.view.picture.el.scrollIntoView({ block: "nearest", inline: "nearest" });
    }
    this.view.inspect(i);
  }

  /** Mark the nodes node `i` depends on ("up") or its path to the differentiated output ("down"). */
  trace(direction, i) {
    const { tape, names, output } = this.view;
    this.traced = { direction, i };
    const nodes = direction === "up" ? inputsTrace(tape, i) : pathToOutput(tape, i, output);
    this.marks.path = { nodes, anchor: direction === "up" ? i : -1 };
    const bound = this.view.picture.bound;
    this.marks.apply(bound, tape);
    const drawn = bound ? nodes.filter((j) => bound.outline.groupOf.has(j)).length : 0;
    const hidden = nodes.length - drawn;
    const boxes = bound ? new Set(Array.from(nodes, (j) => bound.outline.foldOf[j]).filter((k) => k >= 0)).size : 0;
    const folded = hidden ? ` (${thousands(drawn)} drawn, ${thousands(hidden)} inside ${plural(boxes, "marked fold box")})` : "";
    const count = plural(nodes.length, "node");
    if (direction === "up") {
      this.say(nodes.length ? `${names.describe(i)} depends on ${count}${folded}. Esc clears.`
        : `${names.describe(i)} is a leaf: it depends on nothing.`);
    } else {
      this.say(nodes.length ? `The gradient of ${names.describe(output)} reaches ${names.describe(i)} through ${count}${folded}. Esc clears.`
        : `${names.describe(output)} does not depend on ${names.describe(i)}: no gradient flows to it (its grad is 0).`);
    }
  }

  /** The differentiated output changed: trace the last traced node again for it (nothing when no path is shown). */
  retrace() {
    if (this.marks.path && this.traced) this.trace(this.traced.direction, this.traced.i);
  }

  /** A new picture is bound: mark it again. */
  rebind() {
    this.marks.apply(this.view.picture.bound, this.view.tape);
  }

  /** Esc: no match, no path, an empty box. */
  clear() {
    this.box.value = "";
    this.query = "";
    this.results = new Int32Array(0);
    this.at = -1;
    this.marks.match = -1;
    this.marks.path = null;
    this.traced = null;
    this.marks.apply(this.view.picture.bound, this.view.tape);
    this.say("");
  }

  say(text) {
    this.status.textContent = text;
  }
}
