"""Splitting statements and refusing anything but one read-only statement."""

from __future__ import annotations

import pytest

from tablewatch.store.sql_text import read_only_refusal, split_statements


def test_split_ignores_semicolons_in_strings_and_comments() -> None:
    sql = """
    -- a comment; with a semicolon
    CREATE TABLE a (x String DEFAULT ';') ENGINE = Memory;
    /* block; comment */
    SELECT 'it''s; fine', "we;ird", `id;` ;
    -- trailing comment only
    """
    statements = split_statements(sql)
    assert len(statements) == 2
    assert statements[0].endswith("ENGINE = Memory")
    assert statements[1].startswith("/* block; comment */")
    assert "'it''s; fine'" in statements[1]


def test_split_of_nothing() -> None:
    assert split_statements("  -- nothing\n ; ;") == []


@pytest.mark.parametrize(
    "sql",
    [
        "SELECT 1",
        "select count() from findings_v;",
        "  WITH x AS (SELECT 1) SELECT * FROM x",
        "SHOW TABLES",
        "DESCRIBE TABLE rounds_v",
        "desc rounds_v",
        "(SELECT 1) UNION ALL (SELECT 2)",
        "-- why\nSELECT 'DROP TABLE x; INSERT'",
    ],
)
def test_read_only_statements_pass(sql: str) -> None:
    assert read_only_refusal(sql) is None


@pytest.mark.parametrize(
    ("sql", "reason"),
    [
        ("DROP TABLE rounds", "read-only"),
        ("INSERT INTO rounds SELECT * FROM rounds", "read-only"),
        ("SELECT 1; DROP TABLE rounds", "one statement"),
        ("/* SELECT */ ALTER TABLE findings DELETE WHERE 1", "read-only"),
        ("SELECT 1 INTO OUTFILE '/tmp/x'", "OUTFILE"),
        ("", "no statement"),
        ("-- SELECT 1", "no statement"),
    ],
)
def test_everything_else_is_refused(sql: str, reason: str) -> None:
    refusal = read_only_refusal(sql)
    assert refusal is not None
    assert reason in refusal
