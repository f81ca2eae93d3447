"""The casework queue's reads (:func:`tablewatch.casework.reads.queue`) on a store with
cases in every state, some released or reopened, and a finding stored twice (judged
again, not merged yet): the order and the pages are those worked out here from the raw
rows, and no statement reads ``findings_v`` (its join aggregates every round) or asks
for FINAL, or is too long for the worker's ``/query`` URL."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote_plus

import pytest
from clickhouse_connect.driver.client import Client

from tablewatch.casework.reads import Queue, queue
from tablewatch.store.client import connect
from tablewatch.store.read_only import Answer
from tests.api.store import fill_store

SEVERITY = {"critical": 0, "high": 1, "medium": 2, "low": 3}
STATE = {"open": 0, "in_review": 1, "closed": 2}
NAMES = ("ann", "bob", "cy")


class Spy:
    """A row source over a client that keeps every statement it runs."""

    def __init__(self, client: Client) -> None:
        self.client = client
        self.statements: list[str] = []

    def run(self, sql: str) -> Answer:
        self.statements.append(sql)
        result = self.client.query(sql)
        return Answer(list(result.column_names), result.result_rows)


@dataclass(frozen=True)
class Stored:
    spy: Spy
    # finding_id -> (table, pit, check, severity, age ms, state, assignee)
    findings: dict[str, tuple[str, str, str, str, int, str, str]]


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stored]:
    filled = fill_store(Path(tmp_path_factory.mktemp("queue")) / "store", tables=6, rounds=180)
    client = connect(filled.dsn)
    try:
        rows = client.query(
            "SELECT f.finding_id, f.table_id, d.pit, f.check, f.severity,"
            " toUnixTimestamp64Milli(ifNull(f.ts, f.judged_at))"
            " FROM findings_v AS f LEFT JOIN tables_v AS d ON d.table_id = f.table_id"
            " ORDER BY f.finding_id"
        ).result_rows
        assert len(rows) >= 30 and len({r[2] for r in rows}) >= 2
        findings: dict[str, tuple[str, str, str, str, int, str, str]] = {}
        steps: list[list[Any]] = []
        for i, (fid, table, pit, check, severity, age) in enumerate(rows):
            # every 6th: none; then claimed; claimed, released; claimed, closed;
            # claimed, closed, reopened; claimed, noted
            kinds = {
                0: [],
                1: [("claimed", "in_review")],
                2: [("claimed", "in_review"), ("released", "open")],
                3: [("claimed", "in_review"), ("closed", "closed")],
                4: [("claimed", "in_review"), ("closed", "closed"), ("reopened", "open")],
                5: [("claimed", "in_review"), ("noted", "in_review")],
            }[i % 6]
            who = NAMES[i % len(NAMES)]
            state = kinds[-1][1] if kinds else "open"
            findings[str(fid)] = (str(table), str(pit), str(check), str(severity), int(age),
                                  state, who if state == "in_review" else "")  # fmt: skip
            for number, (kind, after) in enumerate(kinds, start=1):
                steps.append([
                    fid, number, kind, int(age) + number * 1000, who, "surveillance", "", "",
                    after, who if after == "in_review" else "",
                    "duplicate" if after == "closed" else "", 0, "", None, None, [],
                    table, "", check, severity, pit, int(age),
                ])  # fmt: skip
        from tablewatch.casework.rows import COLUMNS

        client.insert("case_events", steps, column_names=list(COLUMNS))
        # one finding stored a second time, as judged again and not merged yet
        client.command(
            f"INSERT INTO findings SELECT * FROM findings WHERE finding_id = '{rows[0][0]}' LIMIT 1"
        )
        yield Stored(Spy(client), findings)
    finally:
        client.close()


def expected(stored: Stored, states: tuple[str, ...], **only: str) -> list[str]:
    keyed = []
    for fid, (table, pit, check, severity, age, state, assignee) in stored.findings.items():
        fields = {"table": table, "pit": pit, "check": check, "severity": severity,
                  "assignee": assignee}  # fmt: skip
        if state in states and all(fields[k] == v for k, v in only.items()):
            keyed.append(((STATE[state], SEVERITY[severity], age, fid), fid))
    return [fid for _, fid in sorted(keyed)]


def walk(stored: Stored, limit: int, **fields: Any) -> list[str]:
    seen: list[str] = []
    after = None
    while True:
        page = queue(stored.spy, Queue(limit=limit, after=after, **fields))
        seen += [c.finding_id for c in page.cases]
        assert len(page.cases) <= limit
        if page.next_key is None:
            return seen
        after = page.next_key


@pytest.mark.parametrize(
    ("fields", "states", "only"),
    [
        ({}, ("open", "in_review"), {}),
        ({"state": "all"}, ("open", "in_review", "closed"), {}),
        ({"state": "closed"}, ("closed",), {}),
        ({"state": "open"}, ("open",), {}),
        ({"state": "in_review", "assignee": "bob"}, ("in_review",), {"assignee": "bob"}),
        ({"severity": "high", "state": "all"}, ("open", "in_review", "closed"),
         {"severity": "high"}),
    ],
)  # fmt: skip
@pytest.mark.parametrize("limit", [1000, 3])
def test_the_queue_in_order_and_in_pages(
    stored: Stored, fields: dict[str, Any], states: tuple[str, ...], only: dict[str, str],
    limit: int,
) -> None:  # fmt: skip
    want = expected(stored, states, **only)
    assert want, "the store holds no case of this kind"
    assert walk(stored, limit, **fields) == want


def test_a_pit_and_the_pits_a_caller_may_read(stored: Stored) -> None:
    pits = sorted({f[1] for f in stored.findings.values()})
    assert walk(stored, 4, pit=pits[0]) == expected(stored, ("open", "in_review"), pit=pits[0])
    allowed = walk(stored, 1000, state="all", pits=(pits[-1],))
    assert allowed == expected(stored, ("open", "in_review", "closed"), pit=pits[-1])
    assert walk(stored, 10, pits=()) == []


def test_a_released_or_reopened_case_is_open_with_its_steps(stored: Stored) -> None:
    page = queue(stored.spy, Queue(state="open", limit=1000))
    worked = [c for c in page.cases if c.steps]
    assert worked and all(c.steps in (2, 3) and not c.assignee for c in worked)
    assert all(c.updated_by in NAMES and c.first_at is not None for c in worked)


def test_no_statement_reads_findings_v_or_final_and_each_fits_a_url(stored: Stored) -> None:
    stored.spy.statements.clear()
    walk(stored, 1000, state="all")
    walk(stored, 5)
    assert stored.spy.statements
    for sql in stored.spy.statements:
        assert "findings_v" not in sql and "FINAL" not in sql.upper().split(), sql
        assert len(quote_plus(sql)) < 8_000, len(quote_plus(sql))
