"""The reconstruction's words and its less usual rounds: hands named by hand, a voided
round, a fold, a round with no round_end, a table event while a round is open."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
import yaml

from tablewatch.rounds.from_files import rounds_in_events
from tablewatch.rounds.report import RoundReport
from tablewatch.rounds.words import card_words, money
from tablewatch.rules.cards import parse_cards
from tablewatch.rules.hands import best4of5, strength3, strength5
from tablewatch.rules.hands.words import five_card_words, four_card_words, three_card_words
from tablewatch.script import TableScript
from tests.scenarios import (
    CONFIG,
    configs,
    fcp_deal,
    fcp_table,
    lir_deal,
    lir_round,
    lir_table,
    wire,
)


@pytest.mark.parametrize(
    ("cards", "words"),
    [
        ("Ts Js Qs Ks As", "royal flush"),
        ("9c Tc Jc Qc Kc", "straight flush, king high"),
        ("4h 4d 4s 4c 9h", "four of a kind, fours"),
        ("7h 7d 7s 2s 2h", "full house, sevens over twos"),
        ("Kh 9h 5h 3h 2h", "flush, king high"),
        ("Ah 2d 3s 4s 5h", "straight, five high"),
        ("Qh Qd Qs 4s 2h", "three of a kind, queens"),
        ("Kh Kd 4h 4s 2h", "two pair, kings and fours"),
        ("6h 6d 9h 5s 2h", "pair of sixes"),
        ("Ah Kd 9h 5s 2h", "ace high"),
    ],
)
def test_five_card_hands_in_words(cards: str, words: str) -> None:
    assert five_card_words(strength5(parse_cards(cards.split()))) == words


@pytest.mark.parametrize(
    ("cards", "words"),
    [
        ("Ah Ad Ac As 2c", "four of a kind, aces"),
        ("5h 6h 7h 8h Kc", "straight flush, eight high"),
        ("Ah 2d 3s 4c 9h", "straight, four high"),  # A-2-3-4 (§ 641a.6)
        ("Jd 8d 4d 2d Ks", "flush, jack high"),
        ("Ah Ad 7c 5h 3s", "pair of aces"),
    ],
)
def test_four_card_hands_in_words(cards: str, words: str) -> None:
    assert four_card_words(best4of5(parse_cards(cards.split()))) == words


@pytest.mark.parametrize(
    ("cards", "words"),
    [
        ("Qs Ks As", "mini royal"),
        ("2c 3c 4c", "straight flush, four high"),
        ("7c 7d 7s", "three of a kind, sevens"),
        ("Jh Jd 3s", "pair of jacks"),
        ("Kh 9h 5h", "flush, king high"),
    ],
)
def test_three_card_hands_in_words(cards: str, words: str) -> None:
    assert three_card_words(strength3(parse_cards(cards.split()))) == words


def test_money_and_cards_in_words() -> None:
    assert [money(0), money(5), money(123_456_789), money(-150), money(None)] == [
        "$0.00",
        "$0.05",
        "$1,234,567.89",
        "-$1.50",
        "-",
    ]
    assert [card_words("Td"), card_words("As"), card_words("2c")] == [
        "ten of diamonds",
        "ace of spades",
        "two of clubs",
    ]


def _one(t: TableScript, round_id: str = "R-1") -> RoundReport:
    [report] = rounds_in_events(wire([t]), configs(), t.table_id, round_id)
    return report


def test_a_voided_round_owes_every_wager_back_and_marks_the_one_paid() -> None:
    t = lir_table("LIR-C")
    t.round_start("R-1", "D-1")
    t.wager(1, "bet1", 1000)
    t.wager(1, "bet2", 1000)
    t.wager(1, "bet3", 1000)
    t.lockout()
    t.card("seat:1", "Ah")
    t.void("shoe jam")
    t.settle(1, "bet1", "returned", 0)
    t.settle(1, "bet2", "returned", 0)
    t.settle(1, "bet3", "win", 1000)
    t.round_end()
    report = _one(t)
    assert (report.voided, report.void_reason) == (True, "shoe jam")
    assert [
        (
            w.bet,
            w.expected_result,
            w.expected_paid,
            w.actual_result,
            w.actual_paid,
            w.correct,
            w.paytable,
        )
        for w in report.wagers
    ] == [
        ("bet1", "returned", 0, "returned", 0, True, None),
        ("bet2", "returned", 0, "returned", 0, True, None),
        ("bet3", "returned", 0, "win", 1000, False, None),
    ]
    assert [f.check for f in report.findings] == ["VOID_NOT_RETURNED"]
    assert report.seats[0].hand is None and report.seats[0].cards == ["Ah"]
    assert report.timeline[-5].text == "round voided: shoe jam"


def test_a_fold_forfeits_the_ante_under_its_own_section() -> None:
    t = fcp_table()
    t.round_start("R-1", "D-1")
    t.wager(1, "ante", 500)
    t.lockout()
    fcp_deal(t, {1: ["2c", "5d", "8h", "Js", "3d"]}, ["Kd", "Ks", "8c", "8d", "4h", "6c"])
    t.decision(1, "fold")
    t.reveal("dealer")
    t.settle(1, "ante", "lose", 0)
    t.round_end()
    report = _one(t)
    assert [(d.action, d.text) for d in report.decisions] == [("fold", "seat 1 folds")]
    assert report.seats[0].hand == "jack high"  # Js 8h 5d 3d
    assert report.seats[0].hand_cards == ["5d", "8h", "Js", "3d"]
    assert [
        (w.bet, w.expected_result, w.section, w.paytable, w.correct) for w in report.wagers
    ] == [("ante", "lose", "§ 641a.11(b)", None, True)]
    assert report.findings == []


def test_a_round_without_round_end_and_a_meter_reading_while_it_is_open() -> None:
    t = lir_table("LIR-C")
    t.round_start("R-1", "D-1")
    t.wager(4, "bet1", 500)
    t.wager(4, "bet2", 500)
    t.wager(4, "bet3", 500)
    t.lockout()
    t.meter(123_456)
    lir_deal(t, {4: ["2c", "7d", "9s"]}, ["Kh", "4d"])
    report = _one(t)
    meter = [e for e in report.timeline if e.type == "meter"]
    assert [(e.round_event, e.text) for e in meter] == [
        (False, "progressive meter reads $1,234.56")
    ]
    assert report.complete is False
    assert "ROUND_INCOMPLETE" in [f.check for f in report.findings]
    assert report.seats[0].hand == "king high"
    assert report.video.until_ts > report.end_ts


def _stored_round(tmp_path: Path, t: TableScript, table_id: str, round_id: str) -> RoundReport:
    """The script's events stored as the worker stores them, and one round read back."""
    from tablewatch.rounds.from_store import load_round
    from tablewatch.store.read_only import open_reader
    from tests.rounds.conftest import fill_store

    events = tmp_path / "events.jsonl"
    events.write_bytes(t.jsonl())
    config = tmp_path / "tables.yaml"
    config.write_text(yaml.safe_dump(CONFIG), encoding="utf-8")
    dsn = f"chdb:///{tmp_path / 'store'}"
    fill_store(dsn, events, config)
    reader = open_reader(dsn)
    try:
        return load_round(reader, table_id, round_id)
    finally:
        reader.close()


def test_a_stored_round_takes_its_decks_dealing_and_the_table_events_between(
    tmp_path: Path,
) -> None:
    t = lir_table("LIR-C", dealing="automated_shoe")
    t.meter(50_000)
    lir_round(t, "R-1")  # a counting shuffler's table: no stub count needed
    t.round_start("R-2", "D-1")
    for bet in ("bet1", "bet2", "bet3"):
        t.wager(2, bet, 100)
    t.lockout()
    t.meter(123_456)
    t.device_fault("progressive_system", "stopped")
    lir_deal(t, {2: ["2c", "7d", "9s"]}, ["Kh", "4d"])
    t.decision(2, "pull", "bet1")
    t.reveal("community", 1)
    t.decision(2, "pull", "bet2")
    t.reveal("community", 2)
    t.settle(2, "bet3", "lose", 0)
    t.round_end()
    stored = _stored_round(tmp_path, t, "LIR-C", "R-2")
    assert stored.dealing == "automated_shoe"
    between = [(e.type, e.round_event, e.text) for e in stored.timeline if not e.round_event]
    assert between == [
        ("meter", False, "progressive meter reads $1,234.56"),
        ("device_fault", False, "progressive system fault: stopped"),
    ]
    assert stored.findings_source == "store"
    [from_files] = rounds_in_events(wire([t]), configs(), "LIR-C", "R-2")
    assert replace(stored, findings_source="events") == from_files


def test_events_stored_twice_are_read_once(tmp_path: Path) -> None:
    from tablewatch.rounds.from_store import load_round
    from tablewatch.store.read_only import open_reader
    from tests.rounds.conftest import fill_store
    from tests.rounds.golden import LIR_EVENTS, write_files

    events, config = write_files(tmp_path)
    dsn = f"chdb:///{tmp_path / 'store'}"
    fill_store(dsn, events, config)
    fill_store(dsn, events, config)  # a redelivered batch: every row again, not merged yet
    reader = open_reader(dsn)
    try:
        copies = reader.run("SELECT count() FROM raw_events WHERE table_id = 'LIR-G'").rows
        report = load_round(reader, "LIR-G", "R-77")
    finally:
        reader.close()
    assert copies[0][0] in (len(LIR_EVENTS), 2 * len(LIR_EVENTS))  # merged or not
    assert [e.event_id for e in report.timeline] == [e["event_id"] for e in LIR_EVENTS[1:]]
    assert report.paid == 51900 and [f.check for f in report.findings] == ["WRONG_PAYOUT"]


def test_an_old_decks_dealing_is_found_past_the_day_before(tmp_path: Path) -> None:
    t = lir_table("LIR-C", dealing="manual_shoe")
    t.wait(25 * 3_600_000)  # the deck went in 25 hours before the round
    lir_round(t, "R-1")
    stored = _stored_round(tmp_path, t, "LIR-C", "R-1")
    assert stored.dealing == "manual_shoe"
    assert "DECK_CHANGE_OVERDUE" in [f.check for f in stored.findings]
