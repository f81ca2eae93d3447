"""Reading the store, duplicate-free: every query goes through the ``*_v`` views."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from clickhouse_connect.driver.client import Client

from tablewatch.rules.events import ts_to_ms
from tablewatch.store.records import (
    CheckCount,
    RoundDetail,
    StoredFinding,
    StoredRound,
    StoredSettlement,
    Summary,
    TableCount,
)

_SEVERITY_RANK = (
    "multiIf(severity = 'critical', 0, severity = 'high', 1, severity = 'medium', 2, 3)"
)

_ROUND_SELECT = """
SELECT table_id, round_id, start_event_id, game, toUnixTimestamp64Milli(start_ts),
       toUnixTimestamp64Milli(end_ts), dealer_id, deck_id, seats, wagered, paid, voided,
       complete, finding_count, toUnixTimestamp64Milli(judged_at)
FROM rounds_v
"""

_SETTLEMENT_SELECT = """
SELECT table_id, round_id, start_event_id, seat, bet, stake, expected_result, expected_paid,
       actual_result, actual_paid, toUnixTimestamp64Milli(start_ts),
       toUnixTimestamp64Milli(judged_at)
FROM settlements_v
"""

_FINDING_SELECT = """
SELECT finding_id, table_id, round_id, start_event_id, check, severity, regulation, seat, bet,
       expected, actual, message, event_ids, toUnixTimestamp64Milli(ts),
       toUnixTimestamp64Milli(judged_at)
FROM findings_v
"""


def _rows(client: Client, sql: str, parameters: dict[str, Any] | None = None) -> Sequence[Any]:
    rows: Sequence[Any] = client.query(sql, parameters=parameters or {}).result_rows
    return rows


def summary(client: Client, top: int = 10) -> Summary:
    """Rounds judged, events stored, findings by check code and the ``top`` tables by findings."""
    ((rounds, voided, incomplete, wagered, paid),) = _rows(
        client,
        "SELECT count(), countIf(voided), countIf(NOT complete), sum(wagered), sum(paid)"
        " FROM rounds_v",
    )
    ((events,),) = _rows(client, "SELECT count() FROM raw_events_v")
    by_check = tuple(
        CheckCount(str(check), str(severity), int(n))
        for check, severity, n in _rows(
            client,
            f"SELECT check, any(severity) AS severity, count() AS n FROM findings_v"
            f" GROUP BY check ORDER BY n DESC, {_SEVERITY_RANK}, check",
        )
    )
    per_table = _rows(
        client,
        "SELECT table_id, count() AS n FROM findings_v GROUP BY table_id"
        " ORDER BY n DESC, table_id LIMIT {top:UInt32}",
        {"top": top},
    )
    table_rounds: dict[str, int] = {}
    if per_table:
        table_rounds = {
            str(t): int(n)
            for t, n in _rows(
                client,
                "SELECT table_id, count() FROM rounds_v WHERE table_id IN {tables:Array(String)}"
                " GROUP BY table_id",
                {"tables": [str(t) for t, _ in per_table]},
            )
        }
    top_tables = tuple(
        TableCount(str(t), int(n), table_rounds.get(str(t), 0)) for t, n in per_table
    )
    return Summary(
        events=int(events),
        rounds=int(rounds),
        voided=int(voided),
        incomplete=int(incomplete),
        wagered=int(wagered),
        paid=int(paid),
        findings=sum(c.findings for c in by_check),
        by_check=by_check,
        top_tables=top_tables,
    )


def _since_ms(since: int | str | datetime) -> int:
    if isinstance(since, datetime):
        if since.tzinfo is None:
            raise ValueError("since: a datetime needs a time zone")
        return int(since.timestamp() * 1000)
    if isinstance(since, str):
        return ts_to_ms(since)
    return since


def findings(
    client: Client,
    table_id: str | None = None,
    since: int | str | datetime | None = None,
    limit: int = 100,
) -> list[StoredFinding]:
    """Findings, newest first (by ``ts``); of one table and/or since a time (epoch ms, an
    RFC 3339 UTC timestamp or an aware datetime). Table-level findings without a ``ts`` come
    last and are left out when ``since`` is given."""
    where: list[str] = []
    params: dict[str, Any] = {"limit": limit}
    if table_id is not None:
        where.append("table_id = {table_id:String}")
        params["table_id"] = table_id
    if since is not None:
        where.append("ts >= fromUnixTimestamp64Milli({since:Int64}, 'UTC')")
        params["since"] = _since_ms(since)
    sql = _FINDING_SELECT
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += " ORDER BY ts DESC NULLS LAST, table_id, round_id, finding_id LIMIT {limit:UInt32}"
    return [_finding(row) for row in _rows(client, sql, params)]


def round_detail(
    client: Client, table_id: str, round_id: str, start_event_id: str | None = None
) -> RoundDetail | None:
    """One round with its settlement lines and findings; None when the round is not stored.

    Rounds given the same ``round_id`` at a table (ROUND_ID_REUSED) are told apart by
    ``start_event_id``, the event that began each; without it, the one that began last.
    """
    params = {"table_id": table_id, "round_id": round_id}
    where = " WHERE table_id = {table_id:String} AND round_id = {round_id:String}"
    if start_event_id is not None:
        where += " AND start_event_id = {start_event_id:String}"
        params["start_event_id"] = start_event_id
    rounds = _rows(
        client, _ROUND_SELECT + where + " ORDER BY start_ts DESC, start_event_id DESC", params
    )
    if not rounds:
        return None
    if start_event_id is None:
        where += " AND start_event_id = {start_event_id:String}"
        params["start_event_id"] = str(rounds[0][2])
    lines = _rows(client, _SETTLEMENT_SELECT + where + " ORDER BY seat, bet", params)
    found = _rows(client, _FINDING_SELECT + where + " ORDER BY ts, check, seat, bet", params)
    return RoundDetail(
        _round(rounds[0]),
        tuple(_settlement(row) for row in lines),
        tuple(_finding(row) for row in found),
    )


def _round(row: Sequence[Any]) -> StoredRound:
    (table_id, round_id, start_event_id, game, start, end, dealer, deck, seats) = row[:9]
    wagered, paid, voided, complete, finding_count, judged_at = row[9:]
    return StoredRound(
        str(table_id),
        str(round_id),
        str(start_event_id),
        str(game),
        int(start),
        int(end),
        dealer,
        deck,
        int(seats),
        int(wagered),
        int(paid),
        bool(voided),
        bool(complete),
        int(finding_count),
        int(judged_at),
    )


def _settlement(row: Sequence[Any]) -> StoredSettlement:
    table_id, round_id, start_event_id, seat, bet, stake, exp_result, exp_paid = row[:8]
    act_result, act_paid, start, judged_at = row[8:]
    return StoredSettlement(
        str(table_id),
        str(round_id),
        str(start_event_id),
        int(seat),
        str(bet),
        int(stake),
        exp_result,
        exp_paid,
        act_result,
        act_paid,
        int(start),
        int(judged_at),
    )


def _finding(row: Sequence[Any]) -> StoredFinding:
    finding_id, table_id, round_id, start_event_id, check, severity, regulation, seat = row[:8]
    bet, expected, actual, message, event_ids, ts, judged_at = row[8:]
    return StoredFinding(
        finding_id=str(finding_id),
        table_id=str(table_id),
        round_id=round_id or None,
        start_event_id=start_event_id or None,
        check=str(check),
        severity=str(severity),
        regulation=str(regulation),
        seat=seat,
        bet=bet or None,
        expected=expected,
        actual=actual,
        message=str(message),
        event_ids=tuple(event_ids),
        ts_ms=ts,
        judged_at_ms=int(judged_at),
    )
