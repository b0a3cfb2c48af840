"""extension.py through a real IPython InteractiveShell: %load_ext, %unload_ext, %config, profiles,
and the switch to the live widget (default_view='widget'). The SVG ids and texts checked pin js/host/svg-contract.md."""

from __future__ import annotations

import logging
import re
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import CELL, make_shell, parse_svg, picture_in, svg_groups, texts
from IPython.core.interactiveshell import InteractiveShell
from traitlets import TraitError
from traitlets.config import Config

import micrograd_widget
from micrograd_widget import Value
from micrograd_widget.display import with_html
from micrograd_widget.graph import widget as graph_widget
from micrograd_widget.host.extension import MicrogradWidget
from micrograd_widget.host.options import current_options


def last_value_bundle(shell: InteractiveShell) -> dict[str, Any]:
    """What Jupyter would show for the cell's last line."""
    result = shell.run_cell(CELL)
    assert result.success, result.error_in_exec
    data, _ = shell.display_formatter.format(result.result)
    return data


def ours(shell: InteractiveShell) -> list[MicrogradWidget]:
    return [c for c in shell.configurables if isinstance(c, MicrogradWidget)]


@pytest.mark.usefixtures("dot_program")
def test_load_ext_shows_the_live_widget_with_the_picture_as_fallback(ip: InteractiveShell) -> None:
    ip.run_line_magic("load_ext", "micrograd_widget")
    data = last_value_bundle(ip)
    assert set(data) == {"text/plain", "image/svg+xml", "text/html", "application/vnd.jupyter.widget-view+json"}
    # What a front end without the widget shows: the same picture, readable with its output in sight.
    shown = with_html({"image/svg+xml": data["image/svg+xml"]}, "the graph, as the widget draws it")
    assert data["text/html"] == shown["text/html"]
    assert data["text/plain"] == "Value(data=-6.0, grad=1.0)"
    assert texts(svg_groups(parse_svg(data["image/svg+xml"]))["n0"]) == ["a", "data 2.0000", "grad -3.0000"]


@pytest.mark.usefixtures("dot_program")
def test_without_the_extension_a_value_shows_its_static_picture_as_html(ip: InteractiveShell) -> None:
    data = last_value_bundle(ip)
    assert set(data) == {"text/plain", "text/html"}
    assert data["text/plain"] == "Value(data=-6.0, grad=1.0)"
    groups = svg_groups(parse_svg(picture_in(data["text/html"])))
    assert texts(groups["n0"]) == ["a", "data 2.0000", "grad -3.0000"]
    assert texts(groups["n1"]) == ["b", "data -3.0000", "grad 2.0000"]
    assert texts(groups["n2"]) == [" ", "data -6.0000", "grad 1.0000"]


@pytest.mark.usefixtures("dot_program")
def test_load_ext_makes_values_show_their_graph(ip: InteractiveShell) -> None:
    ip.run_line_magic("load_ext", "micrograd_widget")
    ip.run_line_magic("config", "MicrogradWidget.default_view = 'static'")
    data = last_value_bundle(ip)
    assert set(data) == {"text/plain", "image/svg+xml", "text/html"}
    assert picture_in(data["text/html"]) == data["image/svg+xml"]     # the same layout, as a notebook shows it
    assert data["text/plain"] == "Value(data=-6.0, grad=1.0)"
    groups = svg_groups(parse_svg(data["image/svg+xml"]))
    assert texts(groups["n0"]) == ["a", "data 2.0000", "grad -3.0000"]
    assert texts(groups["n2"]) == [" ", "data -6.0000", "grad 1.0000"]


@pytest.mark.usefixtures("dot_program")
def test_loading_twice_is_harmless_and_unload_restores_plain_output(ip: InteractiveShell) -> None:
    ip.run_line_magic("load_ext", "micrograd_widget")
    loaded = len(ip.configurables)
    ip.run_line_magic("load_ext", "micrograd_widget")
    micrograd_widget.load_ipython_extension(ip)
    assert len(ours(ip)) == 1 and len(ip.configurables) == loaded
    assert "image/svg+xml" in last_value_bundle(ip)

    ip.run_line_magic("unload_ext", "micrograd_widget")
    assert set(last_value_bundle(ip)) == {"text/plain", "text/html"}      # the static picture, no setup
    assert ours(ip) == [] and len(ip.configurables) == loaded - 1
    micrograd_widget.unload_ipython_extension(ip)       # unloading twice is harmless too

    ip.run_line_magic("load_ext", "micrograd_widget")   # and it loads again
    assert "image/svg+xml" in last_value_bundle(ip)


def test_unload_gives_back_a_display_registered_before(ip: InteractiveShell) -> None:
    def theirs(value: Any) -> dict[str, str]:
        return {"text/markdown": "**theirs**"}

    def their_html(value: Any) -> str:
        return "<b>theirs</b>"
    ip.display_formatter.mimebundle_formatter.for_type_by_name("micrograd_widget.engine", "Value", theirs)
    ip.display_formatter.formatters["text/html"].for_type_by_name("micrograd_widget.engine", "Value", their_html)
    micrograd_widget.load_ipython_extension(ip)
    micrograd_widget.unload_ipython_extension(ip)
    data = last_value_bundle(ip)
    assert data["text/markdown"] == "**theirs**" and data["text/html"] == "<b>theirs</b>"


@pytest.mark.usefixtures("dot_program")
def test_one_layout_per_display_while_loaded(ip: InteractiveShell, monkeypatch: pytest.MonkeyPatch) -> None:
    """Loaded, IPython never also calls _repr_html_ (a second picture); unloaded, it is the whole display."""
    calls: list[object] = []
    real = Value._repr_html_

    def counted(self: Value) -> str | None:
        calls.append(self)
        return real(self)
    monkeypatch.setattr(Value, "_repr_html_", counted)
    ip.run_line_magic("load_ext", "micrograd_widget")
    for view in ("widget", "static"):
        ip.run_line_magic("config", f"MicrogradWidget.default_view = '{view}'")
        assert last_value_bundle(ip)["text/html"].startswith('<div class="mgw-static"')   # the bundle's SVG, again
    assert calls == []
    ip.run_line_magic("unload_ext", "micrograd_widget")
    assert "text/html" in last_value_bundle(ip)
    assert len(calls) == 2      # once for the cell's own display, once for the format() above


@pytest.mark.usefixtures("dot_program")
def test_config_magic_sets_options(ip: InteractiveShell) -> None:
    ip.run_line_magic("load_ext", "micrograd_widget")
    assert current_options() == {"precision": 4, "rankdir": "LR", "node_budget": 250, "color": True,
                                 "color_scale": "relative",
                                 "default_view": "widget"}
    ip.run_line_magic("config", "MicrogradWidget.precision = 6")
    ip.run_line_magic("config", "MicrogradWidget.rankdir = 'tb'")
    ip.run_line_magic("config", "MicrogradWidget.color = False")
    ip.run_line_magic("config", "MicrogradWidget.node_budget = 40")
    ip.run_line_magic("config", "MicrogradWidget.color_scale = 'LOG'")
    assert current_options() == {"precision": 6, "rankdir": "TB", "node_budget": 40, "color": False,
                                 "color_scale": "log", "default_view": "widget"}
    svg = parse_svg(last_value_bundle(ip)["image/svg+xml"])
    groups = svg_groups(svg)
    assert texts(groups["n0"]) == ["a", "data 2.000000", "grad -3.000000"]
    assert "mgw-legend" not in groups


@pytest.mark.parametrize("line, message", [
    ("MicrogradWidget.precision = 99",
     "MicrogradWidget.precision is the number of decimals shown, a whole number from 0 to 17"),
    ("MicrogradWidget.rankdir = 'diagonal'", "MicrogradWidget.rankdir must be 'LR'"),
    ("MicrogradWidget.node_budget = 1", "MicrogradWidget.node_budget is how many boxes"),
    ("MicrogradWidget.default_view = 'movie'", "MicrogradWidget.default_view must be 'static'"),
    ("MicrogradWidget.precision = 'six'", "a whole number from 0 to 17; got 'six'"),
])
def test_bad_config_values_give_a_clear_error_and_change_nothing(
        ip: InteractiveShell, caplog: pytest.LogCaptureFixture, line: str, message: str) -> None:
    ip.run_line_magic("load_ext", "micrograd_widget")
    before = current_options()
    with caplog.at_level(logging.ERROR):
        ip.run_line_magic("config", line)
    assert message in caplog.text
    assert current_options() == before


# What each option takes, written out by hand (not read from options.py's table).
ALLOWED = {
    "precision": "a whole number from 0 to 17",
    "rankdir": "'LR' (left to right) or 'TB' (top to bottom)",
    "node_budget": "a whole number from 10 to 2000 (None draws everything)",
    "color": "True or False",
    "default_view": "'static' (a picture) or 'widget' (the live widget)",
}


@pytest.mark.parametrize(("name", "value"), [
    ("precision", "'x'"), ("precision", "2.5"), ("precision", "None"), ("precision", "99"),
    ("rankdir", "5"), ("rankdir", "None"), ("rankdir", "'diagonal'"),
    ("node_budget", "'x'"), ("node_budget", "2.5"), ("node_budget", "5"), ("node_budget", "'x' * 100_000"),
    ("color", "'yes'"), ("color", "None"),
    ("default_view", "0"), ("default_view", "None"), ("default_view", "'movie'"),
])
def test_every_bad_config_value_is_told_what_is_allowed(
        ip: InteractiveShell, caplog: pytest.LogCaptureFixture, name: str, value: str) -> None:
    """Defect 10 (issue 24): a value of the wrong type (node_budget = 'x') got traitlets' "expected an int" without
    the range, unlike a value out of range; both now say what the option takes, and quote the value cut short."""
    ip.run_line_magic("load_ext", "micrograd_widget")
    before = current_options()
    with caplog.at_level(logging.ERROR):
        ip.run_line_magic("config", f"MicrogradWidget.{name} = {value}")
    assert f"MicrogradWidget.{name} " in caplog.text and ALLOWED[name] in caplog.text, caplog.text
    assert "got " in caplog.text and len(caplog.text) < 600
    assert current_options() == before


def test_direct_assignment_raises_trait_error() -> None:
    cfg = MicrogradWidget()
    with pytest.raises(TraitError, match="from 10 to 2000"):
        cfg.node_budget = 5000
    with pytest.raises(TraitError, match="whole number"):
        cfg.precision = True
    assert cfg.node_budget == 250 and cfg.precision == 4


def test_config_lists_the_options(ip: InteractiveShell, capsys: pytest.CaptureFixture[str]) -> None:
    ip.run_line_magic("load_ext", "micrograd_widget")
    ip.run_line_magic("config", "MicrogradWidget")
    out = capsys.readouterr().out
    for name in ("precision", "rankdir", "node_budget", "color", "default_view"):
        assert f"MicrogradWidget.{name}" in out


def test_profile_settings_apply_and_bad_ones_say_where(tmp_path: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    cfg = Config()
    cfg.MicrogradWidget.precision = 2
    cfg.MicrogradWidget.node_budget = 400
    shell = make_shell(tmp_path, monkeypatch, cfg)
    try:
        micrograd_widget.load_ipython_extension(shell)
        assert current_options()["precision"] == 2 and current_options()["node_budget"] == 400
        micrograd_widget.unload_ipython_extension(shell)
        shell.config.MicrogradWidget.rankdir = "XY"
        with pytest.raises(TraitError, match=r"rankdir must be 'LR'.*c\.MicrogradWidget"):
            micrograd_widget.load_ipython_extension(shell)
        assert ours(shell) == []
        assert set(last_value_bundle(shell)) == {"text/plain", "text/html"}      # nothing registered
    finally:
        micrograd_widget.unload_ipython_extension(shell)
        InteractiveShell.clear_instance()


def test_current_options_without_the_extension(ip: InteractiveShell) -> None:
    assert current_options()["default_view"] == "widget"
    assert current_options(object()) == {"precision": 4, "rankdir": "LR", "node_budget": 250, "color": True,
                                 "color_scale": "relative",
                                         "default_view": "widget"}


def test_default_view_widget_uses_explore(ip: InteractiveShell, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[Any, dict[str, Any]]] = []

    class FakeWidget:
        def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict[str, str], dict[str, Any]]:
            return {"application/vnd.jupyter.widget-view+json": '{"model_id": "x"}', "text/plain": "widget"}, {}

        def close(self) -> None:
            """Unloading closes the widgets the extension made."""

    def explore(root: Any, **options: Any) -> FakeWidget:
        calls.append((root, options))
        return FakeWidget()

    monkeypatch.setattr(graph_widget, "explore", explore)  # value_widget's, which the extension shows
    ip.run_line_magic("load_ext", "micrograd_widget")
    ip.run_line_magic("config", "MicrogradWidget.default_view = 'widget'")
    ip.run_line_magic("config", "MicrogradWidget.precision = 3")
    data = last_value_bundle(ip)
    assert "application/vnd.jupyter.widget-view+json" in data
    assert data["text/plain"] == "Value(data=-6.0, grad=1.0)"
    assert calls and calls[0][1] == {"precision": 3, "rankdir": "LR", "node_budget": 250, "color": True,
                                                   "color_scale": "relative"}
    assert calls[0][0].data == -6.0


@pytest.mark.usefixtures("dot_program")
def test_default_view_widget_with_the_real_widget(ip: InteractiveShell) -> None:
    ip.run_line_magic("load_ext", "micrograd_widget")
    ip.run_line_magic("config", "MicrogradWidget.default_view = 'widget'")
    ip.run_line_magic("config", "MicrogradWidget.precision = 2")
    data = last_value_bundle(ip)
    assert "application/vnd.jupyter.widget-view+json" in data
    assert data["text/plain"] == "Value(data=-6.0, grad=1.0)"
    groups = svg_groups(parse_svg(data["image/svg+xml"]))
    assert texts(groups["n0"]) == ["a", "data 2.00", "grad -3.00"]


def test_in_a_vs_code_notebook_the_default_view_is_the_live_widget(ip: InteractiveShell) -> None:
    """VS Code's Jupyter extension defines __vsc_ipynb_file__; it loads anywidget's front end for a local kernel
    from the CDN when allowed and else from the kernel's environment (the next test), so the live widget is the
    default there as everywhere; 'static' is still there for the asking."""
    ip.user_ns["__vsc_ipynb_file__"] = "/home/me/lecture.ipynb"
    ip.run_line_magic("load_ext", "micrograd_widget")
    assert current_options()["default_view"] == "widget"
    assert "application/vnd.jupyter.widget-view+json" in last_value_bundle(ip)
    ip.run_line_magic("config", "MicrogradWidget.default_view = 'static'")
    assert "application/vnd.jupyter.widget-view+json" not in last_value_bundle(ip)


def test_anywidget_installs_the_front_end_vs_code_loads_offline() -> None:
    """vscode-jupyter's local fallback (no CDN allowed, or none reachable) reads <sys.prefix>/share/jupyter/
    nbextensions/*/extension.js, takes its requirejs map (anywidget's own `window.requirejs?.config({` is one of the
    patterns it knows, PR #14711) and loads the module it names: anywidget -> nbextensions/anywidget/index.js."""
    nbextensions = Path(sys.prefix) / "share" / "jupyter" / "nbextensions"
    entry = (nbextensions / "anywidget" / "extension.js").read_text(encoding="utf-8")
    assert "window.requirejs?.config({" in entry
    assert re.search(r'anywidget:\s*"nbextensions/anywidget/index"', entry), entry
    module = (nbextensions / "anywidget" / "index.js").read_text(encoding="utf-8")
    assert 'define(["@jupyter-widgets/base"]' in module, "anywidget's index.js is not the AMD module VS Code loads"
