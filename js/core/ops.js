// Generated from micrograd_widget/core/ops.py by `python -m micrograd_widget.core.ops`; do not edit.
// @ts-check
// forward(a, b, k) and localGrad(a, b, k, out) follow the Python op table row for row;
// domain(a, b, k, out) is true exactly where the Python forward returns instead of raising.

/** a ** b as IEEE pow (Python's and C's): 1 where JavaScript's ** gives NaN, at a base of 1 or at -1 to an
 * infinite power.
 * @param {number} a
 * @param {number} b
 * @returns {number} */
export function ieeePow(a, b) {
  return a === 1 || (a === -1 && (b === Infinity || b === -Infinity)) ? 1 : a ** b;
}

/**
 * One row of the op table (a unary op sees b = 0, a row without a constant k = NaN).
 * @typedef {object} OpRow
 * @property {number} id the row's code in the replay loops
 * @property {string} name
 * @property {string} symbol
 * @property {1 | 2} arity
 * @property {(a: number, b: number, k: number) => number} forward
 * @property {(a: number, b: number, k: number, out: number) => number[]} localGrad [d/da] or [d/da, d/db]
 * @property {(a: number, b: number, k: number, out: number) => boolean} domain where Python returns
 */

/** @type {readonly OpRow[]} */
export const OPS = [
  { id: 0, name: "add", symbol: "+", arity: 2,
    forward: (a, b, k) => a + b,
    localGrad: (a, b, k, out) => [1, 1],
    domain: (a, b, k, out) => true },
  { id: 1, name: "sub", symbol: "-", arity: 2,
    forward: (a, b, k) => a - b,
    localGrad: (a, b, k, out) => [1, -1],
    domain: (a, b, k, out) => true },
  { id: 2, name: "mul", symbol: "*", arity: 2,
    forward: (a, b, k) => a * b,
    localGrad: (a, b, k, out) => [b, a],
    domain: (a, b, k, out) => true },
  { id: 3, name: "div", symbol: "/", arity: 2,
    forward: (a, b, k) => a / b,
    localGrad: (a, b, k, out) => [1 / b, -(a / b) / b],
    domain: (a, b, k, out) => b !== 0 },
  { id: 4, name: "neg", symbol: "neg", arity: 1,
    forward: (a, b, k) => -a,
    localGrad: (a, b, k, out) => [-1],
    domain: (a, b, k, out) => true },
  { id: 5, name: "pow", symbol: "**", arity: 1,
    forward: (a, b, k) => ieeePow(a, k),
    localGrad: (a, b, k, out) => [k === 0 ? 0 : (a === 0 && k < 1 ? (k > 0 ? Infinity : NaN) : k * ieeePow(a, k - 1))],
    domain: (a, b, k, out) => !(a === 0 && k < 0) && !(a < 0 && Number.isFinite(k) && !Number.isInteger(k)) && (Number.isFinite(out) || !Number.isFinite(a) || !Number.isFinite(k)) },
  { id: 6, name: "powv", symbol: "**", arity: 2,
    forward: (a, b, k) => ieeePow(a, b),
    localGrad: (a, b, k, out) => [b === 0 ? 0 : b * ieeePow(a, b - 1), out * Math.log(a)],
    domain: (a, b, k, out) => !(a <= 0) && (Number.isFinite(out) || !Number.isFinite(a) || !Number.isFinite(b)) },
  { id: 7, name: "exp", symbol: "exp", arity: 1,
    forward: (a, b, k) => Math.exp(a),
    localGrad: (a, b, k, out) => [out],
    domain: (a, b, k, out) => Number.isFinite(out) || !Number.isFinite(a) },
  { id: 8, name: "log", symbol: "log", arity: 1,
    forward: (a, b, k) => Math.log(a),
    localGrad: (a, b, k, out) => [1 / a],
    domain: (a, b, k, out) => !(a <= 0) },
  { id: 9, name: "tanh", symbol: "tanh", arity: 1,
    forward: (a, b, k) => Math.tanh(a),
    localGrad: (a, b, k, out) => [1 - out * out],
    domain: (a, b, k, out) => true },
  { id: 10, name: "relu", symbol: "ReLU", arity: 1,
    forward: (a, b, k) => a < 0 ? 0 : a,
    localGrad: (a, b, k, out) => [a <= 0 ? 0 : 1],
    domain: (a, b, k, out) => true },
  { id: 11, name: "sigmoid", symbol: "sigmoid", arity: 1,
    forward: (a, b, k) => a >= 0 ? 1 / (1 + Math.exp(-a)) : Math.exp(a) / (1 + Math.exp(a)),
    localGrad: (a, b, k, out) => [out * (1 - out)],
    domain: (a, b, k, out) => true },
];
/** @type {Readonly<Record<string, OpRow | undefined>>} */
export const OPS_BY_NAME = Object.fromEntries(OPS.map((op) => [op.name, op]));

// The replay loops: the rows' expressions above, inlined in one switch (same floats, no call per node).
/**
 * Every op node's data in node order (leaves set); the first node outside its op's domain, or -1.
 * @param {number} n
 * @param {Int32Array} code
 * @param {Int32Array} inA
 * @param {Int32Array} inB
 * @param {Float64Array} konst
 * @param {Float64Array} data
 * @returns {number}
 */
export function forwardLoop(n, code, inA, inB, konst, data) {
  let failure = -1;
  for (let i = 0; i < n; i++) {
    const c = code[i];
    if (c < 0) continue;
    let out;
    switch (c) {
      case 0: { const a = data[inA[i]], b = data[inB[i]]; out = a + b; data[i] = out; } break;
      case 1: { const a = data[inA[i]], b = data[inB[i]]; out = a - b; data[i] = out; } break;
      case 2: { const a = data[inA[i]], b = data[inB[i]]; out = a * b; data[i] = out; } break;
      case 3: { const a = data[inA[i]], b = data[inB[i]]; out = a / b; data[i] = out; if (failure < 0 && !(b !== 0)) failure = i; } break;
      case 4: { const a = data[inA[i]]; out = -a; data[i] = out; } break;
      case 5: { const a = data[inA[i]], k = konst[i]; out = ieeePow(a, k); data[i] = out; if (failure < 0 && !(!(a === 0 && k < 0) && !(a < 0 && Number.isFinite(k) && !Number.isInteger(k)) && (Number.isFinite(out) || !Number.isFinite(a) || !Number.isFinite(k)))) failure = i; } break;
      case 6: { const a = data[inA[i]], b = data[inB[i]]; out = ieeePow(a, b); data[i] = out; if (failure < 0 && !(!(a <= 0) && (Number.isFinite(out) || !Number.isFinite(a) || !Number.isFinite(b)))) failure = i; } break;
      case 7: { const a = data[inA[i]]; out = Math.exp(a); data[i] = out; if (failure < 0 && !(Number.isFinite(out) || !Number.isFinite(a))) failure = i; } break;
      case 8: { const a = data[inA[i]]; out = Math.log(a); data[i] = out; if (failure < 0 && !(!(a <= 0))) failure = i; } break;
      case 9: { const a = data[inA[i]]; out = Math.tanh(a); data[i] = out; } break;
      case 10: { const a = data[inA[i]]; out = a < 0 ? 0 : a; data[i] = out; } break;
      case 11: { const a = data[inA[i]]; out = a >= 0 ? 1 / (1 + Math.exp(-a)) : Math.exp(a) / (1 + Math.exp(a)); data[i] = out; } break;
      default: throw new Error(`op code ${c} at node ${i} is not in the op table`);
    }
  }
  return failure;
}

/**
 * Fresh grads of node `output` into `grad`: reverse node order, each node's partials times its grad.
 * @param {number} output
 * @param {Int32Array} code
 * @param {Int32Array} inA
 * @param {Int32Array} inB
 * @param {Float64Array} konst
 * @param {Float64Array} data
 * @param {Float64Array} grad
 * @returns {Float64Array}
 */
export function backwardLoop(output, code, inA, inB, konst, data, grad) {
  grad.fill(0);
  grad[output] = 1;
  for (let i = output; i >= 0; i--) {
    const c = code[i];
    if (c < 0) continue;
    const g = grad[i], ai = inA[i], bi = inB[i];
    switch (c) {
      case 0: { grad[ai] += (1) * g; grad[bi] += (1) * g; } break;
      case 1: { grad[ai] += (1) * g; grad[bi] += (-1) * g; } break;
      case 2: { const a = data[ai], b = data[bi]; grad[ai] += (b) * g; grad[bi] += (a) * g; } break;
      case 3: { const a = data[ai], b = data[bi]; grad[ai] += (1 / b) * g; grad[bi] += (-(a / b) / b) * g; } break;
      case 4: { grad[ai] += (-1) * g; } break;
      case 5: { const a = data[ai], k = konst[i]; grad[ai] += (k === 0 ? 0 : (a === 0 && k < 1 ? (k > 0 ? Infinity : NaN) : k * ieeePow(a, k - 1))) * g; } break;
      case 6: { const a = data[ai], b = data[bi], out = data[i]; grad[ai] += (b === 0 ? 0 : b * ieeePow(a, b - 1)) * g; grad[bi] += (out * Math.log(a)) * g; } break;
      case 7: { const out = data[i]; grad[ai] += (out) * g; } break;
      case 8: { const a = data[ai]; grad[ai] += (1 / a) * g; } break;
      case 9: { const out = data[i]; grad[ai] += (1 - out * out) * g; } break;
      case 10: { const a = data[ai]; grad[ai] += (a <= 0 ? 0 : 1) * g; } break;
      case 11: { const out = data[i]; grad[ai] += (out * (1 - out)) * g; } break;
      default: throw new Error(`op code ${c} at node ${i} is not in the op table`);
    }
  }
  return grad;
}

/**
 * Row `c`'s partials at (a, b, k, out) into `into` ([d/da, d/db]; d/db is NaN for a unary op).
 * @template {Float64Array | number[]} T
 * @param {number} c
 * @param {number} a
 * @param {number} b
 * @param {number} k
 * @param {number} out
 * @param {T} into
 * @returns {T}
 */
export function localGradInto(c, a, b, k, out, into) {
  switch (c) {
    case 0: into[0] = 1; into[1] = 1; break;
    case 1: into[0] = 1; into[1] = -1; break;
    case 2: into[0] = b; into[1] = a; break;
    case 3: into[0] = 1 / b; into[1] = -(a / b) / b; break;
    case 4: into[0] = -1; into[1] = NaN; break;
    case 5: into[0] = k === 0 ? 0 : (a === 0 && k < 1 ? (k > 0 ? Infinity : NaN) : k * ieeePow(a, k - 1)); into[1] = NaN; break;
    case 6: into[0] = b === 0 ? 0 : b * ieeePow(a, b - 1); into[1] = out * Math.log(a); break;
    case 7: into[0] = out; into[1] = NaN; break;
    case 8: into[0] = 1 / a; into[1] = NaN; break;
    case 9: into[0] = 1 - out * out; into[1] = NaN; break;
    case 10: into[0] = a <= 0 ? 0 : 1; into[1] = NaN; break;
    case 11: into[0] = out * (1 - out); into[1] = NaN; break;
    default: throw new Error(`op code ${c} is not in the op table`);
  }
  return into;
}
