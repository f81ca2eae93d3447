"""This service's own check codes: a stream that raises each one, and a near twin that does not."""

from __future__ import annotations

from tablewatch.script import TableScript
from tests.scenarios import audit, codes, lir_round, lir_table


def test_table_not_configured_once() -> None:
    t = TableScript("LIR-99")
    t.deck_in("D-1")
    lir_round(t)
    found = audit([t])
    assert codes(found) == ["TABLE_NOT_CONFIGURED"]
    assert found[0].table_id == "LIR-99"
    configured = lir_table()
    lir_round(configured)
    assert audit([configured]) == []


def test_game_mismatch() -> None:
    t = TableScript("LIR-1")
    t.table_open("four_card_poker")
    assert codes(audit([t])) == ["GAME_MISMATCH"]
    t = TableScript("LIR-1")
    t.table_open("let_it_ride")
    assert audit([t]) == []


def _side_bet(bet: str) -> TableScript:
    t = lir_table()
    t.round_start("R-1", "D-1")
    for main in ("bet1", "bet2", "bet3"):
        t.wager(2, main, 2500)
    t.wager(2, bet, 500)
    t.lockout()
    for to, card in (("seat:2", "Ah"), ("community", "7s"), ("seat:2", "Ad"),
                     ("community", "9d"), ("seat:2", "3c")):  # fmt: skip
        t.card(to, card)
    t.stub_count(47)
    t.reveal("community", 1)
    t.reveal("community", 2)
    for main in ("bet1", "bet2", "bet3"):
        t.settle(2, main, "win", 2500)
    t.settle(2, bet, "win", 500)  # a pair: 1 to 1 on the Three Card Bonus (table D)
    t.round_end()
    return t


def test_wager_not_offered() -> None:
    found = audit([_side_bet("aces_up")])  # a Four Card Poker wager at Let It Ride
    assert codes(found) == ["WAGER_NOT_OFFERED"]
    assert audit([_side_bet("three_card_bonus")]) == []


def test_event_outside_round() -> None:
    t = lir_table()
    lir_round(t)
    t.round_id = "R-1"
    t.settle(2, "bet1", "win", 2500)  # after round_end
    found = audit([t])
    assert codes(found) == ["EVENT_OUTSIDE_ROUND"]
    t = lir_table()
    lir_round(t)
    assert audit([t]) == []


def test_sequence_regression() -> None:
    t = lir_table()
    lir_round(t)
    t.seq -= 10  # a new event with an old seq: out of order, or the controller restarted
    t.dealer_change("DL-2")
    found = audit([t])
    assert codes(found) == ["SEQUENCE_REGRESSION"]
    t = lir_table()
    lir_round(t)
    t.dealer_change("DL-2")
    assert audit([t]) == []
