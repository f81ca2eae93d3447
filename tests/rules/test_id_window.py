"""The duplicate window: the last N event_ids, exactly, however they were added."""

from __future__ import annotations

import msgspec
import pytest

from tablewatch.rules import table as table_module
from tablewatch.rules.audit import Auditor, findings_of
from tablewatch.rules.id_window import TRIM_SLACK, IdWindow
from tests.scenarios import codes, configs, lir_round, lir_table, wire


def _ids(n: int, first: int = 0) -> list[str]:
    return [f"e{i}" for i in range(first, first + n)]


def test_an_id_is_seen_within_the_window_and_not_after() -> None:
    window = IdWindow(3)
    for event_id in _ids(3):
        assert window.add(event_id)
    assert not window.add("e0")  # among the last 3
    assert window.add("e3")  # e0 leaves the window
    assert window.is_seen("e1") and not window.is_seen("e0")
    assert window.add("e0")  # out of the window: new again
    assert window.recent(10) == ["e2", "e3", "e0"]


def test_oldest_forgotten_first_whatever_the_slack() -> None:
    size = 5
    window = IdWindow(size)
    added = _ids(size + TRIM_SLACK + 7)
    for event_id in added:
        assert window.add(event_id)
    for age, event_id in enumerate(reversed(added)):
        assert window.is_seen(event_id) == (age < size), event_id
    assert window.recent(size) == added[-size:]
    assert window.recent(2) == added[-2:]
    assert window.recent(0) == []
    assert len(window) == size


def test_ids_added_without_a_check_are_trimmed_in_order() -> None:
    """The fold's fast path adds ids that are not in ``ids`` straight to the set and the list."""
    window = IdWindow(4)
    for event_id in _ids(10):
        assert event_id not in window.ids
        window.ids.add(event_id)
        window.order.append(event_id)
    assert window.is_seen("e6") and not window.is_seen("e5")
    window.trim()
    assert window.ids == {"e6", "e7", "e8", "e9"}
    assert window.recent(10) == ["e6", "e7", "e8", "e9"]
    assert window.add("e5") and not window.add("e9")
    assert window.recent(10) == ["e7", "e8", "e9", "e5"]


def test_a_long_run_keeps_memory_bounded_and_the_window_exact() -> None:
    size = 50
    window = IdWindow(size)
    for event_id in _ids(20 * (size + TRIM_SLACK)):
        window.add(event_id)
    assert len(window.order) <= 2 * (size + TRIM_SLACK)
    last = 20 * (size + TRIM_SLACK) - 1
    assert window.is_seen(f"e{last - size + 1}") and not window.is_seen(f"e{last - size}")


def test_window_size_must_be_positive() -> None:
    with pytest.raises(ValueError):
        IdWindow(0)


def test_a_table_ignores_a_resend_within_its_window_and_not_beyond(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Through the auditor, a window of 8 (the real one, 50,000, is in docs/rules.md)."""
    monkeypatch.setattr(table_module, "DEDUP_WINDOW", 8)
    t = lir_table()
    lir_round(t, "R-1")
    recent, old = t.events[-2], t.events[5]  # a settle (2 back), a wager (17 back)
    t.resend(recent)
    t.resend(old)
    auditor = Auditor(configs())
    found = [f for _, o in auditor.feed_many(wire([t])) for f in findings_of([o])]
    assert auditor.stats.duplicates == 1
    assert codes(found) == ["EVENT_OUTSIDE_ROUND", "SEQUENCE_REGRESSION"]
    assert all(f.event_ids == (old.event_id,) for f in found)
    table = auditor.table("LIR-1")
    assert table is not None
    assert table.recent_ids(3) == [t.events[-4].event_id, t.events[-3].event_id, old.event_id]


def test_a_reused_event_id_with_the_next_seq_is_a_duplicate_in_the_window(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The fold's fast path takes the next seq of the open round; a known id still goes to
    the exact check."""
    monkeypatch.setattr(table_module, "DEDUP_WINDOW", 8)
    t = lir_table()
    lir_round(t, "R-1")
    end = len(t.events)
    lir_round(t, "R-2")
    events = wire([t])
    wager = end + 1  # R-2's first wager
    reused = msgspec.structs.replace(events[wager], event_id=events[wager - 1].event_id)
    far = msgspec.structs.replace(events[wager + 1], event_id=events[0].event_id)
    events[wager : wager + 2] = [reused, far]
    auditor = Auditor(configs())
    found = [f for _, o in auditor.feed_many(events) for f in findings_of([o])]
    assert auditor.stats.duplicates == 1  # the reused id; the far one left the window
    assert "SEQUENCE_GAP" in codes(found)


def test_table_is_duplicate_within_the_window_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each branch of the duplicate test (IdWindow.add): a new id, a resend, an id that has
    left the window but is still in the set until the next trim."""
    monkeypatch.setattr(table_module, "DEDUP_WINDOW", 4)
    table = table_module.TableState("LIR-1", configs()["LIR-1"])
    assert not table.is_duplicate("e0")
    assert table.is_duplicate("e0")
    for n in range(1, 5):
        assert not table.is_duplicate(f"e{n}")  # e0 is now 4 back: out of the window
    assert "e0" in table.window.ids  # not trimmed yet (TRIM_SLACK)
    assert not table.is_duplicate("e0")  # so it is new again
    assert table.is_duplicate("e4") and table.is_duplicate("e0")
    assert table.duplicates == 3
    assert table.recent_ids(4) == ["e2", "e3", "e4", "e0"]
