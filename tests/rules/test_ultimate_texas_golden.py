"""Golden Ultimate Texas Hold 'Em rounds: settlement worked out by hand from § 653a.12(a)-(c)
and the protocol, and every check of the game raised and not raised.

Community Kh Qh 7h 7d 2s; the dealer 9c 4d: a pair of sevens (K Q 9 kickers), qualifies.
- Seat 1: Ah 5h, flush. Ante $10, Blind $10, Play 4x before the flop ($40), Trips $5.
  Ante 1 to 1 $10; Play $40; Blind A flush 3 to 2 $15; Trips C flush 7 to 1 $35.
- Seat 2: Kc Ks, kings full of sevens. Ante $5, Blind $5, Play 2x after the flop ($10),
  Trips $5, progressive $1. Ante $5; Play $10; Blind A full house 3 to 1 $15; Trips C
  full house 8 to 1 $40; progressive full house row "50 for 1" $50 (validated).
- Seat 3: 3c 2c, two pair (sevens and twos). Ante $10, Blind $10, Play 1x after the river
  ($10). Ante $10; Play $10; Blind A pays no two pair: push.
- Seat 4: 7s 3d, three sevens; folds after the river. Ante $10, Blind $10 lose; Trips $5
  pays after the fold: three of a kind 3 to 1 $15.
- Seat 5: 9s 4s, the dealer's hand exactly (7 7 K Q 9): a tie. Ante $5, Blind $5, Play 3x
  before the flop ($15): all three push.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from tablewatch.rules.config import ConfigError, parse_config
from tablewatch.rules.games.ultimate_texas_holdem.paytables import BLIND, TRIPS
from tablewatch.rules.paytables.odds import to
from tablewatch.script import TableScript
from tests.audit_json import audit_json, findings_of
from tests.scenarios import audit, codes, rounds

TABLE = "UTH-G"
PROGRESSIVE_ROWS = ["100% of meter", "10% of meter", "500 for 1", "50 for 1", "40 for 1",
                    "30 for 1", "9 for 1"]  # fmt: skip
CONFIG: dict[str, Any] = {
    "tables": {
        TABLE: {
            "game": "ultimate_texas_holdem",
            "paytables": {"blind": "A", "trips": "C", "progressive": {"rows": PROGRESSIVE_ROWS}},
            "counting_shuffler": False,
            "progressive_reset": 100_000,
        }
    }
}

COMMUNITY = ("Kh", "Qh", "7h", "7d", "2s")
DEALER = ("9c", "4d")
PRE, FLOP, RIVER = 0, 1, 2  # the street a decision is made on


@dataclass
class Seat:
    cards: tuple[str, str]
    wagers: dict[str, int]
    decisions: list[tuple[int, str, int | None]]  # (street, action, amount)
    paid: dict[str, tuple[str, int]] = field(default_factory=dict)  # bet -> (result, paid)


def golden_seats() -> dict[int, Seat]:
    return {
        1: Seat(
            ("Ah", "5h"),
            {"ante": 1000, "blind": 1000, "trips": 500},
            [(PRE, "play", 4000)],
            {
                "ante": ("win", 1000),
                "blind": ("win", 1500),
                "play": ("win", 4000),
                "trips": ("win", 3500),
            },
        ),
        2: Seat(
            ("Kc", "Ks"),
            {"ante": 500, "blind": 500, "trips": 500, "progressive": 100},
            [(PRE, "check", None), (FLOP, "play", 1000)],
            {
                "ante": ("win", 500),
                "blind": ("win", 1500),
                "play": ("win", 1000),
                "trips": ("win", 4000),
                "progressive": ("win", 5000),
            },
        ),
        3: Seat(
            ("3c", "2c"),
            {"ante": 1000, "blind": 1000},
            [(PRE, "check", None), (FLOP, "check", None), (RIVER, "play", 1000)],
            {"ante": ("win", 1000), "blind": ("push", 0), "play": ("win", 1000)},
        ),
        4: Seat(
            ("7s", "3d"),
            {"ante": 1000, "blind": 1000, "trips": 500},
            [(PRE, "check", None), (FLOP, "check", None), (RIVER, "fold", None)],
            {"ante": ("lose", 0), "blind": ("lose", 0), "trips": ("win", 1500)},
        ),
        5: Seat(
            ("9s", "4s"),
            {"ante": 500, "blind": 500},
            [(PRE, "play", 1500)],
            {"ante": ("push", 0), "blind": ("push", 0), "play": ("push", 0)},
        ),
    }


def play_round(
    seats: Mapping[int, Seat],
    *,
    community: Sequence[str] = COMMUNITY,
    dealer: Sequence[str] = DEALER,
    before_reveal: Mapping[int, Sequence[tuple[str, str]]] | None = None,
    round_id: str = "R-1",
    chips: int | None = None,
    stub: int | None = None,
    validated_by: str | None = "FL-9",
    late_wager: tuple[int, str, int] | None = None,
    unsettled: tuple[int, str] | None = None,
    void: str | None = None,
    late_play: tuple[int, int] | None = None,
) -> TableScript:
    """One round: wagers, the deal, each street's decisions and reveal, settles as given.

    ``before_reveal``: card exposures (target, card) made on a street (0: before the flop's
    reveal, 1: before the turn and river's, 2: before the dealer's, 3: after it). The
    others change one thing each: the progressive chips counted at the lockout, the stub
    count, the floorperson of a progressive win, a wager after the lockout, a settle left
    out, a void before the settles, a Play (seat, amount) after the dealer's reveal.
    """
    exposures = before_reveal or {}
    t = TableScript(TABLE)
    t.table_open("ultimate_texas_holdem")
    t.deck_in("D-1", "hand")
    t.shuffle("D-1", None)
    t.round_start(round_id, "D-1")
    progressive: int = 0
    for seat, spec in seats.items():
        for bet, amount in spec.wagers.items():
            t.wager(seat, bet, amount)
            progressive += bet == "progressive"
    t.lockout(accepted=progressive, chips=chips)
    if late_wager is not None:
        t.wager(*late_wager)
    for i in range(2):
        for seat, spec in seats.items():
            t.card(f"seat:{seat}", spec.cards[i])
    t.cards("dealer", dealer)
    t.cards("community", community)
    t.stub_count(52 - 2 * len(seats) - len(dealer) - len(community) if stub is None else stub)
    reveals = (("community", 1), ("community", 2), ("dealer", None))
    for street, (target, index) in enumerate(reveals):
        for area, card in exposures.get(street, ()):
            t.card_exposed(area, card)
        for seat, spec in seats.items():
            for when, action, chips in spec.decisions:
                if when == street:
                    t.decision(seat, action, amount=chips)
        t.reveal(target, index)
    for area, card in exposures.get(len(reveals), ()):
        t.card_exposed(area, card)
    if late_play is not None:
        t.decision(late_play[0], "play", amount=late_play[1])
    if void is not None:
        t.void(void)
    for seat in reversed(list(seats)):
        for bet, (result, paid) in seats[seat].paid.items():
            if (seat, bet) == unsettled:
                continue
            extra: dict[str, Any] = {}
            if bet == "progressive" and result == "win":
                extra = {"paid_from": "cage", "validated_by": validated_by}
            t.settle(seat, bet, result, paid, **extra)
    t.round_end()
    return t


def found(seats: Mapping[int, Seat], **kwargs: Any) -> list[tuple[Any, ...]]:
    return [
        (f.check, f.seat, f.bet, f.expected, f.actual, f.regulation)
        for f in audit([play_round(seats, **kwargs)], CONFIG)
    ]


def test_golden_round_is_clean() -> None:
    assert audit([play_round(golden_seats())], CONFIG) == []


def test_golden_round_expected_settlement() -> None:
    (result,) = rounds([play_round(golden_seats())], CONFIG)
    expected = {(s.seat, s.bet): s.expected_paid for s in result.settlements}
    assert expected == {
        (seat, bet): paid for seat, spec in golden_seats().items()
        for bet, (_, paid) in spec.paid.items()
    }  # fmt: skip


def test_wrong_blind_payout_found() -> None:
    seats = golden_seats()
    seats[1].paid["blind"] = ("win", 1000)  # paid 1 to 1, not the flush's 3 to 2
    assert found(seats) == [("WRONG_PAYOUT", 1, "blind", 1500, 1000, "§ 653a.12(b)")]


# ---- settlement of each bet -------------------------------------------------------------


def one_seat(
    cards: tuple[str, str],
    decisions: list[tuple[int, str, int | None]],
    paid: dict[str, tuple[str, int]],
    wagers: dict[str, int] | None = None,
) -> dict[int, Seat]:
    return {2: Seat(cards, wagers or {"ante": 1000, "blind": 1000, "trips": 500}, decisions, paid)}


def test_dealer_not_qualifying_ante_pushes_other_bets_in_action() -> None:
    # Community Kh Qh 8c 5d 2s; the dealer 9c 4d: king high, does not qualify.
    community = ("Kh", "Qh", "8c", "5d", "2s")
    winner = one_seat(
        ("Ks", "3c"),  # pair of kings: wins Play; Blind pushes (a pair); Trips loses
        [(PRE, "play", 4000)],
        {"ante": ("push", 0), "blind": ("push", 0), "play": ("win", 4000), "trips": ("lose", 0)},
    )
    assert found(winner, community=community) == []
    loser = one_seat(
        ("6c", "3d"),  # K Q 8 6 5: under the dealer's K Q 9 8 5
        [(PRE, "check", None), (FLOP, "check", None), (RIVER, "play", 1000)],
        {"ante": ("push", 0), "blind": ("lose", 0), "play": ("lose", 0), "trips": ("lose", 0)},
    )
    assert found(loser, community=community) == []
    collected = one_seat(loser[2].cards, loser[2].decisions, {**loser[2].paid})
    collected[2].paid["ante"] = ("lose", 0)  # the Ante pushes when the dealer does not qualify
    assert found(collected, community=community) == [("WRONG_PAYOUT", 2, "ante", 0, 0, "§ 653a.11")]


def test_tie_pushes_ante_play_and_blind() -> None:
    seats = {5: golden_seats()[5]}
    assert found(seats) == []
    seats[5].paid["play"] = ("lose", 0)
    assert found(seats) == [("WRONG_PAYOUT", 5, "play", 0, 0, "§ 653a.11")]


def test_lower_hand_loses_ante_play_and_blind() -> None:
    seats = one_seat(
        ("Jc", "8s"),  # pair of sevens, K Q J: over the dealer's K Q 9 (a kicker decides)
        [(PRE, "check", None), (FLOP, "check", None), (RIVER, "play", 1000)],
        {"ante": ("win", 1000), "blind": ("push", 0), "play": ("win", 1000), "trips": ("lose", 0)},
    )
    assert found(seats) == []
    seats = one_seat(
        ("8c", "3s"),  # pair of sevens, K Q 8: under the dealer's K Q 9
        [(PRE, "check", None), (FLOP, "check", None), (RIVER, "play", 1000)],
        {"ante": ("lose", 0), "blind": ("lose", 0), "play": ("lose", 0), "trips": ("lose", 0)},
    )
    assert found(seats) == []


def test_blind_pays_by_table_b_which_pays_no_straight() -> None:
    # Jc Tc with the board's A K Q: a straight, ace high; the dealer's 9c 4d with
    # Kh Qh 7h Ad 2s is ace high, not qualifying: the Ante pushes.
    community = ("Kh", "Qh", "7h", "Ad", "2s")
    seats = one_seat(
        ("Jc", "Tc"),
        [(PRE, "play", 3000)],
        {
            "ante": ("push", 0),
            "blind": ("win", 1000),
            "play": ("win", 3000),
            "trips": ("win", 2000),
        },  # Blind A: straight 1 to 1; Trips C: straight 4 to 1
    )
    assert found(seats, community=community) == []
    document = {"tables": {TABLE: {**CONFIG["tables"][TABLE], "paytables": {"blind": "B"}}}}
    seats = one_seat(
        ("Jc", "Tc"),
        [(PRE, "play", 3000)],
        {"ante": ("push", 0), "blind": ("push", 0), "play": ("win", 3000)},
        wagers={"ante": 1000, "blind": 1000},
    )
    assert audit([play_round(seats, community=community)], document) == []


def test_fold_loses_ante_and_blind_trips_still_paid() -> None:
    seats = {4: golden_seats()[4]}
    assert found(seats) == []
    seats[4].paid["trips"] = ("lose", 0)
    assert found(seats) == [("WRONG_PAYOUT", 4, "trips", 1500, 0, "§ 653a.12(c)")]


def test_progressive_by_the_casinos_rows_validated() -> None:
    seats = {2: golden_seats()[2]}
    assert found(seats) == []
    seats[2].paid["progressive"] = ("win", 900)
    assert [f[:5] for f in found(seats)] == [("WRONG_PAYOUT", 2, "progressive", 5000, 900)]


# ---- the game's checks ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("street", "multiple", "allowed"),
    [
        (PRE, 4, True), (PRE, 3, True), (PRE, 2, False), (PRE, 1, False), (PRE, 5, False),
        (FLOP, 2, True), (FLOP, 4, False), (FLOP, 3, False), (FLOP, 1, False),
        (RIVER, 1, True), (RIVER, 2, False), (RIVER, 4, False),
    ],
)  # fmt: skip
def test_each_streets_play_multiples(street: int, multiple: int, allowed: bool) -> None:
    checks = [(s, "check", None) for s in range(street)]
    # Seat 1's flush wins whatever it plays: the Play is paid at its amount.
    seats = {
        1: Seat(
            ("Ah", "5h"),
            {"ante": 1000, "blind": 1000},
            [*checks, (street, "play", multiple * 1000)],
            {"ante": ("win", 1000), "blind": ("win", 1500), "play": ("win", multiple * 1000)},
        )
    }
    got = found(seats)
    if allowed:
        assert got == []
    else:
        nearest = {PRE: (3000, 4000), FLOP: (2000,), RIVER: (1000,)}[street]
        expected = min(nearest, key=lambda a: abs(a - multiple * 1000))
        assert got == [
            ("PLAY_WAGER_OUT_OF_RANGE", 1, "play", expected, multiple * 1000, "§ 653a.7")
        ]


def test_a_second_play_is_out_of_range() -> None:
    seats = {1: golden_seats()[1]}
    seats[1].decisions.append((FLOP, "play", 2000))
    assert found(seats) == [("PLAY_WAGER_OUT_OF_RANGE", 1, "play", 0, 2000, "§ 653a.7")]


def test_blind_other_than_the_ante() -> None:
    seats = {3: golden_seats()[3]}
    seats[3].wagers["blind"] = 500
    seats[3].paid["blind"] = ("push", 0)
    assert found(seats) == [("UNEQUAL_BETS", 3, "blind", 1000, 500, "§ 653a.7")]


def test_decision_missing_settled_as_a_fold() -> None:
    seats = {4: golden_seats()[4]}
    seats[4].decisions = [(PRE, "check", None), (FLOP, "check", None)]  # no play, no fold
    assert found(seats) == [("DECISION_MISSING", 4, "ante", None, 1000, "§ 653a.11")]
    seats[4].paid["ante"] = ("push", 0)
    assert codes(audit([play_round(seats)], CONFIG)) == ["DECISION_MISSING", "WRONG_PAYOUT"]


def test_checks_then_fold_is_no_decision_missing() -> None:
    assert found({4: golden_seats()[4]}) == []


def test_a_play_after_the_dealers_reveal_is_handed_back() -> None:
    seats = {4: golden_seats()[4]}
    seats[4].decisions = [(PRE, "check", None), (FLOP, "check", None)]
    seats[4].paid["play"] = ("returned", 0)
    got = found(seats, late_play=(4, 1000))
    assert got == [("DECISION_MISSING", 4, "ante", None, 1000, "§ 653a.11")]
    seats[4].paid["play"] = ("win", 1000)  # three sevens beat the dealer, but too late
    assert ("WRONG_PAYOUT", 4, "play", 0, 1000, "§ 653a.11") in found(seats, late_play=(4, 1000))


# ---- the checks every game has, with this game's sections -------------------------------


def returned(seats: Mapping[int, Seat]) -> dict[int, Seat]:
    """``seats`` with every wager settled ``returned`` (a voided round)."""
    for spec in seats.values():
        played = ["play"] if any(action == "play" for _, action, _ in spec.decisions) else []
        spec.paid = {bet: ("returned", 0) for bet in [*spec.wagers, *played]}
    return dict(seats)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (
            {"late_wager": (3, "trips", 500)},  # and never settled
            [
                ("BET_AFTER_LOCKOUT", 3, "trips", "§ 653a.7"),
                ("UNSETTLED_WAGER", 3, "trips", "§ 653a.11"),
            ],
        ),
        ({"chips": 0}, [("PROGRESSIVE_COUNT_MISMATCH", None, None, "§ 653a.9")]),
        ({"stub": 30}, [("STUB_COUNT_MISMATCH", None, None, "§ 653a.9")]),
        ({"validated_by": None}, [("JACKPOT_NOT_VALIDATED", 2, "progressive", "§ 653a.12")]),
        ({"unsettled": (1, "trips")}, [("UNSETTLED_WAGER", 1, "trips", "§ 653a.11")]),
    ],
)
def test_common_checks_cite_this_games_sections(
    change: dict[str, Any], expected: list[tuple[Any, ...]]
) -> None:
    got = [(f[0], f[1], f[2], f[5]) for f in found(golden_seats(), **change)]
    assert got == expected


def test_wager_not_offered_duplicate_card_and_void_not_returned() -> None:
    no_trips = {"tables": {TABLE: {**CONFIG["tables"][TABLE], "paytables": {"blind": "A"}}}}
    seats = {3: golden_seats()[3]}
    seats[3].wagers["trips"] = 500
    seats[3].paid["trips"] = ("lose", 0)
    got = audit([play_round(seats)], no_trips)
    assert [(f.check, f.bet, f.regulation) for f in got] == [
        ("WAGER_NOT_OFFERED", "trips", "§ 653a.7")
    ]
    twice = codes(audit([play_round(golden_seats(), dealer=("9c", "Kh"))], CONFIG))
    assert "DUPLICATE_CARD" in twice
    voided = returned(golden_seats())
    voided[1].paid["ante"] = ("lose", 0)
    got = audit([play_round(voided, void="shoe fault")], CONFIG)
    assert [(f.check, f.seat, f.bet, f.regulation) for f in got] == [
        ("VOID_NOT_RETURNED", 1, "ante", "§ 653a.13")
    ]
    assert audit([play_round(returned(golden_seats()), void="shoe fault")], CONFIG) == []


# ---- hidden cards: the dealer's and the community's ------------------------------------


def exposed_codes(street: int, to: str, card: str) -> list[str]:
    return codes(audit([play_round(golden_seats(), before_reveal={street: [(to, card)]})], CONFIG))


def test_a_flop_card_exposed_before_the_flop_voids_the_round() -> None:
    assert exposed_codes(PRE, "community", "Qh") == ["ROUND_NOT_VOIDED"]


def test_a_flop_card_seen_after_the_flop_is_no_exposure() -> None:
    assert exposed_codes(FLOP, "community", "Qh") == []


def test_the_river_exposed_after_the_flop_voids_the_round() -> None:
    assert exposed_codes(FLOP, "community", "2s") == ["ROUND_NOT_VOIDED"]


def test_a_dealer_card_exposed_before_its_reveal_voids_the_round() -> None:
    assert exposed_codes(RIVER, "dealer", "9c") == ["ROUND_NOT_VOIDED"]
    assert exposed_codes(RIVER + 1, "dealer", "9c") == []


def test_four_community_cards_is_a_misdeal() -> None:
    got = audit([play_round(golden_seats(), community=COMMUNITY[:4])], CONFIG)
    assert "ROUND_NOT_VOIDED" in codes(got)
    assert any("the community area was dealt 4 card(s), not 5" in f.message for f in got)


# ---- the configuration ------------------------------------------------------------------


def test_blind_table_is_required_and_letters_checked() -> None:
    table: dict[str, Any] = {"game": "ultimate_texas_holdem", "counting_shuffler": True}
    with pytest.raises(ConfigError, match=r"paytables\.blind is required"):
        parse_config({"tables": {"U": {**table, "paytables": {"trips": "A"}}}})
    with pytest.raises(ConfigError, match=r"paytables\.trips"):
        parse_config({"tables": {"U": {**table, "paytables": {"blind": "A", "trips": "E"}}}})
    parsed = parse_config({"tables": {"U": {**table, "paytables": {"blind": "B", "trips": "D"}}}})
    assert parsed["U"].letter("blind") == "B"
    assert parsed["U"].letter("trips") == "D"


# ---- the audit command ------------------------------------------------------------------

SHIFT = Path(__file__).resolve().parent / "ultimate_texas_shift"


def test_the_audit_command_judges_a_hand_written_round() -> None:
    # Community Kh Qh 7h 7d 2s, the dealer 9c 4d (a pair of sevens, qualifies). Seat 3
    # (Ah Ad, aces and sevens) plays 4x and wins; Blind A pays no two pair: it pushes, but
    # was paid $10 (WRONG_PAYOUT). Seat 5 (9s 4s, the dealer's hand: a tie) checks, then
    # plays 3x ($15) after the flop, where only 2x ($10) is allowed.
    result = audit_json(SHIFT / "events.jsonl", SHIFT / "tables.yaml")
    found = findings_of(result)
    assert [
        (f["check"], f["regulation"], f["seat"], f["bet"], f["expected"], f["actual"])
        for f in found
    ] == [
        ("PLAY_WAGER_OUT_OF_RANGE", "§ 653a.7", 5, "play", 1000, 1500),
        ("WRONG_PAYOUT", "§ 653a.12(b)", 3, "blind", 0, 1000),
    ]
    assert found[0]["message"] == (
        "Play wager of $15.00 after the flop, where a Play is 2x the Ante of $5.00 ($10.00)"
    )
    assert "36 events (0 duplicates ignored, 0 rejected), 1 rounds, 2 findings" in result.stderr


# ---- the pay tables as § 653a.12(b), (c) print them -------------------------------------


def test_pay_tables_transcribed_from_the_regulation() -> None:
    def rows(table: Any) -> dict[str, str]:
        return {hand: str(odds) for hand, odds in table.rows.items()}

    blind_a = {"royal_flush": "500 to 1", "straight_flush": "50 to 1",
               "four_of_a_kind": "10 to 1", "full_house": "3 to 1", "flush": "3 to 2",
               "straight": "1 to 1"}  # fmt: skip
    assert rows(BLIND["A"]) == blind_a
    assert rows(BLIND["B"]) == {k: v for k, v in blind_a.items() if k != "straight"}
    hands = ["royal_flush", "straight_flush", "four_of_a_kind", "full_house", "flush",
             "straight", "three_of_a_kind"]  # fmt: skip
    printed = {
        "A": [50, 40, 30, 9, 7, 4, 3],
        "B": [50, 40, 30, 8, 6, 5, 3],
        "C": [50, 40, 30, 8, 7, 4, 3],
        "D": [50, 40, 20, 7, 6, 5, 3],
    }
    assert sorted(TRIPS) == sorted(printed)
    for letter, column in printed.items():
        assert rows(TRIPS[letter]) == {h: f"{x} to 1" for h, x in zip(hands, column, strict=True)}


def test_three_to_two_rounds_down_to_the_cent() -> None:
    assert to(3, 2).paid(1000) == 1500
    assert to(3, 2).paid(2501) == 3751  # 3,751.5 cents: the half cent is not paid
    with pytest.raises(ValueError, match="at least 1"):
        to(3, 0)
