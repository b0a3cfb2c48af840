// @ts-check
// The toolbar (output chooser, Reset, stepper and gradient-check buttons, the picture's zoom and export
// buttons, status line) and the legend under the picture. The view hands in the actions; this file only
// builds and labels the controls.

import { h } from "../ui/dom.js";
import { swatch } from "../ui/swatch.js";
import { COLOR_SCALES, LOG_DECADES } from "../core/shared.js";

const MAX_OUTPUT_OPTIONS = 300;

export class Toolbar {
  /**
   * `mode` ("browser" | "kernel" | "readonly") and `reason` (why the browser cannot replay) decide which
   * buttons work; `pictureControls` are the picture's (zoom, export: graph/zoom.js, graph/download.js);
   * `actions` = { chooseOutput(i), reset(), toggleStepper(), openGradcheck(), chooseColorScale(name) }.
   */
  constructor(names, mode, reason, pictureControls, actions) {
    this.names = names;
    const button = (role, text, action) => {
      const b = h("button", { type: "button", className: "mgw-button", "data-role": role, text });
      b.addEventListener("click", action);
      return b;
    };
    this.outputSelect = h("select", {
      className: "mgw-output", "data-role": "output", "aria-label": "node to differentiate",
      "data-lm-suppress-shortcuts": "true",
    });
    this.outputSelect.addEventListener("change", () => actions.chooseOutput(Number(this.outputSelect.value)));
    const reset = button("reset", "Reset", actions.reset);
    reset.title = "Put every leaf back to its starting value";
    this.stepButton = button("step-mode", "Step through backprop", actions.toggleStepper);
    this.stepButton.setAttribute("aria-pressed", "false");
    const gradcheck = button("gradcheck", "Check gradients", actions.openGradcheck);
    if (mode === "browser") {
      this.stepButton.title = "Run the backward pass one node at a time: see each chain-rule product added to the grads";
      gradcheck.title = "Compare every leaf's grad with a finite-difference estimate";
    } else {
      this.stepButton.disabled = true;
      this.stepButton.title = `The stepper needs every op's local derivative in the browser: ${reason}`;
      gradcheck.title = "Compare every leaf's grad with a finite-difference estimate (computed by the kernel)";
    }
    if (mode === "readonly") {
      gradcheck.disabled = true;
      gradcheck.title = `Nothing can replay this graph: ${reason}`;
    }
    this.status = h("span", { className: "mgw-status", "data-role": "status" });
    this.colorSelect = h("select", {
      className: "mgw-output", "data-role": "color-scale", "aria-label": "colour scale", "data-lm-suppress-shortcuts": "true",
    }, ...Object.entries(COLOR_SCALES).map(([value, meaning]) => h("option", { value, text: value, title: meaning })));
    this.colorSelect.title = "How a grad becomes a colour: relative to the largest drawn, or log, one step per power of ten "
      + "(shows vanishing gradients the digits round to 0)";
    this.colorSelect.addEventListener("change", () => actions.chooseColorScale(this.colorSelect.value));
    this.colorField = h("label", { className: "mgw-field" }, h("span", { text: "Colour" }), this.colorSelect);
    this.el = h("div", { className: "mgw-toolbar" },
      h("label", { className: "mgw-field" }, h("span", { text: "Differentiate" }), this.outputSelect),
      reset, this.stepButton, gradcheck, this.colorField, ...pictureControls, this.status);
  }

  /** The colour scale in force is `name` ("relative" or "log"); `colored` false hides the choice. */
  showColorScale(name, colored = true) {
    this.colorSelect.value = name === "log" ? "log" : "relative";
    this.colorField.hidden = !colored;
  }

  setStatus(text) {
    this.status.textContent = text;
  }

  /** The stepper is on (or off): the button says so. */
  setStepping(on) {
    this.stepButton.setAttribute("aria-pressed", String(on));
  }

  /** Offer the root, `output` and the drawn nodes `shown` (at most MAX_OUTPUT_OPTIONS, nearest the root). */
  fillOutputOptions(shown, root, output) {
    const select = this.outputSelect;
    select.replaceChildren();
    const ids = new Set([root, output]);
    const sorted = [...shown].sort((a, b) => b - a);
    for (const i of sorted) {
      if (ids.size >= MAX_OUTPUT_OPTIONS) break;
      ids.add(i);
    }
    for (const i of [...ids].sort((a, b) => b - a)) {
      select.append(h("option", { value: i, text: this.names.describe(i) + (i === root ? " (root)" : "") }));
    }
    select.value = String(output);
  }

  /** Select `output`; false when it is not offered (the options must be filled again). */
  showOutput(output) {
    this.outputSelect.value = String(output);
    return this.outputSelect.value !== "";
  }
}

/** The legend under the picture: what a box shows and, when colouring, what the fills mean on the colour scale
 * `scale` ("relative" or "log") and which scale that is. */
export function fillLegend(legend, palette, colored, scale = "relative") {
  const parts = [h("span", { text: "Each box: label, data (its value), grad (d output / d node). " })];
  if (colored) {
    const log = scale === "log";
    parts.push(h("span", { text: "Fill: " }), swatch("mgw-swatch", palette.negative), h("span", { text: " grad < 0  " }),
      swatch("mgw-swatch", palette.zero), h("span", { text: log ? " 0  " : " 0 (or shown as 0)  " }),
      swatch("mgw-swatch", palette.positive), h("span", { text: " grad > 0, " }),
      h("span", { "data-role": "color-scale-words", text: log
        ? `on the log scale: full colour at |grad| 1 (or the next power of ten above the largest), one step lighter per `
          + `power of ten, white ${LOG_DECADES} powers of ten below it; a box may be tinted though its grad shows as `
          + "0 (hover for the exact number). "
        : "on the relative scale: stronger for larger |grad|, full colour at the largest drawn. " }));
  }
  legend.replaceChildren(...parts, ...HOW_TO_USE());
}

const HOW_TO_USE = () => [
  h("span", { text: "Click a box (or Tab to it and press Enter) to inspect it; rounded boxes are leaves. " }),
  h("span", { text: "Drag to pan; Ctrl+wheel (or pinch) zooms." })];

/** The legend while the picture shows change from the pin (graph/pin.js): what a box shows, what the fills mean
 * when `colored`, and `note` (e.g. that the pin's grads are of another output); returns the span the view writes
 * the fills' range into (js/picture/change.js changeLegendWords), null when not colouring. */
export function fillChangeLegend(legend, palette, colored, note = "") {
  const parts = [h("span", { "data-role": "change-legend", text: "Showing change from the pin: each box's Δdata "
    + "and Δgrad, its data and grad now minus those pinned. " + note })];
  let range = null;
  if (colored) {
    range = h("span", { "data-role": "change-range" });
    parts.push(h("span", { text: "Fill by Δdata: " }), swatch("mgw-swatch", palette.negative),
      h("span", { text: " decrease  " }), swatch("mgw-swatch", palette.zero), h("span", { text: " no change  " }),
      swatch("mgw-swatch", palette.positive), h("span", { text: " increase, " }), range, h("span", { text: " " }));
  }
  legend.replaceChildren(...parts, ...HOW_TO_USE());
  return range;
}
