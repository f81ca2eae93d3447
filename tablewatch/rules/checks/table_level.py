"""Helpers for the checks that span rounds (decks, stub cadence, seq)."""

from __future__ import annotations

from typing import Final

from tablewatch.rules.findings import Finding

FCP: Final = "four_card_poker"


def by_game(game: str, fcp: str, lir: str) -> str:
    return fcp if game == FCP else lir


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
