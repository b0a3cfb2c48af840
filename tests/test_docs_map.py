"""The map of the repository (docs/architecture.md, its "Map of the repository" section) names every source file
of micrograd_widget/ and js/ by its path, folder by folder, and no file that is gone, so a reader finds each
file's job there; and the Python/JS twins share their folder and name, so each is found from the other."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAP = ROOT / "docs" / "architecture.md"
HEADING = "\n## Map of the repository\n"
# The Python/JS pairs that must agree, each at the same path under micrograd_widget/ and js/ (ops.js and
# shared.js are generated from their twins).
TWINS = ["core/ops", "core/shared", "core/spec", "core/tape", "core/gradcheck", "picture/fold_tree",
         "picture/fold_fit", "picture/far_ranks", "picture/dot", "picture/text", "graph/widget", "training/widget"]


def map_text() -> str:
    """The fenced block of docs/architecture.md's "## Map of the repository" section: the map."""
    text = MAP.read_text(encoding="utf-8")
    assert HEADING in text, f"docs/architecture.md has no section {HEADING.strip()!r}"
    found = re.search(r"```\n(.*?)```", text.split(HEADING, 1)[1], re.S)
    assert found, "docs/architecture.md's Map of the repository has no map (a ``` block)"
    return found.group(1)


def mapped() -> set[str]:
    """The paths the map names: each line's first word, under the folders of the lines above it (two spaces a level)."""
    paths: set[str] = set()
    folders: list[str] = []
    for line in map_text().splitlines():
        word = line.split(" ", 1)[0] if not line.startswith(" ") else line.strip().split(" ", 1)[0]
        depth = (len(line) - len(line.lstrip(" "))) // 2
        if not word or depth > len(folders) or not re.fullmatch(r"[\w.<>-]+/?", word):
            continue
        folders = folders[:depth]
        if word.endswith("/"):
            folders.append(word)
        else:
            paths.add("".join(folders) + word)
    return paths


def sources() -> set[str]:
    """Every source file of the package and of js/ (tests, built files and installed packages left out)."""
    found = {p.relative_to(ROOT).as_posix() for p in (ROOT / "micrograd_widget").rglob("*.py")}
    for pattern in ("*.js", "*.mjs", "*.css", "*.md", "*.json"):
        found |= {p.relative_to(ROOT).as_posix() for p in (ROOT / "js").rglob(pattern) if "node_modules" not in p.parts
                  and not p.name.endswith(".test.js") and p.name != "package-lock.json"}
    return {p for p in found if not p.endswith("/__init__.py") or p == "micrograd_widget/__init__.py"}


def test_the_map_names_every_source_file() -> None:
    missing = sorted(sources() - mapped())
    assert not missing, f"docs/architecture.md's map does not name {missing}: add each, with its job, in its folder"


def test_the_map_names_no_file_that_is_gone() -> None:
    gone = sorted(p for p in mapped() if p.startswith(("micrograd_widget/", "js/")) and "<" not in p
                  and not (ROOT / p).exists())
    assert not gone, f"docs/architecture.md's map names files that are not there: {gone}"


def test_every_twin_has_its_pair_at_the_same_path() -> None:
    missing = [path for twin in TWINS for path in (f"micrograd_widget/{twin}.py", f"js/{twin}.js")
               if not (ROOT / path).exists()]
    assert not missing, f"a Python/JS twin without its pair: {missing}"
