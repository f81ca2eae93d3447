"""Three Card Poker rounds judged: every bet's settlement worked out by hand, each check of the
game raised and not raised.

Table TCP-1 (CONFIG below): Pair Plus 40-30-6-3-1, Ante bonus 5-4-1, Six Card Bonus
1000-200-50-25-20-10-5, progressive (mini-royal 100% of meter, straight flush 500 for 1,
trips 70 for 1, straight 6 for 1, flush not paid), Envy $100 (mini-royal) / $50 (straight
flush) per $1. Ch. 649a was not read: every finding cites a section number only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from tablewatch.rules.findings import Finding
from tablewatch.script import TableScript
from tests.audit_json import audit_json, findings_of
from tests.scenarios import audit, rounds

CONFIG: dict[str, Any] = {
    "tables": {
        "TCP-1": {
            "game": "three_card_poker",
            "paytables": {
                "pair_plus": {"rows": [40, 30, 6, 3, 1]},
                "ante_bonus": {"rows": [5, 4, 1]},
                "six_card_bonus": {"rows": [1000, 200, 50, 25, 20, 10, 5]},
                "progressive": {"rows": ["100% of meter", "500 for 1", "70 for 1", "6 for 1", 0]},
                "envy": {"rows": ["$100", "$50", 0, 0, 0]},
            },
            "counting_shuffler": True,
            "progressive_reset": 100_000,
        },
        "TCP-2": {  # no Six Card Bonus, no progressive
            "game": "three_card_poker",
            "paytables": {
                "pair_plus": {"rows": [40, 30, 6, 4, 1]},
                "ante_bonus": {"rows": [5, 4, 1]},
            },
            "counting_shuffler": True,
        },
    }
}

# Dealer Kd 7c 4s: king high, qualifies (queen high or better).
# Seat 1: As Ks Qs, a mini-royal (straight flush). Ante $10, Play $10, Pair Plus $5,
#   Six Card Bonus $5, progressive $1. Ante and Play win 1 to 1: $10, $10. Ante bonus
#   straight flush 5 to 1: $50. Pair Plus straight flush 40 to 1: $200. Six cards
#   As Ks Qs Kd 7c 4s: a pair of kings, not paid. Progressive: 100% of the $2,500 meter.
# Seat 2: 8h 8d 8c, three eights. Ante $10, Play $10, Pair Plus $10, progressive $5.
#   Ante, Play: $10, $10. Ante bonus trips 4 to 1: $40. Pair Plus trips 30 to 1: $300.
#   Progressive trips 70 for 1 on $5: $350. Envy for seat 1's mini-royal: $100 x 5 = $500.
# Seat 3: 7h 7d 2c, folds. Ante $10, Pair Plus $5, Six Card Bonus $5. The fold loses
#   Ante and Pair Plus (the pair is not paid); the Six Card Bonus is settled all the same:
#   7h 7d 2c Kd 7c 4s is three sevens, 5 to 1: $25.
# Seat 5: Jh Tc 3d, jack high, plays. Ante $10, Play $10: the dealer's king wins both. No
#   Ante bonus.
EXPECTED_PAID = {
    (1, "ante"): 1_000,
    (1, "play"): 1_000,
    (1, "ante_bonus"): 5_000,
    (1, "pair_plus"): 20_000,
    (1, "six_card_bonus"): 0,
    (1, "progressive"): 250_000,
    (2, "ante"): 1_000,
    (2, "play"): 1_000,
    (2, "ante_bonus"): 4_000,
    (2, "pair_plus"): 30_000,
    (2, "progressive"): 35_000,
    (3, "ante"): 0,
    (3, "pair_plus"): 0,
    (3, "six_card_bonus"): 2_500,
    (5, "ante"): 0,
    (5, "play"): 0,
}
EXPECTED_ENVY = {(2, 1): 50_000}
HANDS = {1: ("As", "Ks", "Qs"), 2: ("8h", "8d", "8c"), 3: ("7h", "7d", "2c"), 5: ("Jh", "Tc", "3d")}
DEALER = ("Kd", "7c", "4s")
WAGERS = (
    (1, "ante", 1_000),
    (1, "pair_plus", 500),
    (1, "six_card_bonus", 500),
    (1, "progressive", 100),
    (2, "ante", 1_000),
    (2, "pair_plus", 1_000),
    (2, "progressive", 500),
    (3, "ante", 1_000),
    (3, "pair_plus", 500),
    (3, "six_card_bonus", 500),
    (5, "ante", 1_000),
)


def table(table_id: str = "TCP-1") -> TableScript:
    t = TableScript(table_id)
    t.table_open("three_card_poker")
    t.deck_in("D-1", "hand")
    t.shuffle("D-1", 52)
    return t


def deal(t: TableScript, hands: Mapping[int, Sequence[str]], dealer: Sequence[str]) -> None:
    """Three cards to each seat and three to the dealer, one at a time, all face down."""
    for i in range(len(dealer)):
        for seat in sorted(hands):
            if i < len(hands[seat]):
                t.card(f"seat:{seat}", hands[seat][i])
        t.card("dealer", dealer[i])


def golden_round(
    *,
    paid: dict[tuple[int, str], int] | None = None,
    skip: tuple[int, str] | None = None,
    decisions: Sequence[tuple[int, str, int | None]] = (
        (1, "play", 1_000),
        (2, "play", 1_000),
        (3, "fold", None),
        (5, "play", 1_000),
    ),
    envy: bool = True,
) -> TableScript:
    paid = {**EXPECTED_PAID, **(paid or {})}
    t = table()
    t.meter(250_000)
    t.round_start("R-G1", "D-1")
    for seat, bet, amount in WAGERS:
        t.wager(seat, bet, amount)
    t.lockout(accepted=2)
    deal(t, HANDS, DEALER)
    for seat, action, play in decisions:
        t.decision(seat, action, amount=play)
    t.reveal("dealer")
    for (seat, bet), amount in paid.items():
        if (seat, bet) == skip:
            continue
        extra: dict[str, Any] = {}
        if bet == "progressive" and amount:
            extra = {"paid_from": "cage", "validated_by": "FL-2"}
            if seat == 1:
                extra["meter"] = 250_000
        t.settle(seat, bet, "win" if amount else "lose", amount, **extra)
    for (seat, for_seat), amount in EXPECTED_ENVY.items() if envy else ():
        t.envy_payout(seat, for_seat, amount)
    t.round_end()
    return t


def judged(*scripts: TableScript) -> list[Finding]:
    return audit(scripts, CONFIG)


def summary(found: list[Finding]) -> list[tuple[Any, ...]]:
    return [(f.check, f.regulation, f.seat, f.bet, f.expected, f.actual) for f in found]


def duel(
    player: Sequence[str],
    dealer: Sequence[str],
    settles: Mapping[str, tuple[str, int]],
    *,
    action: str = "play",
    pair_plus: int = 0,
    six_card_bonus: int = 0,
) -> TableScript:
    """Seat 3 alone: Ante $10 (and the side bets given), then ``action``, then ``settles``."""
    t = table()
    t.round_start("R-1", "D-1")
    t.wager(3, "ante", 1_000)
    if pair_plus:
        t.wager(3, "pair_plus", pair_plus)
    if six_card_bonus:
        t.wager(3, "six_card_bonus", six_card_bonus)
    t.lockout()
    deal(t, {3: player}, dealer)
    t.decision(3, action, amount=1_000 if action == "play" else None)
    t.reveal("dealer")
    for bet, (result, amount) in settles.items():
        t.settle(3, bet, result, amount)
    t.round_end()
    return t


# ---- the golden round -------------------------------------------------------------------


def test_golden_round_is_clean() -> None:
    assert judged(golden_round()) == []


def test_golden_round_expected_settlement() -> None:
    (result,) = rounds([golden_round()], CONFIG)
    assert {(s.seat, s.bet): s.expected_paid for s in result.settlements} == EXPECTED_PAID


def test_pair_plus_underpaid_cites_the_payout_section() -> None:
    found = judged(golden_round(paid={(2, "pair_plus"): 20_000}))
    assert summary(found) == [("WRONG_PAYOUT", "§ 649a.12", 2, "pair_plus", 30_000, 20_000)]


def test_the_envy_bonus_is_due() -> None:
    found = judged(golden_round(envy=False))
    assert [(f.check, f.seat, f.expected) for f in found] == [("ENVY_BONUS_WRONG", 2, 50_000)]


# ---- settlement of every bet --------------------------------------------------------------


def test_a_fold_loses_ante_and_pair_plus() -> None:
    # a pair of sevens folded: the Pair Plus it would have won (1 to 1) is lost with the Ante
    player, dealer = ("7h", "7d", "2c"), ("9s", "5d", "3h")
    lost = {"ante": ("lose", 0), "pair_plus": ("lose", 0)}
    assert judged(duel(player, dealer, lost, action="fold", pair_plus=500)) == []
    paid = {"ante": ("lose", 0), "pair_plus": ("win", 500)}
    found = judged(duel(player, dealer, paid, action="fold", pair_plus=500))
    assert summary(found) == [("WRONG_PAYOUT", "§ 649a.11", 3, "pair_plus", 0, 500)]


def test_dealer_not_qualifying_wins_the_ante_and_pushes_the_play() -> None:
    # dealer jack high (Jd 8s 3h): not qualified; the seat's ten high still wins its Ante
    player, dealer = ("Ts", "6h", "2d"), ("Jd", "8s", "3h")
    assert judged(duel(player, dealer, {"ante": ("win", 1_000), "play": ("push", 0)})) == []
    found = judged(duel(player, dealer, {"ante": ("win", 1_000), "play": ("lose", 0)}))
    assert [(f.check, f.bet, f.expected, f.actual) for f in found] == [
        ("WRONG_PAYOUT", "play", 0, 0)
    ]
    assert "the wager pushes" in found[0].message


def test_queen_high_qualifies() -> None:
    # dealer Q-3-2, the lowest qualifying hand, beats the seat's J-10-8
    player, dealer = ("Jc", "Td", "8h"), ("Qs", "3c", "2d")
    assert judged(duel(player, dealer, {"ante": ("lose", 0), "play": ("lose", 0)})) == []


def test_a_tie_pushes_ante_and_play() -> None:
    player, dealer = ("Kh", "9d", "5c"), ("Kc", "9s", "5h")
    assert judged(duel(player, dealer, {"ante": ("push", 0), "play": ("push", 0)})) == []
    found = judged(duel(player, dealer, {"ante": ("win", 1_000), "play": ("win", 1_000)}))
    assert [(f.check, f.bet, f.expected, f.actual) for f in found] == [
        ("WRONG_PAYOUT", "ante", 0, 1_000),
        ("WRONG_PAYOUT", "play", 0, 1_000),
    ]


def test_the_ante_bonus_is_paid_when_the_dealer_wins() -> None:
    # a straight 4-5-6 loses to the dealer's three queens, yet its Ante bonus (1 to 1) is due
    player, dealer = ("4h", "5d", "6c"), ("Qh", "Qd", "Qc")
    settles = {"ante": ("lose", 0), "play": ("lose", 0), "ante_bonus": ("win", 1_000)}
    assert judged(duel(player, dealer, settles)) == []
    del settles["ante_bonus"]
    found = judged(duel(player, dealer, settles))
    assert summary(found) == [("WRONG_PAYOUT", "§ 649a.12", 3, "ante_bonus", 1_000, 0)]


def test_no_ante_bonus_after_a_fold() -> None:
    player, dealer = ("4h", "5d", "6c"), ("Qh", "Qd", "Qc")
    settles = {"ante": ("lose", 0), "ante_bonus": ("win", 1_000)}
    found = judged(duel(player, dealer, settles, action="fold"))
    assert [(f.check, f.bet, f.expected, f.actual) for f in found] == [
        ("WRONG_PAYOUT", "ante_bonus", 0, 1_000)
    ]


def test_three_card_ranks_straight_beats_flush_and_a23_is_the_lowest_straight() -> None:
    # A-2-3 is a straight: it beats the dealer's flush (straight above flush in three cards);
    # Pair Plus straight 6 to 1 on $5: $30; Ante bonus straight 1 to 1: $10
    player, dealer = ("Ah", "2d", "3c"), ("Ks", "9s", "4s")
    settles = {
        "ante": ("win", 1_000),
        "play": ("win", 1_000),
        "ante_bonus": ("win", 1_000),
        "pair_plus": ("win", 3_000),
    }
    assert judged(duel(player, dealer, settles, pair_plus=500)) == []
    # ... and the lowest: 2-3-4 beats it
    settles = {"ante": ("lose", 0), "play": ("lose", 0), "ante_bonus": ("win", 1_000)}
    assert judged(duel(player, ("2h", "3s", "4d"), settles)) == []


def test_k_a_2_is_no_straight() -> None:
    # K-A-2 is ace high: it beats the dealer's queen high, but no Pair Plus and no Ante bonus
    player, dealer = ("Ks", "Ad", "2c"), ("Qh", "8d", "5s")
    settles = {"ante": ("win", 1_000), "play": ("win", 1_000), "pair_plus": ("lose", 0)}
    assert judged(duel(player, dealer, settles, pair_plus=500)) == []
    settles["pair_plus"] = ("win", 3_000)
    found = judged(duel(player, dealer, settles, pair_plus=500))
    assert summary(found) == [("WRONG_PAYOUT", "§ 649a.12", 3, "pair_plus", 0, 3_000)]


def test_the_six_card_bonus_after_a_fold() -> None:
    # folded 5-5-9; with the dealer's 5-9-9 the six cards hold a full house, 25 to 1 on $5
    player, dealer = ("5h", "5d", "9c"), ("5s", "9h", "9d")
    settles = {"ante": ("lose", 0), "six_card_bonus": ("win", 12_500)}
    assert judged(duel(player, dealer, settles, action="fold", six_card_bonus=500)) == []
    settles["six_card_bonus"] = ("lose", 0)
    found = judged(duel(player, dealer, settles, action="fold", six_card_bonus=500))
    assert summary(found) == [("WRONG_PAYOUT", "§ 649a.12", 3, "six_card_bonus", 12_500, 0)]


def test_the_progressive_pays_after_a_fold_validated() -> None:
    # a folded straight flush 6-7-8 of hearts: 500 for 1 on $1, validated by a floorperson
    t = table()
    t.round_start("R-1", "D-1")
    t.wager(3, "ante", 1_000)
    t.wager(3, "progressive", 100)
    t.lockout(accepted=1)
    deal(t, {3: ("6h", "7h", "8h")}, ("Ac", "Kd", "2s"))
    t.decision(3, "fold")
    t.reveal("dealer")
    t.settle(3, "ante", "lose")
    t.settle(3, "progressive", "win", 50_000, paid_from="cage", validated_by="FL-1")
    t.round_end()
    assert judged(t) == []
    t.events[-2] = t.events[-2].__class__(
        **{
            **{f: getattr(t.events[-2], f) for f in t.events[-2].__struct_fields__},
            "validated_by": None,
        }
    )
    assert [(f.check, f.regulation) for f in judged(t)] == [("JACKPOT_NOT_VALIDATED", "§ 649a.11")]


# ---- the game's own checks ------------------------------------------------------------


def test_play_other_than_the_ante() -> None:
    decisions = ((1, "play", 2_000), (2, "play", 1_000), (3, "fold", None), (5, "play", 1_000))
    found = judged(golden_round(decisions=decisions, paid={(1, "play"): 2_000}))
    assert summary(found) == [("PLAY_WAGER_OUT_OF_RANGE", "§ 649a.7", 1, "play", 1_000, 2_000)]
    assert (
        found[0].message
        == "Play wager of $20.00 other than the Ante of $10.00 (the Play equals the Ante)"
    )


def test_decision_missing_settled_as_a_fold() -> None:
    # seat 3 neither plays nor folds: its Ante and Pair Plus lose as after a fold, the Six
    # Card Bonus is paid on the cards; the golden settlement stays right
    decisions = ((1, "play", 1_000), (2, "play", 1_000), (5, "play", 1_000))
    found = judged(golden_round(decisions=decisions))
    assert summary(found) == [("DECISION_MISSING", "§ 649a.11", 3, "ante", None, 1_000)]
    assert found[0].message == (
        "seat 3 neither played nor folded on its ante of $10.00 before the dealer's cards were "
        "turned: its wagers are settled as after a fold"
    )


def test_decision_after_the_reveal_is_missing() -> None:
    t = table("TCP-2")
    t.round_start("R-1", "D-1")
    t.wager(4, "ante", 1_000)
    t.lockout()
    deal(t, {4: ("Qc", "Jd", "9h")}, ("Ah", "3c", "2d"))
    reveal = t.reveal("dealer")
    play = t.decision(4, "play", amount=1_000)
    t.settle(4, "ante", "lose")
    t.settle(4, "play", "returned")  # made too late: handed back
    t.round_end()
    (found,) = judged(t)
    assert (found.check, found.seat) == ("DECISION_MISSING", 4)
    assert found.message.endswith("(its play came after): its wagers are settled as after a fold")
    assert found.event_ids[-2:] == (reveal.event_id, play.event_id)


def test_no_decision_missing_in_a_voided_round() -> None:
    t = table("TCP-2")
    t.round_start("R-1", "D-1")
    t.wager(4, "ante", 1_000)
    t.lockout()
    deal(t, {4: ("Qc", "Jd", "9h")}, ("Ah", "3c", "2d"))
    t.void("dealer error")
    t.settle(4, "ante", "returned")
    t.round_end()
    assert judged(t) == []


# ---- the checks common to all games, with this game's sections ------------------------


def test_a_seat_dealt_two_cards_is_a_misdeal() -> None:
    t = table("TCP-2")
    t.round_start("R-1", "D-1")
    t.wager(4, "ante", 1_000)
    t.lockout()
    deal(t, {4: ("Qc", "Jd")}, ("Ah", "3c", "2d"))
    t.decision(4, "fold")
    t.reveal("dealer")
    t.settle(4, "ante", "lose")
    t.round_end()
    found = judged(t)
    assert [(f.check, f.regulation) for f in found] == [("ROUND_NOT_VOIDED", "§ 649a.13")]
    assert found[0].message.startswith("seat 4 was dealt 2 card(s), not 3")


def test_a_dealer_dealt_four_cards_is_a_misdeal_and_voiding_it_is_right() -> None:
    def misdealt(voided: bool) -> TableScript:
        t = table("TCP-2")
        t.round_start("R-1", "D-1")
        t.wager(4, "ante", 1_000)
        t.lockout()
        deal(t, {4: ("Qc", "Jd", "9h")}, ("Ah", "3c", "2d", "7s"))
        if voided:
            t.void("misdeal")
            t.settle(4, "ante", "returned")
        else:
            t.decision(4, "fold")
            t.reveal("dealer")
            t.settle(4, "ante", "lose")
        t.round_end()
        return t

    found = judged(misdealt(voided=False))
    assert [(f.check, f.regulation) for f in found] == [("ROUND_NOT_VOIDED", "§ 649a.13")]
    assert found[0].message.startswith("the dealer was dealt 4 card(s), not 3")
    assert judged(misdealt(voided=True)) == []


def test_a_dealer_card_exposed_before_the_reveal() -> None:
    t = table("TCP-2")
    t.round_start("R-1", "D-1")
    t.wager(4, "ante", 1_000)
    t.lockout()
    deal(t, {4: ("Qc", "Jd", "9h")}, ("Ah", "3c", "2d"))
    t.card_exposed("dealer", "3c")
    t.decision(4, "fold")
    t.reveal("dealer")
    t.settle(4, "ante", "lose")
    t.round_end()
    assert [(f.check, f.regulation) for f in judged(t)] == [("ROUND_NOT_VOIDED", "§ 649a.13")]


def test_a_wager_the_table_does_not_offer() -> None:
    t = table("TCP-2")
    t.round_start("R-1", "D-1")
    t.wager(4, "ante", 1_000)
    t.wager(4, "six_card_bonus", 500)
    t.lockout()
    deal(t, {4: ("Qc", "Jd", "9h")}, ("Ah", "3c", "2d"))
    t.decision(4, "fold")
    t.reveal("dealer")
    t.settle(4, "ante", "lose")
    t.settle(4, "six_card_bonus", "lose")
    t.round_end()
    found = judged(t)
    assert [(f.check, f.regulation, f.bet) for f in found] == [
        ("WAGER_NOT_OFFERED", "§ 649a.7", "six_card_bonus")
    ]


def test_a_bet_after_the_lockout_and_an_unsettled_wager() -> None:
    t = table("TCP-2")
    t.round_start("R-1", "D-1")
    t.wager(4, "ante", 1_000)
    t.lockout()
    t.wager(4, "pair_plus", 500)
    deal(t, {4: ("Qc", "Jd", "9h")}, ("Ah", "3c", "2d"))
    t.decision(4, "fold")
    t.reveal("dealer")
    t.settle(4, "ante", "lose")
    t.round_end()
    found = judged(t)
    assert sorted((f.check, f.regulation, f.bet) for f in found) == [
        ("BET_AFTER_LOCKOUT", "§ 649a.7", "pair_plus"),
        ("UNSETTLED_WAGER", "§ 649a.11", "pair_plus"),
    ]


# ---- the audit command on a hand-written event file ------------------------------------

SHIFT = Path(__file__).resolve().parent / "three_card_poker_shift"


def test_the_audit_command_judges_a_hand_written_round() -> None:
    # Dealer 9s 6h 2d, nine high: not qualified. Seat 2 (Th Td 4c, a pair of tens) plays:
    # Ante wins $5, Play pushes, Pair Plus pays 1 to 1, $5 (settled `lose`: WRONG_PAYOUT).
    # Seat 4 (3s 8c Kh) neither plays nor folds: DECISION_MISSING; its Ante collected as
    # after a fold, rightly.
    result = audit_json(SHIFT / "events.jsonl", SHIFT / "tables.yaml")
    found = findings_of(result)
    assert [
        (f["check"], f["regulation"], f["seat"], f["bet"], f["expected"], f["actual"])
        for f in found
    ] == [
        ("DECISION_MISSING", "§ 649a.11", 4, "ante", None, 500),
        ("WRONG_PAYOUT", "§ 649a.12", 2, "pair_plus", 500, 0),
    ]
    assert "24 events (0 duplicates ignored, 0 rejected), 1 rounds, 2 findings" in result.stderr
