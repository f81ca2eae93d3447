"""The folds together: their state saved and loaded midway changes nothing, and the one
order rounds are read in, whatever order they come in."""

from __future__ import annotations

import random
from functools import cache

from tablewatch.patterns.finding import PatternFinding
from tablewatch.patterns.floor_folds import FloorFolds, RoundOrder
from tablewatch.patterns.pattern_round import PatternRound
from tablewatch.rules.audit import Auditor
from tablewatch.rules.config import parse_config
from tablewatch.rules.round_result import RoundResult
from tablewatch.rules.table_config import TableConfig
from tablewatch.sim.floor import Floor
from tablewatch.sim.games import simulated
from tablewatch.sim.injections import FavouringDealer, MeterDrift
from tablewatch.sim.players import HoleCarder


@cache
def _floor() -> tuple[dict[str, TableConfig], tuple[RoundResult, ...]]:
    """Three Card Poker on 3 tables: a hole-carder who always sees at table 0, a dealer
    overpaying seat 2 at table 1 in half his rounds, a meter 20% fast at table 2."""
    floor = Floor(
        3,
        900,
        11,
        games=(simulated("three_card_poker"),),
        hole_carders=(HoleCarder(0, 3, 1.0, "PC-7", 11),),
        patterns=(FavouringDealer(1, 2, 0.5), MeterDrift(2, 0.2)),
    )
    configs = parse_config(floor.config)
    auditor = Auditor(configs)
    results = tuple(r for r in auditor.feed_all(floor.events()) if isinstance(r, RoundResult))
    return configs, results


def _flat(config: TableConfig) -> dict[str, tuple[float, float]]:
    return {}  # no hold figures: the hold band reads nothing (it is tested on its own)


def _read(folds: FloorFolds, rounds: list[PatternRound]) -> list[PatternFinding]:
    return [f for rnd in rounds for f in folds.take(rnd)]


def test_the_folds_saved_and_loaded_midway_find_what_one_pass_finds() -> None:
    configs, results = _floor()
    folds = FloorFolds(configs, _flat)
    rounds = [folds.round_of(r) for r in results]
    whole = _read(folds, rounds)
    assert {"ADVANTAGE_PLAY_SUSPECTED", "DEALER_FAVOURS_SEAT", "METER_INCREMENT_WRONG"} <= {
        f.check for f in whole
    }
    assert any(f.unit == "PC-7" for f in whole)

    half = len(rounds) // 2
    first = FloorFolds(configs, _flat)
    before = _read(first, rounds[:half])
    saved = first.save()
    second = FloorFolds(configs, _flat)
    second.load(saved)
    assert before + _read(second, rounds[half:]) == whole


def _pattern_rounds() -> list[PatternRound]:
    configs, results = _floor()
    folds = FloorFolds(configs, _flat)
    return [folds.round_of(r) for r in results[:300]]


def test_rounds_are_read_by_end_time_table_and_round_whatever_order_they_come_in() -> None:
    rounds = _pattern_rounds()
    expected = sorted(rounds, key=lambda r: (r.end_ts, r.table_id, r.round_id))
    shuffled = list(rounds)
    random.Random(5).shuffle(shuffled)
    order = RoundOrder()
    for rnd in shuffled:
        order.add(rnd)
    assert order.drain() == expected
    assert len(order) == 0


def test_a_round_is_read_once_the_watermark_is_the_horizon_past_its_end() -> None:
    rounds = sorted(_pattern_rounds(), key=lambda r: r.key)
    order = RoundOrder(horizon_ms=60_000)
    end = rounds[0].key[0]
    later = next(r for r in rounds if r.key[0] > end)
    order.add(later)
    order.add(rounds[0])
    assert order.ready(end + 59_999) == []  # the topic is not read a minute past it yet
    assert order.ready(end + 60_000) == [rounds[0]]
    assert order.ready(later.key[0] + 60_000) == [later]
    assert order.late == 0


def test_a_round_coming_after_a_later_one_was_read_is_read_and_counted_late() -> None:
    rounds = sorted(_pattern_rounds(), key=lambda r: r.key)
    order = RoundOrder(horizon_ms=0)
    order.add(rounds[5])
    assert order.ready(rounds[5].key[0]) == [rounds[5]]
    order.add(rounds[2])
    assert order.late == 1
    assert order.ready(rounds[2].key[0] - 1) == [rounds[2]]  # read at once, not held back


def test_the_order_saved_and_loaded_gives_the_same_rounds_in_the_same_order() -> None:
    rounds = _pattern_rounds()
    shuffled = list(rounds)
    random.Random(9).shuffle(shuffled)
    one = RoundOrder(horizon_ms=30_000)
    out_one: list[PatternRound] = []
    two = RoundOrder(horizon_ms=30_000)
    out_two: list[PatternRound] = []
    for n, rnd in enumerate(shuffled):
        watermark = rnd.key[0]  # as if the topic were read to this round's end
        one.add(rnd)
        out_one += one.ready(watermark)
        two.add(rnd)
        out_two += two.ready(watermark)
        if n == 150:
            restored = RoundOrder(horizon_ms=30_000)
            restored.load(two.save())
            two = restored
    out_one += one.drain()
    out_two += two.drain()
    assert out_two == out_one
    assert two.late == one.late
    assert sorted(out_one, key=lambda r: r.key) == sorted(rounds, key=lambda r: r.key)
