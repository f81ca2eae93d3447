"""The patterns dashboard's panels on an embedded store holding pattern findings written as
the store writes every finding (``finding_row`` of ``PatternFinding.as_finding()``): each
panel returns the rows written, with the statistic and threshold read from the message,
by check, dealer (of the evidence round) and table; per-round findings and findings
outside the time range are not shown; the table and dealer variables filter."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from clickhouse_connect.driver.client import Client

from tablewatch.dashboards import patterns
from tablewatch.dashboards.check import check_panel
from tablewatch.dashboards.macros import Selection, TimeRange
from tablewatch.dashboards.panels import PanelSql
from tablewatch.patterns.finding import PatternFinding
from tablewatch.rules.findings import Finding
from tablewatch.store.client import connect
from tablewatch.store.migrate import migrate
from tablewatch.store.rollups import refresh_rollups
from tablewatch.store.rows import RoundRow, finding_row
from tablewatch.store.writer import StoreWriter

JUDGED = 1_764_600_000_000  # 2025-12-01T14:40:00Z, after every finding below
WINDOW = TimeRange(1_764_579_600_000, 1_764_594_000_000)  # 2025-12-01 09:00 to 13:00 UTC

ADVANTAGE = PatternFinding(
    check="ADVANTAGE_PLAY_SUSPECTED",
    unit="P-77",
    table_id="T1",
    message="P-77: decisions track the dealer's first card (60 decisions, 19 against the "
    "known strategy)",
    statistic_name="LLR, sees the hidden card (log-likelihood ratio)",  # commas, parentheses
    statistic=12.5,
    threshold=9.21,
    false_alarm_rate="1 per 10,000 player-hours",
    evidence=(("T1", "r1"), ("T1", "r0")),
    first_ts="2025-12-01T10:00:00.000Z",
    last_ts="2025-12-01T11:30:00.250Z",
    seat=3,
)
FAVOURS = PatternFinding(
    check="DEALER_FAVOURS_SEAT",
    unit="T2:D2:5",
    table_id=None,  # a dealer's pattern: on its evidence round's table
    message="dealer D2: 7 of 9 money errors in the players' favour went to T2:D2:5",
    statistic_name="-log10 p, binomial of the unit's share (Bonferroni)",
    statistic=4.25,
    threshold=3.0,
    false_alarm_rate="at most 0.001 per dealer and look (Bonferroni over the dealer's units)",
    evidence=(("T2", "r2"),),
    first_ts="2025-12-01T09:10:00.000Z",
    last_ts="2025-12-01T11:00:00.000Z",
    seat=5,
)
HOLD = PatternFinding(
    check="HOLD_OUT_OF_BAND",
    unit="T1",
    table_id="T1",
    message="T1 held below its band in the shift from 2025-12-01T08:00:00.000Z",
    statistic_name="CUSUM (below)",
    statistic=7.0,
    threshold=5.0,
    false_alarm_rate="1 per 1,000 table-shifts",
    evidence=(("T1", "r9"),),  # a round the store does not hold: no dealer
    first_ts="2025-12-01T08:00:00.000Z",
    last_ts="2025-12-01T12:00:00.000Z",
)
METER_BEFORE = PatternFinding(  # before the time range
    check="METER_INCREMENT_WRONG",
    unit="T3",
    table_id="T3",
    message="T3's progressive meter rose too little",
    statistic_name="increments outside the band",
    statistic=2.0,
    threshold=0.0,
    false_alarm_rate="none (exact bounds)",
    evidence=(("T3", "r3"),),
    first_ts="2025-12-01T07:00:00.000Z",
    last_ts="2025-12-01T08:00:00.000Z",
)
PER_ROUND = Finding(  # an ordinary finding on the same round: not a pattern
    "T1", "r1", "WRONG_PAYOUT", "§ 1.1", "paid wrong", 3, "ante", 500, 1500, ("e5",),
    "2025-12-01T11:29:00.000Z",
)  # fmt: skip


def ms(ts: str) -> int:
    return int(datetime.fromisoformat(ts).timestamp() * 1000)


def round_row(table_id: str, round_id: str, dealer_id: str, start: str) -> RoundRow:
    start_ms = ms(start)
    return (table_id, round_id, f"e-{round_id}", "game-a", start_ms, start_ms + 60_000,
            dealer_id, "deck-1", 3, 3000, 2000, False, True, 0, JUDGED)  # fmt: skip


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Client, dict[str, str]]]:
    client = connect(f"chdb:///{Path(tmp_path_factory.mktemp('patterns')) / 'store'}")
    try:
        migrate(client)
        rows = {
            name: finding_row(p.as_finding(), JUDGED)
            for name, p in (("ap", ADVANTAGE), ("favours", FAVOURS), ("hold", HOLD),
                            ("meter", METER_BEFORE))
        }  # fmt: skip
        per_round = finding_row(PER_ROUND, JUDGED, start_event_id="e-r1")
        StoreWriter(client).insert(
            rounds=[
                round_row("T1", "r1", "D1", "2025-12-01T11:25:00.000Z"),
                round_row("T2", "r2", "D2", "2025-12-01T10:40:00.000Z"),
                round_row("T3", "r3", "D3", "2025-12-01T07:50:00.000Z"),
            ],
            findings=[*rows.values(), per_round],
        )
        refresh_rollups(client)  # as the worker does after its inserts
        yield client, {name: str(row[0]) for name, row in rows.items()}
    finally:
        client.close()


def run_panel(client: Client, panel: PanelSql, **values: list[str]) -> list[dict[str, Any]]:
    def run(sql: str) -> tuple[list[str], list[list[object]]]:
        answer = client.query(sql)
        return list(answer.column_names), [list(r) for r in answer.result_rows]

    result = check_panel(patterns.DASHBOARD, panel, run, WINDOW, Selection(values))
    assert result.ok, result.problem
    answer = client.query(result.sql)
    return [dict(zip(answer.column_names, row, strict=True)) for row in answer.result_rows]


def at(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def test_the_latest_pattern_findings_with_their_statistic_and_threshold(
    store: tuple[Client, dict[str, str]],
) -> None:
    client, ids = store
    rows = run_panel(client, patterns.LATEST_PATTERN_FINDINGS)
    got = [
        (r["time"].astimezone(UTC), r["check"], r["table_id"], r["round_id"], r["seat"],
         r["statistic"], r["threshold"], r["false_alarms"], r["finding_id"])
        for r in rows
    ]  # fmt: skip
    assert got == [
        (at("2025-12-01T12:00:00"), "HOLD_OUT_OF_BAND", "T1", "r9", None, 7.0, 5.0,
         "1 per 1,000 table-shifts", ids["hold"]),
        (at("2025-12-01T11:30:00.250"), "ADVANTAGE_PLAY_SUSPECTED", "T1", "r1", 3, 12.5, 9.21,
         "1 per 10,000 player-hours", ids["ap"]),
        (at("2025-12-01T11:00:00"), "DEALER_FAVOURS_SEAT", "T2", "r2", 5, 4.25, 3.0,
         "at most 0.001 per dealer and look (Bonferroni over the dealer's units)",
         ids["favours"]),
    ]  # fmt: skip
    assert rows[1]["message"] == (
        "P-77: decisions track the dealer's first card (60 decisions, 19 against the known "
        "strategy) (LLR, sees the hidden card (log-likelihood ratio) 12.50, threshold 9.21, "
        "false alarms 1 per 10,000 player-hours; 2025-12-01T10:00:00.000Z to "
        "2025-12-01T11:30:00.250Z)"
    )
    # the table variable
    only_t2 = run_panel(client, patterns.LATEST_PATTERN_FINDINGS, table=["T2"])
    assert [r["finding_id"] for r in only_t2] == [ids["favours"]]


def test_pattern_findings_over_time_by_check(store: tuple[Client, dict[str, str]]) -> None:
    client, _ = store
    rows = run_panel(client, patterns.PATTERN_FINDINGS_OVER_TIME)
    # the range over 1,000 points is under a minute: one bucket a minute
    assert [(r["time"].astimezone(UTC), r["check"], r["findings"]) for r in rows] == [
        (at("2025-12-01T11:00:00"), "DEALER_FAVOURS_SEAT", 1),
        (at("2025-12-01T11:30:00"), "ADVANTAGE_PLAY_SUSPECTED", 1),
        (at("2025-12-01T12:00:00"), "HOLD_OUT_OF_BAND", 1),
    ]


def test_pattern_findings_by_dealer_of_the_evidence_round(
    store: tuple[Client, dict[str, str]],
) -> None:
    client, _ = store
    rows = run_panel(client, patterns.PATTERN_FINDINGS_BY_DEALER)
    assert [(r["dealer_id"], r["check"], r["findings"]) for r in rows] == [
        ("", "HOLD_OUT_OF_BAND", 1),  # its evidence round is not stored
        ("D1", "ADVANTAGE_PLAY_SUSPECTED", 1),
        ("D2", "DEALER_FAVOURS_SEAT", 1),
    ]
    rows = run_panel(client, patterns.PATTERN_FINDINGS_BY_DEALER, dealer=["D2"])
    assert [(r["dealer_id"], r["check"], r["findings"]) for r in rows] == [
        ("D2", "DEALER_FAVOURS_SEAT", 1)
    ]


def test_pattern_findings_by_table(store: tuple[Client, dict[str, str]]) -> None:
    client, _ = store
    rows = run_panel(client, patterns.PATTERN_FINDINGS_BY_TABLE)
    assert [(r["table_id"], r["check"], r["findings"]) for r in rows] == [
        ("T1", "ADVANTAGE_PLAY_SUSPECTED", 1),
        ("T1", "HOLD_OUT_OF_BAND", 1),
        ("T2", "DEALER_FAVOURS_SEAT", 1),
    ]


def test_the_as_of_panel_answers(store: tuple[Client, dict[str, str]]) -> None:
    client, _ = store
    [row] = run_panel(client, patterns.DASHBOARD.panel("patterns_rollups_as_of"))
    assert row["as_of"] is not None and row["as_of"] > 0
