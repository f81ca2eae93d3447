"""One ingest path for HTTP bodies and JSON Lines files: classify, deliver, remember.

:class:`Ingestor` runs a batch through :mod:`tablewatch.ingest.batch`, hands
the accepted events and the dead letters to a :class:`~tablewatch.ingest.sink.Sink`
and waits for the confirmation, then adds the confirmed event_ids to the
duplicate window. One batch at a time (a lock): the window check and the
delivery are one step, so two batches carrying the same event_id cannot both
produce it, and batches reach Kafka in the order they were taken.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass

from tablewatch.ingest.batch import (
    DEFAULT_LIMITS,
    BodyRefused,
    ClassifiedBatch,
    Item,
    Limits,
    SeenWindow,
    classify,
    dead_letter_of,
    dead_letter_of_body,
    split_body,
)
from tablewatch.ingest.signing import SignatureCheck, SignatureCounts
from tablewatch.ingest.sink import Sink
from tablewatch.rules.events import ms_to_ts
from tablewatch.topics import DeadLetter

log = logging.getLogger(__name__)


def now_ts() -> str:
    """The current time as a protocol timestamp (UTC, milliseconds)."""
    return ms_to_ts(time.time_ns() // 1_000_000)


class DeliveryFailed(Exception):
    """The sink did not confirm every write; the client should send the batch again."""

    def __init__(self, reason: str, batch: ClassifiedBatch) -> None:
        super().__init__(reason)
        self.reason = reason
        self.batch = batch


@dataclass(slots=True)
class IngestCounters:
    batches: int = 0  # bodies or file chunks taken, refused ones included
    accepted: int = 0  # events produced and confirmed
    duplicates: int = 0
    rejected: int = 0  # items refused by validation
    refused_malformed: int = 0  # whole bodies
    refused_oversized: int = 0  # whole bodies
    dead_letters: int = 0  # dead-letter records confirmed
    delivery_failures: int = 0  # batches answered "try again"


class Ingestor:
    def __init__(
        self,
        sink: Sink,
        *,
        limits: Limits = DEFAULT_LIMITS,
        window: SeenWindow | None = None,
        clock: Callable[[], str] = now_ts,
        signatures: SignatureCheck | None = None,
    ) -> None:
        self.sink = sink
        self.limits = limits
        self.window = window if window is not None else SeenWindow()
        self.clock = clock
        self.counters = IngestCounters()
        # the signature rule of the configuration's tables (None: no configuration given)
        self.signatures = signatures
        self._signature_counts = signatures.counts if signatures is not None else SignatureCounts()
        self._lock = threading.Lock()

    def ingest_body(self, body: bytes, source: str) -> ClassifiedBatch:
        """An HTTP body: a JSON array of events.

        Raises :class:`BodyRefused` (after writing its dead letter) for a
        malformed or oversized body, :class:`DeliveryFailed` when Kafka did not
        confirm.
        """
        try:
            items = split_body(body, self.limits)
        except BodyRefused as refused:
            self.refuse_body(refused, body, source)
            raise
        return self.ingest_items(items, source)

    def ingest_items(self, items: Sequence[Item], source: str) -> ClassifiedBatch:
        """Classify, deliver and remember one batch; raises :class:`DeliveryFailed`."""
        with self._lock:
            received_at = self.clock()
            batch = classify(items, self.window, self.limits, self.signatures)
            accepted = batch.accepted
            letters = [dead_letter_of(r, received_at, source) for r in batch.rejected]
            delivery = self.sink.deliver(accepted, letters)
            self.counters.batches += 1
            self.window.add(
                e.event_id for e, ok in zip(accepted, delivery.confirmed, strict=True) if ok
            )
            self.counters.accepted += sum(delivery.confirmed)
            self.counters.dead_letters += delivery.dead_letters_confirmed
            if not delivery.ok:
                self.counters.delivery_failures += 1
                assert delivery.error is not None
                log.warning("delivery failed (%s): %s", source, delivery.error)
                raise DeliveryFailed(delivery.error, batch)
            self.counters.duplicates += len(batch.duplicates)
            self.counters.rejected += len(batch.rejected)
            if self.signatures is not None:
                self.signatures.count(batch)
            return batch

    def refuse_body(
        self, refused: BodyRefused, body: bytes, source: str, body_bytes: int | None = None
    ) -> None:
        """Count a refused body and write its dead letter (a failure is logged, not raised).

        ``body`` may be only the first part of it (``body_bytes`` the whole size).
        """
        with self._lock:
            self.counters.batches += 1
            if refused.kind == "oversized":
                self.counters.refused_oversized += 1
            else:
                self.counters.refused_malformed += 1
            letter: DeadLetter = dead_letter_of_body(
                refused, body, self.clock(), source, body_bytes
            )
            delivery = self.sink.deliver([], [letter])
            self.counters.dead_letters += delivery.dead_letters_confirmed
            if not delivery.ok:
                log.error("dead letter of a %s body lost: %s", refused.kind, delivery.error)

    def metrics(self) -> dict[str, int]:
        """The counters (read without the lock: a slow delivery does not block them)."""
        return {
            **asdict(self.counters),
            **self._signature_counts.as_dict(),
            "window_ids": len(self.window),
            "window_capacity": self.window.capacity,
        }
