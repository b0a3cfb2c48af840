"""What many test files share beyond graphs (those are in builders.py; fixtures in conftest.py): the SVG and HTML
parsers that read a picture, fake front-end messages, fake browser tabs (FrontEnd, Kernel) and recorders of what a
widget sends, an IPython shell, the stopped-dot records and the training view's fake clock. Import them as
``from helpers import Recorder, parse_svg``; no test module imports another (tests/test_name_homes.py)."""

from __future__ import annotations

import os
import subprocess
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import graphviz
import pytest
from builders import lecture_L, train_step
from IPython.core.interactiveshell import InteractiveShell
from ipywidgets import Widget
from traitlets.config import Config

from micrograd_widget.core.spec import from_buffer
from micrograd_widget.engine import Value
from micrograd_widget.graph.widget import GraphWidget
from micrograd_widget.nn import MLP, lecture_data
from micrograd_widget.picture import dot as dot_module
from micrograd_widget.picture.dot import GraphView
from micrograd_widget.training.widget import TrainingWidget

# ---- reading pictures: SVG and HTML


SVG = "{http://www.w3.org/2000/svg}"
XLINK_TITLE = "{http://www.w3.org/1999/xlink}title"


def parse_svg(svg: str) -> ET.Element:
    return ET.fromstring(svg.encode("utf-8"))


def svg_groups(root: ET.Element) -> dict[str, ET.Element]:
    """Node groups by id (``n0``, ``n0_op``, ``fold0``, ``mgw-legend``)."""
    return {g.get("id"): g for g in root.iter(f"{SVG}g") if "node" in (g.get("class") or "").split()}


def texts(group: ET.Element) -> list[str]:
    return ["".join(t.itertext()) for t in group.iter(f"{SVG}text")]


def classes(group: ET.Element) -> set[str]:
    return set((group.get("class") or "").split())


def assert_no_markup(root: ET.Element) -> None:
    """Only the elements Graphviz writes, and no event-handler attributes."""
    allowed = {"svg", "g", "title", "polygon", "polyline", "path", "ellipse", "text", "a"}
    for el in root.iter():
        tag = el.tag.rsplit("}", 1)[-1]
        assert tag in allowed, f"unexpected element <{tag}> in the SVG"
        for attr in el.attrib:
            assert not attr.rsplit("}", 1)[-1].lower().startswith("on"), f"event attribute {attr} on <{tag}>"


def render(view_or_graph: GraphView | graphviz.Digraph) -> ET.Element:
    graph = view_or_graph.graph if isinstance(view_or_graph, GraphView) else view_or_graph
    return parse_svg(graph.pipe(format="svg", encoding="utf-8"))


ALLOWED_TAGS = {"div", "p", "code", "table", "thead", "tbody", "tr", "th", "td"}
ALLOWED_ATTRS = {"class", "style", "title", "colspan"}


class Table(HTMLParser):
    """Every start tag with its attributes, the table's rows (cell texts) and the text outside it."""

    def __init__(self, markup: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.rows: list[list[str]] = []
        self.outside: list[str] = []
        self.in_cell = False
        self.feed(markup)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self.rows[-1].append("")
            self.in_cell = True

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th"):
            self.in_cell = False

    def handle_data(self, data: str) -> None:
        if self.in_cell:
            self.rows[-1][-1] += data
        else:
            self.outside.append(data)

    def check_no_injection(self) -> None:
        for tag, attrs in self.tags:
            assert tag in ALLOWED_TAGS, f"unexpected <{tag}>"
            assert set(attrs) <= ALLOWED_ATTRS, f"unexpected attributes {set(attrs) - ALLOWED_ATTRS} on <{tag}>"


def picture_in(html: str) -> str:
    """The SVG document of ``Value._repr_html_``'s one ``<img>`` (a base64 data URL), checking the markup around
    it is only that: the scroller and its frame (divs), the image, with an alt text and its size, and the output's
    mark (a span) when the SVG has an output box."""
    import base64
    table = Table(html)
    assert [tag for tag, _ in table.tags] in (["div", "div", "img"], ["div", "div", "img", "span"])
    assert table.tags[0][1]["class"] == "mgw-static"
    assert all(set(attrs) == {"style"} for tag, attrs in table.tags[1:] if tag != "img")
    attrs = table.tags[2][1]
    assert set(attrs) == {"alt", "src", "style", "width", "height"}
    assert (attrs["alt"] or "").startswith("the graph of Value(")
    prefix = "data:image/svg+xml;base64,"
    assert (attrs["src"] or "").startswith(prefix)
    return base64.b64decode((attrs["src"] or "")[len(prefix):]).decode("utf-8")


# ---- dot stopped at its time limit


STOPPED_MESSAGE = (r"Graphviz's dot was stopped after laying out this picture for 0\.01 s .*draw fewer boxes: close "
                   r"opened boxes, or lower the node budget")  # with the stopped_dot fixture's limit


class DotRuns:
    """The processes started while the stopped_dot fixture is in force (subprocess.Popen records each)."""

    def __init__(self) -> None:
        self.started: list[subprocess.Popen[Any]] = []

    def assert_all_stopped(self) -> None:
        """dot ran at least once, and every dot started was killed by a signal and reaped: none is left running or
        as a zombie (os.waitpid knows no such child)."""
        dots = [p for p in self.started if Path(str(p.args[0])).name == "dot"]
        assert dots, "dot was never started"
        for p in dots:
            assert p.returncode is not None and p.returncode < 0, f"dot (pid {p.pid}) was not killed: {p.returncode}"
            with pytest.raises(ChildProcessError):
                os.waitpid(p.pid, os.WNOHANG)


# ---- an IPython shell


CELL = "from micrograd_widget import Value\na = Value(2.0, label='a')\nb = a * Value(-3.0, label='b')\nb.backward()\nb"


def make_shell(tmp_path: Any, monkeypatch: pytest.MonkeyPatch, config: Config | None = None) -> InteractiveShell:
    monkeypatch.setenv("IPYTHONDIR", str(tmp_path / "ipython"))
    InteractiveShell.clear_instance()
    cfg = config or Config()
    cfg.HistoryManager.hist_file = ":memory:"
    return InteractiveShell.instance(config=cfg)


# ---- a fake front end: messages in, messages recorded


class Recorder:
    """Patches ``w.comm.send`` and keeps what the widget sent."""

    def __init__(self, widget: GraphWidget) -> None:
        self.messages: list[dict[str, Any]] = []
        widget.comm.send = self._send  # type: ignore[method-assign]

    def _send(self, data: Any = None, metadata: Any = None, buffers: Any = None) -> None:
        if buffers and data.get("method") == "custom":  # a reply's Float64 buffers, named by its "buffers" list
            data["content"].update({name: list(from_buffer(b, "d")) for name, b in zip(data["content"]["buffers"],
                                                                                       buffers, strict=True)})
        elif buffers:  # binary traits (spec's arrays, data, grad) travel beside the JSON: put them back in place
            from ipywidgets.widgets.widget import _put_buffers

            _put_buffers(data["state"], data["buffer_paths"], buffers)
        self.messages.append(data)

    def states(self) -> list[dict[str, Any]]:
        return [m["state"] for m in self.messages if m.get("method") == "update"]

    def customs(self) -> list[dict[str, Any]]:
        return [m["content"] for m in self.messages if m.get("method") == "custom"]


def from_browser(widget: Widget, **state: Any) -> None:
    widget._handle_msg({"content": {"data": {"method": "update", "state": state, "buffer_paths": []}}, "buffers": []})


def custom_from_browser(widget: GraphWidget, content: dict[str, Any]) -> None:
    widget._handle_msg({"content": {"data": {"method": "custom", "content": content}}, "buffers": []})


def assert_values_match(nodes: dict[str, Value], expected: dict[str, Value]) -> None:
    for label, v in expected.items():
        assert nodes[label].data == pytest.approx(v.data, rel=1e-12, abs=1e-12), f"{label}.data"
        assert nodes[label].grad == pytest.approx(v.grad, rel=1e-12, abs=1e-12), f"{label}.grad"


def snapshot(w: GraphWidget) -> tuple[Any, ...]:
    """Every Value's data and grad (as repr, so -0.0 and NaN compare exactly), the tape's numbers, the traits."""
    tape = w.tape
    return ([repr((v.data, v.grad)) for v in tape.values], repr(list(tape.data)), repr(list(tape.grad)),
            repr(w.leaf_values), w.output)


class Sent:
    """Patches ``w.comm.send`` and keeps the state updates the widget sent."""

    def __init__(self, widget: TrainingWidget) -> None:
        self.states: list[dict[str, Any]] = []
        widget.comm.send = self._send  # type: ignore[method-assign]  # record instead of sending: no kernel here

    def _send(self, data: Any = None, metadata: Any = None, buffers: Any = None) -> None:
        if data.get("method") == "update":
            self.states.append(data["state"])


class FakeClock:
    """The training view's clock, standing still until a test moves ``now``."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def lecture_run(w: TrainingWidget, model: Any, steps: int) -> None:
    """``steps`` steps of the lecture's training loop on ``model``, each loss logged to ``w``."""
    xs, ys = lecture_data()
    for _ in range(steps):
        w.log(train_step(model, xs, ys))


def svg_texts(svg: str) -> list[str]:
    """Every text of an SVG document, in order."""
    return ["".join(t.itertext()) for t in ET.fromstring(svg).iter(f"{SVG}text")]


def svg_boxes(svg: str) -> dict[str, list[str]]:
    """The model picture's boxes (``u<k>``) by id, with their texts."""
    return {g.get("id") or "": ["".join(t.itertext()) for t in g.iter(f"{SVG}text")]
            for g in ET.fromstring(svg).iter(f"{SVG}g") if "mgw-neuron" in (g.get("class") or "")}


# ---------------------------------------------------------------- fake front ends (browser tabs) on one widget


def folded_widget() -> GraphWidget:
    """A widget on an MLP loss folded at budget 60."""
    model = MLP(3, [8, 8, 1])
    loss = sum((model([0.5, -1.0, 2.0]) - 1.0) ** 2 for _ in range(3))
    assert isinstance(loss, Value)
    widget = GraphWidget(loss, node_budget=60)
    assert dot_module.graph_view(widget.tape, node_budget=60).folds, "the graph should be partly folded"
    return widget


class FrontEnd:
    """One browser tab's copy of a widget's leaf values, output and open boxes, kept as ipywidgets 8's front end
    keeps it: it takes every update, and every echo except, while its own change of a trait waits for its echo,
    another's echo of that trait (@jupyter-widgets/base WidgetModel, ``_expectedEchoMsgIds``)."""

    def __init__(self, kernel: Kernel, session: str) -> None:
        self.kernel, self.session = kernel, session
        self.state = {name: kernel.widget.get_state()[name] for name in ("leaf_values", "output", "opened")}
        self.waiting: dict[str, str] = {}     # trait -> the id of this tab's message whose echo it waits for
        self.read = 0                          # how many of the kernel's messages this tab has received

    def send(self, **changes: Any) -> None:
        self.state.update(changes)
        msg_id = f"{self.session}-{len(self.kernel.sent)}-{sorted(changes)}"
        self.waiting.update(dict.fromkeys(changes, msg_id))
        self.kernel.handle(self.session, msg_id, changes)

    def receive(self) -> None:
        """Take the kernel's messages this tab has not received yet, in order."""
        for parent, message in self.kernel.sent[self.read:]:
            state = dict(message.get("state", {}))
            if message.get("method") == "echo_update":
                for name in [n for n in state if n in self.waiting]:
                    if self.waiting[name] == parent:
                        del self.waiting[name]     # its own echo: applied, and others' are taken again
                    else:
                        del state[name]            # another's, sent before this tab's own change arrived
            if message.get("method") in ("update", "echo_update"):
                self.state.update({n: v for n, v in state.items() if n in self.state})
        self.read = len(self.kernel.sent)


class Kernel:
    """A widget's comm with the messages it sent, each with the id of the front end's message it answered."""

    def __init__(self, widget: GraphWidget) -> None:
        self.widget, self.parent = widget, ""
        self.sent: list[tuple[str, dict[str, Any]]] = []
        widget.comm.send = self._send  # type: ignore[method-assign]

    def _send(self, data: Any = None, metadata: Any = None, buffers: Any = None) -> None:
        self.sent.append((self.parent, data))

    def handle(self, session: str, msg_id: str, state: dict[str, Any]) -> None:
        self.parent = msg_id
        try:
            self.widget._handle_msg({"header": {"session": session, "msg_id": msg_id}, "buffers": [],
                                     "content": {"data": {"method": "update", "state": state, "buffer_paths": []}}})
        finally:
            self.parent = ""

    def echoes(self) -> list[dict[str, Any]]:
        return [m["state"] for _, m in self.sent if m.get("method") == "echo_update"]


def moved_leaf(tab: FrontEnd, widget: GraphWidget, leaf: Value, x: float) -> list[Any]:
    values = list(tab.state["leaf_values"])
    values[widget.tape.leaves.index(widget.tape.index(leaf))] = x
    return values


def leaves_of(nodes: dict[str, Value]) -> dict[str, float]:
    return {k: nodes[k].data for k in "abcf"}


def two_tabs() -> tuple[dict[str, Value], GraphWidget, Kernel, FrontEnd, FrontEnd]:
    """The lecture's L in a widget shown in two tabs."""
    nodes = lecture_L()
    widget = GraphWidget(nodes["L"])
    kernel = Kernel(widget)
    return nodes, widget, kernel, FrontEnd(kernel, "tab1"), FrontEnd(kernel, "tab2")


def position(w: GraphWidget, leaf: Value) -> int:
    """``leaf``'s place in the widget's leaf values."""
    return w.tape.leaves.index(w.tape.index(leaf))


def moved(w: GraphWidget, leaf: Value, x: Any) -> list[Any]:
    """The view's leaf values with ``leaf`` moved to ``x``."""
    values = list(w.leaf_values)
    values[position(w, leaf)] = x
    return values
