"""The companion (no Kafka here): messages of several partitions in, pattern findings out,
the same as the folds reading the floor's rounds in order, across checkpoints."""

from __future__ import annotations

import random
import time
import zlib
from functools import cache

import pytest

from tablewatch.patterns.companion import CheckpointUnreadable, Companion
from tablewatch.patterns.finding import PatternFinding
from tablewatch.patterns.floor_folds import FloorFolds
from tablewatch.rules.audit import Auditor
from tablewatch.rules.config import parse_config
from tablewatch.rules.decode import encode_event
from tablewatch.rules.round_result import RoundResult
from tablewatch.rules.table_config import TableConfig
from tablewatch.sim.floor import Floor
from tablewatch.sim.games import simulated
from tablewatch.sim.injections import FavouringDealer, MeterDrift
from tablewatch.sim.players import HoleCarder

PARTITIONS = 4
NOW_MS = int(time.time() * 1000)  # days after the floor's time: read to its end, it is quiet
Message = tuple[int, int, bytes]


def _flat(config: TableConfig) -> dict[str, tuple[float, float]]:
    return {}


@cache
def _floor() -> tuple[dict[str, TableConfig], tuple[Message, ...], tuple[PatternFinding, ...]]:
    """4 Three Card Poker tables (a hole-carder, a colluding dealer, a fast meter); the
    messages as a topic of 4 partitions holds them, each table's in one partition; and the
    findings of the folds reading the floor's rounds sorted by (end, table, round, start)."""
    floor = Floor(
        4,
        700,
        21,
        games=(simulated("three_card_poker"),),
        hole_carders=(HoleCarder(0, 3, 1.0, "PC-9", 21),),
        patterns=(FavouringDealer(1, 2, 0.5), MeterDrift(2, 0.2)),
    )
    configs = parse_config(floor.config)
    events = list(floor.events())  # a floor plays on: its events are read once
    offsets = [0] * PARTITIONS
    messages: list[Message] = []
    for event in events:
        partition = zlib.crc32(event.table_id.encode()) % PARTITIONS
        messages.append((partition, offsets[partition], encode_event(event)))
        offsets[partition] += 1
    results = [r for r in Auditor(configs).feed_all(events) if isinstance(r, RoundResult)]
    folds = FloorFolds(configs, _flat)
    rounds = sorted((folds.round_of(r) for r in results), key=lambda r: r.key)
    expected = tuple(f for rnd in rounds for f in folds.take(rnd))
    return configs, tuple(messages), expected


Chunk = tuple[list[Message], set[int]]


def _fetches(messages: tuple[Message, ...], seed: int) -> list[Chunk]:
    """The partitions' messages as a reader might fetch them: 1 to 400 messages at a time of
    a partition picked at random (one partition far ahead of another in time), each with
    the partitions that still hold messages not fetched."""
    queues = {p: [m for m in messages if m[0] == p] for p in range(PARTITIONS)}
    rng = random.Random(seed)
    out: list[Chunk] = []
    while any(queues.values()):
        queue = queues[rng.choice([p for p, q in queues.items() if q])]
        n = rng.randint(1, 400)
        out.append((queue[:n], {p for p, q in queues.items() if q[n:] or (q and q is not queue)}))
        del queue[:n]
    return out


def _run(companion: Companion, chunks: list[Chunk]) -> list[PatternFinding]:
    found: list[PatternFinding] = []
    for chunk, behind in chunks:
        for partition, offset, raw in chunk:
            companion.feed(partition, offset, raw)
        found += companion.release(behind, NOW_MS)
    return found


def test_the_companion_finds_what_the_folds_find_on_the_rounds_in_order() -> None:
    configs, messages, expected = _floor()
    assert {f.check for f in expected} >= {
        "ADVANTAGE_PLAY_SUSPECTED", "DEALER_FAVOURS_SEAT", "METER_INCREMENT_WRONG",
    }  # fmt: skip
    assert any(f.unit == "PC-9" for f in expected)
    companion = Companion(configs, horizon_ms=60_000, figures=_flat)
    found = _run(companion, _fetches(messages, 1))
    assert len(companion.order) == 0  # the topic read to its end: every round read
    assert companion.order.late == 0
    assert found == list(expected)


def test_a_companion_stopped_and_started_again_from_its_checkpoints_finds_the_same() -> None:
    configs, messages, expected = _floor()
    chunks = _fetches(messages, 2)
    rng = random.Random(3)
    cuts = sorted(rng.sample(range(1, len(chunks)), 6))
    companion = Companion(configs, horizon_ms=60_000, figures=_flat)
    found: list[PatternFinding] = []
    at = 0
    for cut in [*cuts, len(chunks)]:
        found += _run(companion, chunks[at:cut])
        at = cut
        saved = companion.save()
        companion = Companion(configs, horizon_ms=60_000, figures=_flat)
        companion.load(saved)
        # it goes on from the offsets it saved, each partition's next one
        read = [m for chunk, _ in chunks[:cut] for m in chunk]
        assert companion.offsets == {p: o + 1 for p, o in _last_offsets(read).items()}
    assert companion.order.late == 0
    assert found == list(expected)


def _last_offsets(messages: list[Message]) -> dict[int, int]:
    last: dict[int, int] = {}
    for partition, offset, _ in messages:
        last[partition] = offset
    return last


def test_a_message_the_worker_refuses_is_not_judged_and_is_counted() -> None:
    configs, _, _ = _floor()
    companion = Companion(configs, figures=_flat)
    companion.feed(0, 0, b'{"type": "wager", "table_id": ')
    assert companion.refused == 1
    assert companion.release(set()) == []
    assert companion.offsets == {0: 1}


def test_a_checkpoint_of_another_version_or_not_one_is_refused_by_name() -> None:
    configs, _, _ = _floor()
    with pytest.raises(CheckpointUnreadable, match="patterns checkpoint"):
        Companion(configs).load(b"\x00not msgpack")
