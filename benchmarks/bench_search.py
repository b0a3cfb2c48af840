"""A search keystroke over micrograd's moons loss (issue 9's target: at most 30 ms of JS over 65,818 nodes).

Writes the loss's tape spec (binary arrays as base64) to a temporary file and runs js/core/search.bench.mjs on it with
node: the index build once, then every prefix of a few typed names, 20 runs each. Run:
``.venv/bin/python benchmarks/bench_search.py``."""

from __future__ import annotations

import base64
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

from bench_engine import SEED, loss, make_moons

from micrograd_widget.core.tape import Tape
from micrograd_widget.engine import Value
from micrograd_widget.nn import MLP

REPO = Path(__file__).resolve().parents[1]
BUFFERS = ("op", "input_start", "inputs", "k", "leaves", "leaf_data")
TABLES = ("symbol", "label", "scope")  # string tables: their per-node index is a binary buffer too


def moons_spec() -> dict[str, object]:
    """The moons loss's tape spec with its buffers as base64 text; parameters labelled p0, p1, ... as the
    browser tests do (so "p123" names one leaf)."""
    random.seed(SEED)
    model = MLP(2, [16, 16, 1])
    for i, p in enumerate(model.parameters()):
        p.label = f"p{i}"
    X, y = make_moons()
    spec = dict(Tape.from_value(loss(model, Value, X, y)).spec())
    for key in BUFFERS:
        spec[key] = base64.b64encode(bytes(spec[key])).decode("ascii")
    for key in TABLES:
        if isinstance(spec.get(key), dict):
            spec[key] = {**spec[key], "index": base64.b64encode(bytes(spec[key]["index"])).decode("ascii")}
    return spec


def main(typed: list[str] | None = None) -> None:
    """Print one line: the index build and the keystroke times; ``typed`` replaces the default words."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "moons.json"
        path.write_text(json.dumps(moons_spec()))
        out = subprocess.run(["node", str(REPO / "js" / "core" / "search.bench.mjs"), str(path), *(typed or [])],
                             check=True, capture_output=True, text=True).stdout
    result = json.loads(out)
    worst = result["worst"]
    print(f"search over {result['nodes']:,} nodes: index {result['index_ms']} ms once; one keystroke median "
          f"{result['median_ms']} ms over {result['keystrokes']} keystrokes, worst {worst['median']} ms "
          f"(max {worst['max']} ms) for {worst['prefix']!r} ({worst['hits']:,} matches); target <= 30 ms")


if __name__ == "__main__":
    main(sys.argv[1:])
