"""The suite runs on the compiled rules engine when a build matches the sources
(``scripts/setup.sh`` makes one): activated here, before any test imports the rules."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tablewatch import native

native.activate()

from hypothesis import settings  # noqa: E402

# Speed is measured by benchmarks/, never by a test: no per-example deadline, which a
# loaded machine (2 shared cores, CI) would otherwise turn into failures.
settings.register_profile("tablewatch", deadline=None)
settings.load_profile("tablewatch")


import pytest  # noqa: E402

from tests.browser import chromium  # noqa: E402

if TYPE_CHECKING:
    from collections.abc import Iterator

    from playwright.sync_api import Browser


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's chromium, headless (``tests/browser.py``): one a module."""
    with chromium() as launched:
        yield launched
