// @ts-check
// The picture's layout: what the graph box draws (js/picture/fold_tree.js's picture of the open set, graph/folding.js drawPicture;
// a graph that does not fold is drawn whole the same way), laid out once per picture by graph/picture.js and shown; a
// layout that fails keeps the picture before and the open set it draws. Also the fold actions (Expand, Collapse,
// Expand all, Collapse all: a new open set, its picture laid out, then inspected and focused), the early layouts of
// the pictures an Expand is likely to ask for, and the DOT download of the picture shown.

import { errorText } from "../ui/errors.js";
import { compileFolds } from "../picture/fold_tree.js";
import { PALETTE } from "../core/shared.js";
import { drawPicture } from "./folding.js";
import { SPECULATE_NODES } from "./early-layouts.js";
import { elementOf } from "./search.js";

// A fold box selected this long (its Expand button showing) has its expanded picture laid out early (worker only).
const PREFETCH_MS = 150;

/** The element that stands for fold group `key` in `bound`: its opened cluster, or its closed box (null: neither). */
function foldElement(bound, key) {
  const k = bound.folds.list.findIndex((f) => f.key === key);
  return bound.clusters.get(key) || (k >= 0 ? bound.outline.foldGroups[k] : null) || null;
}

export class Drawing {
  /**
   * `view` is the widget view: `model`, `tape`, `folding` (null when the graph does not fold), `picture`, `errors`,
   * `toolbar`, `inspector`, `root`, the numbers (`data`, `grad`, `output`, `stepper`), `destroyed`, and
   * `pictureShown(view)`, which wires a new picture (BoundPicture's `view`) to the view's other parts.
   */
  constructor(view) {
    this.view = view;
    this.laying = null; // the layout running: { dot, done }
    this.relayoutDue = false;
    this.speculated = false; // a big graph's likeliest box laid out early once (graph/early-layouts.js prefetchLikeliest)
    this.markPrefetched = (key) => view.picture.el.setAttribute("data-prefetched", key); // an early layout is in
    this.whole = null; // a graph that does not fold: { spec, tree }, its hierarchy (no groups) compiled once per `folds`
  }

  /**
   * Change the open set ("expand" / "collapse" `key`, "expand-all", "collapse-all"), tell the model, lay out the
   * new picture (the old one stays until it is ready), then inspect and focus what the action made.
   */
  async fold(action, key) {
    const { folding, errors, picture, inspector } = this.view;
    if (!folding) return false;
    const changed = action === "expand" ? folding.expand(key) : action === "collapse" ? folding.collapse(key)
      : action === "expand-all" ? folding.expandAll() : action === "collapse-all" ? folding.set([]) : false;
    if (!changed) {
      if (action === "expand") this.view.toolbar.setStatus(folding.expandRefusal(key) ?? "");
      // back to the picture shown after a failed one (Collapse all once the open set went back): the error is over
      else if (errors.has("layout") && (await this.layout())) errors.clearFailure("layout");
      return false;
    }
    // The learner's place: the box acted on (Expand, Collapse) goes where it was, else the output (graph/zoom.js settle).
    const place = key === null ? this.outputPlace(true) : { before: (b) => foldElement(b, key), after: (b) => foldElement(b, key), reveal: true };
    if (!(await this.layout(place))) return false;
    errors.clearFailure("layout"); // also when the user went back to the picture shown (nothing laid out)
    const bound = picture.bound;
    if (action === "expand" && bound.clusters.has(key)) {
      const g = bound.clusters.get(key);
      inspector.inspectCluster(bound.targets.get(g).cluster);
      // Graphviz draws a cluster's frame apart from its nodes: the first node or closed box drawn inside it
      const first = [...picture.el.querySelectorAll("svg g.node[tabindex]")]
        .find((el) => folding.holds(key, bound.targets.get(el)));
      if (first) first.focus({ preventScroll: true });
    } else if (action === "collapse") {
      const fold = bound.folds.list.find((f) => f.key === key);
      const k = fold ? bound.folds.list.indexOf(fold) : -1;
      if (fold) inspector.inspectFold(fold);
      if (k >= 0 && bound.outline.foldGroups[k]) bound.outline.foldGroups[k].focus({ preventScroll: true });
    }
    return true;
  }

  /** What to draw: js/picture/fold_tree.js's picture of the open set (an early layout's when there is one), or of the whole graph
   * when it does not fold. */
  drawing() {
    const folding = this.view.folding;
    return folding ? folding.drawing(this.drawOptions()) : this.draw(this.drawOptions());
  }

  /** drawPicture() of the open set shown for `options`: folding's, or the whole graph's. */
  draw(options) {
    const { folding, model, tape } = this.view;
    if (folding) return folding.draw(options);
    const spec = model.get("folds");
    if (!this.whole || this.whole.spec !== spec) this.whole = { spec, tree: compileFolds(spec, tape) };
    return drawPicture(tape, this.whole.tree, [], options);
  }

  /** The inspector shows fold box `key` with its Expand button (or the box was pressed or kept the focus): lay out
   * its expanded picture early (after `delay` ms, debounced; in the layout worker only), so Expand (button,
   * double-click, +) need not wait for Graphviz. */
  prefetchExpand(key, delay = PREFETCH_MS) {
    const folding = this.view.folding;
    if (folding) folding.early.prefetchSoon(key, delay, () => this.drawOptions(), this.markPrefetched);
  }

  /** js/picture/fold_tree.js's DOT options for the numbers held now (`grad`: every node's grad, default the view's grad). */
  drawOptions(grad = this.view.grad) {
    const { model, output, data } = this.view;
    return {
      precision: model.get("precision"), rankdir: model.get("rankdir"), color: model.get("color") !== false,
      color_scale: model.get("color_scale") || "relative", output, palette: PALETTE, data, grad,
    };
  }

  /** The DOT download: the picture shown, written for the numbers painted now (stepping: the stepper's partial
   * grads, a grad not reached yet written as the picture shows it). */
  exportDot() {
    const { stepper: st, picture } = this.view;
    const shown = st ? { ...this.drawOptions(st.grad), reachedAt: st.steps.reachedAt, step: st.k } : this.drawOptions();
    return picture.bound ? this.draw({ ...shown, message: true }).dot : ""; // with the folding sentence, as Python writes it
  }

  /**
   * A trait the picture is drawn from changed: lay it out again once the model has taken the whole update (one
   * message from the kernel may change several: `folds` and `opened` for a new node budget, or two options), so the
   * picture is planned once.
   */
  relayout() {
    if (this.relayoutDue) return;
    this.relayoutDue = true;
    queueMicrotask(() => {
      this.relayoutDue = false;
      if (!this.view.destroyed) this.layout();
    });
  }

  /** The place a new picture keeps by default (graph/picture.js layout): the output where it was on screen; out of
   * sight, it is brought in sight when `reveal` (the first picture, Expand all, Collapse all). */
  outputPlace(reveal) {
    const output = (bound) => elementOf(bound, this.view.output);
    return { before: output, after: output, reveal };
  }

  /**
   * Lay out and show the picture; resolves true when it is shown (false: a newer layout won, or it failed). A layout
   * of the same DOT already running is not started again but answered by it: a second layout would replace the
   * first (twice the Graphviz time, and Expand's focus move lost). `place`: what to keep in sight (outputPlace's
   * by default).
   */
  layout(place = this.outputPlace(!this.view.picture.bound)) {
    let drawn;
    try {
      drawn = this.drawing();
    } catch (err) {
      if (!this.view.destroyed) this.layoutFailed(err);
      return Promise.resolve(false);
    }
    if (this.laying && this.laying.dot === drawn.dot) return this.laying.done;
    const done = this.showDrawing(drawn, place);
    const laying = { dot: drawn.dot, done };
    this.laying = laying;
    const over = () => { if (this.laying === laying) this.laying = null; };
    done.then(over, over);
    return done;
  }

  /** layout()'s work once the picture is drawn (js/picture/fold_tree.js's { dot, view, text }). */
  async showDrawing({ dot, view, text }, place) {
    const { folding, picture } = this.view;
    const open = folding ? folding.open : null; // the open set this picture draws
    try {
      if (picture.bound && dot === picture.dot) { // nothing to lay out again: the picture shown is current
        // A layout still running (of another open set) is dropped. A failure shown stays: this is also Python (or
        // another view) setting the open set back to the picture shown; fold() clears it when the user asked.
        picture.keep();
        if (folding) folding.drawn = open;
        return true;
      }
      if (!(await picture.layout(dot, view, text, place))) return false;
      if (folding) {
        folding.drawn = open;
        folding.prepareSoon();
      }
      this.view.pictureShown(view);
      this.view.errors.clearFailure("layout");
      this.view.root.setAttribute("data-state", "ready");
      if (!this.speculated && this.view.folding && this.view.tape.n >= SPECULATE_NODES) { // graph/early-layouts.js
        this.speculated = true;
        this.view.folding.early.prefetchLikeliest(this.view.root, picture.bound.folds.list, () => this.drawOptions(), this.markPrefetched,
          dot.length);
      }
      return true;
    } catch (err) {
      if (!this.view.destroyed) this.layoutFailed(err);
      return false;
    }
  }

  /**
   * A new picture could not be laid out (a Graphviz error, the layout worker's watchdog, a picture too large): the
   * picture shown stays, the open set goes back to the one it draws (the model is told, so Python agrees), and the
   * error says what happened; the next picture laid out, or the user going back to the one shown (fold()), clears it.
   * With no picture yet, the view could not start.
   */
  layoutFailed(err) {
    const { errors, folding } = this.view;
    if (!this.view.picture.bound) {
      errors.showFailure("layout", `The widget could not start: ${errorText(err)}`);
      return;
    }
    const back = folding && folding.drawn && folding.set(folding.drawn);
    errors.showFailure("layout", `The widget could not draw the new picture: ${errorText(err).replace(/\.$/, "")}. `
      + `It still shows the picture before${back ? ", and the boxes opened for the new one are closed again" : ""}.`);
  }
}
