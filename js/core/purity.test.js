// js/core/ and js/picture/ stay pure (docs/architecture.md's map): no module there imports the views' or the
// hosts' code (../ui/, ../graph/, ../training/, ../host/) or touches the page (`document.`, `window.`), so each
// runs and is tested in node, and is type-checked strict. DOM code lives in graph/ (the stepper and gradient check
// panels: graph/stepper-panel.js, graph/gradcheck-panel.js) or ui/.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

const JS = fileURLToPath(new URL("../", import.meta.url));
const PURE = ["core", "picture"];
// A module specifier into a folder a pure module may not use, in any import form (`from "..."`, `import "..."`,
// `import("...")`, a JSDoc `@import ... from "..."`).
const IMPURE_IMPORT = /\b(?:from|import)\s*\(?\s*["'`](\.\.\/(?:ui|graph|training|host)\/[^"'`]*)["'`]/g;
const PAGE = /\b(document|window)\s*\./g;

/** The text without its comments (block and line comments; a `//` inside a string such as a URL is kept). */
function code(text) {
  return text.replace(/\/\*[\s\S]*?\*\//g, " ").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

/**
 * What makes a module impure: "imports ../x/..." per impure import, "uses document." per use of the page.
 * @param {string} text the module's source
 * @returns {string[]}
 */
function impurities(text) {
  const found = [...text.matchAll(IMPURE_IMPORT)].map((m) => `imports ${m[1]}`);
  return found.concat([...code(text).matchAll(PAGE)].map((m) => `uses ${m[1]}.`));
}

/** Every non-test .js module of the pure folders, as "core/tape.js". */
function pureModules() {
  return PURE.flatMap((dir) => readdirSync(new URL(`../${dir}/`, import.meta.url))
    .filter((name) => name.endsWith(".js") && !name.endsWith(".test.js"))
    .map((name) => `${dir}/${name}`));
}

test("no module of js/core/ or js/picture/ imports from ui/, graph/, training/ or host/, or uses document or window", () => {
  const modules = pureModules();
  for (const expected of ["core/tape.js", "core/stepper.js", "core/gradcheck.js", "picture/dot.js"]) {
    assert.ok(modules.includes(expected), `${expected} is checked`);
  }
  const impure = modules.flatMap((m) => impurities(readFileSync(JS + m, "utf8")).map((why) => `${m} ${why}`));
  assert.deepEqual(impure, [], "move DOM code to graph/ (or ui/ if both views share it); keep the maths here");
});

test("the purity check catches each way a module can reach the page", () => {
  assert.deepEqual(impurities('import { h } from "../ui/dom.js";'), ["imports ../ui/dom.js"]);
  assert.deepEqual(impurities("import '../graph/widget.js';"), ["imports ../graph/widget.js"]);
  assert.deepEqual(impurities('const m = await import("../host/graphviz.js");'), ["imports ../host/graphviz.js"]);
  assert.deepEqual(impurities('/** @import { X } from "../training/curve.js" */'), ["imports ../training/curve.js"]);
  assert.deepEqual(impurities("export { a } from '../graph/names.js';"), ["imports ../graph/names.js"]);
  assert.deepEqual(impurities("const b = document.createElement('b'); window.x = 1;"), ["uses document.", "uses window."]);
  assert.deepEqual(impurities('import { plural } from "../picture/format.js";\nimport { a } from "./tape.js";'), []);
  assert.deepEqual(impurities("// the page's document. is never touched here\n/* nor window. */\nconst url = \"http://x\";"), []);
});
