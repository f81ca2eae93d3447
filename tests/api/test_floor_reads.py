"""The floor's tiles and strip from what the statements read (tablewatch/api/floor_reads.py):
colour by open cases, stale only for an open table silent 10 minutes, closed and idle."""

from __future__ import annotations

from tablewatch.api.floor_reads import Activity, OpenCases, level, tiles_of

NOW = 1_796_400_000_000
MINUTE = 60_000


def test_a_tile_is_red_for_high_or_critical_amber_for_medium_or_low_else_ok() -> None:
    assert level({"critical": 1}) == "red"
    assert level({"high": 2, "low": 1}) == "red"
    assert level({"medium": 1, "low": 3}) == "amber"
    assert level({"low": 1}) == "amber"
    assert level({"critical": 0, "high": 0, "medium": 0, "low": 0}) == "ok"


def test_stale_is_an_open_table_silent_ten_minutes_closed_and_idle_tables_are_not() -> None:
    activity = Activity(
        last_ms={
            "OPEN-9": NOW - 10 * MINUTE + 1,  # silent 9:59.999: not yet
            "OPEN-10": NOW - 10 * MINUTE,  # silent 10 minutes: stale
            "SHUT": NOW - 60 * MINUTE,  # its last event a table_close
        },
        open={"OPEN-9": True, "OPEN-10": True, "SHUT": False},
        rounds_today={"OPEN-9": 12},
        directory={"IDLE": ("let_it_ride", "B")},  # no event in the window
    )
    cases = OpenCases(by_table={"IDLE": {"low": 2}}, oldest_ms={"IDLE": NOW - 5 * MINUTE})
    tiles = tiles_of(activity, cases, NOW)
    assert list(tiles) == ["IDLE", "OPEN-10", "OPEN-9", "SHUT"]
    assert [(t.table_open, t.stale) for t in tiles.values()] == [
        (False, False), (True, True), (True, False), (False, False),
    ]  # fmt: skip
    assert tiles["IDLE"].last_event_ms is None and tiles["IDLE"].level == "amber"
    assert tiles["IDLE"].open_cases == {"critical": 0, "high": 0, "medium": 0, "low": 2}
    assert tiles["OPEN-9"].rounds_today == 12 and tiles["OPEN-10"].rounds_today == 0


def test_the_strip_sums_the_tables_and_ages_the_oldest_open_case() -> None:
    cases = OpenCases(
        by_table={"A": {"critical": 1, "low": 2}, "B": {"low": 1, "high": 1}},
        oldest_ms={"A": NOW - 90_500, "B": NOW - 30_000},
    )
    strip = cases.strip(NOW).as_json()
    assert strip["open_cases"] == {"critical": 1, "high": 1, "medium": 0, "low": 3}
    assert strip["open_total"] == 5
    assert strip["oldest_open_ms"] == NOW - 90_500
    assert strip["oldest_open_age_s"] == 90
    assert OpenCases({}, {}).strip(NOW).as_json()["oldest_open_ts"] is None
