"""Reading and driving one widget view through the contract's DOM hooks (see briefs/contract.md):
``.mgw-root[data-state]``, ``input[data-leaf]``, ``[data-node][data-field]``, ``[data-role=...]``."""

from __future__ import annotations

import math
import re
import time
from collections.abc import Mapping

# A JS function: scroll the graph box `graph` from where it is until element `target` is in its middle, in `steps`
# scroll positions, one painted frame each, and return what `look(root)` says at each.
SCROLL_THROUGH = """async (graph, target, steps, look, root) => {
  const frame = () => new Promise(ok => requestAnimationFrame(() => setTimeout(ok, 0)));
  const b = graph.getBoundingClientRect(), q = target.getBoundingClientRect();
  const x0 = graph.scrollLeft, y0 = graph.scrollTop;
  const dx = (q.left + q.right) / 2 - (b.left + graph.clientLeft + graph.clientWidth / 2);
  const dy = (q.top + q.bottom) / 2 - (b.top + graph.clientTop + graph.clientHeight / 2);
  const seen = [];
  for (let k = 1; k <= steps; k++) {
    graph.scrollLeft = x0 + dx * k / steps;
    graph.scrollTop = y0 + dy * k / steps;
    await frame();
    seen.push(look(root));
  }
  return seen;
}"""

_NUMBER = re.compile(r"^([-+]?)(\d*)(?:\.(\d*))?(?:[eE]([-+]?\d+))?$")
_SPECIAL = {"nan": math.nan, "inf": math.inf, "+inf": math.inf, "-inf": -math.inf, "infinity": math.inf,
            "+infinity": math.inf, "-infinity": -math.inf, "∞": math.inf, "+∞": math.inf, "-∞": -math.inf}

# Every [data-node][data-field] of the view outside the inspector, grouped node -> field -> [texts]. A number in
# the picture is a <text> reading "<caption> <x>" (js/host/svg-contract.md): its number is the text after the last
# space.
_READ_NUMBERS = """root => {
  const out = {};
  for (const el of root.querySelectorAll('[data-node][data-field]')) {
    if (el.closest('[data-role="inspector"]')) continue;
    const node = el.getAttribute('data-node'), field = el.getAttribute('data-field');
    const text = el.textContent;
    ((out[node] ??= {})[field] ??= []).push(el instanceof SVGElement ? text.slice(text.lastIndexOf(' ') + 1) : text);
  }
  return out;
}"""

_BY_ATTR = """(root, [selector, attr, value]) =>
  [...root.querySelectorAll(selector)].filter(el => el.getAttribute(attr) === value).length"""


def parse_shown(text: str) -> tuple[float, float]:
    """A displayed number and the half-unit of its last shown digit (the display's rounding tolerance)."""
    t = text.strip().replace("\u2212", "-").replace("\u2009", "").replace(",", "")
    if t.lower() in _SPECIAL:
        return _SPECIAL[t.lower()], 0.0
    m = _NUMBER.match(t)
    if not m or not (m.group(2) or m.group(3)):
        raise AssertionError(f"not a number as the widget should display one: {text!r}")
    decimals = len(m.group(3) or "")
    exponent = int(m.group(4) or 0)
    return float(t), 0.5 * 10.0 ** (exponent - decimals)


def shown_equals(text: str, expected: float) -> bool:
    """True when ``text`` is ``expected`` rounded to the digits it shows (NaN and infinities match exactly)."""
    value, tol = parse_shown(text)
    if math.isnan(expected) or math.isinf(expected):
        return (math.isnan(value) and math.isnan(expected)) or value == expected
    return abs(value - expected) <= tol * (1 + 1e-9) + 1e-12 * max(1.0, abs(expected))


def leaf_selector(kind: str, leaf: str) -> str:
    """CSS for a leaf's slider (``kind='range'``) or number box (``kind='number'``); ``leaf`` is a label or node id."""
    return f'input[type={kind}][data-leaf="{css_string(leaf)}"]'


def css_string(s: str) -> str:
    """``s`` escaped for use inside a double-quoted CSS attribute value."""
    return s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\a ")


class WidgetDom:
    """One widget view, found under ``scope`` (a Playwright Page, Frame or Locator)."""

    def __init__(self, scope, index: int = 0) -> None:
        self.scope = scope
        self.root = scope.locator(".mgw-root").nth(index)

    def wait_ready(self, timeout_s: float = 30.0) -> None:
        """Wait until the view says ``data-state="ready"``; fail with the error message it shows otherwise."""
        deadline = time.monotonic() + timeout_s
        self.root.wait_for(state="attached", timeout=timeout_s * 1000)
        while True:
            state = self.root.get_attribute("data-state")
            if state == "ready":
                return
            if state == "error":
                raise AssertionError(f"the widget shows an error: {self.error_text()!r}")
            if time.monotonic() > deadline:
                raise AssertionError(f"the widget did not become ready in {timeout_s:.0f} s (data-state={state!r})")
            time.sleep(0.05)

    def error_text(self) -> str:
        err = self.root.locator('[data-role="error"]')
        return " | ".join(t.strip() for t in err.all_text_contents()) if err.count() else ""

    def numbers(self) -> dict[str, dict[str, list[str]]]:
        """node -> field ('data'/'grad') -> the texts shown for it."""
        return self.root.evaluate(_READ_NUMBERS)

    def count_with_attr(self, selector: str, attr: str, value: str) -> int:
        """How many elements under the view match ``selector`` and have ``attr`` exactly ``value``."""
        return self.root.evaluate(_BY_ATTR, [selector, attr, value])

    def slider(self, leaf: str):
        return self.root.locator(leaf_selector("range", leaf))

    def number_box(self, leaf: str):
        return self.root.locator(leaf_selector("number", leaf))

    def slider_range(self, leaf: str) -> tuple[float, float, float]:
        """(min, max, value) of a leaf's slider."""
        s = self.slider(leaf)
        return float(s.get_attribute("min")), float(s.get_attribute("max")), float(s.input_value())

    def set_slider(self, leaf: str, value: float) -> float:
        """Move the slider as a user would (value set, then 'input' and 'change'); return the value it took
        (a range input clamps and snaps to its step)."""
        s = self.slider(leaf)
        s.fill(repr(float(value)))
        return float(s.input_value())

    def move_slider(self, leaf: str, fraction: float) -> float:
        """Move a slider to ``fraction`` of its range; return the value it took."""
        lo, hi, _ = self.slider_range(leaf)
        return self.set_slider(leaf, lo + fraction * (hi - lo))

    def type_number(self, leaf: str, value: float | str) -> None:
        """Type an exact value in a leaf's number box and commit it with Enter."""
        box = self.number_box(leaf)
        box.fill(str(value))
        box.press("Enter")

    def mismatches(self, expected: Mapping[str, Mapping[str, float]]) -> list[str]:
        """How the shown numbers differ from ``expected`` (node -> field -> value); empty when they agree."""
        shown = self.numbers()
        problems = []
        for node, fields in expected.items():
            for field, want in fields.items():
                texts = shown.get(node, {}).get(field)
                if not texts:
                    problems.append(f"{node}.{field}: no [data-node={node!r}][data-field={field!r}] element")
                    continue
                for text in texts:
                    try:
                        ok = shown_equals(text, want)
                    except AssertionError as exc:
                        problems.append(f"{node}.{field}: {exc}")
                        continue
                    if not ok:
                        problems.append(f"{node}.{field}: shows {text!r}, the engine computes {want!r}")
        return problems

    def expect_numbers(self, expected: Mapping[str, Mapping[str, float]], timeout_s: float = 10.0) -> None:
        """Wait until every expected number is shown (rounded to the shown digits); fail listing the differences."""
        deadline = time.monotonic() + timeout_s
        while True:
            problems = self.mismatches(expected)
            if not problems:
                return
            if time.monotonic() > deadline:
                raise AssertionError("the widget's numbers differ from the engine's:\n  " + "\n  ".join(problems))
            time.sleep(0.03)


def expected_numbers(nodes: Mapping[str, object]) -> dict[str, dict[str, float]]:
    """label -> {'data', 'grad'} of engine Values (the oracle for what the view must show)."""
    return {label: {"data": v.data, "grad": v.grad} for label, v in nodes.items()}  # type: ignore[attr-defined]


def poll(read, accept, what: str, timeout_s: float = 10.0, interval_s: float = 0.03):
    """Call ``read()`` until ``accept(result)``; return the result, or fail saying ``what`` never happened and
    what was seen last. A robust wait for conditions computed in Python."""
    deadline = time.monotonic() + timeout_s
    while True:
        seen = read()
        if accept(seen):
            return seen
        if time.monotonic() > deadline:
            raise AssertionError(f"waited {timeout_s:.0f} s for {what}; last seen: {seen!r}")
        time.sleep(interval_s)
