"""A table's state between rounds, as bytes for the Faust changelog-backed table.

Only what survives a round is kept: decks, seq, meter, stub cadence, the
most recent event_ids (for controller re-sends) and recently closed rounds,
with the Kafka offset of the last message applied. The open round is never
stored: its messages are not acknowledged until it ends, so a restarted
worker receives them again and folds them anew; messages at or below the
stored offset were applied already and are skipped (like snuba, the offset
travels with the state, so redelivery needs no long id window).
"""

from __future__ import annotations

import msgspec

from tablewatch.rules.config import TableConfig
from tablewatch.rules.events import Shuffle
from tablewatch.rules.table import DeckState, TableState

SNAPSHOT_VERSION = 1
SEEN_KEPT = 256  # event_ids kept per table, against controller re-sends after a restart


class DeckSnapshot(msgspec.Struct, frozen=True):
    dealing: str
    in_ts: str
    in_event_id: str
    shuffle: Shuffle | None
    shuffle_reported: bool
    overdue_reported: bool


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


_ENCODER = msgspec.json.Encoder()
_DECODER = msgspec.json.Decoder(TableSnapshot)


def snapshot(table: TableState, kafka_offset: int | None = None) -> bytes:
    """The state of a table with no open round, after the message at ``kafka_offset``."""
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
            kafka_offset=kafka_offset,
        )
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
    table.remember(snap.seen, snap.closed)
    return table, snap.kafka_offset
