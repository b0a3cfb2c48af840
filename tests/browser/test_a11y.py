"""Accessibility: axe-core (js/node_modules/axe-core, pinned in js/package.json) run in Chromium on the exported
page (save_html) and on the fake-model view, with the inspector open, and with the stepper open and its buttons
pressed: no serious or critical violation; pressed buttons' text has at least 4.5:1 contrast, worked out here."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from micrograd_widget.picture.text import format_number

from .mgw_browser.a11y import axe_problems
from .mgw_browser.dom import WidgetDom
from .mgw_browser.fake_model import open_view
from .mgw_browser.graphs import lecture_L, moons_loss

pytestmark = pytest.mark.browser

def open_inspector(view: WidgetDom, key: str) -> None:
    view.root.locator(f'[data-role="graph"] g[data-node="{key}"]').click()
    inspector = view.root.locator('[data-role="inspector"]')
    expect(inspector).to_be_visible()
    expect(inspector).to_have_attribute("data-node", key)


def luminance(rgb: str) -> float:
    """WCAG 2's relative luminance of a computed CSS colour "rgb(r, g, b)" (opaque)."""
    channels = [int(c) / 255 for c in re.findall(r"\d+", rgb)[:3]]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(fg: str, bg: str) -> float:
    light, dark = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


_PRESSED = """r => [...r.querySelectorAll('.mgw-button[aria-pressed="true"]')].map(b => {
  const s = getComputedStyle(b);
  return { text: b.textContent, color: s.color, background: s.backgroundColor };
})"""


def open_stepper_and_play(view: WidgetDom, page) -> list[dict]:
    """Open the stepper, play at its slowest speed (Play stays pressed), move the mouse off the buttons; the pressed
    buttons' text, colour and background (opaque: the theme's panel)."""
    view.root.locator('button[data-role="step-mode"]').click()
    view.root.locator('select[data-role="step-speed"]').select_option("0.5")
    view.root.locator('[data-role="stepper"] button[data-step="play"]').click()
    page.mouse.move(1, 1)
    pressed: list[dict] = view.root.evaluate(_PRESSED)
    assert {p["text"] for p in pressed} >= {"Pause"} and len(pressed) == 2, pressed
    assert all(not p["background"].startswith("rgba") for p in pressed), pressed
    return pressed


@pytest.mark.parametrize("panel", ["inspector", "stepper"])
@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_exported_page_has_no_serious_violation_with_the_inspector_or_stepper_open(
        tmp_path, static_server, widget_bundle, guarded, scheme, panel):
    from micrograd_widget import save_html

    guarded.page.emulate_media(color_scheme=scheme)

    out = save_html(lecture_L()["L"], tmp_path / "page.html")
    guarded.page.goto(static_server.serve_alone(out, f"a11y-{tmp_path.name}"))
    view = WidgetDom(guarded.page)
    view.wait_ready(60)
    if panel == "inspector":
        open_inspector(view, "d")
    else:
        for button in open_stepper_and_play(view, guarded.page):
            assert contrast(button["color"], button["background"]) >= 4.5, button
    problems = axe_problems(guarded.page)
    assert not problems, "axe-core:\n" + "\n".join(problems)
    if panel == "stepper":  # axe ran while both buttons were pressed
        assert len(view.root.evaluate(_PRESSED)) == 2


def test_a_boxs_accessible_name_is_the_text_it_shows_and_follows_the_numbers(show_view):
    view, _ = show_view(lecture_L()["L"])
    box = view.root.locator('[data-role="graph"] g[data-node="d"]')
    expect(box).to_have_accessible_name(re.compile(r"^d\s*data 4\.0000\s*grad -2\.0000$"))
    expect(box).to_have_accessible_description(re.compile(r"^d \(#4\): press Enter to inspect"))
    x = view.move_slider("c", 0.9)
    expect(box).to_have_accessible_name(re.compile(rf"^d\s*data {re.escape(format_number(x - 6, 4))}\s*grad"))


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_view_with_fold_boxes_has_no_serious_violation(show_view, theme):
    view, page = show_view(moons_loss(), theme=theme)
    view.root.locator('[data-role="graph"] g.mgw-fold').first.click()
    expect(view.root.locator('[data-role="inspector"]')).to_be_visible()
    problems = axe_problems(page, "document.querySelector('.mgw-root')")  # the harness's page is not ours
    assert not problems, "axe-core:\n" + "\n".join(problems)


@pytest.fixture
def show_view(guarded, static_server, widget_bundle):
    def _show(root, **options):
        return open_view(guarded.page, static_server, root, **options), guarded.page
    return _show


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_exported_page_has_no_serious_violation_with_the_learning_controls_in_use(
        tmp_path, static_server, widget_bundle, guarded, scheme):
    """The learning controls (issue 21) after a Step up (its Δ marks on every box) and while Train plays (pressed)."""
    from micrograd_widget import save_html

    guarded.page.emulate_media(color_scheme=scheme)
    out = save_html(lecture_L()["L"], tmp_path / "page.html")
    guarded.page.goto(static_server.serve_alone(out, f"a11y-learn-{tmp_path.name}"))
    view = WidgetDom(guarded.page)
    view.wait_ready(60)
    learn = view.root.locator('[data-role="learn"]')
    expect(learn).to_be_visible()
    view.root.locator('[data-action="step-up"]').click()
    expect(view.root.locator('[data-field="delta-data"]').first).to_be_visible()
    view.root.locator('[data-action="train"]').click()
    guarded.page.mouse.move(1, 1)
    expect(view.root.locator('[data-action="train"]')).to_have_attribute("aria-pressed", "true")
    problems = axe_problems(guarded.page)
    assert not problems, "axe-core:\n" + "\n".join(problems)
    for button in view.root.evaluate(_PRESSED):
        assert contrast(button["color"], button["background"]) >= 4.5, button


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_overview_map_and_its_hide_button_have_no_serious_violation(show_view, theme):
    """The moons loss with layers.1 opened shows the overview map (graph/overview.js): axe with it shown and hidden."""
    from .mgw_browser.exports import expand_box

    view, page = show_view(moons_loss(), theme=theme)
    expand_box(view, page, "layers.1")
    toggle = view.root.locator('[data-role="overview-toggle"]')
    expect(view.root.locator('[data-role="overview"]')).to_be_visible()
    for shown in (True, False):
        if not shown:
            toggle.click()
            expect(toggle).to_have_attribute("aria-expanded", "false")
        problems = axe_problems(page, "document.querySelector('.mgw-root')")
        assert not problems, f"axe-core (map shown: {shown}):\n" + "\n".join(problems)
