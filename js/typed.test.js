// Every JS source of js/ is type-checked (`npm --prefix js run typecheck`): it says `// @ts-check` in its leading
// comments, where tsc reads it, and one of the two configs beside this file (tsconfig.json, strict;
// tsconfig.view.json, the views) includes it. Tests, fixtures and benchmarks are left out, as both configs leave
// them, and so are the node configs eslint.config.js and build.mjs.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";

const JS = fileURLToPath(new URL("./", import.meta.url));
const NODE_CONFIG = new Set(["eslint.config.js", "build.mjs"]);
const NOT_SOURCE = /\.(?:test|fixture)\.js$|\.bench\.mjs$/;

/** Every JS source under js/, as "host/host.js" (node_modules left out). */
function sources() {
  return readdirSync(JS, { recursive: true, encoding: "utf8" })
    .map((path) => path.split("\\").join("/"))
    .filter((path) => /\.m?js$/.test(path) && !path.split("/").includes("node_modules"))
    .filter((path) => !NODE_CONFIG.has(path) && !NOT_SOURCE.test(path))
    .sort();
}

/**
 * True when `text` has a `// @ts-check` line among its leading comments (before its first line of code): a
 * generated module says first where it comes from.
 * @param {string} text
 * @returns {boolean}
 */
function saysTsCheck(text) {
  for (const line of text.split("\n")) {
    const trimmed = line.trim();
    if (trimmed === "// @ts-check") return true;
    if (trimmed && !trimmed.startsWith("//")) return false;
  }
  return false;
}

/** The `include` patterns of tsconfig `name` (a JSON file whose lines may start with a // comment). */
function includes(name) {
  const text = readFileSync(new URL(name, import.meta.url), "utf8");
  return JSON.parse(text.split("\n").filter((line) => !line.trim().startsWith("//")).join("\n")).include;
}

/** True when `path` matches tsconfig include `pattern` (a path, or a folder's "dir/*.js"). */
function matches(pattern, path) {
  if (!pattern.includes("*")) return pattern === path;
  const [dir, glob] = [pattern.slice(0, pattern.lastIndexOf("/") + 1), pattern.slice(pattern.lastIndexOf("/") + 1)];
  assert.equal(glob, "*.js", `tsconfig include ${pattern}: this test reads a path or "<dir>/*.js" only`);
  return path.startsWith(dir) && !path.slice(dir.length).includes("/") && path.endsWith(".js");
}

test("a // @ts-check line is found among the leading comments only", () => {
  assert.ok(saysTsCheck("// @ts-check\nexport const a = 1;\n"));
  assert.ok(saysTsCheck("// Generated from x.py; do not edit.\n// @ts-check\n\nexport const a = 1;\n"));
  assert.ok(!saysTsCheck("// A module.\nexport const a = 1;\n// @ts-check\n"));
  assert.ok(!saysTsCheck("/* @ts-check */\nexport const a = 1;\n"));
  assert.ok(!saysTsCheck(""));
});

test("the sources are found: the views, the host, the generated modules", () => {
  const found = sources();
  for (const path of ["core/ops.js", "core/shared.js", "graph/folding.js", "host/host.js", "host/layout-worker.js"]) {
    assert.ok(found.includes(path), `${path} is not among the sources found`);
  }
  assert.ok(!found.some((path) => NOT_SOURCE.test(path) || NODE_CONFIG.has(path)), "a test or node config was taken for a source");
});

test("every JS source under js/ says // @ts-check", () => {
  const unchecked = sources().filter((path) => !saysTsCheck(readFileSync(new URL(path, import.meta.url), "utf8")));
  assert.deepEqual(unchecked, [], `add "// @ts-check" as the first line of ${unchecked.join(", ")} and fix what tsc reports`);
});

test("every JS source under js/ is in the include of tsconfig.json or tsconfig.view.json", () => {
  const patterns = [...includes("tsconfig.json"), ...includes("tsconfig.view.json")];
  const outside = sources().filter((path) => !patterns.some((pattern) => matches(pattern, path)));
  assert.deepEqual(outside, [], `${outside.join(", ")}: add each to the include of js/tsconfig.json (pure modules, `
    + "strict) or js/tsconfig.view.json (the views), or tsc never checks it");
});
