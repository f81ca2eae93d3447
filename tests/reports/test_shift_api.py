"""The shift report in the API and pages over the hand-written store (``shift_store.py``):
``GET /api/v1/reports/shift`` (JSON), ``/reports`` (the form), ``/reports/shift`` (the page
and the PDF, CSV and JSON downloads); a token with ``read_cases`` needed, a floor manager
held to its pits; a bad field named (422); no rules file: 503."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from fastapi.testclient import TestClient

from tablewatch.access.access_file import AccessEntry, AccessFile, save
from tablewatch.access.authenticate import FileTokenAuthenticator
from tablewatch.access.gate import Gate
from tablewatch.access.roles import Role
from tablewatch.access.tokens import hash_token, new_token
from tablewatch.alerts.rules_file import load_rules
from tablewatch.api.app import create_app
from tablewatch.api.sources import ReaderPool, open_product_reader
from tests.reports.shift_store import NOTE_F1, fill_shift_store, write_rules

DAY = {"date": "2026-03-10", "shift": "day"}


@dataclass(frozen=True)
class World:
    client: TestClient
    bare: TestClient  # an app started without --rules
    tokens: dict[str, str]

    def auth(self, name: str) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.tokens[name]}"}


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    directory = Path(tmp_path_factory.mktemp("shift-api"))
    dsn = fill_shift_store(directory / "store")
    tokens = {name: new_token() for name in ("sam", "fm", "aud")}
    roles = {"sam": Role.SURVEILLANCE, "fm": Role.FLOOR_MANAGER, "aud": Role.AUDITOR}
    created = datetime(2026, 1, 1, tzinfo=UTC)
    save(
        directory / "access.yaml",
        AccessFile(tuple(
            AccessEntry(name, roles[name], hash_token(token), created,
                        pits=("Pit 1",) if name == "fm" else ())
            for name, token in tokens.items()
        )),
    )  # fmt: skip
    gate = Gate(FileTokenAuthenticator(directory / "access.yaml"))
    pool = ReaderPool(lambda: open_product_reader(dsn), size=1)
    try:
        app = create_app(pool, described_as=dsn, gate=gate)
        app.state.alert_rules = load_rules(write_rules(directory))
        app.state.casino = "Keystone"
        bare = create_app(pool, described_as=dsn, gate=gate)
        yield World(TestClient(app), TestClient(bare), tokens)
    finally:
        pool.close()


def test_json_needs_a_token(world: World) -> None:
    assert world.client.get("/api/v1/reports/shift", params=DAY).status_code == 401
    answer = world.client.get("/api/v1/reports/shift", params=DAY, headers=world.auth("aud"))
    assert answer.status_code == 200, answer.text
    got = answer.json()
    assert [f["finding_id"] for f in got["findings"]] == ["F1", "F2", "F3", "F4", "F5"]
    assert [f["finding_id"] for f in got["carried_over"]] == ["F10", "F7", "F9"]
    assert got["casino"] == "Keystone" and got["summary"]["recovered_cents"] == 2500


def test_floor_manager_reads_its_pits_only(world: World) -> None:
    fm = world.auth("fm")
    every = world.client.get("/api/v1/reports/shift", params=DAY, headers=fm)
    assert every.status_code == 403
    assert every.json()["detail"] == "fm reads the shift reports of its pits only (Pit 1): give pit"
    other = world.client.get("/api/v1/reports/shift", params={**DAY, "pit": "Pit 2"}, headers=fm)
    assert other.status_code == 403
    mine = world.client.get("/api/v1/reports/shift", params={**DAY, "pit": "Pit 1"}, headers=fm)
    assert [f["finding_id"] for f in mine.json()["findings"]] == ["F1", "F2", "F4", "F5"]


def test_bad_fields_named(world: World) -> None:
    sam = world.auth("sam")
    answer = world.client.get("/api/v1/reports/shift", params={**DAY, "shift": "nite"}, headers=sam)
    assert answer.status_code == 422
    (item,) = answer.json()["detail"]
    assert item["loc"] == ["query", "shift"]
    assert item["msg"].endswith("(known: day, swing, grave)")
    answer = world.client.get("/api/v1/reports/shift", params={"shift": "day"}, headers=sam)
    assert answer.status_code == 422 and answer.json()["detail"][0]["loc"] == ["query", "date"]
    answer = world.bare.get("/api/v1/reports/shift", params=DAY, headers=sam)
    assert answer.status_code == 503 and "--rules" in answer.json()["detail"]


def test_form_and_page(world: World) -> None:
    form = world.client.get("/reports")
    assert form.status_code == 200
    assert "<option>grave</option>" in form.text and "<option>Pit 2</option>" in form.text
    assert "without --rules" in world.bare.get("/reports").text
    unsigned = world.client.get("/reports/shift", params=DAY)
    assert unsigned.status_code == 401 and "/login?next=" in unsigned.text
    world.client.cookies.set("tablewatch_session", world.tokens["sam"])
    try:
        page = world.client.get("/reports/shift", params=DAY)
    finally:
        world.client.cookies.clear()
    assert page.status_code == 200
    assert NOTE_F1 in page.text
    assert "closed by sam: confirmed: corrected at the table" in page.text
    assert (
        'id="carried-over"' in page.text and 'data-finding="F7" data-state="in_review"' in page.text
    )
    assert "/reports/shift?date=2026-03-10&amp;shift=day&amp;format=pdf" in page.text


def test_downloads(world: World) -> None:
    sam = world.auth("sam")
    pdf = world.client.get("/reports/shift", params={**DAY, "format": "pdf"}, headers=sam)
    assert pdf.status_code == 200 and pdf.headers["content-type"] == "application/pdf"
    assert pdf.headers["content-disposition"] == (
        "attachment; filename*=UTF-8''shift-report-2026-03-10-day.pdf"
    )
    document = pdfium.PdfDocument(pdf.content)
    text = " ".join(document[i].get_textpage().get_text_range() for i in range(len(document)))
    assert " ".join(NOTE_F1.split()) in " ".join(text.split())
    csv = world.client.get(
        "/reports/shift", params={**DAY, "pit": "Pit 2", "format": "csv"}, headers=sam
    )
    assert csv.headers["content-type"].startswith("text/csv")
    assert [line.split(",")[-1] for line in csv.text.splitlines()] == ["finding_id", "F3", "F7"]
