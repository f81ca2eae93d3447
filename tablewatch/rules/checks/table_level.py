"""A finding of the checks that span rounds (decks, stub cadence, seq) and of the table."""

from __future__ import annotations

from tablewatch.rules.findings import Finding


def table_finding(
    table_id: str,
    round_id: str | None,
    check: str,
    regulation: str,
    message: str,
    event_ids: tuple[str, ...],
    ts: str | None,
) -> Finding:
    return Finding(
        table_id=table_id,
        round_id=round_id,
        check=check,
        regulation=regulation,
        message=message,
        event_ids=event_ids,
        ts=ts,
    )
