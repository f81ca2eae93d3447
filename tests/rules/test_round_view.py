"""The round view's derived answers and the checks' first settle lines, on folded rounds."""

from __future__ import annotations

from tablewatch.rules.checks.context import RoundContext
from tablewatch.rules.events import RoundEvent
from tablewatch.rules.round import fold_round
from tablewatch.rules.round_view import view_round
from tablewatch.rules.settlement import expected_settlement
from tablewatch.script import TableScript
from tests.scenarios import audit, codes, configs, lir_deal, lir_table


def _round(seat_5: tuple[str, str, str], *, bet3_again: bool = False) -> TableScript:
    t = lir_table()
    t.round_start("R-1", "D-1")
    for seat in (5, 2):
        for bet in ("bet1", "bet2", "bet3"):
            t.wager(seat, bet, 2500)
    t.lockout()
    lir_deal(t, {2: ("Ah", "Ad", "3c"), 5: seat_5}, ("7s", "9d"))
    t.stub_count(43)
    t.reveal("community", 1)
    t.reveal("community", 2)
    t.settle(5, "bet3", "lose", 0)  # lines in no particular order
    for seat, bet in ((2, "bet1"), (2, "bet2"), (2, "bet3"), (5, "bet1"), (5, "bet2")):
        t.settle(seat, bet, "lose", 0)
    if bet3_again:
        t.settle(2, "bet3", "win", 2500)
    t.round_end()
    return t


def _context(script: TableScript) -> RoundContext:
    events = [e for e in script.events if isinstance(e, RoundEvent)]
    rnd = fold_round(script.table_id, "R-1", events)
    view = view_round(rnd)
    config = configs()[script.table_id]
    return RoundContext(rnd, view, config, "hand", expected_settlement(view, config))


def test_view_seats_in_order_and_no_repeated_card() -> None:
    view = _context(_round(("Kc", "Qd", "2s"))).view
    assert view.seats() == [2, 5]
    assert view.dealt_seats() == [2, 5]
    assert view.no_repeated_card


def test_a_card_dealt_twice_is_seen_by_the_view_and_reported() -> None:
    script = _round(("Kc", "Ah", "2s"))  # the ace of hearts again, at seat 5
    assert not _context(script).view.no_repeated_card
    assert "DUPLICATE_CARD" in codes(audit([script]))


def test_first_settle_lines_in_order_and_the_first_of_a_wager_settled_twice() -> None:
    once = _context(_round(("Kc", "Qd", "2s")))
    assert list(once.first_settled) == [
        (5, "bet3"),
        (2, "bet1"),
        (2, "bet2"),
        (2, "bet3"),
        (5, "bet1"),
        (5, "bet2"),
    ]
    assert len(once.first_settled) == len(once.rnd.settles)
    twice = _context(_round(("Kc", "Qd", "2s"), bet3_again=True))
    assert len(twice.rnd.settles) == 7
    assert list(twice.first_settled) == list(once.first_settled)
    assert twice.first_settled[(2, "bet3")].result == "lose"
