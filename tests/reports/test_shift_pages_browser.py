"""The shift report's pages in Debian's chromium (headless, playwright's Python client):
signed in, the form of /reports made into the day shift's report page (the closed case's
note, the case carried over), and its PDF download. Screenshots in
test-artifacts/shift-report/."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from playwright.sync_api import Browser, expect

from tablewatch.access.access_file import AccessEntry, AccessFile, save
from tablewatch.access.authenticate import FileTokenAuthenticator
from tablewatch.access.gate import Gate
from tablewatch.access.roles import Role
from tablewatch.access.tokens import hash_token, new_token
from tablewatch.alerts.rules_file import load_rules
from tablewatch.api.app import create_app
from tablewatch.api.sources import ReaderPool, open_product_reader
from tests.api.live_server import served
from tests.browser import Shots
from tests.reports.shift_store import NOTE_F1, fill_shift_store, write_rules

pytestmark = pytest.mark.browser

ARTIFACTS = Shots("shift-report").folder


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """The app served, and a surveillance token."""
    directory = Path(tmp_path_factory.mktemp("shift-pages"))
    dsn = fill_shift_store(directory / "store")
    token = new_token()
    save(
        directory / "access.yaml",
        AccessFile((AccessEntry("sam", Role.SURVEILLANCE, hash_token(token),
                                datetime(2026, 1, 1, tzinfo=UTC)),)),
    )  # fmt: skip
    pool = ReaderPool(lambda: open_product_reader(dsn), size=1)
    try:
        app = create_app(pool, gate=Gate(FileTokenAuthenticator(directory / "access.yaml")))
        app.state.alert_rules = load_rules(write_rules(directory))
        app.state.casino = "Keystone"
        with served(app) as url:
            yield url, token
    finally:
        pool.close()


def test_the_form_makes_the_report_and_its_pdf(browser: Browser, site: tuple[str, str]) -> None:
    url, token = site
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": 1500, "height": 1000}, accept_downloads=True)
    context.add_cookies([{"name": "tablewatch_session", "value": token, "url": url}])
    page = context.new_page()
    try:
        page.goto(f"{url}/reports")
        page.fill("input[name=date]", "2026-03-10")
        page.select_option("select[name=shift]", "day")
        page.screenshot(path=str(ARTIFACTS / "form.png"), full_page=True)
        page.click("#shift-report button[type=submit]")
        expect(page.locator("h2")).to_have_text(
            "Keystone: shift report, shift day of 2026-03-10, all pits"
        )
        closed = page.locator("#shift-findings tr[data-finding='F1']")
        expect(closed).to_contain_text("closed by sam: confirmed: corrected at the table")
        expect(closed).to_contain_text(NOTE_F1)
        expect(page.locator("#carried-over tr[data-finding='F7']")).to_contain_text(
            "in review: sam"
        )
        page.screenshot(path=str(ARTIFACTS / "report-page.png"), full_page=True)
        with page.expect_download() as done:
            page.click("#downloads a:text('PDF (print and sign)')")
        download = done.value
        assert download.suggested_filename == "shift-report-2026-03-10-day.pdf"
        saved = ARTIFACTS / "downloaded.pdf"
        download.save_as(saved)
        assert saved.read_bytes().startswith(b"%PDF-")
    finally:
        context.close()
