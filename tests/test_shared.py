"""js/core/shared.js, the facts the browser shares with Python, is what micrograd_widget/core/shared.py writes from
them, and the browser reads each as the value Python holds."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

from micrograd_widget.core.shared import SHARED, js_module

SHARED_JS = Path(__file__).resolve().parents[1] / "js" / "core" / "shared.js"

# Prints every export of js/core/shared.js as JSON, a RegExp as {"regexp": source, "matches": [...]} on the samples.
READ_SCRIPT = """
const shared = await import(%s);
const samples = ["Error: lost fold3 fold1 edge", "lost open0 n12_op edge", "lost edge", "Warning: lost"];
const out = {};
for (const [name, value] of Object.entries(shared)) {
  out[name] = value instanceof RegExp ? { regexp: value.source, matches: samples.map((s) => value.test(s)) } : value;
}
console.log(JSON.stringify(out));
"""
SAMPLES = ["Error: lost fold3 fold1 edge", "lost open0 n12_op edge", "lost edge", "Warning: lost"]


def test_the_committed_js_shared_module_is_the_generators_output() -> None:
    assert SHARED_JS.read_text(encoding="utf-8") == js_module(), \
        "js/core/shared.js is stale: run `npm --prefix js run build` and commit js/core/shared.js"


def test_the_browser_reads_every_fact_as_python_holds_it(tmp_path: Path) -> None:
    node = shutil.which("node")
    assert node, "node (>= 18) is needed: js/core/shared.js is checked against Python (apt-get install nodejs)"
    script = tmp_path / "read.mjs"
    script.write_text(READ_SCRIPT % json.dumps(SHARED_JS.as_uri()))
    result = subprocess.run([node, str(script)], capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout)
    assert set(seen) == {name for name, _, _ in SHARED}
    for name, value, _ in SHARED:
        if isinstance(value, re.Pattern):
            assert seen[name] == {"regexp": value.pattern, "matches": [bool(value.search(s)) for s in SAMPLES]}, name
        else:
            assert seen[name] == value, name
    assert seen["LOST_EDGE"]["matches"] == [True, True, False, False], "the retry's pattern, by hand"
