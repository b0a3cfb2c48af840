// @ts-check
// The learning controls (issue 21): a step size, Step up / Step down (every parameter at once, js/core/learn.js), Train
// (gradient descent in the page: in a Web Worker, js/host/learn-worker.js, whose latest values, losses and replay the
// picture paints once per animation frame; where no worker can start, on this thread, as many steps per frame as the
// paint leaves room for within a frame; never a paint per step), the step count and steps per second, the loss curve
// (js/training/curve.js's maths), and a throttled polite live region announcing the loss. The parameters are the leaf roles' (graph/leaves.js).
// Moving a slider or entering the stepper pauses training. Pausing, and about every WRITE_BACK_MS while playing,
// settles the leaf values by the existing write rule (trait `leaf_values`); the step count and step size are the
// trait `learning` (micrograd_widget/graph/view_state.py check_learning). A graph only the kernel can replay (a
// user-defined op) steps and trains in the kernel: learn requests (graph/kernel.js) of as many steps as it answers
// in about KERNEL_ANSWER_MS; with no kernel (the exported page) a step is refused in words at once.

import { h } from "../ui/dom.js";
import { svgElement } from "../ui/svg.js";
import { Descent, readStepSize, step } from "../core/learn.js";
import { DescentWorker } from "../host/learn-worker.js";
import { curvePath, logTicks, lossDomain, niceTicks, shortNumber } from "../training/curve.js";
import { formatNumber, thousands } from "../picture/format.js";

// With no worker, a frame's steps stop after FRAME_MS - FRAME_SLACK_MS - the last paint's cost (at most
// MAX_BUDGET_MS, at least one step): the browser's own style, layout and compositing need the slack.
const FRAME_MS = 1000 / 60;
const FRAME_SLACK_MS = 6;
const MAX_BUDGET_MS = 8;
const WRITE_BACK_MS = 1000;
const SLOW_MS = 250;
const ANNOUNCE_MS = 3000;
const KERNEL_ANSWER_MS = 250; // a learn request's steps are sized to be answered in about this long
const KERNEL_MAX_STEPS = 10000; // micrograd_widget/graph/requests.py MAX_LEARN_STEPS
const CURVE_POINTS = 300; // at most this many points drawn, however long the run
const PLOT = { width: 260, height: 110, left: 44, right: 252, top: 8, bottom: 92 };

/** The `learning` trait read back: a step count and a step size, the defaults where it is missing or bad. */
export function readLearning(raw) {
  const state = /** @type {{steps?: unknown, step_size?: unknown} | null} */ (raw && typeof raw === "object" ? raw : null);
  const steps = state && Number.isInteger(state.steps) && Number(state.steps) >= 0 ? Number(state.steps) : 0;
  const size = state ? readStepSize(String(state.step_size)).h : NaN;
  return { steps, stepSize: Number.isFinite(size) ? size : 0.01 };
}

/** At most `count` evenly spread indices of a list of `n` (the last always in). */
export function sampleIndices(n, count = CURVE_POINTS) {
  if (n <= count) return Array.from({ length: n }, (_, i) => i);
  const out = [];
  for (let s = 0; s < count; s++) out.push(Math.round((s * (n - 1)) / (count - 1)));
  return out;
}

export class LearnPanel {
  /**
   * `view` is the graph view (graph/widget.js): its tape, leaves, output, mode, model, errors; `view.afterStep(before)`
   * replays and paints, showing each node's change since `before` ({data, grad}) when given.
   */
  constructor(view) {
    this.view = view;
    const { steps, stepSize } = readLearning(view.model.get("learning"));
    this.steps = steps;
    this.stepSize = stepSize;
    this.playing = false;
    this.frame = 0;
    this.losses = [];
    this.lossSteps = [];
    this.rate = { since: 0, steps: 0, perSecond: 0 };
    this.lastWrite = 0;
    this.lastSlow = 0;
    this.lastAnnounce = 0;
    this.worker = null; // the DescentWorker Train runs in, made at the first Play
    this.descent = null; // training on this thread instead (no worker)
    this.unpainted = null; // the worker's last update, painted at the next frame
    this.runStart = 0; // the step count when the worker's run started
    this.paintMs = 0; // the last paint's cost (the budget of a frame's steps on this thread)
    this.batch = 1; // kernel path: the steps of the next learn request
    const off = view.mode === "readonly";

    this.sizeInput = h("input", {
      type: "text", inputmode: "decimal", className: "mgw-step-size", "data-role": "step-size", value: String(stepSize),
      "aria-label": "step size h (the learning rate)", "data-lm-suppress-shortcuts": "true", disabled: off,
      title: "How far one step moves each parameter: p += h * grad (up) or p -= h * grad (down); any positive number",
    });
    this.sizeInput.addEventListener("change", () => this.readSize());
    this.sizeInput.addEventListener("keydown", (event) => { if (event.key === "Enter") this.readSize(); });
    const button = (action, text, title, fn) => {
      const b = h("button", { type: "button", className: "mgw-button", "data-action": action, text, disabled: off });
      b.title = title;
      b.addEventListener("click", fn);
      return b;
    };
    this.upButton = button("step-up", "Step up", "Every parameter p += h * d(output)/dp: the output rises (the lecture's nudge)", () => this.stepOnce(+1));
    this.downButton = button("step-down", "Step down", "Every parameter p -= h * d(output)/dp: one step of gradient descent", () => this.stepOnce(-1));
    this.trainButton = button("train", "Train", "Play or pause gradient descent at this step size, in the page", () => this.toggle());
    this.trainButton.setAttribute("aria-pressed", "false");
    this.stepsText = h("output", { "data-role": "steps", text: thousands(steps) });
    this.rateText = h("output", { "data-role": "steps-per-second", text: "\u2013" });
    this.lossText = h("output", { "data-role": "learn-loss", text: "\u2013" });
    this.note = h("span", { className: "mgw-note", "data-role": "learn-note" });
    this.live = h("span", { className: "mgw-visually-hidden", "data-role": "learn-live", "aria-live": "polite" });
    this.buildCurve();
    const field = (text, input) => h("label", { className: "mgw-field" }, h("span", { text }), input);
    this.el = h("div", { className: "mgw-learn", "data-role": "learn", role: "group", "aria-label": "learn: step and train" },
      h("div", { className: "mgw-learn-controls" },
        field("Step size h", this.sizeInput), this.upButton, this.downButton, this.trainButton,
        h("span", { className: "mgw-learn-stats" }, "steps ", this.stepsText, " \u00b7 ", this.rateText, " steps/s \u00b7 output ", this.lossText),
        this.note, this.live),
      this.curve);
    const ops = view.tape.unsupported.join(", ");
    this.noKernel = `this graph has an op the browser cannot replay (${ops}); training needs the kernel, and this page has none`;
    if (view.mode === "kernel") {
      this.note.textContent = view.hasKernel ? `Steps and training run in the kernel (user-defined op ${ops}), at the rate it answers.`
        : `Learning is off: ${this.noKernel}.`;
    }
    if (off) this.note.textContent = "Learning is off: nothing can replay this graph.";
  }

  buildCurve() {
    this.curve = svgElement("svg", { width: PLOT.width, height: PLOT.height, viewBox: `0 0 ${PLOT.width} ${PLOT.height}`,
      "data-role": "learn-curve", role: "img", "aria-label": "loss curve of the steps taken", class: "mgw-learn-curve" });
    this.curve.append(svgElement("rect", { x: PLOT.left, y: PLOT.top, width: PLOT.right - PLOT.left, height: PLOT.bottom - PLOT.top, class: "mgw-learn-plot" }));
    this.axis = svgElement("g", { class: "mgw-learn-axis" });
    this.line = svgElement("path", { class: "mgw-learn-line", fill: "none" });
    this.curve.append(this.axis, this.line);
  }

  /** The step size typed, or the refusal in words (the old size kept). */
  readSize() {
    const { h: size, error } = readStepSize(this.sizeInput.value);
    if (error) {
      this.view.errors.showError("step-size", error);
      this.sizeInput.setAttribute("aria-invalid", "true");
      return null;
    }
    this.view.errors.clearError("step-size");
    this.sizeInput.removeAttribute("aria-invalid");
    if (size !== this.stepSize) {
      this.stepSize = size;
      this.save();
    }
    return size;
  }

  /** The view state: the step count and the step size (trait `learning`). */
  save() {
    const model = this.view.model;
    model.set("learning", { steps: this.steps, step_size: this.stepSize });
    model.save_changes();
  }

  /** The output's data at step `steps` joins the curve. */
  record(loss) {
    this.losses.push(loss);
    this.lossSteps.push(this.steps);
  }

  /** One click: every parameter moved by sign * h * grad, replayed, each node's Δ shown. */
  stepOnce(sign) {
    const size = this.readSize();
    if (size === null) return;
    this.pause();
    const view = this.view;
    if (view.mode === "kernel") {
      this.kernelRun(sign, size, 1, true);
      return;
    }
    const before = { data: Float64Array.from(view.data), grad: Float64Array.from(view.grad) };
    try {
      this.record(step(view.tape, view.leaves.values, view.leaves.params, sign, size, view.output));
    } catch (err) {
      view.errors.showError("learn", `The step was not taken: ${err.message}.`);
      return;
    }
    this.steps += 1;
    view.leaves.moved();
    view.afterStep(before);
    this.show(true);
    view.leaves.settleNow();
    this.save();
  }

  /** Kernel path: `count` steps run by the kernel from the values shown (a learn request); `showDelta`: a click's. */
  kernelRun(sign, size, count, showDelta) {
    const view = this.view;
    if (!view.hasKernel) {
      view.errors.showError("learn", `Not taken: ${this.noKernel}.`);
      this.pause();
      return;
    }
    const sent = Float64Array.from(view.leaves.values);
    const before = showDelta ? { data: Float64Array.from(view.data), grad: Float64Array.from(view.grad) } : null;
    const asked = performance.now();
    if (!view.kernel.learn(count, size, sign, (answer) => this.onLearned(answer, sent, before, asked))) {
      view.errors.showError("learn", "The kernel has not answered for the current values yet; try the step again when it has.");
      this.pause();
    }
  }

  /** The kernel's steps came back: shown, written back (a click, or every WRITE_BACK_MS), and the run goes on. */
  onLearned(answer, sent, before, asked) {
    const view = this.view;
    const values = view.leaves.values;
    // null: refused or no answer (said in the error box). Values moved meanwhile (a slider, Reset): an answer about
    // values gone, never shown; the move asked for its own numbers.
    if (!answer || values.some((x, j) => !Object.is(x, sent[j]))) {
      this.pause();
      return;
    }
    view.errors.clearError("learn");
    values.set(answer.leafValues);
    for (const loss of answer.losses) {
      this.steps += 1;
      this.record(loss);
    }
    view.leaves.moved();
    view.showNumbers(answer.data, answer.grad);
    view.afterStep(before, false);
    const now = performance.now();
    if (!this.playing || now - this.lastWrite >= WRITE_BACK_MS) {
      this.lastWrite = now;
      view.leaves.settleNow();
      this.save();
    }
    if (this.playing) {
      this.rate.steps += answer.steps;
      this.rate.perSecond = (this.rate.steps * 1000) / Math.max(1, now - this.rate.since);
      const grow = Math.min(4, KERNEL_ANSWER_MS / Math.max(1, now - asked));
      this.batch = Math.max(1, Math.min(KERNEL_MAX_STEPS, Math.round(answer.steps * grow)));
      this.kernelRun(-1, this.stepSize, this.batch, false);
    }
    this.show(!this.playing);
  }

  toggle() {
    if (this.playing) this.pause();
    else this.play();
  }

  play() {
    const size = this.readSize();
    const view = this.view;
    if (size === null || this.playing || view.mode === "readonly") return;
    view.exitStepper();
    view.deltas.clear();
    this.playing = true;
    this.trainButton.setAttribute("aria-pressed", "true");
    this.trainButton.textContent = "Pause";
    this.rate = { since: performance.now(), steps: 0, perSecond: 0 };
    this.lastWrite = performance.now();
    if (view.mode === "kernel") {
      this.kernelRun(-1, size, this.batch, false);
      return;
    }
    this.worker ??= new DescentWorker(view.tape);
    this.descent = null;
    this.unpainted = null;
    this.runStart = this.steps;
    const run = { values: view.leaves.values, params: view.leaves.params, output: view.output, h: size };
    if (!this.worker.start(run, (u) => this.heard(u), () => this.workerGone())) this.trainHere();
    this.el.dataset.thread = this.descent ? "main" : "worker";
    this.frame = requestAnimationFrame((t) => this.tick(t));
  }

  /** Train on this thread (no worker could start, or it died): from the values now held. */
  trainHere() {
    const view = this.view;
    this.descent = new Descent(view.tape, view.leaves.values, view.leaves.params, view.output);
    this.el.dataset.thread = "main";
  }

  /** The worker's update: its steps and losses join the count and the curve, its values are the leaves' at once (so
   * the count always matches the values held); its replay waits for the next frame's paint. */
  heard(update) {
    const view = this.view;
    const first = this.runStart + update.steps - update.losses.length;
    for (let s = 0; s < update.losses.length; s++) {
      this.steps = first + s + 1;
      this.record(update.losses[s]);
    }
    this.steps = this.runStart + update.steps;
    this.rate.steps += update.losses.length;
    view.leaves.values.set(update.values);
    if (update.error) {
      this.unpainted = null;
      view.errors.showError("learn", `Training stopped: ${update.error}.`);
      this.pause();
      view.afterStep(null); // the picture at the values held (the replay names a failing node)
      return;
    }
    this.unpainted = update;
  }

  workerGone() {
    if (this.playing) this.trainHere();
  }

  /** One animation frame of training: the worker's latest replay painted, or (no worker) steps within the frame's
   * budget then one replay and paint. */
  tick(now) {
    if (!this.playing) return;
    const view = this.view;
    if (this.descent && !this.stepHere()) return;
    if (this.unpainted) this.paintLatest();
    if (this.losses.length > 4 * CURVE_POINTS * 100) this.thin();
    const slow = now - this.lastSlow >= SLOW_MS; // the sliders' rows and the curve follow a few times a second
    if (slow) {
      this.lastSlow = now;
      view.leaves.moved();
    }
    const elapsed = now - this.rate.since;
    if (elapsed >= 500) {
      this.rate.perSecond = (this.rate.steps * 1000) / elapsed;
      this.rate = { since: now, steps: 0, perSecond: this.rate.perSecond };
    }
    if (slow) this.show(false);
    if (performance.now() - this.lastWrite >= WRITE_BACK_MS) {
      this.lastWrite = performance.now();
      view.leaves.settleNow();
      this.save();
    }
    this.frame = requestAnimationFrame((t) => this.tick(t));
  }

  /** This frame's steps on this thread (budget: FRAME_MS less the last paint's cost and the slack), then the replay
   * the next step reuses, painted. False when training stopped. */
  stepHere() {
    const view = this.view;
    const run = this.descent;
    const budget = Math.min(MAX_BUDGET_MS, FRAME_MS - FRAME_SLACK_MS - (this.paintMs || 0));
    const start = performance.now();
    let taken = 0;
    try {
      do {
        run.run(1, this.stepSize);
        taken += 1;
        this.steps += 1;
        this.record(run.losses[run.losses.length - 1]);
      } while (performance.now() - start < budget);
    } catch (err) {
      view.errors.showError("learn", `Training stopped: ${err.message}.`);
      this.pause();
      return false;
    }
    run.losses.length = 0;
    this.rate.steps += taken;
    view.leaves.values.set(run.values);
    if (!run.replayed()) {
      view.errors.showError("learn", "Training stopped: an op failed at these values.");
      this.pause();
      return false;
    }
    const painted = performance.now();
    view.showNumbers(Float64Array.from(run.work.data), Float64Array.from(run.work.grad)); // the replay the next step reuses
    this.paintMs = performance.now() - painted;
    return true;
  }

  /** The worker's last replay painted (its values are held already). */
  paintLatest() {
    const { data, grad } = this.unpainted;
    this.unpainted = null;
    this.view.showNumbers(data, grad);
  }

  /** Keep every other point of a very long run's curve (its shape stays; memory does not grow without end). */
  thin() {
    this.losses = this.losses.filter((_, i) => i % 2 === 0);
    this.lossSteps = this.lossSteps.filter((_, i) => i % 2 === 0);
  }

  /** Stop training (a slider, the stepper, Pause): the parameters go to the kernel by the write rule. */
  pause() {
    if (!this.playing) return;
    this.playing = false;
    cancelAnimationFrame(this.frame);
    if (this.worker) this.worker.stop(); // what it steps after its last update is dropped: the count is the values'
    if (this.unpainted) this.paintLatest(); // the numbers shown (and the stepper's) are of the values held
    this.trainButton.setAttribute("aria-pressed", "false");
    this.trainButton.textContent = "Train";
    this.view.leaves.moved();
    this.view.leaves.settleNow();
    this.save();
    this.show(true);
  }

  /** Reset: the starting parameters are back (graph/leaves.js did that); the count and the curve start again. */
  reset() {
    this.pause();
    this.steps = 0;
    this.losses = [];
    this.lossSteps = [];
    this.rate.perSecond = 0;
    this.view.deltas.clear();
    this.save();
    this.show(true);
  }

  /** The count, the rate, the output's data, the curve; the live region at most every ANNOUNCE_MS (`now`: at once). */
  show(now) {
    const view = this.view;
    const loss = view.data[view.output];
    const precision = view.model.get("precision");
    this.stepsText.textContent = thousands(this.steps);
    this.rateText.textContent = this.playing && this.rate.perSecond ? thousands(Math.round(this.rate.perSecond)) : "\u2013";
    this.showOutput();
    this.drawCurve();
    const t = performance.now();
    if (now || t - this.lastAnnounce >= ANNOUNCE_MS) {
      this.lastAnnounce = t;
      this.live.textContent = `${this.playing ? "Training: " : ""}step ${thousands(this.steps)}, output ${formatNumber(loss, precision)}`;
    }
  }

  /** The output's data as the picture now shows it (a slider, the kernel or a new output changed it too). */
  showOutput() {
    const view = this.view;
    const text = formatNumber(view.data[view.output], view.model.get("precision"));
    if (this.lossText.textContent !== text) this.lossText.textContent = text;
  }

  drawCurve() {
    const picks = sampleIndices(this.losses.length);
    const steps = picks.map((i) => this.lossSteps[i]);
    const losses = picks.map((i) => this.losses[i]);
    // A log axis once the losses span two powers of ten (descent's curve falls fast, then slowly), all positive.
    const positive = losses.length > 1 && losses.every((x) => x > 0);
    const log = positive && Math.max(...losses) / Math.min(...losses) > 100;
    const domain = lossDomain(losses, log);
    const [y0, y1] = domain || [0, 1];
    const x0 = steps.length ? steps[0] : 0;
    const x1 = steps.length ? steps[steps.length - 1] : 1;
    const sx = (s) => (x1 === x0 ? (PLOT.left + PLOT.right) / 2 : PLOT.left + ((s - x0) / (x1 - x0)) * (PLOT.right - PLOT.left));
    const sy = (v) => PLOT.bottom - ((v - y0) / (y1 - y0)) * (PLOT.bottom - PLOT.top);
    this.line.setAttribute("d", curvePath(steps, losses, sx, sy, log).d);
    this.curve.setAttribute("data-scale", log ? "log" : "linear");
    this.curve.setAttribute("data-points", String(this.losses.length));
    const marks = [];
    for (const v of !domain ? [] : log ? logTicks(y0, y1, 3) : niceTicks(y0, y1, 3)) {
      const text = svgElement("text", { x: PLOT.left - 4, y: sy(v) + 3, "text-anchor": "end" });
      text.textContent = shortNumber(log ? 10 ** v : v);
      marks.push(svgElement("line", { x1: PLOT.left, x2: PLOT.right, y1: sy(v), y2: sy(v), class: "mgw-learn-grid" }), text);
    }
    const label = svgElement("text", { x: (PLOT.left + PLOT.right) / 2, y: PLOT.height - 4, "text-anchor": "middle" });
    label.textContent = steps.length ? `steps ${thousands(x0)}\u2013${thousands(x1)}` : "no steps yet";
    marks.push(label);
    this.axis.replaceChildren(...marks);
  }

  destroy() {
    this.playing = false;
    cancelAnimationFrame(this.frame);
    if (this.worker) this.worker.close();
  }
}
