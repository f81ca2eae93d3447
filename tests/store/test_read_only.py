"""Hostile statements on the read path: refused by the engine's checks, or bounded by its limits.

Every class an attacker tried on the worker's ``/query`` (files, outbound
connections, statements hidden from the text check, writes, endless or huge
queries, tables outside the product), each with variants of its own. After
each, the reader still answers ``SELECT 1``.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from clickhouse_connect.driver.client import Client

from tablewatch.store.access_log import ACCESS_LOG_TABLES
from tablewatch.store.query_limits import QueryLimits
from tablewatch.store.read_only import (
    READABLE,
    QueryFailed,
    QueryRefused,
    ReadOnlyReader,
    open_reader,
)
from tests.store.loopback import Listener

LIMITS = QueryLimits(seconds=1.0, rows=1_000, bytes=1_000_000, memory=200_000_000)


@pytest.fixture
def reader(store: Client, store_dsn: str) -> Iterator[ReadOnlyReader]:
    store.command(
        "INSERT INTO schema_migrations (version, name, applied_at) "
        "SELECT 9000 + number, 'filler', now64(3) FROM numbers(50)"
    )
    opened = open_reader(store_dsn, LIMITS)
    try:
        yield opened
    finally:
        opened.close()


def _stopped(reader: ReadOnlyReader, sql: str) -> str:
    """The reason ``sql`` was refused or stopped; and the reader still answers after it."""
    with pytest.raises((QueryRefused, QueryFailed)) as caught:
        reader.run(sql)
    started = time.monotonic()
    assert reader.run("SELECT 1").rows == [(1,)]
    assert time.monotonic() - started < 1.0
    reason = str(caught.value)
    assert reason
    return reason


@pytest.fixture
def secret(tmp_path: Path) -> Path:
    path = tmp_path / "secret.txt"
    path.write_text("SECRET-7f3a\n")
    return path


FILE_READS = [
    "SELECT * FROM file('{p}', 'LineAsString')",
    "SELECT * FROM file('{p}')",
    "select line from FILE('{p}', 'LineAsString') as f",
    "SELECT file('{p}')",
    "SELECT FiLe('{p}') AS x",
    "SELECT length(file('{p}'))",
    "WITH file('{p}') AS s SELECT s",
    "SELECT 1 WHERE file('{p}') != ''",
    "DESCRIBE file('{p}', 'LineAsString')",
    "SELECT * FROM (SELECT * FROM file('{p}', 'LineAsString'))",
    "SELECT * FROM findings_v UNION ALL SELECT * FROM file('{p}', 'LineAsString')",
    "SELECT * FROM sqlite('{p}', 'x')",
    "SELECT * FROM python(x)",
]


@pytest.mark.parametrize("template", FILE_READS)
def test_files_cannot_be_read(reader: ReadOnlyReader, secret: Path, template: str) -> None:
    _stopped(reader, template.format(p=secret))


OUTBOUND = [
    "SELECT * FROM url('http://127.0.0.1:{port}/x', 'LineAsString')",
    "SELECT * FROM URL('http://127.0.0.1:{port}/x', CSV, 'a String')",
    "SELECT * FROM s3('http://127.0.0.1:{port}/bucket/key.csv', 'CSV')",
    "SELECT * FROM remote('127.0.0.1:{port}', system.one)",
    "SELECT * FROM remoteSecure('127.0.0.1:{port}', default.findings)",
    "SELECT * FROM cluster('default', system.one)",
    "SELECT * FROM mysql('127.0.0.1:{port}', 'db', 't', 'u', 'p')",
    "SELECT * FROM postgresql('127.0.0.1:{port}', 'db', 't', 'u', 'p')",
    "SELECT * FROM mongodb('127.0.0.1:{port}', 'db', 'c', 'u', 'p', 'x String')",
    "SELECT * FROM redis('127.0.0.1:{port}', 'k', 'k String')",
    "SELECT * FROM hdfs('hdfs://127.0.0.1:{port}/x', 'CSV')",
    "SELECT * FROM azureBlobStorage('http://127.0.0.1:{port}/a', 'c', 'b')",
    "SELECT * FROM jdbc('jdbc:mysql://127.0.0.1:{port}/db', 't')",
    "SELECT * FROM odbc('DSN=x', 'db', 't')",
    "SELECT * FROM findings_v WHERE check IN (SELECT * FROM url('http://127.0.0.1:{port}/', "
    "'LineAsString'))",
]


def test_no_outbound_connection(reader: ReadOnlyReader) -> None:
    listener = Listener()
    try:
        for template in OUTBOUND:
            _stopped(reader, template.format(port=listener.port))
        time.sleep(0.3)
        assert listener.connections == 0
    finally:
        listener.close()


HIDDEN_OR_WRITING = [
    "SELECT 1; DROP TABLE findings",
    "SELECT $$;$$; DROP TABLE findings",
    "SELECT $tag$ ' $tag$; DROP TABLE findings",
    "SELECT $$ -- $$; INSERT INTO findings (finding_id) VALUES ('x')",
    "SELECT '\\''; TRUNCATE TABLE rounds",
    "SELECT 1 /* ; */; DROP TABLE rounds",
    "SELECT $$ ' $$ AS a; CREATE TABLE evil (x Int8) ENGINE = Memory",
    "SELECT 1 INTO OUTFILE '{out}'",
    "select 1 into   outfile '{out}' format CSV",
    "SELECT $$x$$ INTO OUTFILE '{out}'",
    "SELECT $a$ ' $a$ INTO OUTFILE '{out}'",
    "SELECT 1; SELECT 2 INTO OUTFILE '{out}'",
    "SELECT $$;$$; SELECT 2 INTO OUTFILE '{out}'",
    "INSERT INTO findings SELECT * FROM findings",
    "ALTER TABLE rounds DELETE WHERE 1",
    "DROP TABLE findings",
    "CREATE TABLE evil (x Int8) ENGINE = Memory",
    "SET readonly = 0",
    "SELECT 1 SETTINGS readonly = 0",
    "SELECT count() FROM rounds SETTINGS max_execution_time = 1000",
    "SELECT 1 SETTINGS max_result_rows = 0",
    "OPTIMIZE TABLE rounds FINAL",
    "SYSTEM DROP MARK CACHE",
    "KILL QUERY WHERE 1",
    "EXPLAIN SELECT 1 INTO OUTFILE '{out}'",
    "WITH $$x$$ AS a SELECT a; DETACH TABLE rounds",
]


def test_nothing_is_written(store: Client, reader: ReadOnlyReader, tmp_path: Path) -> None:
    out = tmp_path / "written.txt"
    tables_before = store.query("SHOW TABLES").result_rows
    counts_before = store.query("SELECT count() FROM schema_migrations").result_rows
    for template in HIDDEN_OR_WRITING:
        _stopped(reader, template.format(out=out))
        assert not out.exists(), template
    assert store.query("SHOW TABLES").result_rows == tables_before
    assert store.query("SELECT count() FROM schema_migrations").result_rows == counts_before


HEAVY = [
    # time: cancelled by the engine at the limit
    "SELECT count() FROM (SELECT arrayJoin(range(100000)) AS a) AS x, "
    "(SELECT arrayJoin(range(100000)) AS b) AS y",
    "SELECT count() FROM schema_migrations a, schema_migrations b, schema_migrations c, "
    "schema_migrations d, schema_migrations e, schema_migrations f",
    "SELECT sleep(3)",
    "SELECT sum(cityHash64(toString(x))) FROM (SELECT arrayJoin(range(toUInt64(1e9))) AS x)",
    # memory
    "SELECT length(groupArray(repeat('x', 1000))) FROM (SELECT arrayJoin(range(10000000)))",
    "SELECT length(range(toUInt64(1e9)))",
    # result size
    "SELECT * FROM (SELECT arrayJoin(range(1000000)) AS n)",
    "SELECT version FROM schema_migrations a, schema_migrations b",
    "SELECT repeat('x', 100000) FROM schema_migrations",
]


@pytest.mark.parametrize("sql", HEAVY)
def test_heavy_statements_are_bounded(reader: ReadOnlyReader, sql: str) -> None:
    started = time.monotonic()
    reason = _stopped(reader, sql)
    assert time.monotonic() - started < LIMITS.seconds + 3
    assert any(
        word in reason.lower() for word in ("timeout", "memory", "limit", "sleep", "maximum")
    ), reason


OUTSIDE = [
    "SELECT * FROM system.processes",
    "SELECT name FROM system.tables",
    "SELECT * FROM system.settings",
    "SELECT * FROM `system`.`users`",
    "SELECT * FROM information_schema.tables",
    "SELECT * FROM INFORMATION_SCHEMA.COLUMNS",
    "SELECT 1 WHERE 1 IN system.one",
    "SELECT * FROM merge('default', '.*')",
    "SELECT * FROM merge(currentDatabase(), 'rounds')",
    "SELECT * FROM numbers(10)",
    "SELECT * FROM generateRandom('a Int8') LIMIT 1",
    "SELECT * FROM view(SELECT 1)",
    "SELECT * FROM values('a Int8', 1)",
    "SHOW TABLES FROM system",
    "DESCRIBE system.users",
    "SHOW PROCESSLIST",
    "SHOW SETTINGS LIKE '%'",
    "SHOW GRANTS",
    "SELECT dictGet('d', 'v', 1)",
    "SELECT joinGet('rounds', 'x', 1)",
    "SELECT getServerSetting('path')",
    "WITH x AS (SELECT * FROM system.one) SELECT * FROM x",
    "SELECT * FROM rounds_v JOIN system.one ON 1",
    "SELECT * FROM other_database.rounds_v",
]


@pytest.mark.parametrize("sql", OUTSIDE)
def test_only_the_products_tables_are_read(reader: ReadOnlyReader, sql: str) -> None:
    _stopped(reader, sql)


ALLOWED = [
    ("SELECT 1", [(1,)]),
    ("  select count() from findings_v  ", [(0,)]),
    (
        "SELECT count() FROM rounds_v AS r JOIN settlements_v AS s USING (table_id, round_id)",
        [(0,)],
    ),
    ("WITH c AS (SELECT count() AS n FROM findings_v) SELECT n FROM c", [(0,)]),
    ("SELECT count() FROM raw_events FINAL", [(0,)]),
    ("SELECT 'a;b', $$ ' $$", [("a;b", " ' ")]),
    ("SELECT count() FROM rounds_v WHERE table_id IN (SELECT table_id FROM findings_v)", [(0,)]),
    ("SELECT count() FROM schema_migrations WHERE name = 'filler'", [(50,)]),
    ("-- a comment\nSELECT 2 /* and another */", [(2,)]),
]


@pytest.mark.parametrize(("sql", "rows"), ALLOWED)
def test_read_only_statements_run(
    reader: ReadOnlyReader, sql: str, rows: list[tuple[object, ...]]
) -> None:
    assert list(reader.run(sql).rows) == rows


def test_describe_and_show_tables_of_the_product(reader: ReadOnlyReader) -> None:
    described = reader.run("DESCRIBE TABLE findings_v")
    assert "check" in [row[0] for row in described.rows]
    shown = {row[0] for row in reader.run("SHOW TABLES").rows}
    assert shown <= READABLE | ACCESS_LOG_TABLES  # the access log's name, not its rows
    assert {"rounds_v", "findings_v"} <= shown


def test_every_table_the_migrations_create_is_readable(store: Client) -> None:
    names = {row[0] for row in store.query("SHOW TABLES").result_rows}
    assert names == READABLE | ACCESS_LOG_TABLES  # the access log: some roles only


def test_reasons_name_the_problem(reader: ReadOnlyReader, secret: Path) -> None:
    assert "table function file()" in _stopped(reader, f"SELECT * FROM file('{secret}')")
    assert "system.processes is not readable" in _stopped(reader, "SELECT * FROM system.processes")
    assert "INTO OUTFILE" in _stopped(reader, "SELECT $$x$$ INTO OUTFILE '/tmp/never'")
    assert "one statement" in _stopped(reader, "SELECT $$;$$; DROP TABLE findings")
    assert "timeout" in _stopped(reader, "SELECT sleep(3)").lower()
    with pytest.raises(QueryFailed) as failed:
        reader.run("SELECT * FROM (SELECT arrayJoin(range(1000000)) AS n)")
    assert failed.value.kind == "too_large"


def test_a_stream_cut_by_the_time_limit_is_never_answered_as_complete(
    store: Client, store_dsn: str
) -> None:
    """The embedded engine may end a stream it cancelled for time as if it were complete
    (fewer rows, no error): seen on ``/query`` as a 200 with part of the rows. Every answer
    is either all the rows or a timeout."""
    for part in range(8):  # several parts: the engine reads them in several streams
        store.command(
            "INSERT INTO schema_migrations (version, name, applied_at) "
            f"SELECT {10_000 + part * 1_000} + number, 'filler', now64(3) FROM numbers(150)"
        )
    everything = 8 * 150 + 1  # and the store's own first version at least
    total = store.query("SELECT count() FROM schema_migrations").result_rows[0][0]
    assert total >= everything
    reader = open_reader(store_dsn, QueryLimits(seconds=0.01, rows=100_000, bytes=64 * 2**20))
    outcomes: list[str] = []
    try:
        for _ in range(20):
            try:
                answer = reader.run("SELECT version, repeat('x', 10000) FROM schema_migrations")
            except QueryFailed as failed:
                assert failed.kind == "timeout", failed
                outcomes.append("timeout")
            else:
                assert len(answer.rows) == total, f"{len(answer.rows)} of {total} rows answered"
                outcomes.append("complete")
    finally:
        reader.close()
    assert "timeout" in outcomes  # the limit was reached: the case this test is about


def test_a_read_with_no_rows_still_answers_its_columns(reader: ReadOnlyReader) -> None:
    # no block comes for an empty result: the columns are the statement's all the same
    answer = reader.run(
        "WITH 2 AS n SELECT table_id, check AS code, n FROM findings_v WHERE check = 'NONE' "
        "UNION ALL SELECT table_id, check, 3 FROM findings_v WHERE 0"
    )
    assert (list(answer.columns), list(answer.rows)) == (["table_id", "code", "n"], [])


def _engine_statements(reader: ReadOnlyReader, monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The statements the reader's checks send to the engine from now on."""
    sent: list[str] = []
    query = reader._query

    def counted(sql: str) -> object:
        sent.append(sql)
        return query(sql)

    monkeypatch.setattr(reader, "_query", counted)
    return sent


def test_a_statement_sent_again_skips_the_checks_it_passed(
    reader: ReadOnlyReader, monkeypatch: pytest.MonkeyPatch
) -> None:
    sent = _engine_statements(reader, monkeypatch)
    sql = "SELECT count() FROM schema_migrations WHERE name = 'filler'"
    assert reader.run(sql).rows == [(50,)]
    checks = len(sent)
    assert checks == 2  # formatQuerySingleLine and EXPLAIN AST
    assert reader.run(sql).rows == [(50,)]
    assert len(sent) == checks  # none the second time
    # another text, another role's tables: checked again
    reader.run(sql + " LIMIT 2")
    reader.run(sql, also=frozenset({"access_log"}))
    assert len(sent) == 3 * checks


def test_a_refused_statement_is_refused_every_time(
    reader: ReadOnlyReader, secret: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sql = f"SELECT * FROM file('{secret}', 'LineAsString')"
    sent = _engine_statements(reader, monkeypatch)
    for _ in range(3):
        with pytest.raises(QueryRefused, match="table function file"):
            reader.run(sql)
    assert len(sent) == 6  # checked each time, never remembered


def test_a_statement_whose_cte_name_was_looked_up_is_checked_every_time(
    reader: ReadOnlyReader, monkeypatch: pytest.MonkeyPatch
) -> None:
    sql = "WITH recent AS (SELECT 1 AS x) SELECT x FROM recent"
    sent = _engine_statements(reader, monkeypatch)
    assert reader.run(sql).rows == [(1,)]
    assert reader.run(sql).rows == [(1,)]
    lookups = [s for s in sent if "system.tables" in s]
    assert len(lookups) == 2


def test_the_checked_statements_kept_are_bounded(
    reader: ReadOnlyReader, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("tablewatch.store.read_only.CHECKED_KEPT", 3)
    sent = _engine_statements(reader, monkeypatch)
    for n in range(5):
        reader.run(f"SELECT {n}")
    assert len(sent) == 10
    reader.run("SELECT 4")  # kept
    assert len(sent) == 10
    reader.run("SELECT 0")  # pushed out by the later ones
    assert len(sent) == 12
