// @ts-check
// The inspector panel: one node (op, inputs as links, exact data and grad, scope, "differentiate this
// node"), a fold box (what it holds), or the numerical gradient check (gradcheck-panel.js).

import { h } from "../ui/dom.js";
import { plural, pyRepr } from "../picture/format.js";
import { notReached } from "../picture/dot.js";
import { GradcheckPanel } from "./gradcheck-panel.js";
import { inputsOf, opOf } from "../core/spec.js";
import { capitalize } from "../picture/text.js";

/**
 * What the inspector says of an opened fold box (a cluster): what it holds, and where it is drawn.
 * @param {{ title: string, note?: string, count: number }} cluster
 * @returns {string[]}
 */
export function openedWords(cluster) {
  return [capitalize(cluster.note || `${cluster.title}: ${plural(cluster.count, "node")}`) + ".",
    "Opened: what it holds is drawn inside the dashed frame; Collapse closes it again."];
}

/**
 * What the inspector says of a closed fold box, a sentence each: what it holds (its note from the fold rules,
 * micrograd_widget/picture/fold_rules.py: "Neuron layers.0.neurons.0: 44 nodes made inside it."), why it is folded, and how to
 * open it. `nodes`: the graph's node count; `budget`: the node budget (null: unknown); `canOpen`: the view can open
 * the box (else only a larger node_budget draws it).
 * @param {{ title: string, note?: string, count: number }} fold
 * @param {{ nodes: number, budget: number | null, canOpen: boolean }} graph
 * @returns {string[]}
 */
export function foldWords(fold, { nodes, budget, canOpen }) {
  const what = capitalize(fold.note || `${fold.title}: ${plural(fold.count, "node")}`) + ".";
  const limit = budget ? ` and the picture draws at most ${plural(budget, "box")} (node_budget)` : "";
  const why = `Folded to keep the picture readable: the graph has ${plural(nodes, "node")}${limit}, so parts of it are `
    + "drawn as one box each.";
  const how = canOpen ? "Click Expand (or double-click the box) to open it in place; Collapse closes it again."
    : "Raise node_budget to draw more of it.";
  return [what, why, how];
}

export class Inspector {
  /** `view` is the widget view: `names`, `data`, `grad`, `stepper`, `output`, `mode`, `folding`, `picture`,
   * `chooseOutput(i)`, `trace(direction, i)`, and `drawing` (graph/drawing.js: `fold(action, key)`, `prefetchExpand(key)`). */
  constructor(view) {
    this.view = view;
    this.node = null; // the node shown, or null
    this.box = null; // the fold box shown, closed or opened: { key, id } (id: a closed box of the picture shown)
    this.fields = null; // its live fields: { data, grad, of }
    this.gradcheck = null;
    this.el = h("div", { className: "mgw-inspector", "data-role": "inspector", hidden: true });
  }

  head(title) {
    const close = h("button", { type: "button", className: "mgw-close", "aria-label": "close the inspector", text: "\u00d7" });
    close.addEventListener("click", () => this.close());
    return h("div", { className: "mgw-inspector-head" }, h("strong", { "data-field": "name", text: title }), close);
  }

  /** Show node i. */
  inspect(i) {
    this.dropGradcheck();
    this.node = i;
    this.box = null;
    const { names, output } = this.view;
    const tape = names.tape;
    const op = opOf(tape, i);
    const ins = inputsOf(tape, i);
    const opText = ins.length === 0 ? "leaf (no op)"
      : op ? `${tape.symbols[i]} (${op.name}${op.builtin ? "" : ", user-defined"})` : `${tape.symbols[i] || "?"} (built by hand)`;
    const inputs = h("span", { className: "mgw-inputs" });
    if (ins.length === 0) inputs.append("none");
    ins.forEach((j, n) => {
      const link = h("button", { type: "button", className: "mgw-link", "data-input": j, text: names.describe(j) });
      link.addEventListener("click", () => this.inspect(j));
      if (n) inputs.append(", ");
      inputs.append(link);
    });
    this.fields = {
      data: h("span", { "data-field": "data" }),
      grad: h("span", { "data-field": "grad" }),
      of: h("span", { className: "mgw-note", "data-role": "grad-of" }),
    };
    /** @type {[string, Node | string][]} */
    const rows = [
      ["op", h("span", { "data-field": "op", text: opText })],
      ["inputs", inputs],
      ["data", this.fields.data],
      ["grad", this.fields.grad],
      ["", this.fields.of],
    ];
    if (tape.scopes[i]) rows.push(["scope", h("span", { "data-field": "scope", text: tape.scopes[i] })]);
    const list = h("dl", {});
    for (const [name, value] of rows) list.append(h("dt", { text: name }), h("dd", {}, value));
    const actions = h("div", { className: "mgw-actions" });
    if (i !== output) {
      const diff = h("button", { type: "button", className: "mgw-button", "data-role": "make-output", text: "Differentiate this node" });
      diff.addEventListener("click", () => {
        this.view.chooseOutput(i);
        this.inspect(i);
      });
      actions.append(diff);
    }
    actions.append(...this.traceButtons(i));
    const folding = this.view.folding;
    const around = folding ? folding.openGroupOfNode(i) : null;
    if (around !== null) actions.append(this.foldButton("collapse", "Collapse", around));
    this.el.replaceChildren(this.head(names.describe(i)), list, actions);
    this.el.removeAttribute("data-fold");
    this.el.setAttribute("data-node", names.keys[i]);
    this.el.hidden = false;
    this.fill();
  }

  /** Inputs / Path to output: mark what node i depends on, or where the output's gradient reaches it (graph/search.js). */
  traceButtons(i) {
    const button = (action, text, title) => {
      // data-lm-suppress-shortcuts: JupyterLab would take Esc (clear the marks) from a focused button.
      const b = h("button", { type: "button", className: "mgw-button", "data-action": action, "data-lm-suppress-shortcuts": "true", text });
      b.title = title;
      b.addEventListener("click", () => this.view.trace(action === "trace-up" ? "up" : "down", i));
      return b;
    };
    return [button("trace-up", "Inputs", "Highlight every node this one depends on (Esc clears)"),
      button("trace-down", "Path to output", "Highlight the nodes through which the output's gradient reaches this one (Esc clears)")];
  }

  /** Write the shown node's current numbers (the stepper's partial grad while stepping). */
  fill() {
    const i = this.node;
    if (i === null) return;
    const { names, data, grad, stepper: st, output } = this.view;
    const write = (el, text) => { // every frame: only a text that changed (a write costs the page a layout)
      if (el.textContent !== text) el.textContent = text;
    };
    write(this.fields.data, pyRepr(data[i]));
    write(this.fields.grad, st && notReached(st.steps.reachedAt, st.k, i) ? "not reached yet" : pyRepr((st ? st.grad : grad)[i]));
    write(this.fields.of, `d ${names.describe(output)} / d ${names.describe(i)}`
      + (st ? ` after step ${st.k} of ${st.count} of the backward pass` : ""));
  }

  /** Show what a fold box holds, with Expand (open it in place), Expand all that fits, and Collapse (close the
   * opened box around it) when the view can fold (js/picture/fold_tree.js). */
  inspectFold(fold) {
    this.dropGradcheck();
    this.node = null;
    this.box = { key: fold.key || null, id: fold.id };
    const folding = this.view.folding;
    const words = foldWords(fold, { nodes: this.view.names.tape.n, budget: folding ? folding.budget() : null,
      canOpen: Boolean(folding && fold.key) });
    const parts = [this.head(fold.title), ...words.map((text, k) => h("p", { "data-role": `fold-${["what", "why", "how"][k]}`, text }))];
    if (folding && fold.key) {
      const actions = h("div", { className: "mgw-actions" }, this.foldButton("expand", "Expand", fold.key),
        this.foldButton("expand-all", "Expand all that fits", null));
      const around = folding.openGroupOfGroup(fold.group);
      if (around !== null) actions.append(this.foldButton("collapse", "Collapse", around));
      parts.push(actions);
      if (!folding.isOpen(fold.key)) this.view.drawing.prefetchExpand(fold.key); // Expand is likely next: lay it out early
    }
    this.el.replaceChildren(...parts);
    this.el.removeAttribute("data-node");
    this.el.setAttribute("data-fold", fold.key || fold.id);
    this.el.hidden = false;
  }

  /** An opened box (a cluster): what it holds, and Collapse. */
  inspectCluster(cluster) {
    this.dropGradcheck();
    this.node = null;
    this.box = { key: cluster.key, id: cluster.id };
    const actions = h("div", { className: "mgw-actions" }, this.foldButton("collapse", "Collapse", cluster.key),
      this.foldButton("expand-all", "Expand all that fits", null));
    this.el.replaceChildren(this.head(cluster.title), ...openedWords(cluster).map((text) => h("p", { text })), actions);
    this.el.removeAttribute("data-node");
    this.el.setAttribute("data-fold", cluster.key);
    this.el.hidden = false;
  }

  /** Expand / Expand all that fits / Collapse: a button that asks the view to change the open set. */
  foldButton(action, text, key) {
    const titles = {
      expand: "Open this box in place: its contents, folded one level down within the node budget (+ on a focused box)",
      "expand-all": "Open boxes nearest the output first while the node budget allows",
      collapse: "Close the opened box around this one (- on a focused box)",
    };
    const b = h("button", { type: "button", className: "mgw-button", "data-action": action, "data-lm-suppress-shortcuts": "true", text });
    b.title = titles[action];
    b.addEventListener("click", () => this.view.drawing.fold(action, key));
    return b;
  }

  /**
   * A new picture is shown (any fold action, an `opened` from Python or another view, search's reveal, a new
   * drawing option): show what is true of `bound` (graph/bound-picture.js's BoundPicture) for what was shown. A node still
   * drawn is shown again (with Collapse only while an opened box holds it); a box now opened is shown as the opened
   * box, a box still closed as the closed box; a node or a box now folded shows the closed box that holds it; else
   * the inspector closes. A focused button of the inspector stays focused when the new content has it, else the
   * focus goes to the close button (or, the inspector closed, to the picture).
   */
  follow(bound) {
    if (this.el.hidden || this.gradcheck || (this.node === null && !this.box)) return;
    const focused = this.focusedControl();
    const show = this.node !== null ? this.nodeIn(bound, this.node) : this.boxIn(bound, this.box);
    if (show) show();
    else this.close();
    if (focused === null) return;
    const target = show ? this.el.querySelector(focused) || this.el.querySelector(".mgw-close") : this.view.picture.el;
    target.focus({ preventScroll: true });
  }

  /** How to show node i in `bound`: itself when drawn, else the closed box holding it; null when neither is drawn. */
  nodeIn(bound, i) {
    if (bound.shownSet.has(i)) return () => this.inspect(i);
    const k = bound.outline.foldOf[i];
    const fold = k >= 0 ? bound.folds.list[k] : null;
    return fold ? () => this.inspectFold(fold) : null;
  }

  /** How to show the box { key, id } in `bound`: opened, closed, or the closed box it is folded into; or null. */
  boxIn(bound, { key, id }) {
    const cluster = key !== null && bound.clusters.get(key);
    if (cluster) {
      const opened = bound.targets.get(cluster).cluster;
      return () => this.inspectCluster(opened);
    }
    const list = bound.folds.list;
    let fold = list.find((f) => (key !== null ? f.key === key : f.id === id));
    const tree = this.view.folding ? this.view.folding.tree : null;
    if (!fold && key !== null && tree) { // folded into a closed box around it: the one of its groups drawn closed
      const closed = new Map(list.map((f) => [f.group, f]));
      for (let g = tree.byKey.get(key) ?? -1; g >= 0 && !fold; g = tree.groups[g].parent) fold = closed.get(g);
    }
    return fold ? () => this.inspectFold(fold) : null;
  }

  /** A selector for the inspector's control that has the focus (its role, action or input), or null. */
  focusedControl() {
    const active = /** @type {Document | ShadowRoot} */ (this.el.getRootNode()).activeElement;
    if (!active || !this.el.contains(active)) return null;
    for (const attr of ["data-action", "data-role", "data-input"]) {
      if (active.hasAttribute(attr)) return `[${attr}="${active.getAttribute(attr)}"]`;
    }
    return ".mgw-close";
  }

  close() {
    this.dropGradcheck();
    this.node = null;
    this.box = null;
    this.el.hidden = true;
    this.el.removeAttribute("data-fold");
    this.el.replaceChildren();
  }

  /** Check every leaf's grad against finite differences, in the inspector. */
  openGradcheck() {
    if (this.view.mode === "readonly") return;
    this.close();
    const check = new GradcheckPanel(this.view);
    check.close.addEventListener("click", () => this.close());
    this.gradcheck = check;
    this.el.replaceChildren(check.el);
    this.el.removeAttribute("data-node");
    this.el.hidden = false;
    check.run();
  }

  dropGradcheck() {
    if (!this.gradcheck) return;
    this.gradcheck.destroy();
    this.gradcheck = null;
  }
}
