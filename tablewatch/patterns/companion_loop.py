"""The patterns companion's reader: the events topic in, steps (findings and a checkpoint) out.

:func:`run_companion` reads every partition of the events topic with kafka-python, from
the checkpoint's offsets (or each partition's start), folds each message into the
:class:`~tablewatch.patterns.companion.Companion`, and after each poll lets the folds
read what the watermark lets through. A :class:`Step` (the findings since the last one
and a checkpoint) goes to the sink when there are findings, and every ``save_seconds``
while anything was read; the sink returns once both are stored. No consumer group and
no committed offsets: the checkpoint is where the companion is (state and offsets saved
together), so exactly one companion runs per events topic.

Where it runs: the worker of an embedded store starts it as a child process
(:mod:`tablewatch.patterns.worker_child`: the store is the worker's alone, which stores
each step); ``tablewatch patterns`` runs it alone against a store server
(:class:`StoreSink`). Either way the valuing of decisions, the costly part, runs outside
the worker's process.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import msgspec

from tablewatch.config_file import load_config
from tablewatch.kafka_access import KafkaAccess
from tablewatch.patterns.companion import DEFAULT_QUIET_MS, Companion
from tablewatch.patterns.finding import PatternFinding
from tablewatch.patterns.floor_folds import DEFAULT_HORIZON_MS

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class CompanionSettings:
    config_path: Path
    kafka: KafkaAccess = field(default_factory=KafkaAccess)
    events_topic: str = "table-events"
    horizon_ms: int = DEFAULT_HORIZON_MS
    quiet_ms: int | None = DEFAULT_QUIET_MS
    save_seconds: float = 5.0
    poll_ms: int = 500
    max_records: int = 5_000


class Step(msgspec.Struct):
    """What the companion hands its sink: the findings made since the last step, and the
    checkpoint after them."""

    findings: list[PatternFinding]
    checkpoint: bytes
    rounds: int  # read by the folds so far
    late: int  # of them, read out of order
    lag: int  # messages of the topic not read yet


class Sink(Protocol):
    def write(self, step: Step) -> None:
        """Store the step (findings, then checkpoint); return once both are stored."""


def run_companion(
    settings: CompanionSettings,
    sink: Sink,
    checkpoint: bytes | None,
    stopped: Callable[[], bool],
) -> None:
    """Read, fold and hand steps to ``sink`` until ``stopped()``."""
    from kafka import KafkaConsumer, TopicPartition

    companion = Companion(
        load_config(settings.config_path),
        horizon_ms=settings.horizon_ms,
        quiet_ms=settings.quiet_ms,
    )
    if checkpoint is not None:
        companion.load(checkpoint)
    consumer = KafkaConsumer(
        **settings.kafka.kafka_python(),
        enable_auto_commit=False,
        group_id=None,
        auto_offset_reset="earliest",
        max_poll_records=settings.max_records,
    )
    topic = settings.events_topic
    try:
        partitions = _partitions(consumer, topic, stopped)
        if partitions is None:
            return
        tps = [TopicPartition(topic, p) for p in partitions]
        consumer.assign(tps)
        for tp in tps:
            if tp.partition in companion.offsets:
                consumer.seek(tp, companion.offsets[tp.partition])
            else:
                consumer.seek_to_beginning(tp)
        found: list[PatternFinding] = []
        read_since_save = 0
        saved_rounds = companion.rounds
        saved_at = time.monotonic()
        while not stopped():
            polled = consumer.poll(timeout_ms=settings.poll_ms)
            for tp, records in polled.items():
                for record in records:
                    companion.feed(tp.partition, record.offset, record.value)
                read_since_save += len(records)
            ends = consumer.end_offsets(tps)
            lags = {tp.partition: ends[tp] - consumer.position(tp) for tp in tps}
            behind = {p for p, lag in lags.items() if lag > 0}
            found += companion.release(behind, int(time.time() * 1000))
            due = time.monotonic() - saved_at >= settings.save_seconds
            if found or (due and (read_since_save or companion.rounds != saved_rounds)):
                sink.write(
                    Step(found, companion.save(), companion.rounds, companion.order.late,
                         sum(lags.values()))
                )  # fmt: skip
                found = []
                read_since_save = 0
                saved_rounds = companion.rounds
                saved_at = time.monotonic()
    finally:
        consumer.close()


def _partitions(consumer: Any, topic: str, stopped: Callable[[], bool]) -> list[int] | None:
    """The topic's partitions, once Kafka knows the topic (None: stopped first)."""
    while not stopped():
        partitions = consumer.partitions_for_topic(topic)
        if partitions:
            return sorted(partitions)
        log.info("patterns: waiting for topic %s", topic)
        time.sleep(1.0)
    return None
