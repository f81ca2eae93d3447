"""Where ingest puts what it accepted and what it refused: the interface, and a memory sink.

:class:`tablewatch.ingest.kafka_producer.KafkaSink` is the real one; the
:class:`MemorySink` serves unit tests and dry runs.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from tablewatch.ingest.batch import Accepted
from tablewatch.topics import DeadLetter, table_key


@dataclass(frozen=True, slots=True)
class Delivery:
    """What the sink confirmed: one flag per event, in order; ``error`` if anything failed."""

    confirmed: list[bool]
    dead_letters_confirmed: int
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


class Sink(Protocol):
    def deliver(self, events: Sequence[Accepted], letters: Sequence[DeadLetter]) -> Delivery:
        """Write the events (key ``table_id``, value the raw bytes) and the dead letters.

        Returns only when every write is confirmed or has failed. Events are
        written in the order given; after a write fails no later one is tried.
        """
        ...

    def health(self) -> dict[str, Any]:
        """A JSON-able status; ``ok`` says whether a delivery can be expected to succeed."""
        ...

    def close(self) -> None:
        """Flush what is pending and release the connection."""
        ...


@dataclass
class MemorySink:
    """Keeps everything in lists; ``fail`` makes every delivery fail with that reason."""

    events: list[tuple[bytes, bytes]] = field(default_factory=list)  # (key, value)
    letters: list[DeadLetter] = field(default_factory=list)
    fail: str | None = None
    closed: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def deliver(self, events: Sequence[Accepted], letters: Sequence[DeadLetter]) -> Delivery:
        with self._lock:
            if self.fail is not None:
                return Delivery([False] * len(events), 0, self.fail)
            self.events.extend((table_key(e.table_id), e.raw) for e in events)
            self.letters.extend(letters)
            return Delivery([True] * len(events), len(letters))

    def health(self) -> dict[str, Any]:
        return {"ok": self.fail is None, "sink": "memory", "last_error": self.fail}

    def close(self) -> None:
        self.closed = True
