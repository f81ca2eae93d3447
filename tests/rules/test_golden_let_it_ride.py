"""Golden Let It Ride rounds: every wager type, payouts worked out by hand from § 643a.12."""

from __future__ import annotations

from typing import Any

from tablewatch.script import TableScript
from tests.scenarios import audit, codes, lir_deal, rounds

CONFIG: dict[str, Any] = {
    "tables": {
        "LIR-G": {
            "game": "let_it_ride",
            "paytables": {
                "main": "A",
                "five_card_bonus": "B",
                "three_card_bonus": "D",
                "progressive": "A",
                "five_card_progressive": {
                    "royal_flush": "100% of meter",
                    "straight_flush": "10% of meter",
                    "four_of_a_kind": "500 for 1",
                    "full_house": "100 for 1",
                    "three_of_a_kind": "9 for 1",
                },
                "five_card_envy": {"royal_flush": "$1,000", "straight_flush": "$100"},
                "five_card_hand_bonus": {
                    "royal_flush": "1000 for 1",
                    "four_of_a_kind": "100 for 1",
                    "three_of_a_kind": "3 for 1",
                },
                "six_card_bonus": {
                    "royal_flush": "1000 to 1",
                    "straight_flush": "200 to 1",
                    "four_of_a_kind": "50 to 1",
                    "three_of_a_kind": "5 to 1",
                },
            },
            "counting_shuffler": False,
            "payout_limit": 5_000_000,
            "progressive_reset": 100_000,
        }
    }
}

# Community 7h 7d; bonus cards Js Ts 2c.
# Seat 1: As Ks Qs, spade mini-royal. Five cards: pair of sevens (loses the main bets).
#   bet1 $10 rides: lose. bet2 pulled after the first community card: no settle.
#   bet3 $10: lose. Three Card Bonus D $5: mini-royal 50 to 1 = $250.
#   Progressive $1: spade mini-royal, 100% of the $12,345.67 meter, from the cage.
#   Five Card Bonus B $5: pair of sevens, nothing. Six Card Bonus $5: As Ks Qs Js Ts
#   is a royal flush, 1000 to 1 = $5,000.
# Seat 3: 7s 7c 2d, four sevens. Bets $20 each ride: 50 to 1 = $1,000 each.
#   Five Card Bonus B $1: four of a kind "$200" for 1 = $200. Three Card Bonus D $1:
#   pair 1 to 1 = $1. Progressive $1: a pair pays nothing; Envy Bonus for seat 1's
#   spade mini-royal: $100. Five-Card Progressive $1: 500 for 1 = $500 (validated).
#   Five Card Hand Bonus $5: 100 for 1 = $500.
# Seat 5: 9d 9s Kc, two pair. Bets $5 each ride: 2 to 1 = $10 each.
#   Progressive $5: pair, nothing; Envy Bonus for seat 1: $500.
EXPECTED_PAID = {
    (1, "bet1"): 0,
    (1, "bet3"): 0,
    (1, "three_card_bonus"): 25_000,
    (1, "progressive"): 1_234_567,
    (1, "five_card_bonus"): 0,
    (1, "six_card_bonus"): 500_000,
    (3, "bet1"): 100_000,
    (3, "bet2"): 100_000,
    (3, "bet3"): 100_000,
    (3, "five_card_bonus"): 20_000,
    (3, "three_card_bonus"): 100,
    (3, "progressive"): 0,
    (3, "five_card_progressive"): 50_000,
    (3, "five_card_hand_bonus"): 50_000,
    (5, "bet1"): 1_000,
    (5, "bet2"): 1_000,
    (5, "bet3"): 1_000,
    (5, "progressive"): 0,
}
EXPECTED_ENVY = {(3, 1): 10_000, (5, 1): 50_000}


def golden_round(
    *, paid: dict[tuple[int, str], int] | None = None, envy: bool = True
) -> TableScript:
    paid = {**EXPECTED_PAID, **(paid or {})}
    t = TableScript("LIR-G")
    t.table_open("let_it_ride")
    t.deck_in("D-1", "hand")
    t.shuffle("D-1", None)
    t.meter(1_234_567)
    t.round_start("R-G1", "D-1")
    wagers = {
        1: {
            "bet1": 1000,
            "bet2": 1000,
            "bet3": 1000,
            "three_card_bonus": 500,
            "progressive": 100,
            "five_card_bonus": 500,
            "six_card_bonus": 500,
        },
        3: {
            "bet1": 2000,
            "bet2": 2000,
            "bet3": 2000,
            "five_card_bonus": 100,
            "three_card_bonus": 100,
            "progressive": 100,
            "five_card_progressive": 100,
            "five_card_hand_bonus": 500,
        },
        5: {"bet1": 500, "bet2": 500, "bet3": 500, "progressive": 500},
    }
    for seat, bets in wagers.items():
        for bet, amount in bets.items():
            t.wager(seat, bet, amount)
    t.lockout(accepted=3)
    lir_deal(t, {1: ("As", "Ks", "Qs"), 3: ("7s", "7c", "2d"), 5: ("9d", "9s", "Kc")}, ("7h", "7d"))
    t.cards("bonus", ("Js", "Ts", "2c"))
    t.stub_count(52 - 14)
    for seat in (1, 3, 5):
        t.decision(seat, "ride", "bet1")
    t.reveal("community", 1)
    t.decision(1, "pull", "bet2")
    t.decision(3, "ride", "bet2")
    t.decision(5, "ride", "bet2")
    t.reveal("community", 2)
    for seat in (5, 3, 1):  # from the dealer's right, counterclockwise
        for bet in wagers[seat]:
            if (seat, bet) == (1, "bet2"):
                continue
            amount = paid[(seat, bet)]
            jackpot: dict[str, Any] = {}
            if (seat, bet) == (1, "progressive"):
                jackpot = {"paid_from": "cage", "meter": 1_234_567, "validated_by": "FL-9"}
            if (seat, bet) == (3, "five_card_progressive"):
                jackpot = {"paid_from": "cage", "validated_by": "FL-9"}
            t.settle(seat, bet, "win" if amount else "lose", amount, **jackpot)
    if envy:
        for (seat, for_seat), amount in EXPECTED_ENVY.items():
            t.envy_payout(seat, for_seat, amount)
    t.round_end()
    return t


def test_golden_round_is_clean() -> None:
    assert audit([golden_round()], CONFIG) == []


def test_golden_round_expected_settlement() -> None:
    (result,) = rounds([golden_round()], CONFIG)
    expected = {(s.seat, s.bet): s.expected_paid for s in result.settlements}
    assert expected == EXPECTED_PAID
    assert result.wagered == 13_500
    assert result.paid == sum(EXPECTED_PAID.values()) + sum(EXPECTED_ENVY.values())


def test_golden_round_each_error_found() -> None:
    found = audit([golden_round(paid={(3, "five_card_bonus"): 2_000})], CONFIG)
    assert [(f.check, f.seat, f.bet, f.expected, f.actual) for f in found] == [
        ("WRONG_PAYOUT", 3, "five_card_bonus", 20_000, 2_000)
    ]
    found = audit([golden_round(envy=False)], CONFIG)
    assert codes(found) == ["ENVY_BONUS_WRONG", "ENVY_BONUS_WRONG"]
    assert {(f.seat, f.expected) for f in found} == {(3, 10_000), (5, 50_000)}


def _limit_round(paid: tuple[int, int, int]) -> TableScript:
    """A $100 straight flush: 200 to 1 is $20,000 a bet, $60,000 over the $50,000 limit."""
    t = TableScript("LIR-G")
    t.deck_in("D-1", "hand")
    t.round_start("R-L", "D-1")
    for bet in ("bet1", "bet2", "bet3"):
        t.wager(4, bet, 10_000)
    t.wager(4, "five_card_bonus", 100)
    t.lockout()
    lir_deal(t, {4: ("9h", "8h", "7h")}, ("6h", "5h"))
    t.stub_count(47)
    t.reveal("community", 1)
    t.reveal("community", 2)
    for bet, amount in zip(("bet1", "bet2", "bet3"), paid, strict=True):
        t.settle(4, bet, "win", amount)
    t.settle(4, "five_card_bonus", "win", 200_000)  # "$2,000" for 1, never capped
    t.round_end()
    return t


def test_payout_limit_caps_main_bets_only() -> None:
    assert audit([_limit_round((2_000_000, 2_000_000, 1_000_000))], CONFIG) == []
    found = audit([_limit_round((2_000_000, 2_000_000, 2_000_000))], CONFIG)
    assert [(f.check, f.bet, f.expected, f.actual, f.regulation) for f in found] == [
        ("WRONG_PAYOUT", "main", 5_000_000, 6_000_000, "§ 643a.12(e)")
    ]
