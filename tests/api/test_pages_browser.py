"""The pages in Debian's chromium (headless, driven by playwright's Python client; never
``playwright install``). Screenshots of every page go to test-artifacts/pages/."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi import FastAPI
from playwright.sync_api import Browser, Page, expect

from tablewatch.report import money
from tests.api.live_server import served
from tests.api.store import FilledStore
from tests.browser import Shots

pytestmark = pytest.mark.browser

shot = Shots("pages")


@pytest.fixture(scope="module")
def base_url(app: FastAPI) -> Iterator[str]:
    with served(app) as url:
        yield url


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    try:
        yield context.new_page()
    finally:
        context.close()


def wrong_payouts(filled: FilledStore) -> list[tuple[str, str, int, str, int, int]]:
    """(table, round, seat, bet, expected, actual) of the floor's WRONG_PAYOUT findings,
    from the audit itself (not from the API)."""
    return sorted(
        (f.table_id, str(f.round_id), int(f.seat or 0), str(f.bet), int(f.expected or 0),
         int(f.actual or 0))
        for f in filled.audited.findings
        if f.check == "WRONG_PAYOUT"
    )  # fmt: skip


def test_the_round_of_a_wrong_payout_shows_both_amounts_and_marks_the_line(
    page: Page, base_url: str, filled: FilledStore
) -> None:
    cases = wrong_payouts(filled)
    assert cases, "the simulated floor has a WRONG_PAYOUT"
    table_id, round_id, seat, bet, expected, actual = cases[0]
    page.goto(f"{base_url}/rounds/{table_id}/{round_id}")
    line = page.locator(f"table.money tr[data-seat='{seat}'][data-bet='{bet}']")
    expect(line).to_have_count(1)
    expect(line).to_have_class("wrong")
    expect(line.locator("td.mark")).to_have_text("✗ WRONG")
    expect(line.locator("td.expected")).to_have_text(money(expected))
    expect(line.locator("td.actual")).to_have_text(money(actual))
    # the wrong line is drawn apart: its background is not the page's
    background = line.locator("td.expected").evaluate("e => getComputedStyle(e).backgroundColor")
    assert background == "rgb(74, 22, 24)"
    # every other line of the round is marked right or unpriced, not wrong
    others = page.locator("table.money tr[data-correct='no']")
    expect(others).to_have_count(1)
    expect(page.locator("table.findings tr[data-check='WRONG_PAYOUT']")).to_have_count(1)
    # cards are drawn as cards: rank and suit symbol, red for hearts and diamonds
    cards = page.locator("span.card")
    assert cards.count() >= 5
    for i in range(cards.count()):
        text = cards.nth(i).get_attribute("data-card") or ""
        colour = "red" if text[1:] in ("h", "d") else "black"
        assert colour in (cards.nth(i).get_attribute("class") or "").split()
    shot(page, "round")


def test_the_findings_page_filters_by_check_and_by_table(
    page: Page, base_url: str, filled: FilledStore
) -> None:
    findings = filled.audited.findings
    page.goto(f"{base_url}/findings?limit=1000")
    expect(page.locator("table.findings tbody tr")).to_have_count(len(findings))
    shot(page, "findings")

    page.select_option("select[name=check]", "WRONG_PAYOUT")
    page.click("button[type=submit]")
    rows = page.locator("table.findings tbody tr")
    expect(rows).to_have_count(sum(f.check == "WRONG_PAYOUT" for f in findings))
    assert {rows.nth(i).get_attribute("data-check") for i in range(rows.count())} == {
        "WRONG_PAYOUT"
    }
    shot(page, "findings-by-check")

    table_id = "LIR-01"
    page.select_option("select[name=check]", "")
    page.fill("input[name=table]", table_id)
    page.click("button[type=submit]")
    expect(rows).to_have_count(sum(f.table_id == table_id for f in findings))
    assert {rows.nth(i).get_attribute("data-table") for i in range(rows.count())} == {table_id}
    href = page.locator("a#csv").get_attribute("href") or ""
    assert "table=LIR-01" in href
    shot(page, "findings-by-table")


def test_the_floor_has_a_tile_per_table_and_the_table_page_its_rounds(
    page: Page, base_url: str, filled: FilledStore
) -> None:
    tables = sorted(filled.config["tables"])  # type: ignore[call-overload]
    page.goto(f"{base_url}/")
    tiles = page.locator("a.tile")
    expect(tiles).to_have_count(len(tables))
    assert [tiles.nth(i).get_attribute("data-table") for i in range(len(tables))] == tables
    shot(page, "floor")
    tiles.first.click()
    expect(page.locator("h2").first).to_have_text(f"Table {tables[0]}")
    rounds = [r for r in filled.audited.rounds if r.table_id == tables[0]]
    expect(page.locator("table.rounds tbody tr")).to_have_count(min(25, len(rounds)))
    shot(page, "table")
