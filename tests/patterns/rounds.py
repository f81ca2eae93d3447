"""Hand-made Let It Ride rounds for the pattern folds: seats whose hands all lose (no pair
of tens or better, no straight or flush with the community cards), settled as told."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from tablewatch.rules.audit import Auditor
from tablewatch.rules.config import parse_config
from tablewatch.rules.round_result import RoundResult
from tablewatch.rules.table_config import TableConfig
from tablewatch.script import TableScript
from tests.scenarios import wire

# Losing hands for seats 1 to 4 with the community cards Ks 8d; every card distinct.
HANDS = {1: ("2c", "4d", "9h"), 2: ("3c", "6h", "Jc"), 3: ("2d", "5c", "Qh"), 4: ("3d", "7c", "Th")}
COMMUNITY = ("Ks", "8d")
BETS = ("bet1", "bet2", "bet3")
STAKE = 2500
CHIP = 100  # a progressive wager


def document(patterns: dict[str, Any] | None = None) -> dict[str, Any]:
    """Table LIR-P: Let It Ride, a counting shuffler (no stub counts), a progressive
    growing by 20% of each wager from a $1,000.00 reset."""
    table: dict[str, Any] = {
        "game": "let_it_ride",
        "paytables": {"main": "A", "progressive": "A"},
        "counting_shuffler": True,
        "progressive_reset": 100_000,
        "progressive_rate": 0.2,
    }
    if patterns is not None:
        table["patterns"] = patterns
    return {"tables": {"LIR-P": table}}


def configs(patterns: dict[str, Any] | None = None) -> dict[str, TableConfig]:
    return parse_config(document(patterns))


def table(start: str = "2026-12-01T06:00:00.000Z") -> TableScript:
    t = TableScript("LIR-P", start=start)
    t.table_open("let_it_ride")
    t.deck_in("D-1", "hand")
    t.shuffle("D-1", 52)
    return t


def play(
    t: TableScript,
    round_id: str,
    *,
    seats: Sequence[int] = (1, 2, 3, 4),
    dealer: str = "DL-1",
    won_by: Iterable[int] = (),
    paid_each: int = STAKE,
    progressive: Sequence[int] = (),
    meter: int | None = None,
    player_ids: dict[int, str] | None = None,
) -> None:
    """One round: every seat rides its three bets and loses; the seats in ``won_by`` are
    paid ``paid_each`` on each bet instead (an overpayment: WRONG_PAYOUT). ``progressive``:
    the seats with a $1.00 progressive wager (it loses). ``meter``: a reading sent before
    the round."""
    won = set(won_by)
    ids = player_ids or {}
    if meter is not None:
        t.meter(meter)
    t.round_start(round_id, "D-1", dealer)
    for seat in seats:
        for bet in BETS:
            t.wager(seat, bet, STAKE, ids.get(seat))
        if seat in progressive:
            t.wager(seat, "progressive", CHIP, ids.get(seat))
    t.lockout(len(progressive), len(progressive))
    for i in range(3):
        for seat in seats:
            t.card(f"seat:{seat}", HANDS[seat][i])
        if i < 2:
            t.card("community", COMMUNITY[i])
    for seat in seats:
        t.decision(seat, "ride", "bet1")
    t.reveal("community", 1)
    for seat in seats:
        t.decision(seat, "ride", "bet2")
    t.reveal("community", 2)
    for seat in sorted(seats, reverse=True):
        for bet in BETS:
            if seat in won:
                t.settle(seat, bet, "win", paid_each)
            else:
                t.settle(seat, bet, "lose")
        if seat in progressive:
            t.settle(seat, "progressive", "lose")
    t.round_end()
    t.wait(30_000)


def judged(t: TableScript, cfg: dict[str, TableConfig]) -> list[RoundResult]:
    auditor = Auditor(cfg)
    return [o for o in auditor.feed_all(wire([t])) if isinstance(o, RoundResult)]
