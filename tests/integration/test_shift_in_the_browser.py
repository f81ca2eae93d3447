"""A surveillance shift in Debian's chromium (headless, playwright's Python client), on the
demo's live pipeline (`tablewatch live`: Kafka, the worker, ingest, the API, the alerter):

the floor page is open while the simulated floor streams; a critical finding flashes its
tile and turns it red within 3 s of its round's end, without a reload; the surveillance
user signs in, claims the finding's case on its round page, bookmarks the video and closes
it with a disposition and a note; with the table's other cases closed the tile goes back,
still without a reload; the shift report's PDF lists the case with its note. Screenshots
of each step go to test-artifacts/shift/.
"""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import threading
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
import pytest
from playwright.sync_api import Browser, Page, expect

from tablewatch.alerts.rules_file import AlertRules, load_rules
from tablewatch.links import round_path
from tablewatch.services import free_port
from tests.browser import Shots

pytestmark = [pytest.mark.integration, pytest.mark.browser]

ROOT = Path(__file__).resolve().parents[2]
shot = Shots("shift")
RULES = ROOT / "examples" / "alerts.yaml"
NOTE = "Video CAM review: payout corrected at the table, dealer coached (shift test)"

# Records, in the page, when each tile first showed a critical finding's flash while red:
# window.__seen[finding_id] = {table, at} (Date.now()), and window.__levels[table] = level.
OBSERVER = """
() => {
  window.__seen = {};
  window.__levels = {};
  const look = (a) => {
    window.__levels[a.dataset.table] = a.dataset.level;
    const f = a.dataset.flashed;
    if (f && a.dataset.level === "red" && !(f in window.__seen)) {
      window.__seen[f] = {table: a.dataset.table, at: Date.now()};
    }
  };
  document.querySelectorAll("a.tile").forEach(look);
  new MutationObserver((changes) => {
    for (const c of changes) {
      const a = c.target.closest ? c.target.closest("a.tile") : null;
      if (a) look(a);
    }
  }).observe(document.getElementById("tiles"), {attributes: true, subtree: true, childList: true});
}
"""


def api_json(base: str, path: str, token: str | None = None, body: Any = None) -> Any:
    request = urllib.request.Request(base + path, method="GET" if body is None else "POST")
    if token is not None:
        request.add_header("Authorization", f"Bearer {token}")
    if body is not None:
        request.add_header("Content-Type", "application/json")
        request.data = json.dumps(body).encode()
    with urllib.request.urlopen(request, timeout=30) as reply:
        return json.loads(reply.read())


@dataclass
class LiveRun:
    """A `tablewatch live` run: its API's URL, its folder, and its output as it comes."""

    base: str
    run: Path
    lines: list[str] = field(default_factory=list)
    serving: threading.Event = field(default_factory=threading.Event)  # lingering, pages served
    ended: threading.Event = field(default_factory=threading.Event)  # its output closed

    def reached(self, event: threading.Event, timeout_s: float = 300) -> None:
        """Wait for ``event``; fail with live's last lines if it ended or time ran out."""
        deadline = time.monotonic() + timeout_s
        while not event.wait(0.2):
            if self.ended.is_set() or time.monotonic() > deadline:
                raise AssertionError("tablewatch live:\n" + "".join(self.lines[-60:]))


@pytest.fixture
def live_run(kafka_bootstrap: str, tmp_path: Path) -> Iterator[LiveRun]:
    """`tablewatch live` with the demo's alert rules, streaming 4 tables for 40 s and
    serving the pages for 10 minutes after; yielded once its floor streams."""
    api_port = free_port()
    args = [
        sys.executable, "-m", "tablewatch.cli", "live", "--alerts", str(RULES),
        "--tables", "4", "--seconds", "40", "--speed", "20", "--error-rate", "0.25",
        "--linger", "600", "--dir", str(tmp_path), "--bootstrap", kafka_bootstrap,
        "--worker-port", str(free_port()), "--ingest-port", str(free_port()),
        "--api-port", str(api_port), "--alerter-port", str(free_port()),
    ]  # fmt: skip
    live = subprocess.Popen(
        args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        env={**os.environ, "COLUMNS": "250"},
    )  # fmt: skip
    assert live.stdout is not None
    found: dict[str, Path] = {}
    started = threading.Event()
    lines: list[str] = []
    serving, ended = threading.Event(), threading.Event()

    def follow() -> None:
        assert live.stdout is not None
        for raw in live.stdout:
            lines.append(raw.decode(errors="replace"))
            if match := re.match(r"TableWatch live run (\S+)", lines[-1]):
                found["run"] = Path(match.group(1))
            if lines[-1].startswith("worker pid "):
                started.set()
            if lines[-1].startswith("served for "):
                serving.set()
        ended.set()

    reader = threading.Thread(target=follow, daemon=True)
    reader.start()
    try:
        assert started.wait(240), "".join(lines[-40:])
        yield LiveRun(f"http://127.0.0.1:{api_port}", found["run"], lines, serving, ended)
    finally:
        live.terminate()
        live.wait(timeout=240)
        reader.join(timeout=10)


def test_a_shift_worked_in_the_browser(live_run: LiveRun, browser: Browser) -> None:
    base, run = live_run.base, live_run.run
    sam = (run / "sam.token").read_text().strip()
    context = browser.new_context(viewport={"width": 1600, "height": 1000})
    try:
        floor = context.new_page()
        floor.goto(base + "/")
        floor.evaluate(OBSERVER)
        expect(floor.locator("#live")).to_have_attribute("data-state", "live", timeout=15_000)
        shot(floor, "1-floor-streaming")

        # 1. a critical finding of a round: its tile flashed and red within 3 s of the
        # round's end (the events are stamped with the time they are sent)
        critical = _first_critical(base, floor)
        finding_id, table_id, round_id = (
            critical["finding_id"], critical["table_id"], critical["round_id"],
        )  # fmt: skip
        seen = floor.evaluate("(f) => window.__seen[f]", finding_id)
        end_ms = _round_end_ms(base, table_id, round_id)
        assert seen["table"] == table_id
        assert seen["at"] - end_ms <= 3_000, (seen, end_ms)
        shot(floor, "2-critical-tile-red")

        # 2. the surveillance user signs in and works the case on the round page
        work = context.new_page()
        work.goto(base + "/login?next=" + urllib.parse.quote(round_path(table_id, round_id)))
        work.fill("#token", sam)
        work.click("form[action='/login'] button[type=submit]")
        case = work.locator(f"#case-{finding_id}")
        expect(case).to_have_attribute("data-state", "open", timeout=15_000)
        shot(work, "3-round-page-case-open")
        case.locator("form[data-action=claim] button").click()
        expect(case).to_have_attribute("data-state", "in_review", timeout=15_000)
        bookmark = case.locator("form[data-action=bookmark]")
        cameras = bookmark.locator("select[name=camera] option").all_inner_texts()
        assert len(cameras) == 2 and all(c.startswith("CAM-") for c in cameras), cameras
        bookmark.locator("select[name=camera]").select_option(cameras[1])
        bookmark.locator("button[type=submit]").click()
        expect(case.locator("tr[data-kind=bookmarked]")).to_have_count(1, timeout=15_000)
        close = case.locator("form[data-action=close]")
        close.locator("select[name=disposition]").select_option("confirmed: corrected at the table")
        close.locator("textarea[name=note]").fill(NOTE)
        shot(work, "4-closing-the-case")

        # once the floor has streamed (live serving its pages on), the table's other open
        # cases are closed first (through the API, as sam), so that the one closed in the
        # browser is the last: the tile goes back when it is
        live_run.reached(live_run.serving)
        _close_the_rest(base, sam, table_id, finding_id)
        expect(floor.locator(f"a.tile[data-table='{table_id}']")).to_have_attribute(
            "data-level", "red"
        )
        close.locator("button[type=submit]").click()
        expect(case).to_have_attribute("data-state", "closed", timeout=15_000)
        shot(work, "5-case-closed")

        # 3. the tile goes back (no open case on the table), without a reload
        tile = floor.locator(f"a.tile[data-table='{table_id}']")
        expect(tile).to_have_attribute("data-level", "ok", timeout=10_000)
        shot(floor, "6-tile-back")

        # 4. the shift report's PDF lists the case with its note
        rules = load_rules(RULES)
        now = datetime.now(UTC)
        shift = rules.shift_at(now)
        day = _shift_date(rules, now, shift)
        query = urllib.parse.urlencode({"date": day, "shift": shift, "format": "pdf"})
        answer = work.request.get(f"{base}/reports/shift?{query}")
        assert answer.status == 200, answer.text()[:500]
        pdf = pdfium.PdfDocument(io.BytesIO(answer.body()))
        text = ""
        for number in range(len(pdf)):
            sheet = pdf[number]
            text += sheet.get_textpage().get_text_range()
            sheet.render(scale=1.5).to_pil().save(shot.path(f"7-report-page-{number + 1}.png"))
        flat = " ".join(text.split())
        assert "Video CAM review" in flat and "dealer coached" in flat, flat[:3000]
        assert table_id in flat and "confirmed: corrected at the table" in flat, flat[:3000]
    finally:
        context.close()


def _first_critical(base: str, floor: Page, timeout_s: float = 240) -> dict[str, Any]:
    """The first critical finding of a round that the page saw flash on a red tile."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        items = api_json(base, "/api/v1/findings?severity=critical&limit=100")["items"]
        seen = floor.evaluate("() => window.__seen")
        for item in sorted(items, key=lambda f: f["ts_ms"] or 0):
            if item["round_id"] and item["finding_id"] in seen:
                return dict(item)
        time.sleep(0.5)
    raise AssertionError("no critical finding flashed a red tile")


def _round_end_ms(base: str, table_id: str, round_id: str) -> int:
    query = urllib.parse.urlencode({"table": table_id, "limit": 500})
    for item in api_json(base, f"/api/v1/rounds?{query}")["items"]:
        if item["round_id"] == round_id:
            return int(item["end_ms"])
    raise AssertionError(f"round {table_id} {round_id} not listed")


def _close_the_rest(base: str, token: str, table_id: str, keep: str) -> None:
    """Every other case of the table that is not closed: claimed (if open) and closed."""
    query = urllib.parse.urlencode({"table": table_id, "limit": 500})
    for case in api_json(base, f"/api/v1/cases?{query}", token)["cases"]:
        if case["finding_id"] == keep or case["state"] == "closed":
            continue
        path = "/api/v1/cases/" + urllib.parse.quote(case["finding_id"], safe="")
        if case["state"] == "open":
            api_json(base, path + "/claim", token, {})
        body = {"disposition": "duplicate", "note": "closed before the case under test"}
        api_json(base, path + "/close", token, body)


def _shift_date(rules: AlertRules, now: datetime, shift: str) -> str:
    """The date a shift belongs to: the local date it started on (after midnight, a shift
    that started the evening before belongs to the day before), in the rules' zone."""
    local = now.astimezone(rules.timezone)
    for s in rules.shifts:
        if s.name == shift and s.start > s.end and local.time() < s.end:
            return (local.date() - timedelta(days=1)).isoformat()
    return local.date().isoformat()
