// The fold vectors the fold tree and fit tests share (tests/vectors/folds/*.json, written by
// tests/vectors/generate_folds.py): each file's tape, fold tree and numbers, decoded as the widget decodes them.

import { readdirSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { join } from "node:path";

import { compileTape, decodeNumber } from "../core/spec.js";
import { compileFolds } from "./fold_tree.js";

export const FOLDS = fileURLToPath(new URL("../../tests/vectors/folds/", import.meta.url));

function specFromJson(json) {
  const spec = {};
  for (const [key, value] of Object.entries(json)) {
    if (value && typeof value === "object" && !Array.isArray(value) && ("int32" in value || "float64" in value)) {
      spec[key] = "int32" in value ? Int32Array.from(value.int32) : Float64Array.from(value.float64.map(decodeNumber));
    } else spec[key] = value;
  }
  return spec;
}

/** One vector file: its JSON (`v`), the compiled tape and fold tree, and every node's data and grad. */
export function load(name) {
  const v = JSON.parse(readFileSync(join(FOLDS, name), "utf-8"));
  const tape = compileTape(specFromJson(v.spec));
  const tree = compileFolds({ ...v.folds, group_of: Int32Array.from(v.folds.group_of) }, tape);
  const data = Float64Array.from(v.data.map(decodeNumber));
  const grad = Float64Array.from(v.grad.map(decodeNumber));
  return { v, tape, tree, data, grad };
}

/** The vector files, sorted. */
export function foldFiles() {
  return readdirSync(FOLDS).filter((f) => f.endsWith(".json")).sort();
}
