// @ts-check
// The tape spec's decode (micrograd_widget/core/spec.py writes it, tape.py `Tape.spec()` builds it, version 2; the
// format is js/host/spec-contract.md), no DOM. The spec's per-node arrays arrive as little-endian binary buffers (a
// DataView from a widget manager or the exported page, an ArrayBuffer or a typed array elsewhere); compileTape
// checks them and owns them, so the view reads node names, inputs and ops from the compiled tape, never from
// the raw spec. Nothing here recurses.

import { OPS_BY_NAME } from "./ops.js";
import { SPEC_VERSION } from "./shared.js";

// ------------------------------------------------------------------ the wire format (js/host/spec-contract.md)

/**
 * A binary buffer of little-endian numbers as a front end hands it over.
 * @typedef {DataView | ArrayBuffer | ArrayBufferView} BinaryBuffer
 */

/**
 * Per-node strings as spec.py's string_table writes them: the distinct strings, an Int32 index per node.
 * @typedef {object} StringTable
 * @property {string[]} strings
 * @property {BinaryBuffer} index
 */

/**
 * One op row of the spec (tape.py's op table row as the spec carries it).
 * @typedef {object} SpecOpRow
 * @property {string} name
 * @property {string} [symbol] the name when absent
 * @property {1 | 2} arity
 * @property {boolean} [builtin] false when absent: a user-defined op the browser cannot replay
 */

/**
 * The widget's `spec` trait, version 2 (Tape.spec()). Untrusted: compileTape checks every field at runtime.
 * @typedef {object} TapeSpec
 * @property {number} version SPEC_VERSION
 * @property {number} n nodes, at least 1
 * @property {number} root the node differentiated by default
 * @property {SpecOpRow[]} ops the op rows used
 * @property {BinaryBuffer} op Int32 per node: its row in `ops`, -1 for none
 * @property {BinaryBuffer} input_start Int32, n + 1: node i's inputs are inputs[input_start[i]:input_start[i + 1]]
 * @property {BinaryBuffer} inputs Int32, every node's input ids (each an earlier node)
 * @property {BinaryBuffer} k Float64 per node: the constant (x ** k), NaN for none
 * @property {BinaryBuffer} leaves Int32: the nodes without inputs, increasing
 * @property {BinaryBuffer} leaf_data Float64: the leaves' data, in `leaves` order
 * @property {StringTable | string[]} symbol per node
 * @property {StringTable | string[]} label per node
 * @property {StringTable | string[]} scope per node
 */

/**
 * An op row as the compiled tape keeps it.
 * @typedef {object} TapeOp
 * @property {string} name
 * @property {string} symbol
 * @property {1 | 2} arity
 * @property {boolean} builtin
 */

/**
 * A compiled tape: compileTape's flat typed arrays, what every view and replay reads.
 * @typedef {object} Tape
 * @property {number} n
 * @property {number} root
 * @property {Int32Array} leaves
 * @property {Float64Array} leafData
 * @property {Int32Array} row per node: its op row, -1 for none
 * @property {Int32Array} code per node: its row's id in js/core/ops.js, -1 for a leaf or a row the browser cannot replay
 * @property {TapeOp[]} ops
 * @property {Int32Array} inputStart CSR starts, n + 1
 * @property {Int32Array} inputs CSR input ids
 * @property {Int32Array} a first input, -1 for none
 * @property {Int32Array} b second input, -1 for none
 * @property {Float64Array} k constant, NaN for none
 * @property {string[]} labels
 * @property {string[]} scopes
 * @property {string[]} symbols
 * @property {boolean} replayable
 * @property {string} reason why not replayable ("" when it is)
 * @property {string[]} unsupported the user-defined ops' names
 * @property {number} opaque the first node built by hand outside the op table, or -1
 */

// ------------------------------------------------------------------ numbers and buffers

/** @type {Readonly<Record<string, number>>} */
const NON_FINITE = { NaN: NaN, Infinity: Infinity, "-Infinity": -Infinity };

/**
 * A JSON number (float, or "NaN"/"Infinity"/"-Infinity" as spec.py's encode_number writes it) as a JS number.
 * @param {unknown} x
 * @returns {number}
 */
export function decodeNumber(x) {
  if (typeof x === "number") return x;
  if (typeof x === "string" && x in NON_FINITE) return NON_FINITE[x];
  throw new TypeError(`expected a number or "NaN"/"Infinity"/"-Infinity", got ${JSON.stringify(x)}`);
}

/**
 * A JS number as JSON carries it (the inverse of decodeNumber).
 * @param {number} x
 * @returns {number | string}
 */
export function encodeNumber(x) {
  if (Number.isFinite(x)) return x;
  return Number.isNaN(x) ? "NaN" : x > 0 ? "Infinity" : "-Infinity";
}

/** @type {{int32: {size: number, Typed: Int32ArrayConstructor, read: (view: DataView, at: number) => number}, float64: {size: number, Typed: Float64ArrayConstructor, read: (view: DataView, at: number) => number}}} */
const KINDS = {
  int32: { size: 4, Typed: Int32Array, read: (view, at) => view.getInt32(at, true) },
  float64: { size: 8, Typed: Float64Array, read: (view, at) => view.getFloat64(at, true) },
};

/**
 * @overload
 * @param {unknown} buffer
 * @param {"int32"} kind
 * @param {string} what
 * @param {number} [n]
 * @returns {Int32Array}
 */
/**
 * @overload
 * @param {unknown} buffer
 * @param {"float64"} kind
 * @param {string} what
 * @param {number} [n]
 * @returns {Float64Array}
 */

/**
 * A binary buffer of little-endian `kind` ("int32" | "float64") numbers as a typed array of its own: from a
 * DataView, an ArrayBuffer, a typed array of that kind (taken as it is) or any other typed array (its bytes).
 * `n`: the expected count (undefined: any). Throws a TypeError naming `what` when it is no buffer or the wrong size.
 * @param {unknown} buffer
 * @param {"int32" | "float64"} kind
 * @param {string} what
 * @param {number} [n]
 * @returns {Int32Array | Float64Array}
 */
export function readBuffer(buffer, kind, what, n) {
  const { size, Typed, read } = KINDS[kind];
  let view;
  if (buffer instanceof Typed) {
    if (n !== undefined && buffer.length !== n) {
      throw new TypeError(`tape spec: "${what}" must hold ${n} ${kind} numbers, got ${buffer.length}`);
    }
    return buffer;
  }
  if (buffer instanceof DataView) view = buffer;
  else if (buffer instanceof ArrayBuffer) view = new DataView(buffer);
  else if (ArrayBuffer.isView(buffer)) view = new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  else {
    const got = Array.isArray(buffer) ? "a list (a version 1 spec?)" : buffer === null ? "null" : typeof buffer;
    throw new TypeError(`tape spec: "${what}" must be a binary buffer of ${kind} numbers (DataView, ArrayBuffer or typed array), got ${got}`);
  }
  if (view.byteLength % size !== 0 || (n !== undefined && view.byteLength !== n * size)) {
    throw new TypeError(`tape spec: "${what}" must hold ${n === undefined ? "whole" : n} ${kind} numbers (${size} bytes each), got ${view.byteLength} bytes`);
  }
  const out = new Typed(view.byteLength / size);
  for (let i = 0; i < out.length; i++) out[i] = read(view, i * size);
  return out;
}

/**
 * The kernel's numbers for every node (the widget's `data`/`grad` traits, Float64 buffers): a Float64Array of
 * `n`, or null when the kernel sent none (empty: the browser replays this graph itself).
 * @param {DataView | ArrayBuffer | ArrayBufferView | null | undefined} buffer
 * @param {number} n
 * @returns {Float64Array | null}
 */
export function kernelNumbers(buffer, n) {
  if (buffer === null || buffer === undefined || buffer.byteLength === 0) return null;
  return readBuffer(buffer, "float64", "kernel numbers", n);
}

/** @param {unknown} s */
const asString = (s) => (typeof s === "string" ? s : s === null || s === undefined ? "" : String(s));

/** Per-node strings: a string table ({strings, index: Int32 buffer}, as tape.py's string_table writes them)
 * or a plain list of n strings; an array of n strings either way.
 * @param {StringTable | string[]} values
 * @param {string} name
 * @param {number} n
 * @returns {string[]}
 */
function stringList(values, name, n) {
  if (values && !Array.isArray(values) && Array.isArray(values.strings)) {
    const strings = values.strings.map(asString);
    const index = readBuffer(values.index, "int32", `${name}.index`, n);
    const out = new Array(n);
    for (let i = 0; i < n; i++) {
      const s = strings[index[i]];
      if (s === undefined) throw new TypeError(`tape spec: "${name}.index" points past its ${strings.length} strings at node ${i}`);
      out[i] = s;
    }
    return out;
  }
  if (!Array.isArray(values) || values.length !== n) {
    throw new TypeError(`tape spec: "${name}" must be a list of ${n} strings (one per node) or a string table`);
  }
  return values.map(asString);
}

/**
 * Compile a tape spec (version 2) into flat typed arrays for fast replay, checking every length and index.
 * Per node: `row` (op row, -1 for none), `code` (its row's id in js/core/ops.js, -1 for a leaf or a row the browser
 * cannot replay: what the replay loops switch on), inputs in CSR form (`inputStart`, `inputs`; see `inputsOf`), `a`/`b`
 * (first/second input, -1 for none), `k` (NaN for none), `labels`, `scopes`, `symbols`; `ops` (the op rows:
 * name, symbol, arity, builtin), `leaves`, `leafData` (the leaves' values when the tape was frozen), `root`.
 * `replayable` is false (with a `reason`) when the graph has a user-defined op (`unsupported` names them:
 * the kernel must compute instead) or a node built by hand outside the op table (`opaque` is its id, else
 * -1: nothing can replay it).
 * @param {TapeSpec} spec untrusted: every field is checked
 * @returns {Tape}
 */
export function compileTape(spec) {
  if (!spec || typeof spec !== "object") throw new TypeError("tape spec: expected an object (Tape.spec())");
  if (spec.version !== SPEC_VERSION) {
    throw new TypeError(`tape spec: version ${JSON.stringify(spec.version)} is not supported; this view reads version ${SPEC_VERSION}. `
      + "Run the cell that made the widget again with the installed micrograd-widget.");
  }
  const n = spec.n;
  if (!Number.isInteger(n) || n < 1) throw new TypeError(`tape spec: "n" must be the number of nodes (at least 1), got ${JSON.stringify(n)}`);
  if (!Number.isInteger(spec.root) || spec.root < 0 || spec.root >= n) {
    throw new TypeError(`tape spec: "root" must be a node id from 0 to ${n - 1}, got ${JSON.stringify(spec.root)}`);
  }
  if (!Array.isArray(spec.ops)) throw new TypeError('tape spec: "ops" must be a list of op rows');
  const row = readBuffer(spec.op, "int32", "op", n);
  const inputStart = readBuffer(spec.input_start, "int32", "input_start", n + 1);
  if (inputStart[0] !== 0) throw new TypeError('tape spec: "input_start" must start at 0');
  for (let i = 0; i < n; i++) {
    if (!(inputStart[i + 1] >= inputStart[i])) throw new TypeError(`tape spec: "input_start" decreases at node ${i}`);
  }
  const inputs = readBuffer(spec.inputs, "int32", "inputs", inputStart[n]);
  const k = readBuffer(spec.k, "float64", "k", n);
  const leaves = readBuffer(spec.leaves, "int32", "leaves");
  const leafData = readBuffer(spec.leaf_data, "float64", "leaf_data", leaves.length);
  const labels = stringList(spec.label, "label", n);
  const scopes = stringList(spec.scope, "scope", n);
  const symbols = stringList(spec.symbol, "symbol", n);
  const ops = spec.ops.map((r, j) => {
    if (!r || typeof r.name !== "string" || !(r.arity === 1 || r.arity === 2)) {
      throw new TypeError(`tape spec: op row ${j} must have a name and an arity of 1 or 2`);
    }
    return { name: r.name, symbol: String(r.symbol ?? r.name), arity: r.arity, builtin: r.builtin === true };
  });
  const rows = ops.map((r) => {
    const js = r.builtin ? OPS_BY_NAME[r.name] : undefined;
    return js && js.arity === r.arity ? js : null;
  });
  const a = new Int32Array(n).fill(-1);
  const b = new Int32Array(n).fill(-1);
  const code = new Int32Array(n).fill(-1);
  const unsupported = new Set();
  let opaque = -1;
  for (let i = 0; i < n; i++) {
    const start = inputStart[i];
    const count = inputStart[i + 1] - start;
    for (let p = start; p < start + count; p++) {
      const j = inputs[p];
      if (!(j >= 0 && j < i)) throw new TypeError(`tape spec: node ${i} has input ${j}, which is not an earlier node`);
    }
    if (count > 0) a[i] = inputs[start];
    if (count > 1) b[i] = inputs[start + 1];
    const r = row[i];
    if (r < 0) {
      if (r !== -1) throw new TypeError(`tape spec: node ${i} has op row ${r}; rows are -1 (none) or from 0`);
      if (count > 0 && opaque < 0) opaque = i;
    } else if (r >= rows.length) {
      throw new TypeError(`tape spec: node ${i} uses op row ${r}, but "ops" has ${rows.length} rows`);
    } else if (count !== ops[r].arity) {
      throw new TypeError(`tape spec: node ${i} (${ops[r].name}) has ${count} inputs, expected ${ops[r].arity}`);
    } else if (rows[r] === null) {
      unsupported.add(ops[r].name);
    } else {
      code[i] = rows[r].id;
    }
  }
  for (let j = 0; j < leaves.length; j++) {
    const l = leaves[j];
    if (!(l >= 0 && l < n) || inputStart[l + 1] !== inputStart[l] || (j > 0 && l <= leaves[j - 1])) {
      throw new TypeError(`tape spec: "leaves" must list nodes without inputs in increasing order; entry ${j} is ${l}`);
    }
  }
  let reason = "";
  if (opaque >= 0) {
    reason = `node ${opaque} was built by hand outside the op table, so neither the browser nor the kernel can replay this graph`;
  } else if (unsupported.size > 0) {
    reason = `user-defined op${unsupported.size > 1 ? "s" : ""} ${[...unsupported].join(", ")}: the kernel computes this graph`;
  }
  return {
    n,
    root: spec.root,
    leaves,
    leafData,
    row,
    code,
    ops,
    inputStart,
    inputs,
    a,
    b,
    k,
    labels,
    scopes,
    symbols,
    replayable: reason === "",
    reason,
    unsupported: [...unsupported],
    opaque,
  };
}

/**
 * Every node's data as far as the spec knows it: the leaves' values, NaN elsewhere (a replay fills the rest).
 * @param {Tape} tape
 * @returns {Float64Array}
 */
export function initialData(tape) {
  const data = new Float64Array(tape.n).fill(NaN);
  for (let j = 0; j < tape.leaves.length; j++) data[tape.leaves[j]] = tape.leafData[j];
  return data;
}

/**
 * Node i's input ids, in order, as a new array.
 * @param {Tape} tape
 * @param {number} i
 * @returns {number[]}
 */
export function inputsOf(tape, i) {
  return Array.from(tape.inputs.subarray(tape.inputStart[i], tape.inputStart[i + 1]));
}

/**
 * Node i's op row ({name, symbol, arity, builtin}), or null for a leaf or a node built by hand.
 * @param {Tape} tape
 * @param {number} i
 * @returns {TapeOp | null}
 */
export function opOf(tape, i) {
  return tape.row[i] >= 0 ? tape.ops[tape.row[i]] : null;
}
