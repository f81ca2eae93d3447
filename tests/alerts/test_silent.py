"""The silent-controller watch: open tables, heard by Kafka timestamp."""

from __future__ import annotations

from tablewatch.alerts.silent import Silence, SilentWatch


def ten_minutes(_: str) -> float:
    return 600.0


def test_an_open_table_silent_for_its_limit_is_reported_once() -> None:
    watch = SilentWatch()
    watch.heard("LIR-07", "table_open", 1_000, "let_it_ride")
    watch.heard("LIR-07", "round_start", 5_000)
    assert watch.due(5_000 + 599_999, ten_minutes) == []
    assert watch.due(5_000 + 600_000, ten_minutes) == [
        Silence("LIR-07", 5_000, 600.0, "let_it_ride")
    ]
    assert watch.due(5_000 + 900_000, ten_minutes) == []  # once per silence


def test_a_closed_table_is_not_silent_and_reopening_watches_it_again() -> None:
    watch = SilentWatch()
    watch.heard("FCP-02", "table_open", 0)
    watch.heard("FCP-02", "table_close", 10_000)
    assert watch.due(10_000_000, ten_minutes) == []
    watch.heard("FCP-02", "table_open", 20_000_000)
    assert [s.table_id for s in watch.due(20_600_000, ten_minutes)] == ["FCP-02"]


def test_any_event_but_table_close_means_open_and_hearing_again_ends_the_silence() -> None:
    watch = SilentWatch()
    assert watch.heard("LIR-01", "bet", 0) is None  # its table_open older than what was read
    assert watch.is_open("LIR-01")
    assert len(watch.due(600_000, ten_minutes)) == 1
    ended = watch.heard("LIR-01", "round_end", 700_000)
    assert ended == Silence("LIR-01", 0, 0.0, "")
    assert watch.heard("LIR-01", "round_start", 701_000) is None


def test_a_table_not_watched_is_never_reported() -> None:
    watch = SilentWatch()
    watch.heard("LIR-01", "table_open", 0)
    assert watch.due(10**9, lambda _: None) == []
