"""Every name is imported from the module that defines it: no module of micrograd_widget re-exports another's
names (``__all__`` lists only its own), and the package, the tests and the benchmarks import each name from its
home. The public face, micrograd_widget/__init__.py, is the one module that gathers names from others. No test
module imports another: what tests share lives in tests/builders.py (graphs), tests/helpers.py (parsers, fake
front ends, shells), tests/conftest.py (fixtures) and tests/browser/mgw_browser/ (the browser tests' support)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "micrograd_widget"


def defined(tree: ast.Module) -> set[str]:
    """The names a module defines at its top level (functions, classes, assignments, plain imports)."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        targets = list(node.targets) if isinstance(node, ast.Assign) else []
        targets += [node.target] if isinstance(node, ast.AnnAssign) else []
        names.update(e.id for t in targets for e in ast.walk(t) if isinstance(e, ast.Name))
        if isinstance(node, ast.Import):
            names.update(a.asname or a.name for a in node.names)
    return names


def dotted(path: Path) -> str:
    """A package module's name under micrograd_widget: ``core.tape`` for micrograd_widget/core/tape.py."""
    parts = path.relative_to(PACKAGE).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


HOMES = {dotted(p): defined(ast.parse(p.read_text(encoding="utf-8"))) for p in PACKAGE.rglob("*.py")}


def imported_from_elsewhere(path: Path) -> list[str]:
    """``path:line name from module`` for each name ``path`` imports from a package module that does not define it."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or not node.module:
            continue
        if node.level and path.is_relative_to(PACKAGE):
            base = dotted(path).split(".")[: -node.level] if path.name != "__init__.py" else dotted(path).split(".")
            module = ".".join([*(p for p in base if p), node.module])
        elif node.level == 0 and node.module.startswith("micrograd_widget."):
            module = node.module.split(".", 1)[1]
        else:
            continue
        found += [f"{path.relative_to(ROOT)}:{node.lineno} {a.name} from {module}" for a in node.names
                  if module in HOMES and a.name not in HOMES[module] and f"{module}.{a.name}".lstrip(".") not in HOMES]
    return found


def test_no_module_lists_another_modules_names_in_its_all() -> None:
    borrowed = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name == "__init__.py":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.Assign) and [getattr(t, "id", "") for t in node.targets] == ["__all__"]:
                assert isinstance(node.value, ast.List)
                names = [e.value for e in node.value.elts if isinstance(e, ast.Constant)]
                borrowed += [f"{path.name}: {n}" for n in names if n not in HOMES[dotted(path)]]
    assert not borrowed, f"__all__ names defined elsewhere (import them from their module instead): {borrowed}"


def test_every_name_is_imported_from_its_home() -> None:
    files = [p for p in PACKAGE.rglob("*.py") if p != PACKAGE / "__init__.py"]
    files += [p for folder in ("tests", "benchmarks") for p in (ROOT / folder).rglob("*.py")]
    elsewhere = [line for path in sorted(files) for line in imported_from_elsewhere(path)]
    assert not elsewhere, f"names imported from a module that only re-exports them: {elsewhere}"


def test_no_test_module_imports_another() -> None:
    """A test file's helpers imported by another test file tie the two together (and run its module's code twice
    under two names): the shared ones have homes of their own."""
    tests = ROOT / "tests"
    borrowed = []
    for path in sorted(tests.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                modules = [node.module]
            elif isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
            else:
                continue
            borrowed += [f"{path.relative_to(ROOT)}:{node.lineno} imports {m}" for m in modules
                         if m.split(".")[-1].startswith("test_") or m.split(".")[-1] == "conftest"]
    assert not borrowed, f"test modules importing test modules (move what they share to tests/helpers.py): {borrowed}"
