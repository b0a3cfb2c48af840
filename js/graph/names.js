// @ts-check
// How the view names nodes, from the compiled tape (spec.js): the hooks' keys, short and long names, formulas.

import { pyRepr } from "../picture/format.js";
import { inputsOf } from "../core/spec.js";
import { cleanText } from "../picture/text.js";

// A name is cut to this many characters with "…" (a 10,000-character label must not make the output chooser
// 77,000 px wide); the picture's own cut is dot.py's MAX_LABEL_CHARS (40).
export const MAX_NAME_CHARS = 60;

/** Stable names for the test hooks and the UI: the label when no other node has it, else the node id. */
export function nodeKeys(labels) {
  const count = new Map();
  for (const label of labels) if (label) count.set(label, (count.get(label) || 0) + 1);
  return labels.map((label, i) => (label && count.get(label) === 1 ? label : String(i)));
}

export class NodeNames {
  constructor(tape) {
    this.tape = tape;
    this.keys = nodeKeys(tape.labels);
  }

  /** A node's long name: "label (#id)", else "#id op-symbol" (or leaf/node). */
  describe(i) {
    const tape = this.tape;
    const label = cleanText(tape.labels[i], MAX_NAME_CHARS);
    const what = cleanText(tape.symbols[i], MAX_NAME_CHARS) || (tape.inputStart[i + 1] > tape.inputStart[i] ? "node" : "leaf");
    return label ? `${label} (#${i})` : `#${i} ${what}`;
  }

  /** A node's short name: its label (cleaned, cut to MAX_NAME_CHARS), else #id. */
  nodeName(i) {
    return cleanText(this.tape.labels[i], MAX_NAME_CHARS) || `#${i}`;
  }

  /** How node i is computed from its inputs, e.g. "e + c", "tanh(n)", "x**2". */
  formula(i) {
    const tape = this.tape;
    const names = inputsOf(tape, i).map((j) => this.nodeName(j));
    const symbol = tape.symbols[i] || (tape.row[i] >= 0 ? tape.ops[tape.row[i]].symbol : "?");
    if (names.length === 2) return `${names[0]} ${symbol} ${names[1]}`;
    if (symbol.startsWith("**")) return `${names[0]}${symbol}`;
    return `${symbol}(${names.join(", ")})`;
  }

  /** Why node i could not be computed from `data` (its inputs' values), as Python's op would say. */
  describeFailure(i, data) {
    const tape = this.tape;
    const inputs = inputsOf(tape, i).map((j) => `${tape.labels[j] || "#" + j} = ${pyRepr(data[j])}`).join(", ");
    const op = tape.symbols[i] || tape.ops[tape.row[i]].name;
    return `${this.describe(i)}: '${op}' cannot be computed for ${inputs} (outside its domain or past the float `
      + "range; Python's op raises here too); the graph keeps its last valid values until you move back.";
  }
}
