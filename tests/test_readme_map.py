"""The README's map of the repository (its Development section) names every source file, so a reader finds each
file's job there: each micrograd_widget/*.py and js/*.js by its file name, each js/view/*.js in the view/ list."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def map_text() -> str:
    """The fenced block of README.md's "## Development" section: the map."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Development\n", 1)[1]
    found = re.search(r"```\n(.*?)```", section, re.S)
    assert found, "README.md's Development section has no map (a ``` block)"
    return found.group(1)


def named(text: str, file: str) -> bool:
    """``file`` appears in ``text`` as a whole name (fold.js is not named by fold-dot.js)."""
    return re.search(rf"(?<![\w./-]){re.escape(file)}(?![\w-])", text) is not None


def view_list(text: str) -> list[str]:
    """The names in the map's ``view/ (drawing, picture, ...)`` list."""
    found = re.search(r"\bview/ \(([^)]*)\)", text)
    assert found, "the map lists js/view/'s files as view/ (name, name, ...)"
    return [name.strip() for name in re.sub(r"\s+", " ", found.group(1)).split(",")]


def test_the_map_names_every_source_file() -> None:
    text = map_text()
    sources = sorted(p.name for p in (ROOT / "micrograd_widget").glob("*.py"))
    sources += sorted(p.name for p in (ROOT / "js").glob("*.js") if not p.name.endswith(".test.js"))
    missing = [name for name in sources if not named(text, name)]
    views = view_list(text)
    missing += [f"view/{p.name}" for p in sorted((ROOT / "js" / "view").glob("*.js")) if p.stem not in views]
    assert not missing, f"README.md's map (## Development) does not name {missing}: add each with its job"


def test_the_map_names_no_file_that_is_gone() -> None:
    views = {p.stem for p in (ROOT / "js" / "view").glob("*.js")}
    assert not set(view_list(map_text())) - views, "the map's view/ list names a file js/view/ does not have"
