"""The restore fence: a partition's tables are never run from states older than its commit.

A table's state is restored from the changelog (``tablewatch-table-state``)
when its partition is assigned, and the partition is read from the group's
committed offset. If the changelog the new owner restored lacks the latest
snapshots (sent by the old owner but not yet seen), the events between the
restored states and the committed offset would never be folded (a false
``SEQUENCE_GAP``, missed findings).

A snapshot carries the offset of its table's last message, but a quiet table's
snapshot is old whatever the commit, so one table's offset cannot tell a stale
state from a quiet one. The worker therefore writes one more changelog record
per partition with every batch, after the batch's snapshots are in the broker
and before its acks are released: the *fence*, the offset through which the
partition's messages are acknowledged once the batch's acks are. Every
snapshot a message at or below it needs precedes it in the same changelog
partition, and the commit never passes it. On assignment the consumer compares
the restored fence with the committed offset (:func:`restore_plan`): behind,
the partition is read again from the message after the fence; the messages
between are folded, or skipped by the tables that applied them already (at or
below the offset their state records).
"""

from __future__ import annotations

FENCE_PREFIX = b"\x00fence:"  # a table_id is printable: no table's key starts with NUL


def fence_key(partition: int) -> bytes:
    """The changelog key of ``partition``'s fence (written to that changelog partition)."""
    return FENCE_PREFIX + str(partition).encode()


def is_fence_key(key: object) -> bool:
    return isinstance(key, bytes) and key.startswith(FENCE_PREFIX)


def encode_fence(offset: int) -> bytes:
    return str(offset).encode()


def decode_fence(data: object, partition: int) -> int:
    """The offset a fence record holds; a record that is not one raises ValueError."""
    if not isinstance(data, bytes) or not data.isdigit():
        raise ValueError(
            f"restore fence of partition {partition}: value {data!r}: not a non-negative offset"
        )
    return int(data)


def restore_plan(fenced: int | None, committed: int | None) -> int | None:
    """Where to read a partition from after its tables were restored, when not from its
    committed offset: the message after the fence when the fence is behind the commit.

    ``fenced``: the offset of the last message covered by the restored snapshots (None:
    no fence restored, a partition never fenced). ``committed``: the offset the group
    reads from next (None: nothing committed, the partition is read from its start).
    """
    if fenced is None or committed is None:
        return None
    resume = fenced + 1
    return resume if resume < committed else None
