"""Debian's chromium for the page tests: headless, driven by playwright's Python client
(never ``playwright install``: it downloads a browser from outside). The ``browser``
fixture (``tests/conftest.py``, one a module) launches it; :class:`Shots` keeps each
test's screenshots in a folder of ``test-artifacts/``."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from playwright.sync_api import Browser, Page

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]  # fmt: skip
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"


@contextmanager
def chromium() -> Iterator[Browser]:
    """Debian's chromium, headless, closed on the way out."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            yield browser
        finally:
            browser.close()


class Shots:
    """Screenshots of whole pages into ``test-artifacts/FOLDER/NAME.png``."""

    def __init__(self, folder: str) -> None:
        self.folder = ARTIFACTS / folder

    def path(self, name: str) -> Path:
        self.folder.mkdir(parents=True, exist_ok=True)
        return self.folder / name

    def __call__(self, page: Page, name: str) -> None:
        page.screenshot(path=str(self.path(f"{name}.png")), full_page=True)
