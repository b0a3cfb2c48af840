// @ts-check
// The backprop stepper panel: it walks through the backward pass of js/core/stepper.js forward and back, plays
// it at an adjustable speed (one requestAnimationFrame per frame, a few steps per frame at most: the page never
// blocks) and keeps the partial grads after step k in `grad`. The view (widget.js) paints the graph from
// `grad`, `k` and `steps.reachedAt`; this file owns the panel (Stepper), the step's outlines on the picture
// (StepMarks) and its words (describeStep). The maths stays in core/, pure and tested in node.

import { h } from "../ui/dom.js";
import { formatNumber } from "../picture/format.js";
import { applyStep, backwardSteps, gradsAfter } from "../core/stepper.js";

/** @import { Tape } from "../core/spec.js" */

/** @typedef {"forward" | "back" | "start" | "end" | "play" | "exit"} StepAction */

/**
 * The bound picture's elements StepMarks outlines (graph/bound-picture.js's outline): node groups and op circles by
 * node id, the fold boxes drawn and each node's box index (-1 for none), the edges by id (an op circle's or edge's get
 * puts one not in the picture yet in: graph/pending.js).
 * @typedef {object} StepOutline
 * @property {Map<number, Element>} groupOf
 * @property {{get: (i: number) => Element | undefined, has: (i: number) => boolean}} opGroupOf
 * @property {ArrayLike<Element | undefined>} foldGroups
 * @property {ArrayLike<number>} foldOf
 * @property {{get: (id: string) => Element | undefined}} edges
 */

/**
 * What the view hands the detail lines: a node's name and its formula.
 * @typedef {{nodeName: (i: number) => string, formula: (i: number) => string}} StepNames
 */

/** The speeds offered, in steps per second. */
export const SPEEDS = [0.5, 1, 2, 5, 10, 30, 100, 300, 1000];
const MAX_FRAME_S = 0.25; // a frame later than this (a hidden tab) counts as this long: no sudden jump to the end

/**
 * The starting speed: the slowest of at least 2 steps/s that plays the whole pass in about 15 s.
 * @param {number} count
 * @returns {number}
 */
export function defaultSpeed(count) {
  for (const s of SPEEDS) if (s >= 2 && count / s <= 15) return s;
  return SPEEDS[SPEEDS.length - 1];
}

/**
 * What a key pressed in the stepper panel does ("forward", "back", "start", "end", "play", "exit"), or null.
 * @param {string} key
 * @returns {StepAction | null}
 */
export function stepperAction(key) {
  switch (key) {
    case "ArrowRight":
    case ".":
      return "forward";
    case "ArrowLeft":
    case ",":
      return "back";
    case "Home":
      return "start";
    case "End":
      return "end";
    case " ":
    case "p":
      return "play";
    case "Escape":
      return "exit";
    default:
      return null;
  }
}

export class Stepper {
  /**
   * The backward pass of `output` over `data` (a replayable compiled tape). `onChange()` is called after
   * every move, `onExit()` when the user leaves; `describe(stepper)` gives the detail lines to show.
   * @param {Tape} tape
   * @param {Float64Array} data
   * @param {number} output
   * @param {{onChange: () => void, onExit: () => void, describe: (stepper: Stepper) => string[]}} hooks
   */
  constructor(tape, data, output, { onChange, onExit, describe }) {
    this.steps = backwardSteps(tape, data, output);
    this.k = 0;
    this.grad = gradsAfter(this.steps, 0);
    this.speed = defaultSpeed(this.steps.count);
    this.playing = false;
    this.raf = 0;
    this.last = 0;
    this.acc = 0;
    this.onChange = onChange;
    this.onExit = onExit;
    this.describe = describe;
    this.tick = (/** @type {number} */ now) => this.frame(now);
    const { el, buttons, counter, speedSelect, detail } = this.build();
    this.buttons = buttons;
    this.counter = counter;
    this.speedSelect = speedSelect;
    this.detail = detail;
    this.el = el;
    this.sync();
  }

  get count() {
    return this.steps.count;
  }

  /** The panel and the elements sync() updates. */
  build() {
    /** @type {(step: StepAction, text: string, label: string) => HTMLButtonElement} */
    const button = (step, text, label) => {
      const b = h("button", { type: "button", className: "mgw-button", "data-step": step, "aria-label": label, title: label, text });
      b.addEventListener("click", () => this.act(step));
      return b;
    };
    const buttons = {
      start: button("start", "\u21e4", "back to the start (Home)"),
      back: button("back", "\u25c0 Back", "step back (\u2190 or ,)"),
      play: button("play", "Play", "play or pause (Space)"),
      forward: button("forward", "Forward \u25b6", "step forward (\u2192 or .)"),
      end: button("end", "\u21e5", "jump to the end (End)"),
    };
    buttons.play.setAttribute("aria-pressed", "false");
    const exit = button("exit", "\u00d7", "leave the stepper: every grad complete again (Esc)");
    exit.className = "mgw-close";
    const counter = h("span", { className: "mgw-step-index", "data-role": "step-index", "aria-live": "off" });
    const speedSelect = h("select", { "data-role": "step-speed", "aria-label": "steps per second" });
    for (const s of SPEEDS) speedSelect.append(h("option", { value: s, text: `${s} steps/s` }));
    speedSelect.value = String(this.speed);
    speedSelect.addEventListener("change", () => {
      this.speed = Number(speedSelect.value);
    });
    const detail = h("div", { className: "mgw-step-detail", "data-role": "step-detail", "aria-live": "polite" });
    const el = h("div", {
      className: "mgw-stepper", "data-role": "stepper", tabindex: "0", role: "group",
      "aria-label": "backward pass, step by step", "data-lm-suppress-shortcuts": "true",
    },
    h("div", { className: "mgw-stepper-controls" },
      h("span", { className: "mgw-panel-title", text: "Backward pass" }),
      buttons.start, buttons.back, buttons.play, buttons.forward, buttons.end,
      h("span", { className: "mgw-note", text: "step" }), counter,
      h("label", { className: "mgw-field" }, h("span", { text: "speed" }), speedSelect),
      exit),
    detail,
    h("div", { className: "mgw-note", text: "Keys here: \u2190 \u2192 (or , .) step, Home/End, Space play/pause, Esc leave. "
      + "Grads not reached yet show \u00b7; the node whose local derivative fires is outlined." }));
    el.addEventListener("keydown", (event) => this.onKey(event));
    return { el, buttons, counter, speedSelect, detail };
  }

  /**
   * @param {KeyboardEvent} event
   */
  onKey(event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const target = /** @type {HTMLElement} */ (event.target);
    const action = stepperAction(event.key);
    if (!action) return;
    if (target.tagName === "SELECT" && action !== "exit") return;
    if (action === "play" && target !== this.el) return; // Space on a button presses that button
    event.preventDefault();
    event.stopPropagation();
    this.act(action);
  }

  /**
   * @param {StepAction} action
   */
  act(action) {
    if (action === "play") {
      if (this.playing) this.pause();
      else this.play();
      return;
    }
    if (action === "exit") {
      this.onExit();
      return;
    }
    this.pause();
    if (action === "forward") this.go(this.k + 1);
    else if (action === "back") this.go(this.k - 1);
    else if (action === "start") this.go(0);
    else if (action === "end") this.go(this.count);
  }

  /**
   * Show the grads after `k` steps: forward by applying the next steps, back by recomputing from the start.
   * @param {number} k
   */
  go(k) {
    const target = Math.max(0, Math.min(this.count, k));
    if (target === this.k) return;
    if (target > this.k) for (let s = this.k; s < target; s++) applyStep(this.steps, s, this.grad);
    else gradsAfter(this.steps, target, this.grad);
    this.k = target;
    this.sync();
    this.onChange();
  }

  play() {
    if (this.count === 0) return;
    if (this.k >= this.count) this.go(0);
    this.playing = true;
    this.go(this.k + 1);
    this.last = performance.now();
    this.acc = 0;
    if (this.k >= this.count) this.pause();
    else this.raf = requestAnimationFrame(this.tick);
    this.sync();
  }

  pause() {
    if (!this.playing) return;
    this.playing = false;
    cancelAnimationFrame(this.raf);
    this.raf = 0;
    this.sync();
  }

  /**
   * @param {number} now
   */
  frame(now) {
    if (!this.playing) return;
    this.acc += Math.min(MAX_FRAME_S, Math.max(0, now - this.last) / 1000) * this.speed;
    this.last = now;
    const due = Math.floor(this.acc);
    if (due > 0) {
      this.acc -= due;
      this.go(this.k + due);
    }
    if (this.k >= this.count) this.pause();
    else this.raf = requestAnimationFrame(this.tick);
  }

  sync() {
    const { k, count, buttons } = this;
    this.counter.textContent = `${k} / ${count}`;
    const atStart = k === 0;
    const atEnd = k >= count;
    // aria-disabled, not disabled: a disabled button would drop the keyboard focus out of the panel.
    /** @type {[keyof Stepper["buttons"], boolean][]} */
    const disabled = [["start", atStart], ["back", atStart], ["forward", atEnd], ["end", atEnd], ["play", count === 0]];
    for (const [name, off] of disabled) {
      buttons[name].setAttribute("aria-disabled", String(off));
    }
    buttons.play.textContent = this.playing ? "Pause" : atEnd && count > 0 ? "Replay" : "Play";
    buttons.play.setAttribute("aria-pressed", String(this.playing));
    this.detail.replaceChildren(...this.describe(this).map((line, n) => h("div", { className: n ? "mgw-step-line" : "mgw-step-head", text: line })));
  }

  destroy() {
    this.pause();
    this.el.remove();
  }
}

/** The current step's outlines on the picture: the node whose local derivative fired (its fold box when
 * folded), its op and the inputs that received a contribution, with the edges between them. */
export class StepMarks {
  constructor() {
    /** @type {[Element, string][]} */
    this.lit = [];
  }

  /**
   * Outline step `st.k` of the stepper `st` on the bound picture `bound`; with no stepper, clear.
   * @param {Stepper | null | undefined} st
   * @param {{outline: StepOutline} | null | undefined} bound
   */
  show(st, bound) {
    for (const [el, cls] of this.lit) el.classList.remove(cls);
    this.lit = [];
    if (!st || !bound || st.k === 0) return;
    const { groupOf, opGroupOf, foldGroups, foldOf, edges } = bound.outline;
    const steps = st.steps;
    const s = st.k - 1;
    const i = steps.node[s];
    /** @type {(el: Element | null | undefined, cls: string) => void} */
    const mark = (el, cls) => {
      if (!el) return;
      el.classList.add(cls);
      this.lit.push([el, cls]);
    };
    /** @type {(j: number) => string} */
    const boxName = (j) => {
      if (groupOf.has(j)) return `n${j}`;
      const f = foldOf[j];
      return f >= 0 && foldGroups[f] ? foldGroups[f].id : "";
    };
    /** @type {(j: number) => Element | null | undefined} */
    const boxOf = (j) => groupOf.get(j) || (foldOf[j] >= 0 ? foldGroups[foldOf[j]] : null);
    mark(boxOf(i), "mgw-step-current");
    const op = opGroupOf.get(i);
    mark(op, "mgw-step-op");
    const head = op ? `n${i}_op` : boxName(i);
    if (op) mark(edges.get(`e_${head}_n${i}`), "mgw-step-edge");
    for (const j of [steps.inputA[s], steps.inputB[s]]) {
      if (j < 0) continue;
      mark(boxOf(j), "mgw-step-target");
      const tail = boxName(j);
      if (tail && tail !== head) mark(edges.get(`e_${tail}_${head}`), "mgw-step-edge");
    }
  }
}

/**
 * The stepper's detail lines: what fired and each chain-rule product added to an input's grad.
 * `names` gives nodeName(i) and formula(i); numbers are shown with `precision` decimals.
 * @param {Stepper} st
 * @param {StepNames} names
 * @param {number} precision
 * @returns {string[]}
 */
export function describeStep(st, names, precision) {
  const steps = st.steps;
  const fmt = (/** @type {number} */ x) => formatNumber(x, precision);
  const out = names.nodeName(steps.output);
  if (st.count === 0) return [`${out} is a leaf: its grad is 1 and there is nothing to propagate.`];
  if (st.k === 0) {
    return [`Start: ${out}.grad = 1 (d${out}/d${out}); every other grad is empty (\u00b7).`,
      `Step forward: ${names.nodeName(steps.node[0])} fires first, then each node in reverse topological order, `
      + "once every node that uses it has added its part."];
  }
  const s = st.k - 1;
  const i = steps.node[s];
  const name = names.nodeName(i);
  const g = steps.upstream[s];
  const lines = [`Step ${st.k} of ${st.count}: ${name} = ${names.formula(i)}. `
    + `Each input's grad += ${name}.grad \u00d7 \u2202${name}/\u2202input:`];
  for (const [j, local] of [[steps.inputA[s], steps.localA[s]], [steps.inputB[s], steps.localB[s]]]) {
    if (j < 0) continue;
    const input = names.nodeName(j);
    lines.push(`${name}: ${fmt(g)} \u00d7 ${fmt(local)} = ${fmt(local * g)} \u2192 ${input} (${input}.grad now ${fmt(st.grad[j])})`);
  }
  if (st.k === st.count) lines.push(`Done: every grad d${out}/d(node) is complete, as backward() leaves it.`);
  return lines;
}
