"""The live floor in Debian's chromium (headless, playwright's Python client): a critical
finding written to the store turns its tile red without a reload, flashes it and beeps
once; its case closed turns it back; a silent open table is grey; the page the server
paints (no script) already shows the same. Screenshots in test-artifacts/floor/."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from playwright.sync_api import Browser, Locator, Page, expect

from tablewatch.api.app import create_app
from tablewatch.api.floor_feed import FloorFeed
from tablewatch.api.sources import ReaderPool, open_product_reader
from tablewatch.store.client import open_store
from tests.api.floor_store import CLOSED, QUIET, case_step, finding, make_store
from tests.api.live_server import served
from tests.browser import Shots

pytestmark = pytest.mark.browser

shot = Shots("floor")
WITHIN_MS = 3000  # a new finding on the floor's tiles, without a reload


@pytest.fixture(scope="module")
def dsn(tmp_path_factory: pytest.TempPathFactory) -> str:
    return make_store(Path(tmp_path_factory.mktemp("floor")) / "store")


@pytest.fixture(scope="module")
def base_url(dsn: str) -> Iterator[str]:
    pool = ReaderPool(lambda: open_product_reader(dsn), size=3)
    app: FastAPI = create_app(pool, described_as=dsn)
    app.state.floor_feed = FloorFeed(pool, interval_s=0.5, activity_every_s=2.0, linger_s=1)
    try:
        with served(app) as url:
            yield url
    finally:
        pool.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1400, "height": 800})
    try:
        yield context.new_page()
    finally:
        context.close()


def tile(page: Page, table_id: str) -> Locator:
    return page.locator(f"a.tile[data-table='{table_id}']")


def count(where: Locator, severity: str) -> Locator:
    return where.locator(f".count[data-severity='{severity}'] b")


def opened_live(page: Page, url: str) -> None:
    """The floor open, its stream having sent the floor as it stands."""
    page.goto(url)
    expect(page.locator("#strip")).to_have_attribute("data-received", re.compile(r"\d+"))
    expect(page.locator("#live")).to_have_attribute("data-state", "live")


def served_without_script(browser: Browser) -> Page:
    """The page as the server paints it, no script run."""
    return browser.new_context(java_script_enabled=False).new_page()


def test_a_critical_finding_turns_its_tile_red_live_and_its_closed_case_turns_it_back(
    browser: Browser, page: Page, base_url: str, dsn: str
) -> None:
    opened_live(page, f"{base_url}/")
    bj = tile(page, "BJ-01")
    expect(bj).to_have_class(re.compile(r"\blevel-ok\b"))
    expect(tile(page, QUIET)).to_have_class(re.compile(r"\bstale\b"))  # open, silent 20 min
    assert tile(page, QUIET).evaluate("e => getComputedStyle(e).filter") == "grayscale(1)"
    expect(tile(page, CLOSED)).to_have_class(re.compile(r"\bclosed\b"))
    expect(tile(page, CLOSED)).not_to_have_class(re.compile(r"\bstale\b"))
    expect(count(page.locator("#strip"), "critical")).to_have_text("0")
    shot(page, "1-quiet")

    with open_store(dsn) as client:
        finding(client, "floor-crit-1", "BJ-01", "critical")
    written = time.monotonic()
    expect(bj).to_have_class(re.compile(r"\blevel-red\b"), timeout=WITHIN_MS)
    assert time.monotonic() - written < WITHIN_MS / 1000
    expect(bj).to_have_attribute("data-flashed", "floor-crit-1")
    expect(count(bj, "critical")).to_have_text("1")
    expect(count(page.locator("#strip"), "critical")).to_have_text("1")
    expect(page.locator("#oldest")).not_to_have_text("none")
    expect(page.locator("body")).to_have_attribute("data-beeps", "1")  # once, not per tile
    shot(page, "2-critical")

    painted = served_without_script(browser)
    try:
        painted.goto(f"{base_url}/")  # the first paint already red, as the stream says
        expect(tile(painted, "BJ-01")).to_have_class(re.compile(r"\blevel-red\b"))
        expect(count(tile(painted, "BJ-01"), "critical")).to_have_text("1")
        expect(count(painted.locator("#strip"), "critical")).to_have_text("1")
        expect(tile(painted, QUIET)).to_have_class(re.compile(r"\bstale\b"))
    finally:
        painted.context.close()

    with open_store(dsn) as client:
        case_step(client, "floor-crit-1", "BJ-01", "critical", 1, "claimed", "in_review", "sam")
        case_step(client, "floor-crit-1", "BJ-01", "critical", 2, "closed", "closed")
    expect(bj).to_have_class(re.compile(r"\blevel-ok\b"), timeout=WITHIN_MS)
    expect(count(page.locator("#strip"), "critical")).to_have_text("0")
    expect(page.locator("#oldest")).to_have_text("none")
    expect(page.locator("body")).to_have_attribute("data-beeps", "1")
    shot(page, "3-closed")


def test_a_medium_finding_is_amber_and_a_muted_floor_stays_muted_and_silent(
    page: Page, base_url: str, dsn: str
) -> None:
    opened_live(page, f"{base_url}/")
    page.click("#mute")
    expect(page.locator("#mute")).to_have_attribute("aria-pressed", "true")
    page.reload()  # the choice is kept (localStorage)
    opened_live(page, f"{base_url}/")
    expect(page.locator("#mute")).to_have_attribute("aria-pressed", "true")
    with open_store(dsn) as client:
        finding(client, "floor-med-1", CLOSED, "medium")
        finding(client, "floor-crit-2", CLOSED, "critical")
    expect(tile(page, CLOSED)).to_have_attribute("data-flashed", "floor-crit-2", timeout=WITHIN_MS)
    expect(tile(page, CLOSED)).to_have_class(re.compile(r"\blevel-red\b"))
    assert page.locator("body").get_attribute("data-beeps") is None  # muted: no sound
    with open_store(dsn) as client:
        case_step(client, "floor-crit-2", CLOSED, "critical", 1, "claimed", "in_review", "sam")
        case_step(client, "floor-crit-2", CLOSED, "critical", 2, "closed", "closed")
    expect(tile(page, CLOSED)).to_have_class(re.compile(r"\blevel-amber\b"), timeout=WITHIN_MS)
    expect(count(tile(page, CLOSED), "medium")).to_have_text("1")
    shot(page, "4-amber-muted")
