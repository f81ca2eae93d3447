"""Acknowledging messages in offset order, per partition.

Faust commits the highest offset such that every acknowledged offset below
it is contiguous, but its check of the gap at the head of the list is off by
one and skipped while nothing has been committed yet: acknowledged out of
order, it can commit past a message still being worked on (the same trap
as agent concurrency above 1). So the worker never hands Faust an ack out of
order: a message is acknowledged only when it and every earlier message of
its partition are released.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Generic, TypeVar

M = TypeVar("M")


@dataclass(slots=True, eq=False)
class Ticket(Generic[M]):
    partition: int
    offset: int
    message: M
    released: bool = False


@dataclass(slots=True)
class InOrderAcks(Generic[M]):
    ack: Callable[[M], object]
    _queues: dict[int, deque[Ticket[M]]] = field(default_factory=dict)
    acked: int = 0

    def track(self, partition: int, offset: int, message: M) -> Ticket[M]:
        ticket = Ticket(partition, offset, message)
        self._queues.setdefault(partition, deque()).append(ticket)
        return ticket

    def release(self, tickets: Iterable[Ticket[M]]) -> int:
        """Mark ``tickets`` done; acknowledge every message now done with all before it."""
        touched = set()
        for ticket in tickets:
            ticket.released = True
            touched.add(ticket.partition)
        acked = 0
        for partition in touched:
            queue = self._queues.get(partition)  # None: forgotten in a rebalance
            while queue and queue[0].released:
                self.ack(queue.popleft().message)
                acked += 1
        self.acked += acked
        return acked

    def through(self, tickets: Iterable[Ticket[M]]) -> dict[int, int]:
        """The offset through which each partition of ``tickets`` would be acknowledged
        once they are released (only partitions that would advance); changes nothing."""
        mine = {id(ticket) for ticket in tickets}
        ahead: dict[int, int] = {}
        for partition, queue in self._queues.items():
            last = None
            for ticket in queue:
                if not (ticket.released or id(ticket) in mine):
                    break
                last = ticket.offset
            if last is not None:
                ahead[partition] = last
        return ahead

    def forget(self, partitions: Iterable[int]) -> int:
        """Drop the messages of ``partitions`` still waiting (the partitions were revoked:
        Kafka gives them again from the committed offset); returns how many."""
        return sum(len(self._queues.pop(p, ())) for p in partitions)

    def waiting(self) -> int:
        """Messages received and not yet acknowledged."""
        return sum(len(q) for q in self._queues.values())
