"""What the fuzzers found, each as a plain regression test (not marked ``fuzz``: always run)."""

from __future__ import annotations

import asyncio
import gzip
import zlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer
from clickhouse_connect.driver.client import Client

from tablewatch.ingest.http_server import make_app
from tablewatch.ingest.service import Ingestor
from tablewatch.ingest.sink import MemorySink
from tablewatch.rules.decode import EventRejected, decode_event
from tablewatch.store.client import connect
from tablewatch.store.migrate import migrate
from tablewatch.store.query_limits import QueryLimits
from tablewatch.store.read_only import QueryFailed, QueryRefused, ReadOnlyReader, open_reader

_METER = (
    b'{"v":1,"type":"meter","event_id":"e-1","table_id":"T-1","seq":1,'
    b'"ts":"2026-11-29T20:15:03.123Z","amount":5,'
)


@pytest.mark.parametrize("key", ["a`b", "", "k\n`", " - at `$.seq", "x - at `$.seat", "``"])
def test_an_unknown_key_is_the_field_whatever_it_holds(key: str) -> None:
    """The field of an unknown key is the key as given: it was cut at its first backtick,
    lost when empty or holding a line break, and a key ending in " - at `$.seat`" made
    the field ``seat``."""
    raw = _METER + b'"' + key.replace("\n", "\\n").encode() + b'":1}'
    with pytest.raises(EventRejected) as caught:
        decode_event(raw)
    assert caught.value.field == key
    assert caught.value.reason == f"Object contains unknown field `{key}`"


# ---- POST /events under a plain aiohttp runner ------------------------------------------


@pytest.mark.parametrize(
    ("body", "coding", "pieces"),
    [
        (gzip.compress(b"[]" * 100)[:-9] + b"\x00" * 9, "gzip", 1),  # a bad CRC
        (b"x" * 100, "gzip", 3),  # not gzip at all, sent chunked
        (zlib.compress(b"[]")[:-1] + b"!", "deflate", 1),
    ],
    ids=["gzip with a bad CRC", "not gzip, chunked", "deflate with a bad checksum"],
)
def test_a_body_aiohttp_cannot_decompress_is_400_not_500(
    body: bytes, coding: str, pieces: int
) -> None:
    """Served by a plain aiohttp runner, which decompresses bodies itself, a body that does
    not decompress was a 500 (aiohttp's RequestPayloadError out of the handler)."""
    sink = MemorySink()

    async def chunks() -> AsyncIterator[bytes]:
        step = -(-len(body) // pieces)
        for start in range(0, len(body), step):
            yield body[start : start + step]

    async def main() -> tuple[int, Any]:
        async with TestClient(TestServer(make_app(Ingestor(sink)))) as client:
            response = await client.post(
                "/events", data=chunks(), headers={"Content-Encoding": coding}
            )
            return response.status, await response.json()

    status, reply = asyncio.run(main())
    assert status == 400
    assert reply["kind"] == "malformed"
    assert reply["error"].startswith(f"bad {coding} data: ")
    assert not sink.events
    assert len(sink.letters) == 1


# ---- callers' SQL ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Client, ReadOnlyReader]]:
    """A store with a table in the product's database that is not the product's, a
    database of its own, and the reader under test (one for the module: nothing writes)."""
    dsn = f"chdb:///{tmp_path_factory.mktemp('planted') / 'store'}"
    writer = connect(dsn)
    try:
        migrate(writer)
        for statement in (
            "CREATE TABLE stowaway (s String) ENGINE = MergeTree ORDER BY s",
            "INSERT INTO stowaway VALUES ('SECRET-LOCAL')",
            "CREATE DATABASE canary",
            "CREATE TABLE canary.secrets (s String) ENGINE = MergeTree ORDER BY s",
        ):
            writer.command(statement)
        reader = open_reader(dsn, QueryLimits(seconds=5))
        try:
            yield writer, reader
        finally:
            reader.close()
    finally:
        writer.close()


SHADOWED = [
    # a window named like the table: the text check took it for a CTE
    "SELECT s FROM stowaway WINDOW w AS (), stowaway AS ()",
    "SELECT * FROM stowaway WINDOW w AS (ORDER BY 1), stowaway AS ()",
    # a CTE of that name, out of scope where the table is read
    "SELECT * FROM (WITH stowaway AS (SELECT 1 AS s) SELECT * FROM stowaway) "
    "UNION ALL SELECT * FROM stowaway",
    "SELECT 'SECRET-LOCAL' IN stowaway FROM (WITH stowaway AS (SELECT 1) SELECT 1)",
    "SELECT b.s FROM (WITH stowaway AS (SELECT 1) SELECT 1) AS a, stowaway AS b",
]


@pytest.mark.parametrize("sql", SHADOWED)
def test_a_cte_or_window_name_does_not_make_a_table_readable(
    planted: tuple[Client, ReadOnlyReader], sql: str
) -> None:
    _, reader = planted
    with pytest.raises(QueryRefused) as refused:
        reader.run(sql)
    assert "stowaway is not readable" in refused.value.reason


def test_a_cte_is_still_read_where_no_table_has_its_name(
    planted: tuple[Client, ReadOnlyReader],
) -> None:
    _, reader = planted
    assert list(reader.run("WITH c AS (SELECT 1 AS n) SELECT n FROM c").rows) == [(1,)]
    both = "WITH c AS (SELECT 2 AS n) SELECT n FROM c UNION ALL SELECT count() FROM findings_v"
    assert sorted(row[0] for row in reader.run(both).rows) == [0, 2]


@pytest.mark.parametrize(
    "sql",
    [
        "SHOW DATABASES",
        "SHOW DATABASES LIKE 'c%'",
        "show databases",
        "SHOW CLUSTERS",
        "SHOW DICTIONARIES",
        "SHOW MERGES",
        "SHOW TEMPORARY TABLES",
        "SHOW FILESYSTEM CACHES",
    ],
)
def test_show_is_show_tables_only(planted: tuple[Client, ReadOnlyReader], sql: str) -> None:
    """These parse as ShowTables too, and read system.databases, system.clusters, ..."""
    _, reader = planted
    with pytest.raises(QueryRefused) as refused:
        reader.run(sql)
    assert "only SHOW TABLES" in refused.value.reason


def test_show_tables_still_answers(planted: tuple[Client, ReadOnlyReader]) -> None:
    _, reader = planted
    for sql in ("SHOW TABLES", "SHOW FULL TABLES", "SHOW TABLES LIKE 'round%'"):
        assert {"rounds", "rounds_v"} <= {row[0] for row in reader.run(sql).rows}


def test_the_engines_guess_at_a_table_is_not_passed_on(
    planted: tuple[Client, ReadOnlyReader],
) -> None:
    """ "Maybe you meant canary.secrets?" named a table of another database."""
    _, reader = planted
    with pytest.raises(QueryFailed) as failed:
        reader.run("SELECT * FROM (WITH secretz AS (SELECT 1) SELECT 1) AS a, secretz AS b")
    assert "Unknown table expression identifier 'secretz'" in failed.value.reason
    assert "canary" not in failed.value.reason
