// A composed picture's box tooltips apart and back (js/picture/tooltips.js), against Graphviz drawing the same DOT
// with them: the text the page gives a box is the one Graphviz would have written, and written back, the SVG is
// Graphviz's byte for byte.

import { test } from "node:test";
import assert from "node:assert/strict";

import { instance } from "@viz-js/viz";
import { escape, quote } from "./dot.js";
import { tooltipsApart, withTooltips } from "./tooltips.js";
import { leanSVG } from "../host/graphviz.js";

// Labels a learner may type (cleaned and escaped as js/picture/dot.js writes a tooltip's lines), and what a page
// reads from Graphviz's attribute: markup characters, quotes, an ampersand and an entity-like text, a minus, a
// backslash, letters outside ASCII.
const TIPS = [
  ["<b>bold</b> & 'x' \"y\"", "node n0, op -"],
  ["&lt; is not <", "C:\\temp a\\b"],
  ["Σ über ∂L/∂a", "scope layers.0.neurons.1"],
  ["tanh"],
];
const XLINK_TITLE = /<a xlink:title="([^"]*)">/g;
const ENTITIES = { amp: "&", lt: "<", gt: ">", quot: '"' };
/** @param {string} value an XML attribute value as written */
const decoded = (value) => value.replace(/&(?:#(\d+)|(\w+));/g, (_, code, name) => code ? String.fromCodePoint(Number(code)) : ENTITIES[name]);

const DOT = `digraph micrograd {
\tgraph [rankdir=LR]
\tsubgraph cluster_open0 {
\t\tgraph [id=open0 label="layers.0" tooltip="layers.0: 2 nodes, opened" bb="0,0,400,200"]
${TIPS.map((lines, k) => `\t\tn${k} [label="v${k}" id=n${k} tooltip=${quote(lines.map((l) => escape(l, "dot")).join("\\n"))} pos="${100 + 60 * k},100!"]`).join("\n")}
\t}
\t"mgw-legend" [label=legend id="mgw-legend" shape=plaintext tooltip="node colour = grad" pos="50,20!"]
\tother [label=other id=elsewhere tooltip="kept: its id is not its name" pos="300,20!"]
}`;

test("a box's tooltip apart reads as the text Graphviz writes for it; written back, the SVG is Graphviz's", async () => {
  const g = await instance();
  const { dot, tips } = tooltipsApart(DOT);
  assert.deepEqual(tips.ids, ["n0", "n1", "n2", "n3", "mgw-legend"]);
  assert.match(dot, /tooltip="layers.0: 2 nodes, opened"/, "an opened box's frame keeps its tooltip");
  assert.match(dot, /id=elsewhere tooltip=/, "a box named otherwise keeps it");
  assert.equal((dot.match(/tooltip=/g) ?? []).length, 2);
  const reference = g.render(DOT, { format: "svg", engine: "nop2" }).output ?? "";
  const boxes = [...reference.matchAll(/<g id="([^"]*)" class="node">\n<title>[^<]*<\/title>\n<g id="a_[^"]*"><a xlink:title="([^"]*)">/g)];
  assert.equal(boxes.length, 6, "Graphviz drew each box's anchor: the test reads them");
  for (const [, id, title] of boxes.slice(0, 5)) {
    const k = tips.ids.indexOf(decoded(id));
    assert.ok(k >= 0, id);
    assert.equal(tips.titles[k], decoded(title), `${id}'s tooltip`);
  }
  assert.equal(tips.titles[0], TIPS[0].join("\n"), "what was written, lines apart");
  const drawn = g.render(dot, { format: "svg", engine: "nop2" }).output ?? "";
  assert.equal((drawn.match(XLINK_TITLE) ?? []).length, 2, "the frame's and the other box's");
  assert.equal(withTooltips(leanSVG(drawn), tips), leanSVG(reference));
  assert.equal(withTooltips(leanSVG(drawn), null), leanSVG(drawn));
});
