"""What the export tests click and read: the toolbar's buttons, a downloaded file, the numbers an exported SVG shows,
a box opened by Expand."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from playwright.sync_api import expect

from .dom import WidgetDom

SVG = "{http://www.w3.org/2000/svg}"


def button(view: WidgetDom, action: str):
    return view.root.locator(f'button[data-action="{action}"]')


def download(page, view: WidgetDom, action: str):
    with page.expect_download() as info:
        button(view, action).click()
    d = info.value
    assert d.failure() is None, d.failure()
    return d.suggested_filename, Path(d.path()).read_bytes()


def svg_numbers(text: bytes) -> dict[str, dict[str, str]]:
    """data-node -> field -> the number shown, from an exported SVG."""
    root = ET.fromstring(text)
    out: dict[str, dict[str, str]] = {}
    for text in root.iter(f"{SVG}text"):  # "<caption> <x>": the number after the last space (js/host/svg-contract.md)
        if text.get("data-node") and text.get("data-field"):
            out.setdefault(text.get("data-node"), {})[text.get("data-field")] = (text.text or "").rsplit(" ", 1)[-1]
    return out


def expand_box(view, page, key: str) -> list[str]:
    """Click fold box ``key``, press Expand and wait for its cluster; the widget's open set after it."""
    view.root.locator(f'[data-role="graph"] g.mgw-fold[data-fold="{key}"]').click()
    view.root.locator('[data-action="expand"]').click()
    expect(view.root.locator(f'[data-role="graph"] g.cluster[data-fold="{key}"]')).to_have_count(1)
    opened: list[str] = page.evaluate("() => window.__mgw.model.get('opened')")
    return opened
