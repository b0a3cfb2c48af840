"""THE benchmark command: ``python benchmarks/run.py [names...]`` runs every ``benchmarks/bench_*.py``.

Each bench module exposes ``main() -> None`` that measures against a baseline timed in the same run
and prints ratios. Add a benchmark by dropping a ``bench_<name>.py`` next to this file; select some
with their names (``python benchmarks/run.py engine display``).
"""

from __future__ import annotations

import importlib.util
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def discover() -> dict[str, Path]:
    """Every ``bench_<name>.py`` in this folder, by ``<name>``, sorted."""
    return {p.stem[len("bench_"):]: p for p in sorted(HERE.glob("bench_*.py"))}


def load(name: str, path: Path):
    """Import one bench module by path (benchmarks/ is not a package)."""
    spec = importlib.util.spec_from_file_location(f"bench_{name}", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"{path.name} cannot be imported as a module")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if not callable(getattr(module, "main", None)):
        raise SystemExit(f"{path.name} has no main() function; every bench_*.py must define main() -> None")
    return module


def main(argv: list[str]) -> int:
    """Run the named benchmarks (all when none are named); exit 2 on an unknown name."""
    found = discover()
    names = argv or list(found)
    unknown = [n.removeprefix("bench_").removesuffix(".py") for n in names
               if n.removeprefix("bench_").removesuffix(".py") not in found]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; available: {', '.join(found) or 'none'}", file=sys.stderr)
        return 2
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))  # so bench modules can `import common`
    for raw in names:
        name = raw.removeprefix("bench_").removesuffix(".py")
        print(f"== {name} ({found[name].name}) ==", flush=True)
        start = time.perf_counter()
        load(name, found[name]).main()
        print(f"-- {name} done in {time.perf_counter() - start:.1f} s\n", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
