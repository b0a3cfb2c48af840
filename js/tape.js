// Forward and backward replay of the tape spec (micrograd_widget/tape.py `Tape.to_json()`), no DOM.
// Follows js/ops.js (generated from the Python op table) row for row and the Python replay's order:
// forward in node order, backward in reverse node order from the chosen output, so both sides agree.

import { OPS_BY_NAME } from "./ops.js";

const NON_FINITE = { NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity };

/** A spec number (float, or "NaN"/"Infinity"/"-Infinity" as tape.py encodes them) as a JS number. */
export function decodeNumber(x) {
  if (typeof x === "number") return x;
  if (typeof x === "string" && x in NON_FINITE) return NON_FINITE[x];
  throw new TypeError(`expected a number or "NaN"/"Infinity"/"-Infinity", got ${JSON.stringify(x)}`);
}

/** A JS number as the spec carries it (the inverse of decodeNumber). */
export function encodeNumber(x) {
  if (Number.isFinite(x)) return x;
  return Number.isNaN(x) ? "NaN" : x > 0 ? "Infinity" : "-Infinity";
}

function decodeArray(values, name, n) {
  if (!Array.isArray(values) || values.length !== n) {
    throw new TypeError(`tape spec: "${name}" must be a list of ${n} numbers`);
  }
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = decodeNumber(values[i]);
  return out;
}

/**
 * Compile a tape spec into flat typed arrays for fast replay.
 * `replayable` is false (with a `reason`) when the graph has a user-defined op (`unsupported` names them:
 * the kernel must compute instead) or a node built by hand outside the op table (`opaque` is its id, else
 * -1: nothing can replay it).
 */
export function compileTape(spec) {
  if (!spec || typeof spec !== "object" || !Array.isArray(spec.op)) {
    throw new TypeError("tape spec: expected an object with an \"op\" list (Tape.to_json())");
  }
  const n = spec.op.length;
  if (n === 0) throw new TypeError("tape spec: the tape has no nodes");
  for (const key of ["inputs", "k", "symbol", "label", "scope"]) {
    if (!Array.isArray(spec[key]) || spec[key].length !== n) {
      throw new TypeError(`tape spec: "${key}" must be a list with one entry per node (${n})`);
    }
  }
  const rows = (spec.ops || []).map((r) => {
    const js = r.builtin ? OPS_BY_NAME[r.name] : undefined;
    return js && js.arity === r.arity ? js : null;
  });
  const row = new Int32Array(n);
  const a = new Int32Array(n).fill(-1);
  const b = new Int32Array(n).fill(-1);
  const k = new Float64Array(n);
  const unsupported = new Set();
  let opaque = -1;
  for (let i = 0; i < n; i++) {
    const r = spec.op[i];
    const ins = spec.inputs[i];
    row[i] = r;
    k[i] = spec.k[i] === null ? NaN : decodeNumber(spec.k[i]);
    if (ins.length > 0) a[i] = ins[0];
    if (ins.length > 1) b[i] = ins[1];
    for (const j of ins) {
      if (!(j >= 0 && j < i)) throw new TypeError(`tape spec: node ${i} has input ${j}, which is not an earlier node`);
    }
    if (r < 0) {
      if (ins.length > 0 && opaque < 0) opaque = i;
    } else if (r >= rows.length) {
      throw new TypeError(`tape spec: node ${i} uses op row ${r}, but "ops" has ${rows.length} rows`);
    } else if (rows[r] === null) {
      unsupported.add(spec.ops[r].name);
    } else if (ins.length !== rows[r].arity) {
      throw new TypeError(`tape spec: node ${i} (${rows[r].name}) has ${ins.length} inputs, expected ${rows[r].arity}`);
    }
  }
  let reason = "";
  if (opaque >= 0) {
    reason = `node ${opaque} was built by hand outside the op table, so neither the browser nor the kernel can replay this graph`;
  } else if (unsupported.size > 0) {
    reason = `user-defined op${unsupported.size > 1 ? "s" : ""} ${[...unsupported].join(", ")}: the kernel computes this graph`;
  }
  const leaves = Int32Array.from(spec.leaves);
  return {
    n,
    root: spec.root,
    leaves,
    row,
    a,
    b,
    k,
    forwardFns: rows.map((r) => (r ? r.forward : null)),
    domainFns: rows.map((r) => (r ? r.domain : null)),
    gradFns: rows.map((r) => (r ? r.localGrad : null)),
    data: decodeArray(spec.data, "data", n),
    grad: decodeArray(spec.grad, "grad", n),
    replayable: reason === "",
    reason,
    unsupported: [...unsupported],
    opaque,
  };
}

function requireReplayable(tape) {
  if (!tape.replayable) throw new Error(`cannot replay in the browser: ${tape.reason}`);
}

/**
 * Recompute every node's data into `data` (Float64Array of n; leaf entries are taken from `leafValues`,
 * given in `tape.leaves` order). Returns the first node whose inputs are outside its op's domain (where
 * the Python op raises: log of a non-positive number, a float overflow in exp or **, ...), or -1; all
 * nodes are computed. NaN or infinities that Python returns without raising (inf - inf) are no failure.
 */
export function forward(tape, leafValues, data = new Float64Array(tape.n)) {
  requireReplayable(tape);
  const { n, leaves, row, a, b, k, forwardFns, domainFns } = tape;
  if (leafValues.length !== leaves.length) {
    throw new RangeError(`expected ${leaves.length} leaf values (one per leaf), got ${leafValues.length}`);
  }
  for (let j = 0; j < leaves.length; j++) data[leaves[j]] = leafValues[j];
  let failure = -1;
  for (let i = 0; i < n; i++) {
    const r = row[i];
    if (r < 0) continue;
    const x = data[a[i]];
    const bi = b[i];
    const y = bi < 0 ? 0 : data[bi];
    const out = forwardFns[r](x, y, k[i]);
    data[i] = out;
    if (failure < 0 && !domainFns[r](x, y, k[i], out)) failure = i;
  }
  return failure;
}

/** Fresh grads of node `output` (default: the root) with respect to every node, into `grad`. */
export function backward(tape, data, output = tape.root, grad = new Float64Array(tape.n)) {
  requireReplayable(tape);
  const { row, a, b, k, gradFns } = tape;
  if (!Number.isInteger(output) || output < 0 || output >= tape.n) {
    throw new RangeError(`output must be a node id from 0 to ${tape.n - 1}, got ${output}`);
  }
  grad.fill(0);
  grad[output] = 1;
  for (let i = output; i >= 0; i--) {
    const r = row[i];
    if (r < 0) continue;
    const g = grad[i];
    const ai = a[i];
    const bi = b[i];
    if (bi < 0) {
      grad[ai] += gradFns[r](data[ai], 0, k[i], data[i])[0] * g;
    } else {
      const local = gradFns[r](data[ai], data[bi], k[i], data[i]);
      grad[ai] += local[0] * g;
      grad[bi] += local[1] * g;
    }
  }
  return grad;
}

/** The leaf values of `data` in `tape.leaves` order. */
export function leafValuesOf(tape, data) {
  const out = new Float64Array(tape.leaves.length);
  for (let j = 0; j < out.length; j++) out[j] = data[tape.leaves[j]];
  return out;
}

/** Forward then backward: `{data, grad, failure}` for new leaf values and an output node. */
export function replay(tape, leafValues, output = tape.root) {
  const data = new Float64Array(tape.n);
  const failure = forward(tape, leafValues, data);
  const grad = backward(tape, data, output);
  return { data, grad, failure };
}

// ------------------------------------------------------------------ the backward pass, one step at a time

/** `reachedAt` of a node the backward pass never writes (not an input of anything `output` depends on). */
export const NEVER = 0x7fffffff;

/**
 * The backward pass of node `output` as the engine runs it, one step per op node that `output` depends on
 * (itself included), in reverse node order: step s fires node `node[s]`, whose grad is then final
 * (`upstream[s]`), and adds `localA[s] * upstream[s]` to input `inputA[s]`, then (binary ops)
 * `localB[s] * upstream[s]` to `inputB[s]` (-1 for unary ops), exactly the float operations of `backward`.
 * `reachedAt[i]` is the number of steps after which node i has a grad (0 for `output`, NEVER if none);
 * `grad` holds the grads after every step. O(n) time and memory; partial grads come from `gradsAfter`.
 */
export function backwardSteps(tape, data, output = tape.root) {
  requireReplayable(tape);
  if (!Number.isInteger(output) || output < 0 || output >= tape.n) {
    throw new RangeError(`output must be a node id from 0 to ${tape.n - 1}, got ${output}`);
  }
  const { n, row, a, b, k, gradFns } = tape;
  const needed = new Uint8Array(n);
  needed[output] = 1;
  let count = 0;
  for (let i = output; i >= 0; i--) {
    if (!needed[i] || row[i] < 0) continue;
    count += 1;
    needed[a[i]] = 1;
    if (b[i] >= 0) needed[b[i]] = 1;
  }
  const node = new Int32Array(count);
  const inputA = new Int32Array(count);
  const inputB = new Int32Array(count);
  const upstream = new Float64Array(count);
  const localA = new Float64Array(count);
  const localB = new Float64Array(count);
  const reachedAt = new Int32Array(n).fill(NEVER);
  const grad = new Float64Array(n);
  grad[output] = 1;
  reachedAt[output] = 0;
  let s = 0;
  for (let i = output; i >= 0; i--) {
    if (!needed[i] || row[i] < 0) continue;
    const g = grad[i];
    const ai = a[i];
    const bi = b[i];
    const local = gradFns[row[i]](data[ai], bi < 0 ? 0 : data[bi], k[i], data[i]);
    node[s] = i;
    upstream[s] = g;
    inputA[s] = ai;
    localA[s] = local[0];
    grad[ai] += local[0] * g;
    if (reachedAt[ai] === NEVER) reachedAt[ai] = s + 1;
    inputB[s] = bi;
    if (bi >= 0) {
      localB[s] = local[1];
      grad[bi] += local[1] * g;
      if (reachedAt[bi] === NEVER) reachedAt[bi] = s + 1;
    } else {
      localB[s] = NaN;
    }
    s += 1;
  }
  return { n, output, count, node, inputA, inputB, upstream, localA, localB, reachedAt, grad };
}

/** Add step `s`'s contributions to `grad` (the partial grads after s steps become those after s + 1). */
export function applyStep(steps, s, grad) {
  const g = steps.upstream[s];
  grad[steps.inputA[s]] += steps.localA[s] * g;
  const bi = steps.inputB[s];
  if (bi >= 0) grad[bi] += steps.localB[s] * g;
  return grad;
}

/** The grads after the first `k` steps (0..count) of `backwardSteps`: what the engine holds at that moment. */
export function gradsAfter(steps, k, grad = new Float64Array(steps.n)) {
  if (!Number.isInteger(k) || k < 0 || k > steps.count) {
    throw new RangeError(`step must be an integer from 0 to ${steps.count}, got ${k}`);
  }
  grad.fill(0);
  grad[steps.output] = 1;
  for (let s = 0; s < k; s++) applyStep(steps, s, grad);
  return grad;
}

// ------------------------------------------------------------------ numerical gradient check

/** micrograd_widget.gradcheck's defaults: a row passes when |analytic - numeric| <= atol + rtol * |numeric|. */
export const GRADCHECK_DEFAULTS = Object.freeze({ eps: 1e-6, rtol: 1e-4, atol: 1e-6 });

/**
 * d(output)/d(leaf j) by central differences, (f(x + eps) - f(x - eps)) / 2eps, from two forward replays
 * (`leafValues` is restored; `scratch` is a Float64Array(n) to reuse). `failure` is the node whose op
 * failed in either replay (numeric is then NaN), else -1.
 */
export function numericGrad(tape, leafValues, j, output, eps, scratch = new Float64Array(tape.n)) {
  const x = leafValues[j];
  try {
    leafValues[j] = x + eps;
    const f1 = forward(tape, leafValues, scratch);
    const plus = scratch[output];
    leafValues[j] = x - eps;
    const f2 = forward(tape, leafValues, scratch);
    const minus = scratch[output];
    const failure = f1 >= 0 ? f1 : f2;
    return { numeric: failure >= 0 ? NaN : (plus - minus) / (2 * eps), failure };
  } finally {
    leafValues[j] = x;
  }
}

/** How far an analytic grad is from its numeric estimate, and whether that is within tolerance (as gradcheck.py). */
export function gradcheckVerdict(analytic, numeric, rtol = GRADCHECK_DEFAULTS.rtol, atol = GRADCHECK_DEFAULTS.atol) {
  const absError = Math.abs(analytic - numeric);
  const scale = Math.max(Math.abs(analytic), Math.abs(numeric));
  const relError = scale > 0 ? absError / scale : Number.isNaN(scale) ? NaN : 0;
  return { absError, relError, ok: absError <= atol + rtol * Math.abs(numeric) };
}
