// js/ops.js is generated from micrograd_widget/ops.py by the build; this catches a stale committed copy.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { OPS, OPS_BY_NAME } from "./ops.js";

const JS = dirname(fileURLToPath(import.meta.url));
const ROOT = dirname(JS);

test("js/ops.js is what `python -m micrograd_widget.ops` prints (run `npm --prefix js run build`)", () => {
  const venv = join(ROOT, ".venv", "bin", "python");
  const python = process.env.PYTHON || (existsSync(venv) ? venv : "python3");
  const expected = execFileSync(python, ["-m", "micrograd_widget.ops"], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  assert.equal(readFileSync(join(JS, "ops.js"), "utf8"), expected);
});

test("every row has forward(a, b, k) and localGrad with one partial per input", () => {
  assert.ok(OPS.length > 0);
  for (const op of OPS) {
    assert.equal(OPS_BY_NAME[op.name], op);
    const out = op.forward(0.5, 0.25, 2);
    assert.equal(op.localGrad(0.5, 0.25, 2, out).length, op.arity, op.name);
  }
});
