"""A pattern finding (``PatternFinding.as_finding()``, stored as the store stores every
finding, with no ``start_event_id``: it is no part of its evidence round's judgement) is a
case like any other: listed open in the queue, claimed, bookmarked on its evidence round's
video window, closed; its case page shows the statistic's message and links its evidence
round, and the queue links the case to that page (the round page lists the round's own
findings only)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from html import unescape
from pathlib import Path

import pytest
from clickhouse_connect.driver.client import Client
from fastapi.testclient import TestClient

from tablewatch.access.access_file import AccessEntry, AccessFile, save
from tablewatch.access.authenticate import FileTokenAuthenticator
from tablewatch.access.gate import Gate
from tablewatch.access.roles import Role
from tablewatch.access.tokens import hash_token, new_token
from tablewatch.api.app import create_app
from tablewatch.api.case_actions import DeskActions
from tablewatch.api.sources import ReaderPool, open_product_reader
from tablewatch.casework.desk import CaseDesk
from tablewatch.links import round_path
from tablewatch.patterns.finding import PatternFinding
from tablewatch.store.client import connect
from tablewatch.store.rows import finding_row
from tablewatch.store.writer import StoreWriter
from tests.api.store import fill_store

JUDGED = 1_796_100_000_000  # after the floor's rounds were judged


@dataclass(frozen=True)
class Patterned:
    client: TestClient
    token: str
    finding_id: str
    table_id: str
    round_id: str
    round_start_ms: int  # the evidence round's
    round_end_ms: int
    message: str


@pytest.fixture(scope="module")
def patterned(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Patterned]:
    directory = Path(tmp_path_factory.mktemp("pattern-cases"))
    filled = fill_store(directory / "store", tables=2, rounds=40)
    store: Client = connect(filled.dsn)
    pool = ReaderPool(lambda: open_product_reader(filled.dsn), size=2)
    try:
        table_id, round_id, start, end = store.query(
            "SELECT table_id, round_id, toUnixTimestamp64Milli(start_ts),"
            " toUnixTimestamp64Milli(end_ts) FROM rounds_v ORDER BY table_id, start_ts"
            " LIMIT 1 OFFSET 7"
        ).result_rows[0]
        pattern = PatternFinding(
            check="ADVANTAGE_PLAY_SUSPECTED",
            unit="P-41",
            table_id=str(table_id),
            message="P-41: decisions track the dealer's first card (80 decisions, 25 against "
            "the known strategy)",
            statistic_name="LLR",
            statistic=11.5,
            threshold=9.25,
            false_alarm_rate="1 per 10,000 player-hours",
            evidence=((str(table_id), str(round_id)),),
            first_ts="2026-12-01T10:00:00.000Z",
            last_ts="2026-12-01T12:00:00.000Z",
            seat=2,
        )
        finding = pattern.as_finding()
        row = finding_row(finding, JUDGED)
        StoreWriter(store).insert(findings=[row])
        token = new_token()
        created = datetime(2026, 1, 1, tzinfo=UTC)
        entry = AccessEntry("sam", Role.SURVEILLANCE, hash_token(token), created)
        save(directory / "access.yaml", AccessFile((entry,)))
        app = create_app(
            pool,
            described_as=filled.dsn,
            gate=Gate(FileTokenAuthenticator(directory / "access.yaml")),
            case_actions=DeskActions(CaseDesk(store)),
        )
        yield Patterned(
            TestClient(app), token, str(row[0]), str(table_id), str(round_id), int(start),
            int(end), finding.message,
        )  # fmt: skip
    finally:
        pool.close()
        store.close()


def headers(p: Patterned) -> dict[str, str]:
    return {"Authorization": f"Bearer {p.token}"}


def test_a_pattern_finding_is_a_case_like_any_other(patterned: Patterned) -> None:
    p = patterned
    queue = p.client.get("/api/v1/cases?check=ADVANTAGE_PLAY_SUSPECTED", headers=headers(p))
    assert queue.status_code == 200, queue.text
    listed = [(c["finding_id"], c["state"], c["round_id"]) for c in queue.json()["cases"]]
    assert listed == [(p.finding_id, "open", p.round_id)]

    claimed = p.client.post(f"/api/v1/cases/{p.finding_id}/claim", json={}, headers=headers(p))
    assert claimed.status_code == 200, claimed.text
    assert (claimed.json()["state"], claimed.json()["severity"]) == ("in_review", "high")
    marked = p.client.post(f"/api/v1/cases/{p.finding_id}/bookmark", json={}, headers=headers(p))
    assert marked.status_code == 200, marked.text
    # the video window of its evidence round, +- 30 s (not the statistic's last time)
    window = (marked.json()["window_start"], marked.json()["window_end"])
    assert window == (iso(p.round_start_ms - 30_000), iso(p.round_end_ms + 30_000))

    case = p.client.get(f"/api/v1/cases/{p.finding_id}", headers=headers(p)).json()
    assert case["finding"]["message"] == p.message
    assert "LLR 11.50, threshold 9.25, false alarms 1 per 10,000 player-hours" in p.message

    page = p.client.get(f"/cases/{p.finding_id}", headers=headers(p))
    assert page.status_code == 200
    html = unescape(page.text)
    assert p.message in html
    assert f'round <a href="{round_path(p.table_id, p.round_id)}">{p.round_id}</a>' in html

    closed = p.client.post(
        f"/api/v1/cases/{p.finding_id}/close",
        json={"disposition": "confirmed: not corrected, referred", "note": "barred"},
        headers=headers(p),
    )
    assert closed.status_code == 200, closed.text
    assert closed.json()["state"] == "closed"


def test_the_findings_list_shows_it_with_its_message(patterned: Patterned) -> None:
    p = patterned
    listed = p.client.get("/api/v1/findings?check=ADVANTAGE_PLAY_SUSPECTED", headers=headers(p))
    assert listed.status_code == 200, listed.text
    found = [
        (f["finding_id"], f["round_id"], f["seat"], f["message"]) for f in listed.json()["items"]
    ]
    assert found == [(p.finding_id, p.round_id, 2, p.message)]


def test_the_queue_links_a_pattern_case_to_its_own_page(patterned: Patterned) -> None:
    p = patterned
    page = p.client.get("/cases?state=all&check=ADVANTAGE_PLAY_SUSPECTED", headers=headers(p))
    assert page.status_code == 200
    assert f'href="/cases/{p.finding_id}"' in page.text
    assert f"{round_path(p.table_id, p.round_id)}#case-" not in page.text


def iso(ms: int) -> str:
    return (
        datetime.fromtimestamp(ms / 1000, UTC)
        .isoformat(timespec="milliseconds")
        .replace("+00:00", "Z")
    )
