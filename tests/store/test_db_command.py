"""``tablewatch db migrate | summary | query`` on an embedded store."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from tablewatch.commands.db import db
from tablewatch.store.client import open_store
from tablewatch.store.migrate import available
from tablewatch.store.writer import StoreWriter
from tests.store import scenario
from tests.store.helpers import audit_scripted


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(db, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_migrate_prints_what_it_applied_then_nothing(store_dsn: str) -> None:
    code, out, _ = run("migrate", "--dsn", store_dsn)
    assert code == 0
    assert [line.split()[1] for line in out.splitlines()[:-1]] == [m.label for m in available()]
    code, out, _ = run("migrate", "--dsn", store_dsn)
    assert code == 0
    assert out.strip().endswith("up to date")


def test_dsn_from_the_environment(store_dsn: str) -> None:
    result = CliRunner().invoke(db, ["migrate"], env={"TABLEWATCH_DSN": store_dsn})
    assert result.exit_code == 0
    assert store_dsn in result.stdout


def test_relative_dsn_is_under_the_current_directory(tmp_path: Path) -> None:
    runner = CliRunner()
    with runner.isolated_filesystem(temp_dir=tmp_path) as here:
        result = runner.invoke(db, ["migrate", "--dsn", "chdb:///.data/tw"])
        assert result.exit_code == 0, result.output
        assert (Path(here) / ".data" / "tw" / "metadata").is_dir()


def _loaded(dsn: str) -> None:
    run("migrate", "--dsn", dsn)
    with open_store(dsn) as client:
        StoreWriter(client).insert_batch(audit_scripted(scenario.events()).batch())


def test_summary_table_and_json(store_dsn: str) -> None:
    _loaded(store_dsn)
    code, out, _ = run("summary", "--dsn", store_dsn)
    assert code == 0
    assert "2 rounds judged" in out and "WRONG_PAYOUT" in out and "SEQUENCE_GAP" in out
    code, out, _ = run("summary", "--dsn", store_dsn, "--format", "json")
    assert code == 0
    data = json.loads(out)
    assert (data["rounds"], data["findings"]) == (2, 4)
    assert {c["check"]: c["findings"] for c in data["by_check"]} == {
        "WRONG_PAYOUT": 3,
        "SEQUENCE_GAP": 1,
    }


def test_summary_of_a_store_without_schema(store_dsn: str) -> None:
    code, _, err = run("summary", "--dsn", store_dsn)
    assert code == 2
    assert "tablewatch db migrate" in err


def test_query_prints_rows(store_dsn: str) -> None:
    _loaded(store_dsn)
    sql = "SELECT round_id, wagered, paid FROM rounds_v ORDER BY round_id"
    code, out, _ = run("query", sql, "--dsn", store_dsn, "--format", "json")
    assert code == 0
    assert [json.loads(line) for line in out.splitlines()] == [
        {"round_id": "R-1", "wagered": 7500, "paid": 6000},
        {"round_id": "R-2", "wagered": 7500, "paid": 7500},
    ]
    code, out, _ = run("query", sql, "--dsn", store_dsn)
    assert code == 0 and "R-2" in out and "2 row(s)" in out


def test_query_refuses_writes(store_dsn: str) -> None:
    _loaded(store_dsn)
    for sql in (
        "DROP TABLE rounds",
        "SELECT 1; DROP TABLE rounds",
        "INSERT INTO rounds_v SELECT 1",
    ):
        code, _, err = run("query", sql, "--dsn", store_dsn)
        assert code == 2 and "refused" in err
    code, out, _ = run(
        "query", "SELECT count() AS n FROM rounds_v", "--dsn", store_dsn, "--format", "json"
    )
    assert json.loads(out) == {"n": 2}


def test_query_errors_are_reported(store_dsn: str) -> None:
    code, _, err = run("query", "SELECT * FROM no_such_table", "--dsn", store_dsn)
    assert code == 2 and "no_such_table" in err


def test_bad_dsn(tmp_path: Path) -> None:
    code, _, err = run("summary", "--dsn", "postgres://x")
    assert code == 2 and "chdb:///" in err
