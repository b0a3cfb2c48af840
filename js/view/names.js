// How the view names nodes, from the kernel's tape spec: the hooks' keys, short and long names, formulas.

import { pyRepr } from "../format.js";

/** Stable names for the test hooks and the UI: the label when no other node has it, else the node id. */
export function nodeKeys(labels) {
  const count = new Map();
  for (const label of labels) if (label) count.set(label, (count.get(label) || 0) + 1);
  return labels.map((label, i) => (label && count.get(label) === 1 ? label : String(i)));
}

export class NodeNames {
  constructor(spec) {
    this.spec = spec;
    this.keys = nodeKeys(spec.label);
  }

  /** A node's long name: "label (#id)", else "#id op-symbol" (or leaf/node). */
  describe(i) {
    const spec = this.spec;
    const label = spec.label[i];
    const what = spec.symbol[i] || (spec.inputs[i].length ? "node" : "leaf");
    return label ? `${label} (#${i})` : `#${i} ${what}`;
  }

  /** A node's short name: its label, else #id. */
  nodeName(i) {
    return this.spec.label[i] || `#${i}`;
  }

  /** How node i is computed from its inputs, e.g. "e + c", "tanh(n)", "x**2". */
  formula(i) {
    const spec = this.spec;
    const names = spec.inputs[i].map((j) => this.nodeName(j));
    const symbol = spec.symbol[i] || (spec.op[i] >= 0 ? spec.ops[spec.op[i]].symbol : "?");
    if (names.length === 2) return `${names[0]} ${symbol} ${names[1]}`;
    if (symbol.startsWith("**")) return `${names[0]}${symbol}`;
    return `${symbol}(${names.join(", ")})`;
  }

  /** Why node i could not be computed from `data` (its inputs' values), as Python's op would say. */
  describeFailure(i, data) {
    const spec = this.spec;
    const inputs = spec.inputs[i].map((j) => `${spec.label[j] || "#" + j} = ${pyRepr(data[j])}`).join(", ");
    const op = spec.symbol[i] || spec.ops[spec.op[i]].name;
    return `${this.describe(i)}: '${op}' cannot be computed for ${inputs} (outside its domain or past the float `
      + "range; Python's op raises here too); the graph keeps its last valid values until you move back.";
  }
}
