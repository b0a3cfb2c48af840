// js/ops.js is generated from micrograd_widget/ops.py by the build; this catches a stale committed copy.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { OPS, OPS_BY_NAME, localGradInto } from "./ops.js";

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

test("every row at NaN and +-inf inputs: PyTorch's value and slope, and the domain Python has (tests/vectors/ops/nonfinite.json)", () => {
  const num = (x) => (typeof x === "number" ? x : { NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity }[x]);
  const file = fileURLToPath(new URL("../tests/vectors/ops/nonfinite.json", import.meta.url));
  const { points } = JSON.parse(readFileSync(file, "utf8"));
  assert.ok(points.length > 100, "run .venv/bin/python tests/vectors/generate_nonfinite.py");
  const into = [0, 0];
  for (const [name, ra, rb, rk, domain, rout, rgrads] of points) {
    const op = OPS_BY_NAME[name];
    // The replay passes 0 for a unary op's missing input and NaN for a missing constant (js/tape.js).
    const [a, b, k] = [num(ra), rb === null ? 0 : num(rb), rk === null ? NaN : num(rk)];
    const out = op.forward(a, b, k);
    const where = `${name}(${ra}, ${rb}, ${rk})`;
    assert.equal(op.domain(a, b, k, out), domain, `domain of ${where}`);
    if (!domain) continue;
    assert.ok(Object.is(out, num(rout)), `${where} = ${out}, PyTorch ${rout}`);
    const grads = rgrads.map(num);
    assert.deepEqual(op.localGrad(a, b, k, out), grads, `slope of ${where}`); // deepEqual: -0 is not 0, NaN is NaN
    localGradInto(op.id, a, b, k, out, into);
    assert.deepEqual(into.slice(0, op.arity), grads, `the replay's switch: slope of ${where}`);
  }
});
