"""Kernel time of a view's gradcheck request (issue 24), through the widget's message path: the custom message
goes into ``GraphWidget._handle_msg``, requests.py answers it, the reply leaves on the (recorded) comm.

On micrograd's moons loss (MLP(2,[16,16,1]) on 100 points, SVM loss + L2, 65,818 nodes), against
``Tape.from_value(root)`` + ``backward()`` on the same graph, timed in alternating blocks of the same run (the
least any live picture of the graph does), GC on. Rows: one request for 256 leaves (over MAX_GRADCHECK_WORK on
this graph: refused before any replay); the largest request the limit lets through (MAX_GRADCHECK_WORK // nodes
leaves: what the limit lets a front end block the kernel for); the same 256 leaves in requests within the limit;
and Python's ``gradcheck(root, leaves=...)`` on those 256 leaves. Then the largest request on a 180,001-node
sum(x*x) of 60,000 leaves. Run: ``.venv/bin/python benchmarks/run.py requests``.
"""

from __future__ import annotations

from typing import Any

from bench_display import moons_loss
from common import ms, summary, time_runs

from micrograd_widget.core.gradcheck import gradcheck
from micrograd_widget.core.tape import Tape
from micrograd_widget.engine import Value
from micrograd_widget.graph.requests import MAX_GRADCHECK_WORK
from micrograd_widget.graph.widget import GraphWidget

LEAVES = 256
ROUNDS = 2     # alternating blocks of the request and the baseline
REPEATS = 2    # runs per block (1 for the rows of many seconds)


def sum_of_squares(n: int) -> Value:
    """sum(x*x) over n leaves in [-0.5, 0.5): 3n + 1 nodes (a small sum, so that eps = 1e-6 resolves it)."""
    xs = [Value(0.01 * (i % 100) - 0.5) for i in range(n)]
    return sum((x * x for x in xs), Value(0.0))


class Requests:
    """Sends gradcheck requests to a widget as its view would and keeps the replies."""

    def __init__(self, w: GraphWidget) -> None:
        self.w = w
        self.replies: list[dict[str, Any]] = []
        w.comm.send = self._send  # type: ignore[method-assign]  # no kernel: keep what would be sent
        self.seq = 0

    def _send(self, data: Any = None, metadata: Any = None, buffers: Any = None) -> None:
        if data.get("method") == "custom":
            self.replies.append(data["content"])

    def ask(self, leaves: list[int]) -> dict[str, Any]:
        self.seq += 1
        content = {"type": "gradcheck", "seq": self.seq, "leaf_values": list(self.w.leaf_values),
                   "output": self.w.output, "leaves": leaves}
        self.w._handle_msg({"content": {"data": {"method": "custom", "content": content}}, "buffers": []})
        return self.replies[-1]

    def in_pages(self, leaves: list[int]) -> None:
        """Every leaf in requests of at most MAX_GRADCHECK_WORK // nodes leaves."""
        page = max(1, MAX_GRADCHECK_WORK // len(self.w.tape))
        for start in range(0, len(leaves), page):
            assert "rows" in self.ask(leaves[start:start + page])


def timed(name: str, fn: Any, baseline: Any, repeats: int = REPEATS) -> None:
    """``fn`` against ``baseline``, in alternating blocks, medians and minima."""
    t_fn: list[float] = []
    t_base: list[float] = []
    for _ in range(ROUNDS):
        t_base += time_runs(baseline, REPEATS)
        t_fn += time_runs(fn, repeats, warmup=0)
    (mf, lf), (mb, lb) = summary(t_fn), summary(t_base)
    print(f"  {name:<46} median {ms(mf)}   min {ms(lf)}   x{mf / mb:.2f} (min vs min x{lf / lb:.2f})")


def largest_request(name: str, root: Value) -> None:
    """The largest gradcheck request the limit lets through, against Tape.from_value + backward()."""
    w = GraphWidget(root)
    view = Requests(w)
    tape = w.tape
    fits = MAX_GRADCHECK_WORK // len(tape)
    leaves = list(tape.leaves[:fits])
    baseline = lambda: Tape.from_value(root).backward()  # noqa: E731  # timed as a callable, like the others
    (mb, lb) = summary(time_runs(baseline, REPEATS))
    print(f"{name}: {len(tape):,} nodes, {len(tape.leaves):,} leaves; MAX_GRADCHECK_WORK = {MAX_GRADCHECK_WORK:,} "
          f"leaves x nodes: {fits} leaves per request")
    print(f"  Tape.from_value + backward (baseline)          median {ms(mb)}   min {ms(lb)}")
    refused = view.ask(list(tape.leaves[:LEAVES]))
    assert "MAX_GRADCHECK_WORK" in refused.get("error", ""), refused
    timed(f"{LEAVES} leaves in one request: refused", lambda: view.ask(list(tape.leaves[:LEAVES])), baseline)
    reply = view.ask(leaves)
    assert reply.get("passed") is True and len(reply["rows"]) == fits, reply.get("error")
    timed(f"the largest request the limit allows ({fits} leaves)", lambda: view.ask(leaves), baseline)
    if len(tape) < 100_000:  # the whole 256 leaves, where they take seconds rather than a minute
        chosen = list(tape.leaves[:LEAVES])
        timed(f"the same {LEAVES} leaves in requests within it", lambda: view.in_pages(chosen), baseline, 1)
        values = [tape.values[i] for i in chosen]
        timed(f"Python's gradcheck(root, leaves=<{LEAVES}>)", lambda: gradcheck(root, leaves=values), baseline, 1)
    w.close()


def main() -> None:
    GraphWidget(sum_of_squares(10)).close()  # first-use costs (imports, caches) are not a request's
    largest_request("gradcheck request, moons loss", moons_loss())
    largest_request("gradcheck request, sum(x*x) of 60,000 leaves", sum_of_squares(60_000))  # the 180k sum


if __name__ == "__main__":
    main()
