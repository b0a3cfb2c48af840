"""Every picture README.md and docs/*.md show is one the screenshots script (tests/browser/screenshots.py) makes
from the current build, and examples/images/ holds no picture that nothing shows, so no page shows a UI that is
gone. Read from the files' text (the script's SHOTS, LAB_SHOTS and LITE_SHOTS tables): no browser needed."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IMAGES = ROOT / "examples" / "images"
SCRIPT = ROOT / "tests" / "browser" / "screenshots.py"
TABLES = (["SHOTS"], ["LAB_SHOTS"], ["LITE_SHOTS"])  # its pictures: the fake-model page's, JupyterLab's, JupyterLite's
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def shown(page: Path) -> list[str]:
    """The picture paths ``page`` shows: Markdown ``![alt](path)`` and HTML ``<img src="path">``."""
    text = page.read_text(encoding="utf-8")
    found = re.findall(r"!\[[^\]]*\]\(\s*<?([^)\s>]+)", text)
    found += re.findall(r"<img\b[^>]*\bsrc\s*=\s*[\"']([^\"']+)", text, re.I)
    return found


def script_images() -> dict[str, str]:
    """File name -> the function the screenshots script writes it with, from its picture tables (TABLES); each
    such function takes the ``path`` it writes (main passes examples/images/<name>)."""
    tree = ast.parse(SCRIPT.read_text(encoding="utf-8"))
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    made: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] in TABLES:
            assert isinstance(node.value, ast.Dict), "screenshots.py's picture tables are {file name: function}"
            for key, value in zip(node.value.keys, node.value.values):
                assert isinstance(key, ast.Constant) and isinstance(value, ast.Name), ast.unparse(node)
                function = functions.get(value.id)
                assert function is not None, f"screenshots.py has no function {value.id} ({key.value})"
                assert "path" in [a.arg for a in function.args.args], f"{value.id} must write the path main gives it"
                made[key.value] = value.id
    assert made, "screenshots.py has no SHOTS / LAB_SHOTS table"
    return made


def test_every_picture_the_pages_show_is_made_by_the_screenshots_script() -> None:
    made = script_images()
    wrong = []
    for page in PAGES:
        for src in shown(page):
            target = (page.parent / src).resolve()
            if target.parent != IMAGES or target.name not in made:
                wrong.append(f"{page.relative_to(ROOT)}: {src}")
    assert not wrong, (f"pictures not made by tests/browser/screenshots.py: {wrong}; add a function for each to its "
                       "SHOTS (or LAB_SHOTS), then run python -m tests.browser.screenshots")


def test_the_readme_shows_pictures() -> None:
    assert shown(ROOT / "README.md"), "README.md shows no picture: the tour is by screenshots"


def test_no_picture_is_left_that_nothing_shows_or_makes() -> None:
    named = {(page.parent / src).resolve().name for page in PAGES for src in shown(page)}
    made = set(script_images())
    files = {p.name for p in IMAGES.iterdir()}
    assert not files - named, f"examples/images/ holds {sorted(files - named)}, which no page shows: delete them"
    assert not made - named, f"screenshots.py makes {sorted(made - named)}, which no page shows: drop them"
    assert not made - files, f"screenshots.py's {sorted(made - files)} are not in examples/images/: run it"
