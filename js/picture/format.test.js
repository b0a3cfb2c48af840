// Number formatting matches Python's f-format and repr, checked against Python itself where available.

import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

import { colorScale, formatExp, formatFixed, formatNumber, gradColor, gradScale, legendMarks, legendWords, plural, pyRepr,
  scaleTitle, shownAsZero, thousands } from "./format.js";

const ROOT = dirname(dirname(dirname(fileURLToPath(import.meta.url))));

test("formatFixed and pyRepr: known cases", () => {
  assert.equal(formatFixed(0.125, 2), "0.12");
  assert.equal(formatFixed(0.375, 2), "0.38");
  assert.equal(formatFixed(-0.03125, 4), "-0.0312");
  assert.equal(formatFixed(2.5, 0), "2");
  assert.equal(formatFixed(3.5, 0), "4");
  assert.equal(formatFixed(-0, 4), "-0.0000");
  assert.equal(formatFixed(-1e-9, 4), "-0.0000");
  assert.equal(formatFixed(6, 4), "6.0000");
  assert.equal(formatFixed(NaN, 4), "nan");
  assert.equal(formatFixed(-Infinity, 4), "-inf");
  assert.equal(formatFixed(1e22, 2), "10000000000000000000000.00");
  assert.equal(formatExp(1234450, 4), "1.2344e+06");
  assert.equal(formatExp(1234550, 4), "1.2346e+06");
  assert.equal(formatExp(9999950, 4), "1.0000e+07");
  assert.equal(formatExp(0.125, 1), "1.2e-01");
  assert.equal(formatExp(0.000125, 1), "1.3e-04");
  assert.equal(formatNumber(1234567.5, 2), "1.23e+06");
  assert.equal(formatNumber(-999999.5, 1), "-999999.5");
  assert.equal(pyRepr(1), "1.0");
  assert.equal(pyRepr(0.1), "0.1");
  assert.equal(pyRepr(1e16), "1e+16");
  assert.equal(pyRepr(1e-5), "1e-05");
  assert.equal(pyRepr(0.0001), "0.0001");
  assert.equal(pyRepr(-2.5e-7), "-2.5e-07");
  assert.equal(pyRepr(123456789.125), "123456789.125");
  assert.equal(pyRepr(0.7071067811865476), "0.7071067811865476");
});

test("formatFixed and pyRepr agree with Python on many numbers", () => {
  const venv = join(ROOT, ".venv", "bin", "python");
  const python = process.env.PYTHON || (existsSync(venv) ? venv : "python3");
  const xs = [0, -0, 0.5, 1.5, 2.5, 0.125, 1 / 3, -2 / 3, 1e-7, 5e-5, 0.03125, 9.99995, 1e15, 1.2345e16, 6.02e23, -1e300, 5e-324,
    1234450, 1234550, 9999950, 25, 35, 0.000125, 4.5e-7, 1e21, 1.5e22];
  for (let i = 0; i < 300; i++) xs.push((Math.sin(i * 12.9898) * 43758.5453) % 10 ** ((i % 9) - 3));
  for (let i = 0; i < 64; i++) xs.push((i - 32) / 64);
  const script =
    "import json,sys\nxs=[float.fromhex(h) for h in json.load(sys.stdin)]\n" +
    "print(json.dumps([[repr(x), f'{x:.4f}', f'{x:.1f}', f'{x:.0f}', f'{x:.4e}', f'{x:.0e}'] for x in xs]))";
  let out;
  try {
    out = execFileSync(python, ["-c", script], { input: JSON.stringify(xs.map(toHex)), encoding: "utf8" });
  } catch (err) {
    assert.fail(`the Python reference could not run (${python}; set PYTHON or create .venv): ${err.message}`);
  }
  const expected = JSON.parse(out);
  xs.forEach((x, i) => {
    const got = [pyRepr(x), formatFixed(x, 4), formatFixed(x, 1), formatFixed(x, 0), formatExp(x, 4), formatExp(x, 0)];
    assert.deepEqual(got, expected[i], `x = ${x}`);
  });
});

function toHex(x) {
  if (x === 0) return Object.is(x, -0) ? "-0x0p+0" : "0x0p+0";
  const buf = new DataView(new ArrayBuffer(8));
  buf.setFloat64(0, x);
  const bits = buf.getBigUint64(0);
  const sign = bits >> 63n ? "-" : "";
  const e = Number((bits >> 52n) & 0x7ffn);
  const m = bits & ((1n << 52n) - 1n);
  return e === 0 ? `${sign}0x0.${m.toString(16).padStart(13, "0")}p-1022` : `${sign}0x1.${m.toString(16).padStart(13, "0")}p${e - 1023}`;
}

test("gradColor, legendMarks and legendWords follow colors.py on both scales (checked against Python)", () => {
  // [grad, the picture's largest |grad|, precision, log scale]: ties at the precision, grads shown as 0, the log
  // scale's floor and its full colour above 1.
  const cases = [[0, 1, 4, false], [1, 1, 4, false], [-1, 1, 4, false], [0.25, 1, 4, false], [-0.01, 2, 4, false],
    [3, 2, 4, false], [NaN, 1, 4, false], [Infinity, 1, 4, false], [0.5, 0, 4, false], [1e-300, 1e300, 4, false],
    [1, 0.000460397301831561, 4, false], [-2, 0.5, 4, false], [0.0002301986509157805, 0.000460397301831561, 4, false],
    [1e-8, 1e-8, 4, false], [-3e-9, 1e-8, 4, false], [1e-8, 1e-8, 8, false], [0.00005, 0.0001, 4, false],
    [0.0000499, 0.0001, 4, false], [-0.00004, 0.0001, 5, false], [0.4, 1, 0, false], [0.6, 1, 0, false],
    [1e-8, 1e-8, 4, true], [-1e-8, 1e-8, 4, true], [1e-12, 1, 4, true], [1e-13, 1, 4, true], [0, 0, 4, true],
    [5, 5, 4, true], [-0.03, 20, 4, true], [1e-6, 0.2, 4, true], [NaN, 1, 4, true], [2.5e-7, 1e300, 4, true]];
  const venv = join(ROOT, ".venv", "bin", "python");
  const python = process.env.PYTHON || (existsSync(venv) ? venv : "python3");
  const script =
    "import json,sys\nfrom micrograd_widget.picture import colors\n" +
    "p={'negative':colors.NEGATIVE_COLOR,'positive':colors.POSITIVE_COLOR,'zero':colors.ZERO_COLOR,'nonfinite':colors.NONFINITE_COLOR}\n" +
    "out=[]\nfor g, s, n, log in json.load(sys.stdin):\n" +
    "    c=colors.ColorScale(float(s), n, log)\n" +
    "    out.append([colors.grad_color(float(g), c), [[v, t] for v, t in colors.legend_marks(c)], colors.legend_words(c), colors.scale_title(c)])\n" +
    "print(json.dumps([p, out]))";
  let palette, expected;
  try {
    const input = JSON.stringify(cases.map(([g, s, n, log]) => [String(g), String(s), n, log]));
    const out = execFileSync(python, ["-c", script], { cwd: ROOT, input, encoding: "utf8", stdio: ["pipe", "pipe", "pipe"] });
    [palette, expected] = JSON.parse(out);
  } catch (err) {
    assert.fail(`the Python reference (micrograd_widget.picture.colors via ${python}) could not run: ${err.message}`);
  }
  cases.forEach(([g, s, n, log], i) => {
    const scale = colorScale(s, n, log);
    const what = `grad ${g}, largest ${s}, precision ${n}, log ${log}`;
    assert.equal(gradColor(g, scale, palette), expected[i][0], what);
    assert.deepEqual(legendMarks(scale), expected[i][1], what);
    assert.equal(legendWords(scale), expected[i][2], what);
    assert.equal(scaleTitle(scale), expected[i][3], what);
  });
});

test("a grad shown as 0 is white; the log scale tints it (worked out by hand)", () => {
  const palette = { negative: "#5b9bd5", positive: "#f0913a", zero: "#ffffff", nonfinite: "#bdbdbd" };
  assert.equal(gradColor(1e-8, colorScale(1e-8, 4), palette), "#ffffff", "0.0000 at 4 decimals");
  assert.equal(gradColor(1, colorScale(1e-8, 4), palette), "#f0913a", "the output's own 1.0000");
  assert.equal(gradColor(1e-8, colorScale(1e-8, 4, true), palette), "#fadabd", "8 of 12 decades down: t = 1/3");
  assert.equal(gradColor(1, colorScale(4, 4), palette), "#f8c89c", "sqrt(1/4) = 0.5, halves rounded to even");
  assert.equal(legendWords(colorScale(0, 4)), "all gradients are 0");
  assert.equal(shownAsZero(-0.00004, 4), true);
  assert.equal(shownAsZero(0.00005, 4), false, "the float just above 5e-5 reads 0.0001");
});

test("gradScale leaves out the output and falls back to it, as colors.grad_scale (checked against Python)", () => {
  // [grads of the other nodes drawn, the output's grad or null when it is not drawn]
  const saturated = [-0.0002301986509157805, 0.000460397301831561, 0.0002301986509157805, 0, 0.0002301986509157805];
  const cases = [[saturated, 1], [[6, -4, -2, -2, -2, 4], 1], [[], 1], [[0, -0, 0], 1], [[0, NaN, Infinity], -2], [[], null],
    [[0, 0], null], [[NaN], NaN], [[-3, Infinity, 2.5], 1], [[1e-300], 1]];
  assert.equal(gradScale(saturated, 1), 0.000460397301831561, "the output's grad of 1 does not set the scale");
  assert.equal(gradScale([], 1), 1, "only the output: it sets the scale");
  assert.equal(gradScale([0, 0], -2), 2, "every other grad zero: the output sets the scale");
  assert.equal(gradScale([], null), 0);
  assert.equal(gradColor(1, colorScale(gradScale(saturated, 1), 4), { negative: "#0000ff", positive: "#ff8000", zero: "#ffffff", nonfinite: "#888888" }),
    "#ff8000", "the output is clamped to the strongest colour");
  const venv = join(ROOT, ".venv", "bin", "python");
  const python = process.env.PYTHON || (existsSync(venv) ? venv : "python3");
  const script =
    "import json,sys\nfrom micrograd_widget.picture import colors\n" +
    "print(json.dumps([colors.grad_scale([float(g) for g in gs], None if o is None else float(o)) for gs, o in json.load(sys.stdin)]))";
  let expected;
  try {
    const input = JSON.stringify(cases.map(([gs, o]) => [gs.map(String), o === null ? null : String(o)]));
    expected = JSON.parse(execFileSync(python, ["-c", script], { cwd: ROOT, input, encoding: "utf8", stdio: ["pipe", "pipe", "pipe"] }));
  } catch (err) {
    assert.fail(`the Python reference (micrograd_widget.picture.colors via ${python}) could not run: ${err.message}`);
  }
  cases.forEach(([gs, o], i) => assert.equal(gradScale(gs, o), expected[i], `grads ${gs}, output ${o}`));
});

test("plural: a count with its noun, as text.py's plural (issue 19: '99,754 leaf' before)", () => {
  const cases = [[1, "node", "1 node"], [0, "node", "0 nodes"], [2, "node", "2 nodes"], [1, "leaf", "1 leaf"],
    [99_754, "leaf", "99,754 leaves"], [1, "box", "1 box"], [9, "box", "9 boxes"], [1_000_000, "term", "1,000,000 terms"],
    [2, "long sum", "2 long sums"], [1, "other node", "1 other node"], [3, "partial sum", "3 partial sums"],
    [2, "constructor", "2 constructors"]];
  for (const [n, noun, said] of cases) assert.equal(plural(n, noun), said, `${n} ${noun}`);
  assert.equal(thousands(1234567), "1,234,567");
});
