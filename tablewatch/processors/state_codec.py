"""A table's state between rounds, as bytes for the Faust changelog-backed table.

Only what survives a round is kept: decks, seq, meter, stub cadence, the
most recent event_ids (for controller re-sends) and recently closed rounds,
with the Kafka offset of the last message applied. The open round is never
stored: its messages are not acknowledged until it ends, so a restarted
worker receives them again and folds them anew; messages at or below the
stored offset were applied already and are skipped (like snuba, the offset
travels with the state, so redelivery needs no long id window).

The head of the table's hash chain (:mod:`tablewatch.integrity.chain`) travels
with it too, as of the same offset: the next owner extends the chain from
there, and a message delivered again at or below that offset is not chained
twice. A table with no configuration has no state but its chain head
(:func:`chain_snapshot`).

The round ids of the table's last :data:`ROUNDS_KEPT` rounds travel with it
(each with where the first of its rounds began), so that a round given an id
used before is still found (ROUND_ID_REUSED) after a restart or a rebalance;
the table's window fills up again from there. A snapshot written before they
were carried restores with none.
"""

from __future__ import annotations

import msgspec

from tablewatch.integrity.chain import GENESIS, ChainHead
from tablewatch.rules.config import TableConfig
from tablewatch.rules.events import Shuffle
from tablewatch.rules.round_ids import RoundOpening
from tablewatch.rules.table import DeckState, TableState

SNAPSHOT_VERSION = 1
SEEN_KEPT = 256  # event_ids kept per table, against controller re-sends after a restart
# Rounds whose round ids are kept per table, against a round id given again after a restart:
# several hours of one table. A snapshot is written at every round's end; 256 rounds add
# 22 KB and 25 us to one (11 KB and 10 us without), 1,024 would add 90 KB and 130 us, and
# the table's whole window (rules.table.ROUND_ID_WINDOW, 50,000) megabytes, more than a
# Kafka message may hold.
ROUNDS_KEPT = 256


class DeckSnapshot(msgspec.Struct, frozen=True):
    dealing: str
    in_ts: str
    in_event_id: str
    shuffle: Shuffle | None
    shuffle_reported: bool
    overdue_reported: bool


class ChainSnapshot(msgspec.Struct, frozen=True):
    """The head of a table's chain: its last position and hash, and what a checkpoint of it
    names (the event's seq and ts, the last position signed)."""

    position: int
    hash: str  # hex
    seq: int = 0
    ts_ms: int = 0
    signed: int = 0
    offset: int | None = None  # of the last message chained (the snapshot's, when absent)
    signed_at_ms: int = 0  # when the last checkpoint was signed (0: not kept)
    checkpoint_no: int = 0  # the last checkpoint's number (0: none numbered)
    checkpoint_link: str = ""  # its link hash, hex ("": none)
    partition: int = -1  # of the events topic, where the table's events come from


class TableSnapshot(msgspec.Struct, frozen=True):
    version: int
    table_id: str
    last_seq: int | None
    decks: dict[str, DeckSnapshot]
    meter: int | None
    rounds_without_stub: int
    stubless_starts: list[str]
    duplicates: int
    seen: list[str]
    closed: list[str]
    kafka_offset: int | None = None  # the last message applied to this state
    chain: ChainSnapshot | None = None  # None: saved before the chain existed
    # the last rounds of the round-id window, oldest first: [round_id, [event_id, seq, ts]]
    # each ([] when saved before they were carried)
    rounds: list[tuple[str, RoundOpening]] = []


class ChainOnlySnapshot(msgspec.Struct, frozen=True):
    """The saved state of a table with no configuration: its chain head alone."""

    version: int
    table_id: str
    chain: ChainSnapshot
    kafka_offset: int | None = None
    chain_only: bool = True


class _ChainPart(msgspec.Struct):
    """What any saved state says of its chain (and whether it is a whole table's)."""

    chain: ChainSnapshot | None = None
    kafka_offset: int | None = None
    chain_only: bool = False


_ENCODER = msgspec.json.Encoder()
_DECODER = msgspec.json.Decoder(TableSnapshot)
_CHAIN_DECODER = msgspec.json.Decoder(_ChainPart)


def _chain_of(head: ChainHead) -> ChainSnapshot:
    return ChainSnapshot(
        head.position,
        head.hash.hex(),
        head.seq,
        head.ts_ms,
        head.signed,
        head.offset,
        int(head.signed_at * 1000),
        head.checkpoint_no,
        head.checkpoint_link.hex() if head.checkpoint_no else "",
        head.partition,
    )


def snapshot(
    table: TableState, kafka_offset: int | None = None, chain: ChainHead | None = None
) -> bytes:
    """The state of a table with no open round, after the message at ``kafka_offset``
    (``chain``: the head of its chain after that message)."""
    if table.open_round is not None:
        raise ValueError(f"table {table.table_id}: a round is open; snapshot at round end only")
    seen = table.recent_ids(SEEN_KEPT)
    return _ENCODER.encode(
        TableSnapshot(
            version=SNAPSHOT_VERSION,
            table_id=table.table_id,
            last_seq=table.last_seq,
            decks={
                deck_id: DeckSnapshot(
                    d.dealing,
                    d.in_ts,
                    d.in_event_id,
                    d.shuffle,
                    d.shuffle_reported,
                    d.overdue_reported,
                )
                for deck_id, d in table.decks.items()
            },
            meter=table.meter,
            rounds_without_stub=table.rounds_without_stub,
            stubless_starts=list(table.stubless_starts),
            duplicates=table.duplicates,
            seen=seen,
            closed=list(table.closed_rounds()),
            rounds=table.recent_rounds(ROUNDS_KEPT),
            kafka_offset=kafka_offset,
            chain=None if chain is None else _chain_of(chain),
        )
    )


def chain_snapshot(table_id: str, chain: ChainHead) -> bytes:
    """The saved state of a table with no configuration: its chain, after its last event."""
    return _ENCODER.encode(
        ChainOnlySnapshot(SNAPSHOT_VERSION, table_id, _chain_of(chain), chain.offset)
    )


def chain_partition(data: bytes) -> int:
    """The events topic's partition a saved state says its table's events come from (-1:
    saved before it was kept)."""
    chain = _CHAIN_DECODER.decode(data).chain
    return -1 if chain is None else chain.partition


def is_chain_only(data: bytes) -> bool:
    """Whether ``data`` is a :func:`chain_snapshot` (no table state in it)."""
    return _CHAIN_DECODER.decode(data).chain_only


def restore_chain(data: bytes) -> ChainHead:
    """The chain head saved in any snapshot, as of its offset. A snapshot from before the
    chain existed gives an empty chain whose events up to that offset are not chained
    again (their rows are stored, outside the chain)."""
    part = _CHAIN_DECODER.decode(data)
    chain = part.chain
    if chain is None:
        return ChainHead(offset=part.kafka_offset)
    digest = bytes.fromhex(chain.hash)
    if len(digest) != len(GENESIS):
        raise ValueError(f"a chain hash of {len(digest)} bytes")
    return ChainHead(
        position=chain.position,
        hash=digest,
        offset=part.kafka_offset if chain.offset is None else chain.offset,
        seq=chain.seq,
        ts_ms=chain.ts_ms,
        signed=chain.signed,
        signed_at=chain.signed_at_ms / 1000,
        checkpoint_no=chain.checkpoint_no,
        checkpoint_link=bytes.fromhex(chain.checkpoint_link) if chain.checkpoint_link else GENESIS,
        partition=chain.partition,
    )


def restore(data: bytes, config: TableConfig) -> tuple[TableState, int | None]:
    """The table's state and the offset of the last message it includes."""
    snap = _DECODER.decode(data)
    table = TableState(snap.table_id, config)
    table.last_seq = snap.last_seq
    table.decks = {
        deck_id: DeckState(
            d.dealing, d.in_ts, d.in_event_id, d.shuffle, d.shuffle_reported, d.overdue_reported
        )
        for deck_id, d in snap.decks.items()
    }
    table.meter = snap.meter
    table.rounds_without_stub = snap.rounds_without_stub
    table.stubless_starts = list(snap.stubless_starts)
    table.duplicates = snap.duplicates
    table.remember(snap.seen, snap.closed, snap.rounds)
    return table, snap.kafka_offset
