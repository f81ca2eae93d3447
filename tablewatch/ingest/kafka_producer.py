"""Producing accepted events and dead letters to Kafka with kafka-python.

- the events topic (``table-events``): key = ``table_id`` (one table, one
  partition, in order), value = the event's JSON bytes exactly as received (not
  re-encoded: the controller's text is the evidence);
- the dead-letter topic (``table-events-dlq``): key = ``table_id`` when
  readable, else none; value = the dead-letter record
  (:func:`tablewatch.topics.dead_letter`).

Names and keys: :mod:`tablewatch.topics`; the broker and how to authenticate to it:
:class:`~tablewatch.kafka_access.KafkaAccess`.

The producer is idempotent (``enable_idempotence=True``, ``acks="all"``): a
retry inside the client cannot write an event twice or reorder a partition.
:meth:`KafkaSink.deliver` returns only after the broker confirmed every write
(or it failed), so an HTTP reply never claims what Kafka does not hold.
"""

from __future__ import annotations

import logging
import socket
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from kafka import KafkaProducer  # type: ignore[import-untyped, unused-ignore]

from tablewatch.ingest.batch import Accepted
from tablewatch.ingest.sink import Delivery
from tablewatch.kafka_access import KafkaAccess, host_port
from tablewatch.topics import DeadLetter, Topics, table_key

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class KafkaSettings:
    access: KafkaAccess = field(default_factory=KafkaAccess)
    topics: Topics = field(default_factory=Topics)  # ingest writes events and dead_letters
    delivery_timeout_s: float = 30.0  # a batch not confirmed by then has failed
    client_id: str = "tablewatch-ingest"

    @property
    def bootstrap(self) -> str:
        return self.access.bootstrap


class KafkaSink:
    """A :class:`~tablewatch.ingest.sink.Sink` on one idempotent kafka-python producer.

    The producer is made on first use, and made again after a failed delivery
    so that a fresh producer id starts clean. Records of a failed batch that
    were already on the wire may land anyway; when the client sends the batch
    again they are written a second time, and the worker ignores the repeated
    event_ids.
    """

    def __init__(self, settings: KafkaSettings | None = None, **producer_config: Any) -> None:
        self.settings = settings or KafkaSettings()
        self._extra = producer_config
        self._producer: Any = None
        self._lock = threading.Lock()
        self.last_error: str | None = None
        self.last_delivery: float | None = None  # time.time() of the last confirmed delivery

    # ---- the producer -------------------------------------------------------

    def _config(self) -> dict[str, Any]:
        timeout_ms = int(self.settings.delivery_timeout_s * 1000)
        config: dict[str, Any] = {
            **self.settings.access.kafka_python(),
            "client_id": self.settings.client_id,
            "acks": "all",
            "enable_idempotence": True,
            "max_in_flight_requests_per_connection": 5,
            "linger_ms": 5,
            "batch_size": 256 * 1024,
            "delivery_timeout_ms": timeout_ms,
            "request_timeout_ms": min(10_000, max(timeout_ms - 5, 1)),
            "max_block_ms": min(10_000, timeout_ms),
            "bootstrap_timeout_ms": min(10_000, timeout_ms),
        }
        config.update(self._extra)
        return config

    def _get(self) -> Any:
        if self._producer is None:
            self._producer = KafkaProducer(**self._config())
        return self._producer

    def connect(self, timeout_s: float) -> None:
        """Make the producer now (it bootstraps: a metadata request, after TLS and SASL),
        trying for at most ``timeout_s``; raises what kafka-python raises. The wait at
        start (:func:`tablewatch.kafka_wait.wait_for_kafka`) calls it."""
        with self._lock:
            if self._producer is None:
                config = self._config()
                config["bootstrap_timeout_ms"] = max(1, int(timeout_s * 1000))
                self._producer = KafkaProducer(**config)

    def _drop(self) -> None:
        producer, self._producer = self._producer, None
        if producer is not None:
            try:
                producer.close(timeout=0)
            except Exception as exc:  # closing a broken producer must not hide the first error
                log.debug("closing the failed producer: %s", exc)

    # ---- Sink ---------------------------------------------------------------

    def deliver(self, events: Sequence[Accepted], letters: Sequence[DeadLetter]) -> Delivery:
        with self._lock:
            return self._deliver(events, letters)

    def _deliver(self, events: Sequence[Accepted], letters: Sequence[DeadLetter]) -> Delivery:
        s = self.settings
        futures: list[Any] = []
        letter_futures: list[Any] = []
        error: str | None = None
        producer: Any = None
        try:
            producer = self._get()
            for event in events:
                futures.append(
                    producer.send(s.topics.events, key=table_key(event.table_id), value=event.raw)
                )
            for letter in letters:
                letter_futures.append(
                    producer.send(s.topics.dead_letters, key=letter.key, value=letter.value)
                )
        except Exception as exc:  # kafka-python raises its own errors and OSError
            error = self._failure(exc)
        if producer is not None:
            try:  # even after a failed send: what was sent is confirmed or failed
                producer.flush(timeout=s.delivery_timeout_s + 5)
            except Exception as exc:
                error = error or self._failure(exc)
        confirmed = [f.succeeded() for f in futures] + [False] * (len(events) - len(futures))
        letters_ok = sum(1 for f in letter_futures if f.succeeded())
        if error is None:
            for future in [*futures, *letter_futures]:
                if not future.succeeded():
                    reason = (
                        f"{type(future.exception).__name__}: {future.exception}"
                        if future.is_done
                        else "not confirmed in time"
                    )
                    error = s.access.redact(f"Kafka at {s.bootstrap}: {reason}")
                    break
        if error is None and letters_ok < len(letters):
            error = f"Kafka at {s.bootstrap}: dead letters not confirmed"
        if error is not None:
            self.last_error = error
            self._drop()
            return Delivery(confirmed, letters_ok, error)
        self.last_error = None
        self.last_delivery = time.time()
        return Delivery(confirmed, letters_ok)

    def health(self) -> dict[str, Any]:
        """``ok``: a bootstrap server accepts a TCP connection within 1 s.

        ``last_error`` is the failure of the last delivery (``None`` once one succeeds).
        """
        reachable = any(_reachable(server) for server in self.settings.access.servers)
        return {
            "ok": reachable,
            "bootstrap": self.settings.bootstrap,
            "reachable": reachable,
            "last_error": self.last_error,
            "last_delivery": self.last_delivery,
            "topics": {
                "events": self.settings.topics.events,
                "dlq": self.settings.topics.dead_letters,
            },
            "security": self.settings.access.status(),
        }

    def close(self) -> None:
        with self._lock:
            producer, self._producer = self._producer, None
            if producer is not None:
                producer.close(timeout=self.settings.delivery_timeout_s)

    def _failure(self, exc: BaseException) -> str:
        access = self.settings.access
        return access.redact(f"Kafka at {access.bootstrap}: {type(exc).__name__}: {exc}")


def _reachable(server: str) -> bool:
    try:
        socket.create_connection(host_port(server), timeout=1).close()
    except (OSError, ValueError):
        return False
    return True
