"""Every check code: an event stream that must raise it, and a near twin that must not."""

from __future__ import annotations

from tablewatch.script import TableScript
from tests.scenarios import (
    audit,
    codes,
    fcp_deal,
    fcp_table,
    lir_deal,
    lir_round,
    lir_table,
)


def test_clean_protocol_example_raises_nothing() -> None:
    t = lir_table()
    lir_round(t)
    assert audit([t]) == []


# ---- WRONG_PAYOUT -------------------------------------------------------------


def _lir_paid(bet1_paid: int) -> TableScript:
    t = lir_table()
    t.round_start("R-1", "D-1")
    for bet in ("bet1", "bet2", "bet3"):
        t.wager(2, bet, 2500)
    t.lockout()
    lir_deal(t, {2: ("Ah", "Ad", "3c")}, ("7s", "9d"))
    t.stub_count(47)
    t.decision(2, "ride", "bet1")
    t.reveal("community", 1)
    t.decision(2, "ride", "bet2")
    t.reveal("community", 2)
    t.settle(2, "bet1", "win", bet1_paid)
    t.settle(2, "bet2", "win", 2500)
    t.settle(2, "bet3", "win", 2500)
    t.round_end()
    return t


def test_wrong_payout_overpaid() -> None:
    found = audit([_lir_paid(5000)])
    assert codes(found) == ["WRONG_PAYOUT"]
    (f,) = found
    assert (f.seat, f.bet, f.expected, f.actual) == (2, "bet1", 2500, 5000)
    assert f.regulation == "§ 643a.12(a)"
    assert f.severity == "critical"
    assert f.round_id == "R-1"
    assert len(f.event_ids) == 1


def test_wrong_payout_twin_correct() -> None:
    assert audit([_lir_paid(2500)]) == []


def test_wrong_payout_loser_paid_and_winner_collected() -> None:
    t = lir_table()
    # pair of nines loses on all three bets: a 1 to 1 payment is wrong
    lir_round(t, hand=("9h", "9c", "3c"), community=("7s", "2d"), paid_each=2500)
    found = audit([t])
    assert codes(found) == ["WRONG_PAYOUT"] * 3
    assert {(f.expected, f.actual) for f in found} == {(0, 2500)}
    t = lir_table()
    lir_round(t, paid_each=0)  # pair of aces collected
    found = audit([t])
    assert codes(found) == ["WRONG_PAYOUT"] * 3
    assert {(f.expected, f.actual) for f in found} == {(2500, 0)}


# ---- BET_AFTER_LOCKOUT ----------------------------------------------------------


def _late_side_bet(late: bool) -> TableScript:
    t = lir_table()
    t.round_start("R-1", "D-1")
    for bet in ("bet1", "bet2", "bet3"):
        t.wager(2, bet, 2500)
    if not late:
        t.wager(2, "three_card_bonus", 500)
    t.lockout()
    if late:
        t.wager(2, "three_card_bonus", 500)
    lir_deal(t, {2: ("Ah", "Ad", "3c")}, ("7s", "9d"))
    t.stub_count(47)
    t.reveal("community", 1)
    t.reveal("community", 2)
    for bet in ("bet1", "bet2", "bet3"):
        t.settle(2, bet, "win", 2500)
    t.settle(2, "three_card_bonus", "win", 500)  # pair: 1 to 1 (table D)
    t.round_end()
    return t


def test_bet_after_lockout() -> None:
    found = audit([_late_side_bet(late=True)])
    assert codes(found) == ["BET_AFTER_LOCKOUT"]
    assert found[0].bet == "three_card_bonus"
    assert found[0].regulation == "§ 643a.7(c)"


def test_bet_after_lockout_twin() -> None:
    assert audit([_late_side_bet(late=False)]) == []


# ---- PROGRESSIVE_COUNT_MISMATCH ---------------------------------------------------


def _progressive_round(
    chips: int, *, paid_from: str = "cage", validated: bool = True
) -> TableScript:
    """Seat 1 holds a spade mini-royal: 100% of the meter on a $1 progressive wager."""
    t = lir_table()
    t.meter(250_000)
    t.round_start("R-1", "D-1")
    for bet in ("bet1", "bet2", "bet3"):
        t.wager(1, bet, 1000)
    t.wager(1, "progressive", 100)
    t.lockout(accepted=1, chips=chips)
    lir_deal(t, {1: ("As", "Ks", "Qs")}, ("7h", "7d"))
    t.stub_count(47)
    t.reveal("community", 1)
    t.reveal("community", 2)
    for bet in ("bet1", "bet2", "bet3"):
        t.settle(1, bet, "lose")  # pair of sevens
    t.settle(
        1,
        "progressive",
        "win",
        250_000,
        paid_from=paid_from,
        meter=250_000,
        validated_by="FL-9" if validated else None,
    )
    t.round_end()
    return t


def test_progressive_count_mismatch() -> None:
    found = audit([_progressive_round(chips=2)])
    assert codes(found) == ["PROGRESSIVE_COUNT_MISMATCH"]
    assert found[0].regulation == "§ 643a.9(a)(3)(ii)"


def test_progressive_count_twin_and_jackpot_clean() -> None:
    assert audit([_progressive_round(chips=1)]) == []


# ---- JACKPOT_PAID_FROM_INVENTORY / JACKPOT_NOT_VALIDATED ------------------------------


def test_jackpot_paid_from_inventory() -> None:
    found = audit([_progressive_round(chips=1, paid_from="table_inventory")])
    assert codes(found) == ["JACKPOT_PAID_FROM_INVENTORY"]
    assert found[0].regulation == "§ 643a.11(g)(3)(iv)"
    assert found[0].actual == 250_000


def test_jackpot_not_validated() -> None:
    found = audit([_progressive_round(chips=1, validated=False)])
    assert codes(found) == ["JACKPOT_NOT_VALIDATED"]
    assert found[0].regulation == "§ 643a.11(g)(3)(iii)"


# ---- STUB_COUNT_MISSING ------------------------------------------------------------


def test_stub_count_missing_on_fifth_round() -> None:
    t = lir_table()
    for i in range(1, 11):
        lir_round(t, f"R-{i}", stub=False)
    found = audit([t])
    assert codes(found) == ["STUB_COUNT_MISSING"] * 2
    assert [f.round_id for f in found] == ["R-5", "R-10"]
    assert found[0].regulation == "§ 643a.9(d)"
    assert len(found[0].event_ids) == 5


def test_stub_count_missing_twin() -> None:
    t = lir_table()
    for i in range(1, 9):
        lir_round(t, f"R-{i}", stub=i in (4, 8))
    assert audit([t]) == []
    counting = TableScript("LIR-C")
    counting.deck_in("D-1", "manual_shoe")
    for i in range(1, 7):
        lir_round(counting, f"R-{i}", stub=False)
    assert audit([counting]) == []


# ---- STUB_COUNT_MISMATCH -----------------------------------------------------------


def _stub(count: int, *, void: bool = False) -> TableScript:
    t = lir_table()
    t.round_start("R-1", "D-1")
    for bet in ("bet1", "bet2", "bet3"):
        t.wager(2, bet, 2500)
    t.lockout()
    lir_deal(t, {2: ("Ah", "Ad", "3c")}, ("7s", "9d"))
    t.stub_count(count)
    if void:
        t.void("stub count wrong")
        for bet in ("bet1", "bet2", "bet3"):
            t.settle(2, bet, "returned")
    else:
        t.reveal("community", 1)
        t.reveal("community", 2)
        for bet in ("bet1", "bet2", "bet3"):
            t.settle(2, bet, "win", 2500)
    t.round_end()
    return t


def test_stub_count_mismatch() -> None:
    found = audit([_stub(46)])
    assert codes(found) == ["STUB_COUNT_MISMATCH"]
    assert found[0].regulation == "§ 643a.9(f)"


def test_stub_count_mismatch_twins() -> None:
    assert audit([_stub(47)]) == []
    assert audit([_stub(46, void=True)]) == []


# ---- SHUFFLER_COUNT_MISMATCH ---------------------------------------------------------


def _shuffled(count: int, *, changed: bool = False) -> TableScript:
    t = TableScript("LIR-C")
    t.deck_in("D-1", "automated_shoe")
    t.shuffle("D-1", count)
    if changed:
        t.deck_out("D-1", "shuffler count")
        t.deck_in("D-2", "automated_shoe")
        t.shuffle("D-2", 52)
    t.round_start("R-1", "D-2" if changed else "D-1")
    for bet in ("bet1", "bet2", "bet3"):
        t.wager(2, bet, 2500)
    t.lockout()
    lir_deal(t, {2: ("Ah", "Ad", "3c")}, ("7s", "9d"))
    t.reveal("community", 1)
    t.reveal("community", 2)
    for bet in ("bet1", "bet2", "bet3"):
        t.settle(2, bet, "win", 2500)
    t.round_end()
    return t


def test_shuffler_count_mismatch() -> None:
    found = audit([_shuffled(51)])
    assert codes(found) == ["SHUFFLER_COUNT_MISMATCH"]
    assert found[0].regulation == "§ 643a.5(b)"


def test_shuffler_count_twins() -> None:
    assert audit([_shuffled(52)]) == []
    assert audit([_shuffled(51, changed=True)]) == []


# ---- ENVY_BONUS_WRONG (Four Card Poker) ------------------------------------------------


def _fcp_envy(envy_paid: int | None, *, own: bool = False) -> TableScript:
    """Seat 1: four kings (qualifying, table A: $10 per $1); seat 3: $1 progressive, folds."""
    t = fcp_table()
    t.meter(600_000)
    t.round_start("R-1", "D-1")
    t.wager(1, "ante", 1000)
    t.wager(1, "progressive", 100)
    t.wager(3, "ante", 1000)
    t.wager(3, "progressive", 100)
    t.lockout(accepted=2)
    fcp_deal(
        t,
        {1: ("Kh", "Kd", "Kc", "Ks", "2c"), 3: ("4c", "6d", "8h", "Tc", "Qd")},
        ("3h", "3d", "7c", "7s", "9h", "Jd"),
    )
    t.decision(1, "play", amount=3000)
    t.decision(3, "fold")
    t.reveal("dealer")
    t.settle(1, "ante", "win", 1000)
    t.settle(1, "play", "win", 3000)
    t.settle(1, "ante_bonus", "win", 25_000)
    t.settle(1, "progressive", "win", 30_000, paid_from="table_inventory", validated_by="FL-1")
    t.settle(3, "ante", "lose")
    t.settle(3, "progressive", "lose")
    if envy_paid is not None:
        t.envy_payout(3, 1, envy_paid)
    if own:
        t.envy_payout(1, 1, 1000)
    t.round_end()
    return t


def test_envy_bonus_clean_for_folded_player() -> None:
    assert audit([_fcp_envy(1000)]) == []


def test_envy_bonus_missing_wrong_and_own_hand() -> None:
    missing = audit([_fcp_envy(None)])
    assert codes(missing) == ["ENVY_BONUS_WRONG"]
    assert (missing[0].seat, missing[0].expected, missing[0].actual) == (3, 1000, 0)
    wrong = audit([_fcp_envy(500)])
    assert codes(wrong) == ["ENVY_BONUS_WRONG"]
    assert (wrong[0].expected, wrong[0].actual) == (1000, 500)
    own = audit([_fcp_envy(1000, own=True)])
    assert codes(own) == ["ENVY_BONUS_WRONG"]
    assert "own hand" in own[0].message


# ---- PLAY_WAGER_OUT_OF_RANGE ---------------------------------------------------------------


def _fcp_play(play: int) -> TableScript:
    t = fcp_table()
    t.round_start("R-1", "D-1")
    t.wager(2, "ante", 1000)
    t.lockout()
    fcp_deal(t, {2: ("Ah", "Ad", "9c", "7d", "2s")}, ("3h", "4d", "8c", "Js", "Qh", "5c"))
    t.decision(2, "play", amount=play)
    t.reveal("dealer")
    t.settle(2, "ante", "win", 1000)  # pair of aces beats queen high
    t.settle(2, "play", "win", play)
    t.round_end()
    return t


def test_play_wager_out_of_range() -> None:
    found = audit([_fcp_play(4000)])
    assert codes(found) == ["PLAY_WAGER_OUT_OF_RANGE"]
    assert (found[0].expected, found[0].actual) == (3000, 4000)
    assert codes(audit([_fcp_play(500)])) == ["PLAY_WAGER_OUT_OF_RANGE"]


def test_play_wager_in_range() -> None:
    assert audit([_fcp_play(1000)]) == []
    assert audit([_fcp_play(3000)]) == []


# ---- UNEQUAL_BETS ------------------------------------------------------------------


def _bets(bet3: int) -> TableScript:
    t = lir_table()
    t.round_start("R-1", "D-1")
    t.wager(2, "bet1", 2500)
    t.wager(2, "bet2", 2500)
    t.wager(2, "bet3", bet3)
    t.lockout()
    lir_deal(t, {2: ("Ah", "Ad", "3c")}, ("7s", "9d"))
    t.stub_count(47)
    t.reveal("community", 1)
    t.reveal("community", 2)
    t.settle(2, "bet1", "win", 2500)
    t.settle(2, "bet2", "win", 2500)
    t.settle(2, "bet3", "win", bet3)
    t.round_end()
    return t


def test_unequal_bets() -> None:
    found = audit([_bets(5000)])
    assert codes(found) == ["UNEQUAL_BETS"]
    assert found[0].regulation == "§ 643a.7(d)"


def test_equal_bets() -> None:
    assert audit([_bets(2500)]) == []


# ---- LATE_WITHDRAWAL -----------------------------------------------------------------


def _pull(late: bool) -> TableScript:
    t = lir_table()
    t.round_start("R-1", "D-1")
    for bet in ("bet1", "bet2", "bet3"):
        t.wager(2, bet, 2500)
    t.lockout()
    lir_deal(t, {2: ("Ah", "Ad", "3c")}, ("7s", "9d"))
    t.stub_count(47)
    if not late:
        t.decision(2, "pull", "bet1")
    t.reveal("community", 1)
    if late:
        t.decision(2, "pull", "bet1")
    t.decision(2, "ride", "bet2")
    t.reveal("community", 2)
    t.settle(2, "bet2", "win", 2500)
    t.settle(2, "bet3", "win", 2500)
    t.round_end()
    return t


def test_late_withdrawal() -> None:
    found = audit([_pull(late=True)])
    assert codes(found) == ["LATE_WITHDRAWAL"]
    assert (found[0].seat, found[0].bet) == (2, "bet1")


def test_timely_withdrawal() -> None:
    assert audit([_pull(late=False)]) == []


# ---- UNSETTLED_WAGER -------------------------------------------------------------------


def _settles(bet3_lines: int) -> TableScript:
    t = lir_table()
    t.round_start("R-1", "D-1")
    for bet in ("bet1", "bet2", "bet3"):
        t.wager(2, bet, 2500)
    t.lockout()
    lir_deal(t, {2: ("Ah", "Ad", "3c")}, ("7s", "9d"))
    t.stub_count(47)
    t.reveal("community", 1)
    t.reveal("community", 2)
    t.settle(2, "bet1", "win", 2500)
    t.settle(2, "bet2", "win", 2500)
    for _ in range(bet3_lines):
        t.settle(2, "bet3", "win", 2500)
    t.round_end()
    return t


def test_unsettled_wager_never_and_twice() -> None:
    never = audit([_settles(0)])
    assert codes(never) == ["UNSETTLED_WAGER"]
    assert never[0].bet == "bet3"
    twice = audit([_settles(2)])
    assert codes(twice) == ["UNSETTLED_WAGER"]
    assert len(twice[0].event_ids) == 2


def test_settled_once() -> None:
    assert audit([_settles(1)]) == []


# ---- ROUND_NOT_VOIDED / VOID_NOT_RETURNED --------------------------------------------------


def _exposed(*, void: bool, collected: bool = False) -> TableScript:
    t = lir_table()
    t.round_start("R-1", "D-1")
    for bet in ("bet1", "bet2", "bet3"):
        t.wager(2, bet, 2500)
    t.lockout()
    lir_deal(t, {2: ("Ah", "Ad", "3c")}, ("7s", "9d"))
    t.stub_count(47)
    t.card_exposed("community", "9d")
    if void:
        t.void("community card exposed")
        for bet in ("bet1", "bet2", "bet3"):
            t.settle(2, bet, "lose" if collected and bet == "bet3" else "returned")
    else:
        t.reveal("community", 1)
        t.reveal("community", 2)
        for bet in ("bet1", "bet2", "bet3"):
            t.settle(2, bet, "win", 2500)
    t.round_end()
    return t


def test_round_not_voided_after_exposure() -> None:
    found = audit([_exposed(void=False)])
    assert codes(found) == ["ROUND_NOT_VOIDED"]
    assert found[0].regulation == "§ 643a.13(d)"


def test_void_returned() -> None:
    assert audit([_exposed(void=True)]) == []


def test_void_not_returned() -> None:
    found = audit([_exposed(void=True, collected=True)])
    assert codes(found) == ["VOID_NOT_RETURNED"]
    assert found[0].bet == "bet3"


def test_round_not_voided_after_misdeal_and_shoe_fault() -> None:
    t = lir_table()
    t.round_start("R-1", "D-1")
    for bet in ("bet1", "bet2", "bet3"):
        t.wager(2, bet, 2500)
    t.lockout()
    t.cards("seat:2", ("Ah", "Ad"))  # two cards, not three
    t.cards("community", ("7s", "9d"))
    t.reveal("community", 1)
    t.reveal("community", 2)
    for bet in ("bet1", "bet2", "bet3"):
        t.settle(2, bet, "lose")
    t.round_end()
    found = audit([t])
    assert codes(found) == ["ROUND_NOT_VOIDED"]
    assert found[0].regulation == "§ 643a.13(c)"
    assert found[0].message.startswith("seat 2 was dealt 2 card(s), not 3:")
    f = fcp_table("FCP-1", "automated_shoe")
    f.round_start("R-1", "D-1")
    f.wager(2, "ante", 1000)
    f.lockout()
    fcp_deal(f, {2: ("Ah", "Ad", "9c", "7d", "2s")}, ("3h", "4d", "8c", "Js", "Qh", "5c"))
    f.device_fault("automated_shoe", "jam")
    f.decision(2, "play", amount=1000)
    f.reveal("dealer")
    f.settle(2, "ante", "win", 1000)
    f.settle(2, "play", "win", 1000)
    f.round_end()
    found = audit([f])
    assert codes(found) == ["ROUND_NOT_VOIDED"]
    assert found[0].regulation == "§ 641a.13(f)"


# ---- DUPLICATE_CARD --------------------------------------------------------------------------


def _lir_community_dealt(community: tuple[str, ...]) -> TableScript:
    t = lir_table()
    t.round_start("R-1", "D-1")
    for bet in ("bet1", "bet2", "bet3"):
        t.wager(2, bet, 2500)
    t.lockout()
    t.cards("seat:2", ("2c", "5d", "9h"))  # no pair with 7s Jd: every bet loses
    t.cards("community", community)
    t.reveal("community", 1)
    t.reveal("community", 2)
    for bet in ("bet1", "bet2", "bet3"):
        t.settle(2, bet, "lose")
    t.round_end()
    return t


def test_round_not_voided_after_a_short_deal_to_the_community_area() -> None:
    found = audit([_lir_community_dealt(("7s",))])
    assert codes(found) == ["ROUND_NOT_VOIDED"]
    assert found[0].regulation == "§ 643a.13(c)"
    assert found[0].message.startswith("the community area was dealt 1 card(s), not 2:")


def test_community_area_dealt_two_cards_twin() -> None:
    assert audit([_lir_community_dealt(("7s", "Jd"))]) == []


def test_duplicate_card() -> None:
    t = lir_table()
    lir_round(t, hand=("Ah", "Ad", "9d"), community=("7s", "9d"), paid_each=5000)
    found = audit([t])
    assert codes(found) == ["DUPLICATE_CARD"]
    assert found[0].regulation == "§ 643a.3(a)"
    t = lir_table()
    lir_round(t, hand=("Ah", "Ad", "9c"), community=("7s", "9d"), paid_each=5000)
    assert audit([t]) == []  # aces and nines: two pair, 2 to 1


def test_duplicate_card_in_a_hand_the_evaluators_refuse() -> None:
    """A hand holding a card twice has no rank: the audit reports the card, never crashes."""
    t = lir_table()
    lir_round(t, hand=("As", "Ks", "Ks"), community=("7s", "9d"), paid_each=0)
    assert codes(audit([t])) == ["DUPLICATE_CARD"]
    for player, dealer, found in (
        # five aces: no wager of the hand is priced, each handed back
        (("Ah", "Ad", "Ac", "As", "Ah"), ("3h", "4d", "8c", "Js", "Qh", "5c"), []),
        # the dealer's hand has no rank: Ante and Play unpriced; Aces Up still pays
        (("Ah", "Ad", "9c", "7d", "2s"), ("3h", "3h", "3h", "3h", "3h", "5c"), ["WRONG_PAYOUT"]),
    ):
        t = fcp_table()
        t.round_start("R-1", "D-1")
        t.wager(2, "ante", 1000)
        t.wager(2, "aces_up", 500)
        t.lockout()
        fcp_deal(t, {2: player}, dealer)
        t.decision(2, "play", amount=1000)
        t.reveal("dealer")
        for bet in ("ante", "play", "aces_up"):
            t.settle(2, bet, "returned")
        t.round_end()
        assert codes(audit([t])) == sorted(["DUPLICATE_CARD", *found])


# ---- DECK_CHANGE_OVERDUE ---------------------------------------------------------------------


def _deck_age(minutes: int, dealing: str) -> TableScript:
    t = TableScript("LIR-C")
    t.deck_in("D-1", dealing)
    t.wait(minutes * 60_000)
    lir_round(t, stub=False)
    return t


def test_deck_change_overdue() -> None:
    found = audit([_deck_age(4 * 60 + 1, "hand")])
    assert codes(found) == ["DECK_CHANGE_OVERDUE"]
    assert found[0].regulation == "§ 643a.3(c)(1)"
    assert codes(audit([_deck_age(8 * 60 + 1, "automated_shoe")])) == ["DECK_CHANGE_OVERDUE"]


def test_deck_in_time() -> None:
    assert audit([_deck_age(3 * 60 + 59, "hand")]) == []
    assert audit([_deck_age(4 * 60 + 1, "manual_shoe")]) == []


def test_deck_overdue_reported_once() -> None:
    t = _deck_age(5 * 60, "hand")
    lir_round(t, "R-2", stub=True)
    assert codes(audit([t])) == ["DECK_CHANGE_OVERDUE"]


# ---- SEQUENCE_GAP ---------------------------------------------------------------------------


def test_sequence_gap_in_round_and_at_table_level() -> None:
    t = lir_table()
    t.round_start("R-1", "D-1")
    t.skip_seq(3)
    for bet in ("bet1", "bet2", "bet3"):
        t.wager(2, bet, 2500)
    t.lockout()
    lir_deal(t, {2: ("Ah", "Ad", "3c")}, ("7s", "9d"))
    t.stub_count(47)
    t.reveal("community", 1)
    t.reveal("community", 2)
    for bet in ("bet1", "bet2", "bet3"):
        t.settle(2, bet, "win", 2500)
    t.round_end()
    t.skip_seq(1)
    t.dealer_change("DL-2")
    found = audit([t])
    assert codes(found) == ["SEQUENCE_GAP"] * 2
    assert [f.round_id for f in found] == ["R-1", None]
    assert "3 event(s) lost" in found[0].message


def test_no_sequence_gap_and_duplicates_ignored() -> None:
    t = lir_table()
    lir_round(t)
    t.resend(t.events[-1])
    t.resend(t.events[5])
    assert audit([t]) == []


# ---- ROUND_INCOMPLETE ------------------------------------------------------------------------


def test_round_incomplete_at_end_of_input() -> None:
    t = lir_table()
    lir_round(t)
    t.events.pop()  # no round_end
    found = audit([t])
    assert codes(found) == ["ROUND_INCOMPLETE"]


def test_round_incomplete_when_next_round_starts() -> None:
    t = lir_table()
    lir_round(t, "R-1")
    del t.events[-1]
    lir_round(t, "R-2")
    found = audit([t])
    assert codes(found) == ["ROUND_INCOMPLETE", "SEQUENCE_GAP"]
    assert {f.round_id for f in found} == {"R-1", "R-2"}


def test_round_complete() -> None:
    t = lir_table()
    lir_round(t)
    assert audit([t]) == []
