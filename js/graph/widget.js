// @ts-check
// The anywidget view of a graph (micrograd_widget/graph/widget.py): this file wires the view's parts together
// and exports `render`. A slider frame replays the tape in JS (tape.js) and touches only cached text nodes
// and fills; settled leaf values go to the kernel (trait `leaf_values`). No user string reaches innerHTML:
// controls are built with dom.js's h(), and the only markup parsed is Graphviz's SVG of the DOT in which
// micrograd_widget/picture/dot.py escaped every user string. Hooks: data-leaf / data-node = the node's label if no
// other node has it, else its node id.
//
// The parts, one job each:
//   graph/drawing.js    what the picture draws (js/picture/fold_tree.js's DOT, folded or whole), laid out once per picture; fold actions
//   graph/picture.js    layout (graphviz.js), bind the SVG once (bound-picture.js: numbers and fills painted in place)
//   graph/zoom.js       fit, zoom and pan of the picture (CSS size only: never a new layout); the learner's place
//   graph/overview.js   the small map of a picture that does not fit: click or drag to go there
//   graph/download.js   export the picture as shown: SVG, PNG (2x, less when too large), DOT
//   graph/leaves.js     slider rows, exact values, slider ranges, settling (debounced write-back)
//   graph/inspector.js  one node, a fold box, or the gradient check (graph/gradcheck-panel.js)
//   graph/kernel.js     replay requests to the kernel for graphs the browser cannot replay
//   graph/toolbar.js    output chooser, buttons, status line, legend
//   graph/names.js      node keys, names, formulas
//   graph/folding.js    the open set (trait `opened`): expand, collapse, reveal; js/picture/fold_tree.js folds and writes the DOT
//   graph/early-layouts.js  the picture a box would open into, laid out before it is asked for
//   graph/search.js     the search box; the marks of search and path tracing (search.js, trace.js)
//   graph/output-mark.js  the bold mark on the output the grads are of
//   graph/stepper-panel.js  the backprop stepper panel, its outlines and words (the steps: js/core/stepper.js)
//   graph/learn-panel.js  step up/down, train in the page, the loss curve (the maths: js/core/learn.js); graph/deltas.js the Δ marks
//   graph/pin.js        Pin and compare: the pinned numbers, the picture of change from them (js/picture/change.js)
// js/host/loader.js (each widget's small `_esm`) imports the views bundle once per page and calls `render` below.

import { compileTape, initialData, kernelNumbers } from "../core/spec.js";
import { backward, forward } from "../core/tape.js";
import { h } from "../ui/dom.js";
import { capitalize } from "../picture/text.js";
import { ErrorBox } from "../ui/errors.js";
import { ModelListeners } from "../ui/listen.js";
import { Stepper, StepMarks, describeStep } from "./stepper-panel.js";
import { NodeNames } from "./names.js";
import { Picture } from "./picture.js";
import { Leaves, SETTLE_MS } from "./leaves.js";
import { Inspector } from "./inspector.js";
import { PALETTE } from "../core/shared.js";
import { Folding } from "./folding.js";
import { Drawing } from "./drawing.js";
import { Search, elementOf } from "./search.js";
import { KernelReplay } from "./kernel.js";
import { Toolbar, fillChangeLegend, fillLegend } from "./toolbar.js";
import { Pin } from "./pin.js";
import { changeLegendWords } from "../picture/change.js";
import { Download } from "./download.js";
import { markOutput } from "./output-mark.js";
import { LearnPanel } from "./learn-panel.js";
import { DeltaMarks } from "./deltas.js";

class GraphWidgetView {
  constructor(model, host) {
    this.model = model;
    this.events = new ModelListeners(model);
    this.destroyed = false;
    this.stepper = null;
    this.marks = new StepMarks();
    this.root = h("div", { className: "mgw-root", "data-state": "loading" });
    this.errors = new ErrorBox(this.root, "mgw-error", "widget");
    host.append(this.root);
    try {
      this.setup();
    } catch (err) {
      this.errors.fail(err);
    }
  }

  setup() {
    const model = this.model;
    this.tape = compileTape(model.get("spec"));
    this.names = new NodeNames(this.tape);
    const n = this.tape.n;
    this.output = model.get("output");
    this.data = kernelNumbers(model.get("data"), n) || initialData(this.tape);
    this.grad = kernelNumbers(model.get("grad"), n) || new Float64Array(n);
    this.scratch = new Float64Array(n);
    this.mode = this.tape.replayable ? "browser" : this.tape.opaque >= 0 ? "readonly" : "kernel";
    this.hasKernel = model.hasKernel !== false; // the exported page's model says it has none (js/host/host.js)
    const readonly = this.mode === "readonly";
    this.deltas = new DeltaMarks();
    this.leaves = new Leaves(model, this.tape, this.names, readonly, this.errors, () => {
      if (this.learn) this.learn.pause(); // a slider moved: training pauses, the Δ of the last step goes
      this.deltas.clear();
      this.exitStepper();
      this.update();
    });
    this.pin = new Pin(model, this.tape, () => ({ leafValues: this.leaves.values, output: this.output }),
      () => this.paint(), this.mode === "browser" ? "" : this.tape.reason);
    this.legendShows = ""; // what the legend was filled for: "" the grads, else the change from the pin
    this.kernel = new KernelReplay(model, n, this.tape.reason, {
      request: () => ({ leafValues: this.leaves.values, output: this.output }),
      onNumbers: (data, grad) => this.showNumbers(data, grad),
      errors: this.errors,
      setStatus: (text) => this.toolbar.setStatus(text),
    });
    this.folding = Folding.of(model, this.tape);
    this.picture = new Picture(this.root, this.names, (picked, action) => this.onPick(picked, action));
    this.drawing = new Drawing(this);
    this.inspector = new Inspector(this);
    this.download = new Download({
      svg: () => (this.picture.bound ? this.picture.bound.flushPending() : null), // out-of-sight numbers and edges too
      dot: () => this.drawing.exportDot(),
      label: () => this.tape.labels[this.output],
      errors: this.errors,
      setStatus: (text) => this.toolbar.setStatus(text),
    });
    const pictureControls = [this.picture.zoom.controls, this.download.el];
    this.toolbar = new Toolbar(this.names, this.mode, this.tape.reason, pictureControls, {
      chooseOutput: (i) => this.chooseOutput(i),
      reset: () => {
        this.leaves.reset();
        this.learn.reset();
      },
      toggleStepper: () => (this.stepper ? this.exitStepper(true) : this.enterStepper()),
      openGradcheck: () => this.inspector.openGradcheck(),
      chooseColorScale: (name) => {
        this.model.set("color_scale", name);
        this.model.save_changes();
      },
    });
    this.toolbar.showColorScale(this.model.get("color_scale"), this.model.get("color") !== false);
    this.search = new Search(this);
    this.toolbar.el.insertBefore(this.search.el, this.toolbar.status);
    this.foldControls = h("span", { className: "mgw-fold-controls", hidden: !this.folding },
      this.foldToolbarButton("expand-all", "Expand all that fits", "Open fold boxes nearest the output first while the node budget allows"),
      this.foldToolbarButton("collapse-all", "Collapse all", "Close every opened fold box (the default picture)"));
    this.toolbar.el.insertBefore(this.foldControls, this.search.el);
    this.toolbar.el.insertBefore(this.pin.el, this.foldControls);
    this.root.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && this.search.marks.active) this.search.clear();
    });
    this.learn = new LearnPanel(this);
    this.stepperSlot = h("div", { className: "mgw-stepper-slot" });
    this.legend = h("div", { className: "mgw-legend", "data-role": "legend" });
    this.fillLegend();
    this.root.append(this.toolbar.el, this.learn.el, this.stepperSlot, this.errors.el, this.picture.frame,
      h("div", { className: "mgw-panels" }, this.leaves.el, this.inspector.el), this.legend);
    this.toolbar.fillOutputOptions([], this.tape.root, this.output);
    if (readonly) this.errors.showError("readonly", `Sliders are off: ${this.tape.reason}.`);
    if (this.mode === "kernel") this.toolbar.setStatus(`${this.tape.reason}.`);
    if (this.mode === "browser") this.recompute();
    this.learn.show(true);
    this.listen();
    this.drawing.layout();
  }

  listen() {
    const on = (event, fn) => this.events.on(event, fn);
    on("change:leaf_values", () => this.leaves.receive());
    on("change:output", () => this.onOutput());
    on("change:data", () => this.onKernelNumbers());
    on("change:grad", () => this.onKernelNumbers());
    on("change:error", () => this.onKernelError());
    // Every picture is the view's own (js/picture/fold_tree.js writes its DOT from `folds`, the open set and graph/drawing.js's
    // drawOptions()): it is laid out again when one of those traits changes. The output is marked in place
    // (markOutput).
    on("change:precision", () => {
      this.repaint();
      this.drawing.relayout();
    });
    for (const name of ["color", "color_scale"]) {
      on(`change:${name}`, () => {
        this.fillLegend();
        this.toolbar.showColorScale(this.model.get("color_scale"), this.model.get("color") !== false);
        this.repaint();
        this.drawing.relayout();
      });
    }
    on("change:rankdir", () => this.drawing.relayout());
    for (const name of ["pin", "show_change"]) {
      on(`change:${name}`, () => {
        this.pin.receive();
        this.paint();
      });
    }
    on("change:opened", () => this.folding && this.folding.receive() && this.drawing.relayout());
    on("change:folds", () => {
      if (this.folding) this.folding.stop(); // its early layouts are of the old hierarchy
      this.folding = Folding.of(this.model, this.tape);
      this.foldControls.hidden = !this.folding;
      this.drawing.relayout();
    });
    on("msg:custom", (msg, buffers) => {
      const gradcheck = this.inspector.gradcheck;
      if (!(gradcheck && gradcheck.onMessage(msg))) this.kernel.onMessage(msg, buffers);
    });
  }

  // What GradcheckPanel asks of its host (besides tape, names, leaves, output and mode).
  precision() {
    return this.model.get("precision");
  }

  send(msg) {
    this.model.send(msg);
  }

  // What Search (graph/search.js) and the inspector's trace buttons ask of the view.
  inspect(i) {
    this.inspector.inspect(i);
  }

  trace(direction, i) {
    this.search.trace(direction, i);
  }

  /**
   * Make node i drawn, opening the fold boxes that hold it (js/picture/fold_tree.js keysToReveal, within the node budget);
   * resolves true once the new picture is laid out and bound (picture.bound.outline.groupOf.get(i) is node i's
   * `g`), false when nothing had to open (node i drawn already, or no folding). For search (graph/search.js).
   */
  async reveal(i) {
    if (!this.folding || !this.folding.reveal(i)) return false;
    const match = (bound) => elementOf(bound, i); // the match goes where the box holding it was, in sight
    return this.drawing.layout({ before: match, after: match, reveal: true });
  }

  // ------------------------------------------------------------------ fold boxes (graph/folding.js)

  /** A click, Enter, double-click, + or - on a box of the picture; "intent": a box pressed or keeping the focus. */
  onPick(picked, action) {
    const folding = this.folding;
    if (action === "intent") { // opening it is likely next: lay its opened picture out early (at once)
      if (picked.fold && picked.fold.key) this.drawing.prefetchExpand(picked.fold.key, 0);
      return;
    }
    if (picked.fold) {
      const around = folding ? folding.openGroupOfGroup(picked.fold.group) : null;
      if (action === "expand" && folding && picked.fold.key) this.drawing.fold("expand", picked.fold.key);
      else if (action === "collapse" && around !== null) this.drawing.fold("collapse", around);
      else if (action !== "collapse") this.inspector.inspectFold(picked.fold);
    } else if (picked.cluster) {
      if (action === "collapse") this.drawing.fold("collapse", picked.cluster.key);
      else if (action === "inspect") this.inspector.inspectCluster(picked.cluster);
    } else if (action === "collapse") {
      const around = folding ? folding.openGroupOfNode(picked.node) : null;
      if (around !== null) this.drawing.fold("collapse", around);
    } else if (action === "inspect") this.inspector.inspect(picked.node);
  }

  foldToolbarButton(action, text, title) {
    const b = h("button", { type: "button", className: "mgw-button", "data-action": action, text });
    b.title = title;
    b.addEventListener("click", () => this.drawing.fold(action, null));
    return b;
  }

  fillLegend() {
    const colored = this.model.get("color") !== false;
    if (this.legendShows) {
      const other = this.pin.output !== this.output ? `(The pin's grads are of ${this.names.describe(this.pin.output)}.) ` : "";
      this.changeRange = fillChangeLegend(this.legend, PALETTE, colored, other);
      if (this.folding) {
        this.legend.append(h("span", { "data-role": "fold-legend", text: " A dashed box is folded: it shows its output's "
          + "Δdata and Δgrad, else max |Δdata|, the largest change inside it, and is filled by that change." }));
      }
      return;
    }
    fillLegend(this.legend, PALETTE, colored, this.model.get("color_scale"));
    if (this.folding) {
      this.legend.append(h("span", { "data-role": "fold-legend", text: " A dashed box is folded: it says how many nodes it "
        + "holds and, when one of them is its output, that node's data and grad, else max |grad|, the largest |grad| "
        + "inside it; its fill is that largest grad's colour, on the same scale as the nodes."
        + " Double-click it (or press + on it) to open it in place; - closes it again." }));
    }
  }

  /** A new picture is shown (graph/drawing.js): its marks, output mark, leaves, numbers and what the inspector shows;
   * `view` describes it. Every new picture passes here: fold actions, `opened` from Python, search's reveal. */
  pictureShown(view) {
    const bound = this.picture.bound;
    this.inspector.follow(bound);
    this.marks.show(this.stepper, bound);
    this.deltas.clear();
    markOutput(bound, this.output);
    this.search.rebind();
    this.toolbar.fillOutputOptions(bound.shown, this.tape.root, this.output);
    this.leaves.showFirst(bound.shownSet);
    this.toolbar.setStatus(view.message ? capitalize(view.message) + "." : this.mode === "kernel" ? `${this.tape.reason}.` : "");
    this.paint();
  }

  // ------------------------------------------------------------------ one frame

  chooseOutput(i) {
    if (!Number.isInteger(i) || i < 0 || i >= this.tape.n || i === this.output) return;
    this.output = i;
    this.toolbar.showOutput(i);
    this.search.retrace(); // a shown "Path to output" follows the new output
    markOutput(this.picture.bound, i);
    if (this.mode === "readonly") return;
    this.update();
    this.restartStepper();
    this.model.set("output", i);
    this.model.save_changes();
  }

  onOutput() {
    const i = this.model.get("output");
    if (i === this.output) return;
    this.output = i;
    if (!this.toolbar.showOutput(i)) {
      this.toolbar.fillOutputOptions(this.picture.bound ? this.picture.bound.shown : [], this.tape.root, i);
    }
    this.search.retrace();
    markOutput(this.picture.bound, i);
    this.update();
    this.restartStepper();
  }

  onKernelNumbers() {
    if (this.mode === "browser") return;
    const data = kernelNumbers(this.model.get("data"), this.tape.n);
    const grad = kernelNumbers(this.model.get("grad"), this.tape.n);
    if (data && grad) this.showNumbers(data, grad);
  }

  onKernelError() {
    const text = this.model.get("error");
    if (text) this.errors.showError("kernel", `The kernel refused the change: ${text}`);
    else this.errors.clearError("kernel");
  }

  showNumbers(data, grad) {
    this.data = data;
    this.grad = grad;
    this.paint();
  }

  /** The leaf values or the output changed: replay here, or ask the kernel. */
  update() {
    if (this.mode === "browser") this.recompute();
    else if (this.mode === "kernel") this.kernel.ask();
    if (this.inspector.gradcheck) this.inspector.gradcheck.rerunSoon(SETTLE_MS);
  }

  recompute() {
    const failure = forward(this.tape, this.leaves.values, this.scratch);
    if (failure >= 0) {
      this.errors.showError("replay", this.names.describeFailure(failure, this.scratch));
      return;
    }
    [this.data, this.scratch] = [this.scratch, this.data];
    backward(this.tape, this.data, this.output, this.grad);
    this.errors.clearError("replay");
    this.paint();
  }

  /** The parameters moved (graph/learn-panel.js): replay here (`replay`), paint, and show each node's change since
   * `before` ({data, grad} of the step before; null: no Δ, as while training). */
  afterStep(before, replay = true) {
    if (replay && this.mode === "browser") this.recompute();
    if (before) this.deltas.show(this.picture.bound, this.names, { data: this.data, grad: this.grad }, before, this.model.get("precision"));
    else this.deltas.clear();
  }

  paint() {
    const bound = this.picture.bound;
    const st = this.stepper; // stepping: the partial grads after step k, and which nodes it has reached
    const change = this.pin.changes(this.data, this.grad); // null while stepping: the stepper's picture wins
    const shows = change ? `change ${this.pin.output === this.output}` : "";
    if (shows !== this.legendShows) {
      this.legendShows = shows;
      this.fillLegend();
    }
    if (bound) {
      const precision = this.model.get("precision");
      const log = this.model.get("color_scale") === "log";
      const scale = bound.paint({
        data: change ? change.data : this.data, grad: change ? change.grad : st ? st.grad : this.grad,
        reachedAt: st ? st.steps.reachedAt : null, step: st ? st.k : 0, output: this.output, precision,
        colored: this.model.get("color") !== false, log, change: !!change,
        values: { data: this.data, grad: st ? st.grad : this.grad },
      });
      const words = change ? changeLegendWords(scale, precision, log) : "";
      if (change && this.changeRange && this.changeRange.textContent !== words) this.changeRange.textContent = words;
    }
    this.inspector.fill();
    if (this.learn) this.learn.showOutput();
  }

  /** Precision or colouring changed: write every number and fill again. */
  repaint() {
    if (this.picture.bound) this.picture.bound.forget();
    this.paint();
    if (this.stepper) this.stepper.sync();
    if (this.inspector.gradcheck && this.inspector.gradcheck.rows) this.inspector.gradcheck.renderPage();
  }

  // ------------------------------------------------------------------ the backprop stepper

  enterStepper(focus = true) {
    if (this.mode !== "browser" || this.stepper) return;
    this.learn.pause();
    const stepper = new Stepper(this.tape, this.data, this.output, {
      onChange: () => this.showStep(),
      onExit: () => this.exitStepper(true),
      describe: (st) => describeStep(st, this.names, this.model.get("precision")),
    });
    this.stepper = stepper;
    this.stepperSlot.replaceChildren(stepper.el);
    this.toolbar.setStepping(true);
    this.pin.setStepping(true);
    this.showStep();
    if (focus) stepper.el.focus({ preventScroll: true });
  }

  /** Leave the stepper: every grad complete again. */
  exitStepper(refocus = false) {
    if (!this.stepper) return;
    const hadFocus = this.stepper.el.contains(document.activeElement);
    this.stepper.destroy();
    this.stepper = null;
    this.toolbar.setStepping(false);
    this.pin.setStepping(false);
    this.showStep();
    if (refocus || hadFocus) this.toolbar.stepButton.focus({ preventScroll: true });
  }

  /** Start the stepper again from step 0 (the output or the data changed under it). */
  restartStepper() {
    if (!this.stepper) return;
    const focus = this.stepper.el.contains(document.activeElement);
    this.stepper.destroy();
    this.stepper = null;
    this.enterStepper(focus);
  }

  showStep() {
    this.marks.show(this.stepper, this.picture.bound);
    this.paint();
  }

  destroy() {
    if (this.learn) this.learn.destroy();
    if (this.leaves) this.leaves.destroy();
    this.destroyed = true;
    if (this.folding) this.folding.stop();
    if (this.stepper) this.stepper.destroy();
    this.stepper = null;
    if (this.inspector) this.inspector.dropGradcheck();
    if (this.picture) this.picture.destroy();
    if (this.kernel) this.kernel.destroy();
    this.events.off();
    this.root.remove();
  }
}

export default {
  render({ model, el }) {
    const view = new GraphWidgetView(model, el);
    return () => view.destroy();
  },
};
