"""Debian's Chromium under Playwright, launched with the flags measured to work here (see shared TESTING.md),
and a guard that records (and aborts) every request leaving 127.0.0.1."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-dev-shm-usage",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
LOCAL_HOSTS = {"127.0.0.1"}


def missing_chromium_reason() -> str | None:
    """Why the browser tests cannot run here, or None when /usr/bin/chromium exists."""
    if CHROMIUM.exists():
        return None
    return (f"{CHROMIUM} is missing: install Debian's Chromium with `apt-get install -y chromium` "
            "(never `playwright install`; set PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1)")


def launch(playwright):  # -> playwright.sync_api.Browser
    """Debian's Chromium, headless. Playwright gives every launch a fresh temporary user-data dir."""
    os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
    return playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)


def is_local(url: str) -> bool:
    """True for URLs that stay on this machine's 127.0.0.1 (and for data:/blob:/about: URLs, which are not
    requests out)."""
    parts = urlsplit(url)
    if parts.scheme in ("data", "blob", "about", "chrome-error", "file"):
        return True
    return parts.hostname in LOCAL_HOSTS


@dataclass
class PageLog:
    """What a browser context did that a test may want to fail on: requests out, page errors, dialogs."""

    outside: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    dialogs: list[str] = field(default_factory=list)

    def describe(self) -> str:
        return (f"requests leaving 127.0.0.1: {self.outside}\npage errors: {self.page_errors}\n"
                f"console errors: {self.console_errors[:20]}\ndialogs: {self.dialogs}")


def guard_context(context) -> PageLog:
    """Record every request of ``context``; abort (and record) those leaving 127.0.0.1, WebSockets included;
    record page errors, console errors and dialogs (dialogs are dismissed)."""
    log = PageLog()

    def on_request(request) -> None:
        log.requests.append(request.url)

    def outside(route) -> None:
        log.outside.append(route.request.url)
        route.abort("blockedbyclient")

    context.on("request", on_request)
    context.route(lambda url: not is_local(url), outside)

    def watch(page) -> None:
        page.on("pageerror", lambda exc: log.page_errors.append(str(exc)))
        page.on("console", lambda msg: log.console_errors.append(msg.text) if msg.type == "error" else None)
        page.on("websocket", lambda ws: None if is_local(ws.url) else log.outside.append(ws.url))

        def on_dialog(dialog) -> None:
            log.dialogs.append(f"{dialog.type}: {dialog.message}")
            dialog.dismiss()

        page.on("dialog", on_dialog)

    context.on("page", watch)
    return log
