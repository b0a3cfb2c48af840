"""The map of the repository (docs/architecture.md, its "Map of the repository" section) names every source file,
so a reader finds each file's job there: each micrograd_widget/*.py and js/*.js by its file name, each
js/view/*.js in the view/ list."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAP = ROOT / "docs" / "architecture.md"
HEADING = "\n## Map of the repository\n"


def map_text() -> str:
    """The fenced block of docs/architecture.md's "## Map of the repository" section: the map."""
    text = MAP.read_text(encoding="utf-8")
    assert HEADING in text, f"docs/architecture.md has no section {HEADING.strip()!r}"
    found = re.search(r"```\n(.*?)```", text.split(HEADING, 1)[1], re.S)
    assert found, "docs/architecture.md's Map of the repository has no map (a ``` block)"
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
    assert not missing, f"docs/architecture.md's map does not name {missing}: add each with its job"


def test_the_map_names_no_file_that_is_gone() -> None:
    views = {p.stem for p in (ROOT / "js" / "view").glob("*.js")}
    assert not set(view_list(map_text())) - views, "the map's view/ list names a file js/view/ does not have"
