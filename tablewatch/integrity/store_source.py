"""What ``tablewatch verify`` reads from the store: chained rows, checkpoints, public keys.

Everything is read through the duplicate-free views (``raw_events_v``) or with
``FINAL``, each table's rows streamed in position order.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, Final

from clickhouse_connect.driver.client import Client

from tablewatch.integrity.checkpoints import Checkpoint
from tablewatch.integrity.keys import ALGORITHM, key_id
from tablewatch.integrity.verify import Outside, StoredEvent

CHAIN_MIGRATION: Final = "0006"
_EVENTS = (
    "SELECT chain_pos, chain_prev, chain_hash, event_id, seq, toUnixTimestamp64Milli(ts), type, "
    "round_id, payload, kafka_partition, kafka_offset, toUnixTimestamp64Milli(ingested_at) "
    "FROM raw_events_v WHERE table_id = {t:String} AND chain_pos >= {start:UInt64} "
    "AND chain_pos > 0 ORDER BY chain_pos, ingested_at"
)


class NoChain(Exception):
    """The store has no chain columns (its migrations stop before the chain's)."""


def has_chain(client: Client) -> bool:
    rows = client.query(
        "SELECT count() FROM system.columns WHERE database = currentDatabase() "
        "AND table = 'raw_events' AND name IN ('chain_pos', 'chain_prev', 'chain_hash')"
    ).result_rows
    return int(rows[0][0]) == 3


def chain_began_ms(client: Client) -> int | None:
    """When the chain's migration was applied: no event stored since is outside a chain."""
    rows = client.query(
        "SELECT toUnixTimestamp64Milli(min(applied_at)), count() FROM schema_migrations "
        "WHERE version = {v:String}",
        parameters={"v": CHAIN_MIGRATION},
    ).result_rows
    return int(rows[0][0]) if rows and int(rows[0][1]) else None


def store_tables(client: Client) -> list[str]:
    """Every table with stored events or checkpoints."""
    rows = client.query(
        "SELECT DISTINCT table_id FROM raw_events_v UNION DISTINCT "
        "SELECT DISTINCT table_id FROM chain_checkpoints"
    ).result_rows
    return sorted(str(r[0]) for r in rows)


def outside_rows(client: Client, table_id: str, began_ms: int | None) -> Outside:
    after = "ingested_at > fromUnixTimestamp64Milli({b:Int64}, 'UTC')"
    rows = client.query(
        f"SELECT count(), countIf({after}), argMinIf(event_id, ingested_at, {after}), "
        f"toUnixTimestamp64Milli(minIf(ingested_at, {after})) "
        "FROM raw_events_v WHERE table_id = {t:String} AND chain_pos = 0",
        parameters={"t": table_id, "b": began_ms if began_ms is not None else 2**62},
    ).result_rows
    count, after, first, first_ms = rows[0]
    return Outside(int(count), int(after), str(first or ""), int(first_ms or 0))


def start_position(client: Client, table_id: str, since_ms: int | None) -> int:
    """The first position to verify: 1, or with ``since_ms`` the lowest position of an
    event at or after it (0: none)."""
    if since_ms is None:
        return 1
    rows = client.query(
        "SELECT min(chain_pos), count() FROM raw_events_v WHERE table_id = {t:String} "
        "AND chain_pos > 0 AND ts >= fromUnixTimestamp64Milli({s:Int64}, 'UTC')",
        parameters={"t": table_id, "s": since_ms},
    ).result_rows
    return int(rows[0][0]) if int(rows[0][1]) else 0


def stored_events(client: Client, table_id: str, start: int = 1) -> Iterator[StoredEvent]:
    """The table's chained rows from position ``start``, by position, streamed."""
    with client.query_row_block_stream(
        _EVENTS, parameters={"t": table_id, "start": start}, column_formats={"payload": "bytes"}
    ) as stream:
        for block in stream:
            for r in block:
                yield StoredEvent(
                    int(r[0]), str(r[1]), str(r[2]), str(r[3]), int(r[4]), int(r[5]),
                    str(r[6]), str(r[7]), bytes(r[8]), int(r[9]), int(r[10]), int(r[11]),
                )  # fmt: skip


def stored_hashes(client: Client, table_id: str) -> dict[int, tuple[str, int, int]]:
    """Position -> (chain_hash, kafka_partition, kafka_offset) of the table's chained rows (the
    first row at a position, when there are two)."""
    out: dict[int, tuple[str, int, int]] = {}
    with client.query_row_block_stream(
        "SELECT chain_pos, chain_hash, kafka_partition, kafka_offset FROM raw_events_v "
        "WHERE table_id = {t:String} AND chain_pos > 0 ORDER BY chain_pos, ingested_at",
        parameters={"t": table_id},
    ) as stream:
        for block in stream:
            for position, digest, partition, offset in block:
                out.setdefault(int(position), (str(digest), int(partition), int(offset)))
    return out


def stored_checkpoints(client: Client, table_id: str, start: int = 1) -> list[Checkpoint]:
    rows = client.query(
        "SELECT table_id, chain_pos, chain_hash, seq, toUnixTimestamp64Milli(event_ts), "
        "kafka_partition, kafka_offset, toUnixTimestamp64Milli(signed_at), key_id, signature, "
        "checkpoint_no, prev_checkpoint FROM chain_checkpoints FINAL "
        "WHERE table_id = {t:String} AND chain_pos >= {s:UInt64} "
        "ORDER BY chain_pos, signed_at",
        parameters={"t": table_id, "s": start},
    ).result_rows
    return [_checkpoint(r) for r in rows]


def _checkpoint(r: Sequence[Any]) -> Checkpoint:
    return Checkpoint(
        str(r[0]), int(r[1]), str(r[2]), int(r[3]), int(r[4]), int(r[5]), int(r[6]),
        int(r[7]), str(r[8]), str(r[9]), int(r[10]), str(r[11]),
    )  # fmt: skip


def published_keys(client: Client) -> tuple[dict[str, bytes], list[str]]:
    """The public keys in ``signing_keys`` (key id -> raw key), and the rows that are not a
    key under its own id (a key id is a hash of its key: such a row is not trusted)."""
    keys: dict[str, bytes] = {}
    bad: list[str] = []
    rows = client.query(
        "SELECT key_id, algorithm, public_key FROM signing_keys FINAL ORDER BY key_id"
    ).result_rows
    for kid, algorithm, public_hex in rows:
        try:
            public = bytes.fromhex(str(public_hex))
        except ValueError:
            public = b""
        if str(algorithm) != ALGORITHM or len(public) != 32 or key_id(public) != str(kid):
            bad.append(str(kid))
            continue
        keys[str(kid)] = public
    return keys, bad
