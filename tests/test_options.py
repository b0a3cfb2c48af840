"""options.py, the one home of the drawing options: checks and their messages, the extension's Configurable
made from the table, the options in force, and the package's imports (no cycle, widget.py without extension.py).

Expected messages and values are written out here by hand, not read from options.py's table."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from traitlets import TraitError

from micrograd_widget.host import options
from micrograd_widget.host.extension import MicrogradWidget
from micrograd_widget.host.options import check_option, current_drawing_options, current_options

PACKAGE = Path(__file__).resolve().parent.parent / "micrograd_widget"
DEFAULTS = {"precision": 4, "rankdir": "LR", "node_budget": 250, "color": True, "color_scale": "relative",
            "default_view": "widget"}


@pytest.mark.parametrize("name, value, message", [
    ("precision", 18, "precision is the number of decimals shown, a whole number from 0 to 17; got 18"),
    ("precision", True, "precision is the number of decimals shown, a whole number from 0 to 17; got True"),
    ("precision", 4.0, "precision is the number of decimals shown, a whole number from 0 to 17; got 4.0"),
    ("rankdir", "XY", "rankdir must be 'LR' (left to right) or 'TB' (top to bottom); got 'XY'"),
    ("rankdir", None, "rankdir must be 'LR' (left to right) or 'TB' (top to bottom); got None"),
    ("node_budget", 9, "node_budget is how many boxes a picture may draw before it folds the rest, a whole number "
                       "from 10 to 2000 (None draws everything); got 9"),
    ("node_budget", 2001, "node_budget is how many boxes a picture may draw before it folds the rest, a whole number "
                          "from 10 to 2000 (None draws everything); got 2001"),
    ("color", 1, "color turns colouring by gradient on or off: True or False; got 1"),
    ("color", None, "color turns colouring by gradient on or off: True or False; got None"),
    ("default_view", "movie", "default_view must be 'static' (a picture) or 'widget' (the live widget); got 'movie'"),
    ("colour", True, "unknown option 'colour'; the options are precision, rankdir, node_budget, color, color_scale"),
])
def test_bad_values_get_the_message_saying_what_is_allowed(name: str, value: object, message: str) -> None:
    with pytest.raises(ValueError) as caught:
        check_option(name, value)
    assert str(caught.value) == message


@pytest.mark.parametrize("name, value, expected", [
    ("precision", 0, 0), ("precision", 17, 17),
    ("rankdir", "tb", "TB"), ("rankdir", "Lr", "LR"),
    ("node_budget", 10, 10), ("node_budget", 2000, 2000), ("node_budget", None, None),
    ("color", False, False),
    ("default_view", "STATIC", "static"), ("default_view", "widget", "widget"),
])
def test_good_values_come_back_normalised(name: str, value: object, expected: object) -> None:
    assert check_option(name, value) == expected


def test_the_configurable_is_made_from_the_table() -> None:
    traits = MicrogradWidget.class_traits(config=True)
    assert set(traits) == set(DEFAULTS)
    config = MicrogradWidget()
    assert {name: getattr(config, name) for name in DEFAULTS} == DEFAULTS
    helps = {name: trait.help for name, trait in traits.items()}
    assert "a whole number from 0 to 17" in helps["precision"]
    assert "a whole number from 10 to 2000 (None draws everything)" in helps["node_budget"]
    assert "'LR' (left to right) or 'TB' (top to bottom)" in helps["rankdir"]
    assert "True or False" in helps["color"]
    assert "'static' (a picture) or 'widget' (the live widget)" in helps["default_view"]


def test_the_configurable_checks_as_the_table_does() -> None:
    config = MicrogradWidget()
    config.rankdir = "tb"
    config.node_budget = None          # draws everything, as graph_view(node_budget=None)
    config.default_view = "Static"
    assert (config.rankdir, config.node_budget, config.default_view) == ("TB", None, "static")
    with pytest.raises(TraitError, match=r"^MicrogradWidget\.precision is the number of decimals shown"):
        config.precision = 18
    with pytest.raises(TraitError, match=r"^MicrogradWidget\.node_budget is how many boxes .* got 5$"):
        config.node_budget = 5
    assert config.precision == 4 and config.node_budget is None


class FakeShell:
    """Stands for an IPython shell: options.py only needs its identity."""


def test_options_in_force_follow_registration() -> None:
    shell, other = FakeShell(), FakeShell()
    config = MicrogradWidget()
    config.precision, config.default_view = 7, "static"
    assert current_options(shell) == DEFAULTS
    options.register(shell, config)
    try:
        assert current_options(shell) == {**DEFAULTS, "precision": 7, "default_view": "static"}
        assert current_drawing_options(shell) == {"precision": 7, "rankdir": "LR", "node_budget": 250, "color": True,
                                                   "color_scale": "relative"}
        assert current_options(other) == DEFAULTS
        options.unregister(other)                  # not registered: changes nothing
        assert current_options(shell)["precision"] == 7
    finally:
        options.unregister(shell)
    assert current_options(shell) == DEFAULTS


def top_level_imports(path: Path) -> set[str]:
    """The package modules ``path`` imports when it is imported (imports inside functions left out)."""
    found: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if not isinstance(node, ast.ImportFrom) or not (node.module or "").startswith("micrograd_widget"):
            continue
        base = node.module.partition(".")[2] if node.module else ""
        found.add(base)
        found.update(f"{base}.{alias.name}".lstrip(".") for alias in node.names)
    return found


def module_name(path: Path) -> str:
    """``core.tape`` for micrograd_widget/core/tape.py, ``core`` for its __init__.py, ``""`` for the package's."""
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def test_the_package_has_no_import_cycle() -> None:
    modules = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {name: top_level_imports(path) & set(modules) for name, path in modules.items()}
    assert "host.extension" not in graph["graph.widget"] and graph["host.options"] == set()
    state: dict[str, str] = {}

    def visit(name: str, path: list[str]) -> None:
        state[name] = "open"
        for imported in sorted(graph[name]):
            assert state.get(imported) != "open", f"import cycle: {' -> '.join([*path, name, imported])}"
            if imported not in state:
                visit(imported, [*path, name])
        state[name] = "done"

    for name in sorted(graph):
        if name not in state:
            visit(name, [])
    assert len(state) == len(modules) > 10


def test_every_drawing_function_takes_the_same_defaults() -> None:
    from micrograd_widget.display import value_mimebundle
    from micrograd_widget.picture.dot import graph_view

    def defaults(fn: Any) -> dict[str, Any]:
        return {k: v for k, v in fn.__kwdefaults__.items() if k in DEFAULTS}
    drawing = {k: v for k, v in DEFAULTS.items() if k != "default_view"}
    assert defaults(graph_view) == drawing
    assert defaults(value_mimebundle) == drawing
