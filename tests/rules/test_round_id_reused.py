"""ROUND_ID_REUSED: a round given the round_id of an earlier round at its table, both judged;
the round-id window that finds it, and what is not a reuse."""

from __future__ import annotations

import pytest

from tablewatch.rules import table as table_module
from tablewatch.rules.audit import Auditor
from tablewatch.rules.checks.catalog import OWN_CHECKS
from tablewatch.rules.judge import RoundResult
from tablewatch.rules.round_ids import RoundIdWindow, RoundOpening
from tablewatch.script import TableScript
from tests.scenarios import audit, codes, configs, lir_round, lir_table, rounds, wire


def _reused() -> TableScript:
    t = lir_table()
    lir_round(t, "R-1")
    lir_round(t, "R-2")
    lir_round(t, "R-1", paid_each=2000)  # a controller reset: R-1 again, underpaid this time
    return t


def _starts(t: TableScript, round_id: str) -> list[tuple[str, int, str]]:
    return [
        (e.event_id, e.seq, e.ts)
        for e in t.events
        if type(e).__name__ == "RoundStart" and getattr(e, "round_id", None) == round_id
    ]


def test_a_reused_round_id_is_found_and_both_rounds_judged() -> None:
    t = _reused()
    (first_id, first_seq, first_ts), (again_id, again_seq, again_ts) = _starts(t, "R-1")
    judged = rounds([t])
    assert [(r.round_id, r.start_event_id) for r in judged] == [
        ("R-1", first_id),
        ("R-2", _starts(t, "R-2")[0][0]),
        ("R-1", again_id),
    ]
    assert judged[0].findings == ()
    second = judged[2]
    assert sorted(f.check for f in second.findings) == ["ROUND_ID_REUSED"] + ["WRONG_PAYOUT"] * 3
    (reused,) = [f for f in second.findings if f.check == "ROUND_ID_REUSED"]
    assert (reused.table_id, reused.round_id, reused.seat, reused.bet) == (
        "LIR-1",
        "R-1",
        None,
        None,
    )
    assert reused.event_ids == (first_id, again_id)
    assert reused.ts == again_ts
    assert reused.severity == "high"
    assert reused.regulation == "CONTROLLER_PROTOCOL v1 round_id unique per table"
    for part in ("R-1", first_id, f"seq {first_seq}", first_ts, again_id, f"seq {again_seq}"):
        assert part in reused.message, part


def test_distinct_round_ids_raise_nothing() -> None:
    t = lir_table()
    for n in range(1, 5):
        lir_round(t, f"R-{n}")
    assert codes(audit([t])) == []


def test_a_redelivered_round_start_is_no_reuse() -> None:
    t = lir_table()
    lir_round(t, "R-1")
    start = t.events[len(lir_table().events)]  # R-1's round_start
    t.events.append(start)  # sent again, same event_id: a duplicate, ignored
    lir_round(t, "R-2")
    assert codes(audit([t])) == []


def test_a_round_start_sent_again_past_the_duplicate_window_is_the_same_round(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Older than the duplicate window, the same round_start is folded again: a second
    judgement of the same round (same start_event_id), not a reuse."""
    monkeypatch.setattr(table_module, "DEDUP_WINDOW", 5)
    t = lir_table()
    lir_round(t, "R-1")
    first = t.events[len(lir_table().events) :]
    t.events.extend(first)  # the whole round re-sent, its seq older: SEQUENCE_REGRESSION
    judged = rounds([t])
    assert [r.start_event_id for r in judged] == [first[0].event_id] * 2
    assert "ROUND_ID_REUSED" not in {f.check for r in judged for f in r.findings}


def test_a_first_use_out_of_the_window_is_not_found(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(table_module, "ROUND_ID_WINDOW", 3)
    t = lir_table()
    for n in (1, 2, 3, 4):
        lir_round(t, f"R-{n}")
    lir_round(t, "R-1")  # R-1 left the window: are the last three
    assert codes(audit([t])) == []
    lir_round(t, "R-4")  # in the window
    assert codes(audit([t])) == ["ROUND_ID_REUSED"]


def test_a_round_reopened_without_round_start_is_found() -> None:
    """A round whose round_start never came begins with its first event; once its round_id is
    no longer among the recently closed rounds (EVENT_OUTSIDE_ROUND), it is a new round."""
    t = lir_table()
    for n in range(1, table_module.CLOSED_WINDOW + 2):
        lir_round(t, f"R-{n}")
    t.round_id = "R-1"
    wager = t.wager(2, "bet1", 2500)
    found = audit([t])
    reused = [f for f in found if f.check == "ROUND_ID_REUSED"]
    assert len(reused) == 1
    assert reused[0].event_ids[1] == wager.event_id
    assert "`wager` event" in reused[0].message


def test_a_second_round_start_for_the_open_round_is_a_reuse() -> None:
    """A round_start with a new event_id for the round in progress: the first is closed
    incomplete, the second is a new round given the same id."""
    t = lir_table()
    t.round_start("R-1", "D-1")
    t.wager(2, "bet1", 2500)
    lir_round(t, "R-1")
    judged = rounds([t])
    assert [r.round_id for r in judged] == ["R-1", "R-1"]
    assert "ROUND_INCOMPLETE" in {f.check for f in judged[0].findings}
    assert "ROUND_ID_REUSED" in {f.check for f in judged[1].findings}


def test_tables_have_windows_of_their_own() -> None:
    a, b = lir_table("LIR-1"), lir_table("LIR-C")
    lir_round(a, "R-1")
    lir_round(b, "R-1")
    assert codes(audit([a, b])) == []


def test_the_fast_fold_finds_the_same() -> None:
    events = wire([_reused()])
    one = Auditor(configs())
    one_by_one = [o for e in events for o in one.feed(e)] + one.finish()
    many = Auditor(configs())
    fast = [o for _, o in many.feed_many(events)] + many.finish()
    assert fast == one_by_one
    assert sum(isinstance(o, RoundResult) for o in fast) == 3


def test_catalogued_as_an_own_check() -> None:
    check = OWN_CHECKS["ROUND_ID_REUSED"]
    assert check.severity == "high"


# ---- the window ----------------------------------------------------------------------------


def _opening(n: int) -> RoundOpening:
    return RoundOpening(f"e{n}", n, f"2026-11-29T20:00:{n:02d}.000Z")


def test_the_window_names_the_first_round_of_an_id_until_its_last_leaves() -> None:
    window = RoundIdWindow(3)
    assert window.open("R-1", _opening(1)) is None
    assert window.open("R-1", _opening(2)) == _opening(1)
    assert window.open("R-2", _opening(3)) is None
    assert window.open("R-3", _opening(4)) is None  # the first R-1 leaves; the second stays
    assert window.first_opening("R-1") == _opening(1)
    assert window.open("R-4", _opening(5)) is None  # the second R-1 leaves
    assert window.first_opening("R-1") is None
    assert window.open("R-1", _opening(6)) is None
    assert len(window) == 3


def test_the_window_restored_from_its_last_rounds_answers_alike() -> None:
    window = RoundIdWindow(100)
    for n, round_id in enumerate(["R-1", "R-2", "R-1", "R-3", "R-2", "R-4"]):
        window.open(round_id, _opening(n))
    tail = window.recent(4)
    assert [r for r, _ in tail] == ["R-1", "R-3", "R-2", "R-4"]
    restored = RoundIdWindow(100)
    restored.open_all(tail)
    for round_id in ("R-1", "R-2", "R-3", "R-4"):
        assert restored.first_opening(round_id) == window.first_opening(round_id)
    assert window.recent(0) == [] and window.recent(50) == window.recent(6)
    with pytest.raises(ValueError):
        RoundIdWindow(0)
