// The picture: Graphviz-WASM lays out the kernel's DOT once; the SVG is bound once (element references per
// drawn node, fold box and edge); every frame paints numbers and fills in place, touching only what changed;
// a picture wider than its box is fitted to the width unless that would shrink it below MIN_FIT_SCALE.
// Every box is focusable (Tab) and Enter (or a click) picks it. The ids and classes bound here: js/svg-contract.md.

import { formatNumber, gradColor, gradScale } from "../format.js";
import { h } from "../dom.js";
import { SVG_NS, boxesById, layoutPicture, makeFocusable, textNode } from "../svg.js";

const MIN_FIT_SCALE = 0.5;
const NOT_REACHED = "\u00b7"; // a grad the stepped backward pass has not written yet

/** The picture's natural width in CSS pixels, from the SVG's width attribute ("620pt") or its viewBox. */
export function svgWidthPx(width, viewBox) {
  const m = /^\s*([0-9.]+)\s*(pt|px)?\s*$/.exec(width || "");
  if (m) return Number(m[1]) * (m[2] === "pt" ? 4 / 3 : 1);
  const box = String(viewBox || "").trim().split(/[\s,]+/).map(Number);
  return box.length === 4 && Number.isFinite(box[2]) ? box[2] : 0;
}

/** Whether a picture `natural` px wide is fitted to a box `box` px wide: only when wider, and not below `minScale`. */
export function shouldFit(natural, box, minScale = MIN_FIT_SCALE) {
  return box > 0 && natural > box && box >= natural * minScale;
}

// "data 6.0000" -> "data " + <tspan data-node data-field>6.0000</tspan>; returns the number's Text node.
function splitNumber(text, key, field) {
  const content = text.textContent;
  const cut = content.indexOf(" ");
  const caption = cut >= 0 ? content.slice(0, cut + 1) : "";
  const number = cut >= 0 ? content.slice(cut + 1) : content;
  const span = document.createElementNS(SVG_NS, "tspan");
  span.setAttribute("data-node", key);
  span.setAttribute("data-field", field);
  const node = document.createTextNode(number);
  span.append(node);
  text.replaceChildren(caption, span);
  return node;
}

/** The SVG bound once, as named parts; `view` is the kernel's description of what was drawn. */
export class BoundPicture {
  constructor(svg, view, names) {
    const byId = boxesById(svg);
    const shown = Int32Array.from(view.shown || []);
    const m = shown.length;
    this.svg = svg;
    this.palette = view.palette || null;
    this.shown = shown; // the nodes drawn as their own box; index k below is a node's place here
    this.shownSet = new Set(shown);
    this.boxes = { group: new Array(m), shape: new Array(m), data: new Array(m), grad: new Array(m) };
    this.painted = { data: [], grad: [], fill: [], reached: [], legend: [] }; // what was last written
    this.forget();
    this.legend = []; // the Text nodes of the colour legend's five marks
    this.targets = new Map(); // element -> { node } or { fold }: what a click or Enter on it picks
    // What the stepper outlines: boxes and op circles by node, fold boxes by fold index, edges by id.
    this.outline = { groupOf: new Map(), opGroupOf: new Map(), foldGroups: [], foldOf: view.fold_of || [], edges: new Map() };
    for (let k = 0; k < m; k++) this.bindNode(k, byId, names);
    for (const fold of view.folds || []) {
      const g = byId.get(fold.id) || null;
      this.outline.foldGroups.push(g);
      if (!g) continue;
      this.targets.set(g, { fold });
      makeFocusable(g, `${fold.title}, ${fold.count} nodes folded: press Enter to inspect`);
    }
    for (const g of svg.querySelectorAll("g.edge")) this.outline.edges.set(g.id, g);
    const legend = byId.get("mgw-legend");
    if (legend) {
      const texts = legend.querySelectorAll("text");
      for (let k = 1; k < texts.length && k <= 5; k++) this.legend.push(textNode(texts[k]));
    }
  }

  bindNode(k, byId, names) {
    const i = this.shown[k];
    const g = byId.get(`n${i}`);
    if (!g) throw new Error(`the picture has no box for node ${i} (n${i})`);
    const texts = g.querySelectorAll("text");
    if (texts.length !== 3) throw new Error(`node n${i} should have 3 texts (label, data, grad), it has ${texts.length}`);
    const key = names.keys[i];
    g.setAttribute("data-node", key);
    this.boxes.data[k] = splitNumber(texts[1], key, "data");
    this.boxes.grad[k] = splitNumber(texts[2], key, "grad");
    this.boxes.shape[k] = g.querySelector("polygon, path");
    this.boxes.group[k] = g;
    this.outline.groupOf.set(i, g);
    this.targets.set(g, { node: i });
    makeFocusable(g, `${names.describe(i)}: press Enter to inspect`);
    const op = byId.get(`n${i}_op`);
    if (op) {
      this.targets.set(op, { node: i });
      this.outline.opGroupOf.set(i, op);
    }
  }

  /** Forget what was painted, so that the next paint writes every number and fill again. */
  forget() {
    const m = this.shown.length;
    this.painted = { data: new Array(m).fill(""), grad: new Array(m).fill(""), fill: new Array(m).fill(""),
      reached: new Array(m).fill(""), legend: new Array(5).fill("") };
  }

  /**
   * Write the numbers and fills of one frame: `data`, `grad` (the stepper's partial grads while stepping,
   * with `reachedAt`/`step` telling which the backward pass has written), `output` (left out of the colour
   * scale: d out / d out = 1), `precision`, `colored`.
   */
  paint({ data, grad, reachedAt, step, output, precision, colored }) {
    const { boxes, painted, shown, palette } = this;
    colored = colored && !!palette;
    let scale = 0;
    if (colored) {
      const counted = (i) => !reachedAt || reachedAt[i] <= step;
      const others = [];
      for (const i of shown) if (i !== output && counted(i)) others.push(grad[i]);
      scale = gradScale(others, this.shownSet.has(output) && counted(output) ? grad[output] : null);
    }
    for (let k = 0; k < shown.length; k++) {
      const i = shown[k];
      const d = formatNumber(data[i], precision);
      if (d !== painted.data[k]) boxes.data[k].nodeValue = painted.data[k] = d;
      const reached = reachedAt === null ? "" : reachedAt[i] <= step ? "true" : "false";
      if (reached !== painted.reached[k]) {
        painted.reached[k] = reached;
        const span = boxes.grad[k].parentNode;
        if (reached) span.setAttribute("data-reached", reached);
        else span.removeAttribute("data-reached");
        boxes.group[k].classList.toggle("mgw-unreached", reached === "false");
      }
      const g = reached === "false" ? NOT_REACHED : formatNumber(grad[i], precision);
      if (g !== painted.grad[k]) boxes.grad[k].nodeValue = painted.grad[k] = g;
      if (colored && boxes.shape[k]) {
        const fill = reached === "false" ? palette.zero : gradColor(grad[i], scale, palette);
        if (fill !== painted.fill[k]) boxes.shape[k].setAttribute("fill", (painted.fill[k] = fill));
      }
    }
    if (colored && this.legend.length === 5) {
      const marks = [-scale, -scale / 4, 0, scale / 4, scale];
      for (let k = 0; k < 5; k++) {
        const text = formatNumber(marks[k], precision);
        if (text !== painted.legend[k]) this.legend[k].nodeValue = painted.legend[k] = text;
      }
    }
  }
}

/** The graph box: lays out, binds, fits, and tells `onPick({ node } | { fold })` which box was picked. */
export class Picture {
  constructor(root, names, onPick) {
    this.root = root;
    this.names = names;
    this.onPick = onPick;
    this.bound = null;
    this.generation = 0;
    this.fit = { on: false, chosen: false }; // chosen: the user pressed Fit, so no more automatic fitting
    this.fitButton = h("button", {
      type: "button", className: "mgw-button", "data-role": "fit", "aria-pressed": "false", text: "Fit width",
    });
    this.fitButton.addEventListener("click", () => this.toggleFit());
    this.el = h("div", { className: "mgw-graph", "data-role": "graph", "data-lm-suppress-shortcuts": "true" },
      h("div", { className: "mgw-placeholder", text: "Laying out the graph\u2026" }));
    this.el.addEventListener("click", (event) => this.pick(event.target));
    this.el.addEventListener("keydown", (event) => {
      if ((event.key === "Enter" || event.key === " ") && this.bound && this.bound.targets.has(event.target)) {
        this.pick(event.target);
        event.preventDefault();
      }
    });
    this.resizeObserver = null;
    if (typeof ResizeObserver !== "undefined") {
      this.resizeObserver = new ResizeObserver(() => this.autoFit());
      this.resizeObserver.observe(this.el);
    }
  }

  /** Lay out `dot` and bind it; resolves true when this picture is now shown (false: a newer layout won). */
  async layout(dot, view) {
    const generation = ++this.generation;
    try {
      const svg = await layoutPicture(dot);
      if (generation !== this.generation) return false;
      this.bound = new BoundPicture(svg, view, this.names);
      this.el.replaceChildren(svg);
    } catch (err) {
      if (generation !== this.generation) return false;
      throw err;
    }
    this.autoFit();
    this.applyFit();
    return true;
  }

  pick(target) {
    if (!this.bound) return;
    for (let el = target; el && el !== this.el; el = el.parentNode) {
      const picked = this.bound.targets.get(el);
      if (picked) {
        this.onPick(picked);
        return;
      }
    }
  }

  toggleFit() {
    this.fit.chosen = true;
    this.fit.on = !this.fit.on;
    this.applyFit();
  }

  /** Fit a picture wider than its box to the width (until the user chooses with the Fit button). */
  autoFit() {
    if (this.fit.chosen || !this.bound) return;
    const svg = this.bound.svg;
    const fit = shouldFit(svgWidthPx(svg.getAttribute("width"), svg.getAttribute("viewBox")), this.el.clientWidth);
    if (fit !== this.fit.on) {
      this.fit.on = fit;
      this.applyFit();
    }
  }

  applyFit() {
    this.fitButton.setAttribute("aria-pressed", String(this.fit.on));
    this.root.classList.toggle("mgw-fit", this.fit.on);
  }

  destroy() {
    this.generation += 1;
    if (this.resizeObserver) this.resizeObserver.disconnect();
    this.bound = null;
  }
}
