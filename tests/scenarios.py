"""Small building blocks for test rounds (hand-checked cards and payouts)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from tablewatch.rules.audit import Auditor, findings_of
from tablewatch.rules.config import TableConfig, parse_config
from tablewatch.rules.decode import decode_event, encode_event
from tablewatch.rules.events import AnyEvent
from tablewatch.rules.findings import Finding
from tablewatch.rules.judge import RoundResult
from tablewatch.script import TableScript

CONFIG: dict[str, Any] = {
    "tables": {
        "LIR-1": {
            "game": "let_it_ride",
            "paytables": {
                "main": "A",
                "five_card_bonus": "B",
                "three_card_bonus": "D",
                "progressive": "A",
            },
            "counting_shuffler": False,
            "payout_limit": 5_000_000,
            "progressive_reset": 100_000,
        },
        "LIR-C": {  # counting shuffler: no stub counts needed
            "game": "let_it_ride",
            "paytables": {"main": "A"},
            "counting_shuffler": True,
        },
        "FCP-1": {
            "game": "four_card_poker",
            "paytables": {"aces_up": "C", "progressive": "A", "envy": "A"},
            "counting_shuffler": True,
            "progressive_reset": 500_000,
        },
    }
}


def configs(document: dict[str, Any] | None = None) -> dict[str, TableConfig]:
    return parse_config(document or CONFIG)


def wire(scripts: Iterable[TableScript]) -> list[AnyEvent]:
    """The scripts' events as a controller would send them: encoded, then decoded and validated."""
    return [decode_event(encode_event(e)) for script in scripts for e in script.events]


def audit(scripts: Iterable[TableScript], document: dict[str, Any] | None = None) -> list[Finding]:
    auditor = Auditor(configs(document))
    return list(findings_of(auditor.feed_all(wire(scripts))))


def rounds(
    scripts: Iterable[TableScript], document: dict[str, Any] | None = None
) -> list[RoundResult]:
    auditor = Auditor(configs(document))
    return [o for o in auditor.feed_all(wire(scripts)) if isinstance(o, RoundResult)]


def codes(findings: Iterable[Finding]) -> list[str]:
    return sorted(f.check for f in findings)


def lir_table(table_id: str = "LIR-1", dealing: str = "hand") -> TableScript:
    t = TableScript(table_id)
    t.table_open("let_it_ride")
    t.deck_in("D-1", dealing)
    t.shuffle("D-1", None)
    return t


def fcp_table(table_id: str = "FCP-1", dealing: str = "hand") -> TableScript:
    t = TableScript(table_id)
    t.table_open("four_card_poker")
    t.deck_in("D-1", dealing)
    t.shuffle("D-1", 52)
    return t


def lir_deal(t: TableScript, hands: Mapping[int, Sequence[str]], community: Sequence[str]) -> None:
    """Deal in the order of § 643a.9(b): a card to each player, one community, ..."""
    seats = sorted(hands)
    for i in range(3):
        for seat in seats:
            t.card(f"seat:{seat}", hands[seat][i])
        if i < 2:
            t.card("community", community[i])


def fcp_deal(t: TableScript, hands: Mapping[int, Sequence[str]], dealer: Sequence[str]) -> None:
    """Deal in the order of § 641a.9(b): one card at a time, dealer's 6th face up."""
    seats = sorted(hands)
    for i in range(5):
        for seat in seats:
            t.card(f"seat:{seat}", hands[seat][i])
        t.card("dealer", dealer[i])
    t.card("dealer", dealer[5], face_up=True)


def lir_round(
    t: TableScript,
    round_id: str = "R-1",
    *,
    stake: int = 2500,
    hand: Sequence[str] = ("Ah", "Ad", "3c"),
    community: Sequence[str] = ("7s", "9d"),
    paid_each: int = 2500,
    stub: bool = True,
) -> None:
    """The protocol's example round: seat 2, pair of aces, all three bets ride and win 1 to 1."""
    t.round_start(round_id, "D-1")
    for bet in ("bet1", "bet2", "bet3"):
        t.wager(2, bet, stake)
    t.lockout()
    lir_deal(t, {2: hand}, community)
    if stub:
        t.stub_count(52 - 5)
    t.decision(2, "ride", "bet1")
    t.reveal("community", 1)
    t.decision(2, "ride", "bet2")
    t.reveal("community", 2)
    for bet in ("bet1", "bet2", "bet3"):
        t.settle(2, bet, "win" if paid_each else "lose", paid_each)
    t.round_end()
