"""Issue 12's scale rows: a chain of 1,000,000 ops (x -> tanh -> tanh ..., 1,000,001 nodes, one leaf), each part
measured in its own Python process (so its peak memory is its own), as a ratio to ``Tape.from_value(root)`` +
``backward()`` on the same chain in the same process (target: static picture and widget within 3x).

Run directly for one part: ``python benchmarks/chain_scale.py static|widget|export [n_ops]`` prints a JSON line:
``base_s`` (freeze + backward), ``seconds`` and ``ratio`` of the part, ``peak_mb`` (the process's peak RSS) and
``graph_mb`` (its RSS with the graph built, before the part), plus the part's sizes: the static bundle's bytes,
the widget's synced state (JSON + binary buffers, as ipywidgets sends and a notebook saves it) and the time of
its static fallback (``_repr_mimebundle_``), the exported page's bytes.
"""

from __future__ import annotations

import gc
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

N_OPS = 1_000_000


def chain(n_ops: int) -> Any:
    from micrograd_widget.engine import Value

    v = Value(0.5, label="x")
    for _ in range(n_ops):
        v = v.tanh()
    return v


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def measure_here(part: str, n_ops: int) -> dict[str, Any]:
    """One part, measured in this process."""
    from micrograd_widget.core.tape import Tape

    root = chain(n_ops)
    gc.collect()
    out: dict[str, Any] = {"part": part, "nodes": n_ops + 1, "graph_mb": _rss_mb()}
    start = time.perf_counter()
    tape = Tape.from_value(root)
    tape.backward()
    out["base_s"] = time.perf_counter() - start
    del tape
    gc.collect()
    start = time.perf_counter()
    if part == "static":
        from micrograd_widget.display import value_mimebundle

        bundle = value_mimebundle(root)
        out["seconds"] = time.perf_counter() - start
        out["kind"] = "svg" if "image/svg+xml" in bundle else "table"
        out["bytes"] = sum(len(v.encode()) for v in bundle.values())
    elif part == "widget":
        from ipywidgets.widgets.widget import _remove_buffers

        from micrograd_widget.graph.widget import GraphWidget

        widget = GraphWidget(root)
        out["seconds"] = time.perf_counter() - start
        state = {k: v for k, v in widget.get_state().items() if k not in ("_esm", "_css")}
        text, _, buffers = _remove_buffers(state)
        out["state_json"] = len(json.dumps(text, allow_nan=False).encode())
        out["state_buffers"] = sum(memoryview(b).nbytes for b in buffers)
        start = time.perf_counter()
        widget._repr_mimebundle_()
        out["fallback_s"] = time.perf_counter() - start
    elif part == "export":
        from micrograd_widget.host.export import save_html

        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "chain.html"
            save_html(root, path)
            out["seconds"] = time.perf_counter() - start
            out["page_bytes"] = path.stat().st_size
    else:
        raise SystemExit(f"unknown part {part!r}: static, widget or export")
    out["ratio"] = out["seconds"] / out["base_s"]
    out["peak_mb"] = _rss_mb()
    return out


def measure(part: str, n_ops: int = N_OPS) -> dict[str, Any]:
    """One part, measured in a fresh Python process."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(Path(__file__).resolve().parent.parent),
                                                       os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, __file__, part, str(n_ops)], capture_output=True, text=True, env=env,
                          check=True)
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def row(r: dict[str, Any]) -> str:
    """A report line for one measured part."""
    return (f"{r['part']:<7} chain of {r['nodes'] - 1:,} ops: {r['seconds']:6.2f} s = x{r['ratio']:.2f} of "
            f"Tape.from_value + backward ({r['base_s']:.2f} s, same process); peak {r['peak_mb']:,.0f} MB "
            f"(graph alone {r['graph_mb']:,.0f} MB)")


if __name__ == "__main__":
    print(json.dumps(measure_here(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else N_OPS)))
