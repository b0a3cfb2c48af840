// @ts-check
// Export: the picture as shown (current numbers and colours, open boxes, legend) downloaded as SVG, as PNG
// (the SVG drawn on a canvas through an <img>: at twice its CSS size when the canvas allows it, else at the largest
// scale down to 0.5x that fits; the status line says which), or its DOT written again for the numbers
// shown now (js/picture/fold_tree.js, byte-identical to Python's graph_view for those numbers: the layout's DOT is stale once a
// slider moves).
// Files are named after the differentiated output's label (sanitized; "graph" when it has none). No user
// string is parsed as markup: the SVG is cloned from the live picture and serialized, never built as text.

import { h } from "../ui/dom.js";
import { svgElement } from "../ui/svg.js";
import { svgSizePx } from "./zoom.js";

export const PNG_SCALE = 2;
// Below half its size a picture's 11 pt (14.7 px) text is under 8 px tall and no longer legible: a picture too large
// for a PNG at 0.5x is exported as SVG, which has no size limit. (docs/architecture.md's moons loss with layers.1
// open is 2,124 x 21,816 px: its PNG is written at 0.75x.)
export const MIN_PNG_SCALE = 0.5;
const MAX_CANVAS_SIDE = 16384; // Chromium's and Firefox's limit for one side of a canvas
const MAX_CANVAS_AREA = MAX_CANVAS_SIDE * MAX_CANVAS_SIDE / 4; // ~67 Mpx: memory, and within most browsers' limits
// What the view's stylesheet (js/graph/widget.css) draws that the SVG's own attributes do not: the outlines of the
// stepper, search and trace marks (the theme's light accent for a path) and the stepper's grey for a grad not
// reached yet, so the file looks like the picture.
const EXPORT_STYLE = [
  "g.mgw-unreached polygon, g.mgw-unreached path { stroke-dasharray: 4 3; }",
  'text[data-reached="false"] { fill: #757575; font-weight: bold; }',
  "g.mgw-step-target polygon, g.mgw-step-target path { stroke: #8e24aa; stroke-width: 2.5px; }",
  "g.mgw-step-current polygon, g.mgw-step-current path, g.mgw-step-op ellipse { stroke: #d81b60; stroke-width: 3px; }",
  "g.mgw-step-edge path { stroke: #d81b60; stroke-width: 2px; }",
  "g.mgw-step-edge polygon { stroke: #d81b60; fill: #d81b60; }",
  "g.mgw-match polygon, g.mgw-match path { stroke: #e65100; stroke-width: 4px; stroke-dasharray: none; }",
  "g.mgw-path polygon, g.mgw-path path, g.mgw-path ellipse { stroke: #1976d2; stroke-width: 3px; }",
  "g.mgw-path.edge polygon { fill: #1976d2; }",
].join("\n");

/** A file name stem from a label: letters, digits, `.`, `_` and `-` kept, the rest `_`; "graph" if empty. */
export function fileStem(label) {
  const stem = String(label || "")
    .normalize("NFKD")
    .replace(/[^A-Za-z0-9._-]+/g, "_")
    .replace(/^[._]+|[._]+$/g, "")
    .slice(0, 80);
  return stem || "graph";
}

/** The size in pixels of a PNG of a `width` x `height` CSS px picture at `scale`, or null when too large. */
export function pngSize(width, height, scale = PNG_SCALE) {
  const w = Math.max(1, Math.round(width * scale));
  const hgt = Math.max(1, Math.round(height * scale));
  return w <= MAX_CANVAS_SIDE && hgt <= MAX_CANVAS_SIDE && w * hgt <= MAX_CANVAS_AREA ? { width: w, height: hgt } : null;
}

/**
 * The scale a PNG of a `width` x `height` CSS px picture is written at: PNG_SCALE when it fits the canvas, else the
 * largest scale that fits (to a hundredth, rounded down), or null when not even MIN_PNG_SCALE fits.
 */
export function pngScale(width, height) {
  if (pngSize(width, height, PNG_SCALE)) return PNG_SCALE;
  const w = Math.max(width, 1);
  const hgt = Math.max(height, 1);
  const largest = Math.min(PNG_SCALE, MAX_CANVAS_SIDE / w, MAX_CANVAS_SIDE / hgt, Math.sqrt(MAX_CANVAS_AREA / (w * hgt)));
  for (let hundredths = Math.floor(largest * 100); hundredths >= MIN_PNG_SCALE * 100; hundredths--) {
    if (pngSize(width, height, hundredths / 100)) return hundredths / 100; // a rounded side may be one px over
  }
  return null;
}

/** The live <svg> as a standalone SVG file's text: its natural size, the view's marks as a <style>. */
export function svgFileText(svg) {
  const copy = svg.cloneNode(true);
  copy.removeAttribute("style"); // the zoom's CSS size: the file has Graphviz's own width and height
  copy.setAttribute("xmlns", "http://www.w3.org/2000/svg");
  copy.setAttribute("xmlns:xlink", "http://www.w3.org/1999/xlink");
  for (const el of copy.querySelectorAll("[tabindex]")) {
    el.removeAttribute("tabindex");
    el.removeAttribute("role");
    el.removeAttribute("aria-labelledby");
  }
  for (const el of copy.querySelectorAll(".mgw-culled")) el.classList.remove("mgw-culled"); // the view's paint saving
  const style = svgElement("style");
  style.textContent = EXPORT_STYLE;
  copy.insertBefore(style, copy.firstChild);
  return '<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n' + new XMLSerializer().serializeToString(copy) + "\n";
}

/** Ask the browser to save `blob` as `name`. */
function saveBlob(blob, name, parent) {
  const url = URL.createObjectURL(blob);
  const a = h("a", { href: url, download: name, hidden: true });
  parent.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 30_000);
}

/** The SVG text drawn on a canvas at pngScale(): { blob, scale, size }. */
async function pngBlob(text, natural) {
  const scale = pngScale(natural.width, natural.height);
  if (scale === null) {
    throw new Error(`the picture is too large for a PNG even at ${MIN_PNG_SCALE}x (it is ${Math.round(natural.width)} x `
      + `${Math.round(natural.height)} px at 1x; a canvas has at most ${MAX_CANVAS_SIDE.toLocaleString("en-US")} px a `
      + "side); export SVG instead");
  }
  const size = pngSize(natural.width, natural.height, scale);
  const img = new Image(size.width, size.height);
  img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(text);
  await img.decode();
  const canvas = h("canvas", { width: size.width, height: size.height });
  const context = canvas.getContext("2d");
  context.fillStyle = "#ffffff";
  context.fillRect(0, 0, size.width, size.height);
  context.drawImage(img, 0, 0, size.width, size.height);
  const blob = await new Promise((resolve) => canvas.toBlob(resolve, "image/png"));
  if (!blob) throw new Error("the browser could not encode the PNG");
  return { blob, scale, size };
}

/**
 * The export buttons. `source` = { svg(): the live <svg> or null, dot(): the DOT of the picture shown with the
 * numbers shown now ("" before the first layout), label(): the output's label, errors: the view's ErrorBox,
 * setStatus(text): the status line, which says the scale a PNG was written at }.
 */
export class Download {
  constructor(source) {
    this.source = source;
    const button = (action, text, label) => {
      const b = h("button", { type: "button", className: "mgw-button", "data-action": action, title: label,
        "aria-label": label, text });
      b.addEventListener("click", () => this.run(action));
      return b;
    };
    this.el = h("span", { className: "mgw-export", role: "group", "aria-label": "Download the picture" },
      h("span", { className: "mgw-status", text: "Download", "aria-hidden": "true" }),
      button("export-svg", "SVG", "SVG: download the picture as shown"),
      button("export-png", "PNG", `PNG: download the picture as shown, at ${PNG_SCALE}x (smaller when the browser's canvas limit requires it)`),
      button("export-dot", "DOT", "DOT: download the Graphviz source of the picture"));
  }

  async run(action) {
    const { errors } = this.source;
    try {
      await this.save(action);
      errors.clearError("export");
    } catch (err) {
      errors.showError("export", `Could not export the picture: ${err && err.message ? err.message : err}.`);
    }
  }

  async save(action) {
    const stem = fileStem(this.source.label());
    if (action === "export-dot") {
      const dot = this.source.dot();
      if (!dot) throw new Error("the picture is not laid out yet");
      saveBlob(new Blob([dot], { type: "text/vnd.graphviz;charset=utf-8" }), `${stem}.dot`, this.el);
      return;
    }
    const svg = this.source.svg();
    if (!svg) throw new Error("the picture is not laid out yet");
    const text = svgFileText(svg);
    if (action === "export-svg") {
      saveBlob(new Blob([text], { type: "image/svg+xml;charset=utf-8" }), `${stem}.svg`, this.el);
    } else {
      const { blob, scale, size } = await pngBlob(text, svgSizePx(svg));
      saveBlob(blob, `${stem}.png`, this.el);
      const why = scale === PNG_SCALE ? "" : `: at ${PNG_SCALE}x it would pass the browser's canvas limit `
        + `(${MAX_CANVAS_SIDE.toLocaleString("en-US")} px a side, ${Math.round(MAX_CANVAS_AREA / 1e6)} million px); SVG has no limit`;
      this.source.setStatus(`Saved ${stem}.png at ${scale}x (${size.width} x ${size.height} px)${why}.`);
    }
  }
}
