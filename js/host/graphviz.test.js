// What js/host/graphviz.js hands the page: Graphviz's own SVG (@viz-js/viz, as the layout worker runs it) without its
// prologue, comments, <title>s and the line breaks between tags, its texts' font and white-space rule said once on the
// graph's <g>, and nothing else changed.

import { mock, test } from "node:test";
import assert from "node:assert/strict";

import { instance } from "@viz-js/viz";
import { graphviz, layOutHere, layPart, layoutHere, leanSVG, warmUpDot } from "./graphviz.js";
import { compose, leanLayout } from "../picture/compose.js";
import { NSLIMIT } from "../core/shared.js";
import { edgeBounds, edgesSVG, withEdges } from "../picture/edges.js";
import { holdLayoutWorker } from "./layout-worker.js";
import { readFileSync } from "node:fs";

// A value box (record, tooltip), an op, a cluster holding a closed box, an edge: the parts of a picture (svg-contract.md).
const DOT = `digraph micrograd {
  graph [rankdir=LR];
  subgraph cluster_open0 { id="open0"; class="mgw-cluster"; label="layers.0"; tooltip="layers.0: opened";
    fold0 [id="fold0", class="mgw-fold", shape=record, label="{Σ sum|3 nodes|max |grad| 0.5000}"];
  }
  n1 [id="n1", class="mgw-value", shape=record, label="{ a | data 2.0000 | grad 1.0000 }", tooltip="a&#10;data = 2"];
  n1_op [id="n1_op", class="mgw-op", label="+"];
  small [id="small", fontsize=9, label="in a smaller font"];
  fold0 -> n1_op [id="e_fold0_n1_op"];
  n1_op -> n1 [id="e_n1_op_n1"];
}`;

/** The SVG from its <svg> tag with comments, <title>s and all whitespace between tags gone. */
const bare = (svg) => svg.slice(svg.indexOf("<svg")).replace(/<!--[^]*?-->/g, "").replace(/<title>[^<]*<\/title>/g, "")
  .replace(/>\s+</g, "><");

// Each text's start tag, its font (its own attributes, else the graph's <g>'s) and its content, in order.
const texts = (svg) => {
  const graph = /<g id="graph0" class="graph"([^>]*)>/.exec(svg)[1];
  const inherited = (name) => (new RegExp(` ${name}="([^"]*)"`).exec(graph) || [])[1];
  return [...svg.matchAll(/<text([^>]*)>([^<]*)<\/text>/g)].map(([, attrs, content]) => {
    const own = (name) => (new RegExp(` ${name}="([^"]*)"`).exec(attrs) || [])[1] ?? inherited(name);
    const where = attrs.replace(/ (?:xml:space|font-family|font-size)="[^"]*"/g, "");
    return [where, own("xml:space"), own("font-family"), own("font-size"), content];
  });
};

test("the page gets Graphviz's SVG less its prologue, comments, titles, line breaks between tags and repeated fonts", async () => {
  const raw = (await instance()).render(DOT, { format: "svg", engine: "dot" }).output;
  assert.match(raw, /<title>n1<\/title>/, "Graphviz wrote titles: the test checks something");
  assert.match(raw, /<!--/);
  assert.equal(raw.match(/font-family="Times,serif" font-size="14.00"/g).length, 10, "Graphviz wrote a font per text");
  const lean = leanSVG(raw);
  assert.ok(lean.startsWith("<svg "), lean.slice(0, 40));
  for (const gone of ["<title", "<!--", "<?xml", "<!DOCTYPE"]) assert.ok(!lean.includes(gone), `${gone} left in`);
  // Every text is where Graphviz put it, says what it said, in the same font and white-space rule (its own or its
  // graph's); the font is written once for the texts in the graph's, and the smaller one keeps its own.
  assert.deepEqual(texts(lean), texts(raw));
  assert.equal(texts(raw).filter((t) => t[3] === "9.00").length, 1);
  assert.match(lean, /<g id="graph0" class="graph" xml:space="preserve" font-family="Times,serif" font-size="14.00" /);
  assert.equal(lean.match(/font-family=/g).length, 2, "the graph's font and the smaller text's");
  assert.equal(lean.match(/xml:space=/g).length, 1);
  const unfonted = (svg) => bare(svg).replace(/ (?:xml:space|font-family|font-size)="[^"]*"/g, "");
  assert.equal(unfonted(lean), unfonted(raw), "something other than titles, comments, fonts and whitespace between tags changed");
  const count = lean.match(/<text/g).length;
  assert.equal(count, raw.match(/<text/g).length);
  assert.equal(lean.match(/\n<text/g).length, count, "each text stays on its line (a box's words stay apart)");
  assert.doesNotMatch(lean.replace(/\n(?=<text)/g, ""), />\s+</, "a line break left between other tags");
  assert.equal(leanSVG(lean), lean, "lean already");
  assert.equal(await layoutHere(DOT), leanSVG(await layoutHere(DOT)), "layoutHere hands out the lean SVG");
  assert.ok(!(await layoutHere(DOT)).includes("<title"));
});

test("the warm-up picture is a picture like the widget's, laid out with no warning", async () => {
  const result = (await instance()).render(warmUpDot(12, 25), { format: "svg", engine: "dot" });
  assert.equal(result.status, "success");
  assert.deepEqual(result.errors, []);
  const svg = result.output;
  assert.equal(svg.match(/class="node"/g).length, 12 * 25 * 2, "a box and an op per slot");
  assert.equal(svg.match(/class="edge"/g).length, 12 * 25 + 11 * 25 * 2, "each op's output and two inputs a rank back");
  assert.equal(svg.match(/class="cluster"/g).length, 1);
});

test("a large opened picture is laid out box by box, each box's part by dot once, drawn by nop2", async () => {
  const v = JSON.parse(readFileSync(new URL("../../tests/vectors/compose/far_layout.json", import.meta.url), "utf8"));
  const g = await instance();
  const engines = /** @type {string[]} */ ([]);
  const counting = /** @type {any} */ ({ render: (/** @type {string} */ dot, /** @type {any} */ o) => { engines.push(o.engine); return g.render(dot, o); } });
  const first = layPart(counting, v.parts[0]);
  assert.deepEqual(JSON.parse(first).objects.map((/** @type {{name: string}} */ o) => o.name).slice(0, 2), ["v0", "v1"]);
  assert.equal(layPart(counting, v.parts[0]), first, "the same part: the kept layout");
  assert.deepEqual(engines, ["dot"], "laid out once");
  const folds = JSON.parse(readFileSync(new URL("../../tests/vectors/folds/far_layout.json", import.meta.url), "utf8"));
  const svg = await layoutHere(folds.cases[1].dot[0]);
  assert.equal((svg.match(/class="cluster/g) ?? []).length, 4, "every opened box framed");
  assert.equal((svg.match(/class="edge/g) ?? []).length, (folds.cases[1].dot[0].match(/ -> /g) ?? []).length, "every edge drawn");
  assert.match(svg, /<g id="open0" class="cluster/);
});

test("a composed picture's edges come apart as numbers, its boxes' tooltips as text; written in, they are Graphviz's SVG made lean", async () => {
  const folds = JSON.parse(readFileSync(new URL("../../tests/vectors/folds/far_layout.json", import.meta.url), "utf8"));
  const dot = folds.cases[1].dot[0];
  const laid = await layOutHere(dot);
  assert.ok(laid.edges, "composed: the edges apart");
  assert.equal(laid.edges.ids.length, (dot.match(/ -> /g) ?? []).length);
  assert.doesNotMatch(laid.svg, /class="edge/, "no edge in the text");
  // Every box's tooltip apart, in DOT order; an opened box's frame keeps its own anchor.
  const boxes = [...dot.matchAll(/^\t+(\S+) \[.* tooltip=/gm)].map((m) => m[1].replace(/^"(.*)"$/, "$1")).filter((name) => name !== "graph");
  assert.ok(laid.tips && boxes.length > 10);
  assert.deepEqual(laid.tips.ids, boxes);
  assert.equal((laid.svg.match(/<a /g) ?? []).length, (laid.svg.match(/class="cluster/g) ?? []).length, "only the frames' anchors");
  assert.equal(laid.svg, leanSVG(laid.svg), "the text is lean");
  // The reference: the composition's edges written as Graphviz writes them, into nop2's own SVG, made lean by leanSVG.
  const g = await instance();
  const composed = compose(dot, (part) => leanLayout(g.render(part, { format: "json0", engine: "dot", graphAttributes: { nslimit: NSLIMIT } }).output ?? ""));
  const full = withEdges(g.render(composed.dot, { format: "svg", engine: "nop2" }).output ?? "", edgesSVG(composed.edges));
  assert.equal(await layoutHere(dot), leanSVG(full));
  // Each edge's bounds hold every number its markup draws with.
  const bounds = edgeBounds(laid.edges);
  [...edgesSVG(laid.edges, true).matchAll(/<g id="([^"]*)"[^>]*><path [^>]* d="([^"]*)"\/><polygon [^>]* points="([^"]*)"/g)].forEach((m, k) => {
    assert.equal(m[1], laid.edges?.ids[k]);
    const xy = `${m[2]} ${m[3]}`.match(/-?[\d.]+/g)?.map(Number) ?? [];
    for (let j = 0; j < xy.length; j += 2) {
      assert.ok(xy[j] >= bounds[4 * k] && xy[j] <= bounds[4 * k + 2] && xy[j + 1] >= bounds[4 * k + 1] && xy[j + 1] <= bounds[4 * k + 3], `${m[1]}: ${xy[j]},${xy[j + 1]} outside its bounds`);
    }
  });
});

test("on the main thread, Graphviz and the parts it kept go 10 s after the last view lets layouts go", async (t) => {
  const g = await instance();
  const engines = /** @type {string[]} */ ([]);
  const counting = /** @type {any} */ ({ render: (/** @type {string} */ dot, /** @type {any} */ o) => { engines.push(o.engine); return g.render(dot, o); } });
  const shared = graphviz();
  await shared;
  mock.timers.enable({ apis: ["setTimeout"] });
  t.after(() => mock.timers.reset());
  const release = holdLayoutWorker(); // a view (no worker can start under node: its layouts run here)
  const part = 'digraph part {\n\tgraph [rankdir=LR]\n\tv0 [label="laid out by this test only"]\n\tv0 -> v1\n}';
  layPart(counting, part);
  layPart(counting, part);
  assert.deepEqual(engines, ["dot"], "kept while held");
  release();
  mock.timers.tick(9_999);
  layPart(counting, part);
  assert.deepEqual(engines, ["dot"], "kept within 10 s of the last view");
  assert.equal(graphviz(), shared, "the same Graphviz within 10 s");
  mock.timers.tick(1);
  layPart(counting, part);
  assert.deepEqual(engines, ["dot", "dot"], "laid out again: the kept part went with the last view");
  const fresh = graphviz();
  assert.notEqual(fresh, shared, "a new Graphviz for the next view: the old one (and its memory) let go");
  await fresh;
});
