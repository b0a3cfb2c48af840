"""axe-core (js/node_modules/axe-core, pinned in js/package.json) run on a page: the serious and critical
violations, one line per element, for the browser tests' accessibility checks."""

from __future__ import annotations

from pathlib import Path

import pytest

AXE = Path(__file__).resolve().parents[3] / "js" / "node_modules" / "axe-core" / "axe.min.js"


def axe_problems(page, context: str = "document") -> list[str]:
    """The serious and critical violations axe-core finds in ``context`` (a JS expression: the page, or the
    widget alone on the test harness's page), one line per element."""
    if not AXE.exists():
        pytest.fail(f"{AXE} is missing: run `npm --prefix js ci`", pytrace=False)
    page.add_script_tag(content=AXE.read_text(encoding="utf-8"))
    result = page.evaluate(f"async () => await axe.run({context}, {{ resultTypes: ['violations'] }})")
    problems = []
    for v in result["violations"]:
        if v["impact"] in ("serious", "critical"):
            for node in v["nodes"]:
                problems.append(f"{v['impact']} {v['id']}: {v['help']} at {node['target']}: "
                                f"{node.get('failureSummary', '').strip()}")
    return problems
