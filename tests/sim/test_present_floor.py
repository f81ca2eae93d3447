"""Floor.present: the simulated floor stamped in the present, as `live` and `simulate
--follow` stream it; the floor's own events (`--out`, the goldens) keep their dates."""

from __future__ import annotations

import time
from collections import defaultdict
from itertools import pairwise

import msgspec
import pytest

from tablewatch.rules.events import AnyEvent, ts_to_ms
from tablewatch.sim.floor import Floor
from tablewatch.sim.pacing import paced

NOW_S = 1_796_515_200.5  # 2026-12-06T00:00:00.500Z


def _floor() -> Floor:
    return Floor(tables=4, rounds=40, seed=3, error_rate=0.2, jackpot_rate=0.1)


def test_streamed_at_life_speed_each_event_is_stamped_within_a_second_of_now() -> None:
    began_ms = time.time() * 1000
    offsets = []
    for event in paced(_floor().present(20.0), 1.0, time.sleep, until_s=2.0):
        offsets.append(ts_to_ms(event.ts) - time.time() * 1000)
    assert len(offsets) >= 20
    assert all(abs(offset) < 1000 for offset in offsets), (min(offsets), max(offsets))
    assert time.time() * 1000 - began_ms >= 1500  # paced: the stream took its time


def test_the_same_events_in_the_same_order_only_the_stamps_moved_to_now() -> None:
    floor_events = list(_floor().events())
    present = list(_floor().present(1.0, clock=lambda: NOW_S))
    assert len(present) == len(floor_events) > 500
    first_ms = ts_to_ms(floor_events[0].ts)
    assert floor_events[0].ts < "2026-12-01"  # the floor's own date stays in the past
    assert present[0].ts == "2026-12-06T00:00:00.500Z"
    for old, new in zip(floor_events, present, strict=True):
        assert msgspec.structs.replace(old, ts=new.ts) == new
        # at life speed each keeps its distance from the first event to the millisecond
        assert ts_to_ms(new.ts) - 1_796_515_200_500 == ts_to_ms(old.ts) - first_ms


def test_faster_than_life_the_floor_time_is_divided_by_the_speed() -> None:
    floor_events = list(_floor().events())
    present = list(_floor().present(20.0, clock=lambda: NOW_S))
    first_ms = ts_to_ms(floor_events[0].ts)
    for old, new in zip(floor_events, present, strict=True):
        due = 1_796_515_200_500 + (ts_to_ms(old.ts) - first_ms) / 20
        assert due - 1 < ts_to_ms(new.ts) <= due + 2
    span = ts_to_ms(present[-1].ts) - ts_to_ms(present[0].ts)
    floor_span = ts_to_ms(floor_events[-1].ts) - first_ms
    assert floor_span // 20 - 1 <= span <= floor_span // 20 + 2


def test_a_table_events_keep_their_order_even_squeezed_into_milliseconds() -> None:
    present = list(_floor().present(1e9, clock=lambda: NOW_S))
    stamps = [ts_to_ms(e.ts) for e in present]
    assert stamps == sorted(stamps)  # the stream in time order
    by_table: defaultdict[str, list[AnyEvent]] = defaultdict(list)
    for event in present:
        by_table[event.table_id].append(event)
    assert len(by_table) == 4
    for events in by_table.values():
        table_stamps = [ts_to_ms(e.ts) for e in events]
        # each strictly after the table's previous one, as on the floor
        assert all(b > a for a, b in pairwise(table_stamps))
        assert [e.seq for e in events] == sorted(e.seq for e in events)
    assert stamps[-1] - stamps[0] < len(present)  # a millisecond apiece at most


@pytest.mark.parametrize("speed", [0.0, -1.0, float("nan")])
def test_a_speed_not_above_zero_is_refused(speed: float) -> None:
    with pytest.raises(ValueError, match=r"^speed: .* is not above 0$"):
        next(_floor().present(speed))
