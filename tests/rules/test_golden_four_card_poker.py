"""Golden Four Card Poker rounds: every wager type, payouts worked out by hand from § 641a.12."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest

from tablewatch.rules import games
from tablewatch.rules.events import Settle
from tablewatch.rules.game_rules import HouseBonus
from tablewatch.script import TableScript
from tests.scenarios import audit, codes, fcp_deal, fcp_table, rounds

# Table FCP-1: Aces Up C, progressive A, Envy A (tests/scenarios.py).
# Dealer 3h 3d 7c 7s Tc, up card 8c: best four = two pair, sevens and threes.
# Seat 1: Ah Ad Ac As 2c, four aces. Ante $10, Play 3x $30, Aces Up $5, progressive $1.
#   Ante and Play win 1 to 1: $10, $30. Ante bonus four of a kind 25 to 1: $250.
#   Aces Up C four of a kind 50 to 1: $250. Progressive: four aces, 100% of the
#   $7,777 meter. Envy A for seat 6's straight flush: $5 per $1.
# Seat 2: 9h 9d 9c Kd 3s, three nines. Ante $10, Play 1x $10, progressive $5.
#   Ante, Play win: $10, $10. Ante bonus trips 2 to 1: $20. Progressive trips
#   9 for 1 on $5: $45. Envy ($5): four aces $500, straight flush $25.
# Seat 4: 5c 6d 8h Jc 2d, jack high. Ante $10, Aces Up $10, progressive $1; folds.
#   Ante forfeited, progressive forfeited, Aces Up loses (no pair of aces) -
#   but Envy Bonuses still due (§ 641a.11(b)(2)): four aces $100, straight flush $5.
# Seat 6: Kh Qh Jh Th 4c, straight flush king high. Ante $20, Play 2x $40.
#   Ante, Play win: $20, $40. Ante bonus straight flush 20 to 1: $400. No progressive.
EXPECTED_PAID = {
    (1, "ante"): 1_000,
    (1, "play"): 3_000,
    (1, "ante_bonus"): 25_000,
    (1, "aces_up"): 25_000,
    (1, "progressive"): 777_700,
    (2, "ante"): 1_000,
    (2, "play"): 1_000,
    (2, "ante_bonus"): 2_000,
    (2, "progressive"): 4_500,
    (4, "ante"): 0,
    (4, "aces_up"): 0,
    (4, "progressive"): 0,
    (6, "ante"): 2_000,
    (6, "play"): 4_000,
    (6, "ante_bonus"): 40_000,
}
EXPECTED_ENVY = {(1, 6): 500, (2, 1): 50_000, (2, 6): 2_500, (4, 1): 10_000, (4, 6): 500}
HANDS = {
    1: ("Ah", "Ad", "Ac", "As", "2c"),
    2: ("9h", "9d", "9c", "Kd", "3s"),
    4: ("5c", "6d", "8h", "Jc", "2d"),
    6: ("Kh", "Qh", "Jh", "Th", "4c"),
}
DEALER = ("3h", "3d", "7c", "7s", "Tc", "8c")


def golden_round(
    *, paid: dict[tuple[int, str], int] | None = None, skip: tuple[int, str] | None = None
) -> TableScript:
    paid = {**EXPECTED_PAID, **(paid or {})}
    t = fcp_table()
    t.meter(777_700)
    t.round_start("R-G1", "D-1")
    for seat, bet, amount in (
        (1, "ante", 1000),
        (1, "aces_up", 500),
        (1, "progressive", 100),
        (2, "ante", 1000),
        (2, "progressive", 500),
        (4, "ante", 1000),
        (4, "aces_up", 1000),
        (4, "progressive", 100),
        (6, "ante", 2000),
    ):
        t.wager(seat, bet, amount)
    t.lockout(accepted=3)
    fcp_deal(t, HANDS, DEALER)
    t.decision(1, "play", amount=3000)
    t.decision(2, "play", amount=1000)
    t.decision(4, "fold")
    t.decision(6, "play", amount=4000)
    t.reveal("dealer")
    for (seat, bet), amount in sorted(paid.items(), key=lambda kv: -kv[0][0]):
        if (seat, bet) == skip:
            continue
        extra: dict[str, Any] = {}
        if bet == "progressive" and amount:
            extra = {"paid_from": "cage", "validated_by": "FL-2"}
            if seat == 1:
                extra["meter"] = 777_700
        t.settle(seat, bet, "win" if amount else "lose", amount, **extra)
    for (seat, for_seat), amount in EXPECTED_ENVY.items():
        t.envy_payout(seat, for_seat, amount)
    t.round_end()
    return t


def test_golden_round_is_clean() -> None:
    assert audit([golden_round()]) == []


def test_golden_round_expected_settlement() -> None:
    (result,) = rounds([golden_round()])
    assert {(s.seat, s.bet): s.expected_paid for s in result.settlements} == EXPECTED_PAID


def test_ante_bonus_due_and_not_paid() -> None:
    found = audit([golden_round(skip=(2, "ante_bonus"))])
    assert [(f.check, f.seat, f.bet, f.expected, f.actual) for f in found] == [
        ("WRONG_PAYOUT", 2, "ante_bonus", 2_000, 0)
    ]


def test_a_house_bonus_is_found_and_named_by_the_games_descriptor(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """WRONG_PAYOUT knows an unpaid bonus only through the descriptor's ``house_bonuses``."""
    unpaid = golden_round(skip=(2, "ante_bonus"))
    assert [f.message for f in audit([unpaid])] == [
        "seat 2 holds three of a kind: an Ante bonus of $20.00 (2 to 1 on the $10.00 Ante) "
        "was due and not paid"
    ]
    rules = games.rules_of("four_card_poker")
    renamed = HouseBonus("ante_bonus", "a house bonus", "Ante stake")
    monkeypatch.setattr(rules, "house_bonus_of", {"ante_bonus": renamed})
    assert [f.message for f in audit([unpaid])] == [
        "seat 2 holds three of a kind: a house bonus of $20.00 (2 to 1 on the $10.00 Ante "
        "stake) was due and not paid"
    ]
    monkeypatch.setattr(rules, "house_bonus_of", {})
    assert audit([unpaid]) == []  # a line of no house bonus is not looked for


def test_aces_up_underpaid() -> None:
    found = audit([golden_round(paid={(1, "aces_up"): 20_000})])
    assert [(f.check, f.regulation, f.expected, f.actual) for f in found] == [
        ("WRONG_PAYOUT", "§ 641a.12(c)", 25_000, 20_000)
    ]


def _duel(
    player: tuple[str, ...], dealer: tuple[str, ...], settles: dict[str, tuple[str, int]]
) -> TableScript:
    t = fcp_table()
    t.round_start("R-1", "D-1")
    t.wager(3, "ante", 1000)
    t.lockout()
    fcp_deal(t, {3: player}, dealer)
    t.decision(3, "play", amount=2000)
    t.reveal("dealer")
    for bet, (result, amount) in settles.items():
        t.settle(3, bet, result, amount)
    t.round_end()
    return t


def test_tie_goes_to_the_player() -> None:
    # both hold K-Q-9-7 high (the discarded cards differ): a tie, § 641a.11(c)(3)(ii)
    player = ("Kh", "Qd", "9c", "7s", "2h")
    dealer = ("Kd", "Qc", "9h", "7d", "3c", "2s")
    assert audit([_duel(player, dealer, {"ante": ("win", 1000), "play": ("win", 2000)})]) == []
    found = audit([_duel(player, dealer, {"ante": ("lose", 0), "play": ("lose", 0)})])
    assert codes(found) == ["WRONG_PAYOUT", "WRONG_PAYOUT"]


def test_ante_bonus_paid_on_a_losing_hand() -> None:
    # trips 2s lose to the dealer's trips 3s, but the 2 to 1 Ante bonus is still paid
    player = ("2h", "2d", "2c", "9s", "5h")
    dealer = ("3h", "3d", "3c", "Js", "6h", "8d")
    settles = {"ante": ("lose", 0), "play": ("lose", 0), "ante_bonus": ("win", 2000)}
    assert audit([_duel(player, dealer, settles)]) == []
    del settles["ante_bonus"]
    assert codes(audit([_duel(player, dealer, settles)])) == ["WRONG_PAYOUT"]


def test_no_ante_bonus_without_play_and_four_of_a_kind_beats_straight_flush() -> None:
    t = fcp_table()
    t.round_start("R-1", "D-1")
    t.wager(3, "ante", 1000)
    t.wager(3, "aces_up", 1000)
    t.lockout()
    # the player folds trips, so no Ante bonus; Aces Up still pays trips 8 to 1 (table C)
    fcp_deal(t, {3: ("4h", "4d", "4c", "9s", "Jh")}, ("5s", "6s", "7s", "8s", "Kd", "Kc"))
    t.decision(3, "fold")
    t.reveal("dealer")
    t.settle(3, "ante", "lose")
    t.settle(3, "aces_up", "win", 8000)
    t.round_end()
    assert audit([t]) == []
    # four of a kind beats the dealer's straight flush (§ 641a.6(b))
    player = ("Qh", "Qd", "Qc", "Qs", "2h")
    dealer = ("5s", "6s", "7s", "8s", "Kd", "Kc")
    settles = {"ante": ("win", 1000), "play": ("win", 2000), "ante_bonus": ("win", 25_000)}
    assert audit([_duel(player, dealer, settles)]) == []


def test_no_envy_bonus_for_own_or_dealer_hand() -> None:
    # Seat 2 holds four aces and a progressive wager: nobody else qualifies, so no Envy Bonus
    t = fcp_table()
    t.meter(600_000)
    t.round_start("R-1", "D-1")
    t.wager(2, "ante", 1000)
    t.wager(2, "progressive", 100)
    t.lockout(accepted=1)
    # the dealer holds four kings: it earns nobody an Envy Bonus
    fcp_deal(t, {2: ("Ah", "Ad", "Ac", "As", "3h")}, ("Kh", "Kd", "Kc", "Ks", "2c", "5d"))
    t.decision(2, "play", amount=1000)
    t.reveal("dealer")
    t.settle(2, "ante", "win", 1000)
    t.settle(2, "play", "win", 1000)
    t.settle(2, "ante_bonus", "win", 25_000)
    t.settle(2, "progressive", "win", 600_000, paid_from="cage", meter=600_000, validated_by="F")
    t.round_end()
    assert audit([t]) == []
    t.events.pop()
    t.seq -= 1
    t.round_id = "R-1"
    t.envy_payout(2, 2, 10_000)
    t.round_end()
    found = audit([t])
    assert codes(found) == ["ENVY_BONUS_WRONG"]


def _progressive_settled(seat: int, **change: Any) -> TableScript:
    """The golden round with the settle line of ``seat``'s progressive wager changed."""
    t = golden_round()
    at = next(
        i
        for i, e in enumerate(t.events)
        if isinstance(e, Settle) and (e.seat, e.bet) == (seat, "progressive")
    )
    t.events[at] = msgspec.structs.replace(t.events[at], **change)
    return t


def test_progressive_payouts_need_a_floorperson_and_the_meter_one_another_source() -> None:
    """Twins of the clean golden round (paid from the cage, validated by FL-2)."""
    # seat 2, three nines: a fixed $4,500; validated by a floorperson, from any source
    found = audit([_progressive_settled(2, validated_by=None, paid_from="table_inventory")])
    assert [(f.check, f.seat, f.regulation) for f in found] == [
        ("JACKPOT_NOT_VALIDATED", 2, "§ 641a.11(c)(5)(iii)")
    ]
    # seat 1, four aces: 100% of the meter, never from the table inventory
    found = audit([_progressive_settled(1, paid_from="table_inventory")])
    assert [(f.check, f.seat, f.regulation) for f in found] == [
        ("JACKPOT_PAID_FROM_INVENTORY", 1, "§ 641a.11(c)(5)(iv)")
    ]
