"""``tablewatch findings`` and ``tablewatch rounds list`` on a store of the golden rounds and
the reused round id (tests/rounds): each filter, each format, the cursor, bad filters and
SQL metacharacters in every parameter."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq  # type: ignore[import-untyped]
import pytest
from click.testing import CliRunner

from tablewatch.commands.auditor_lists import findings
from tablewatch.commands.rounds import rounds
from tests.rounds.conftest import fill_store, json_lines
from tests.rounds.test_rounds_show import HOSTILE, _reused

WRONG = ("WRONG_PAYOUT", "LIR-G", "R-77", "L-301", 5, "bet3", 500, 400)
REUSED = ("ROUND_ID_REUSED", "LIR-G", "R-77", "L2-0", None, None, None, None)


@pytest.fixture(scope="module")
def dsn(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    directory = tmp_path_factory.mktemp("lists")
    events, config = _reused(directory)
    from tests.rounds.golden import FCP_EVENTS

    with events.open("a", encoding="utf-8") as file:
        file.writelines(json.dumps(e) + "\n" for e in FCP_EVENTS)
    dsn = f"chdb:///{directory / 'store'}"
    fill_store(dsn, events, config)
    yield dsn


def run(command: object, dsn: str, *args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(command, [*args, "--dsn", dsn])  # type: ignore[arg-type]
    return result.exit_code, result.stdout, result.stderr


def found(dsn: str, *args: str) -> list[tuple[object, ...]]:
    code, out, err = run(findings, dsn, *args, "--format", "json")
    assert (code, err) == (0, ""), err
    return [
        (
            r["check"],
            r["table_id"],
            r["round_id"],
            r["start_event_id"],
            r["seat"],
            r["bet"],
            r["expected"],
            r["actual"],
        )
        for r in json_lines(out)
    ]


def listed(dsn: str, *args: str) -> list[tuple[str, str, str]]:
    code, out, err = run(rounds, dsn, "list", *args, "--format", "json")
    assert code == 0, err
    return [(r["table_id"], r["round_id"], r["start_event_id"]) for r in json_lines(out)]


def test_each_filter_of_findings(dsn: str) -> None:
    assert sorted(found(dsn), key=str) == sorted([WRONG, REUSED], key=str)
    assert found(dsn, "--check", "WRONG_PAYOUT") == [WRONG]
    assert found(dsn, "--table", "FCP-G") == []
    assert found(dsn, "--table", "LIR-G", "--check", "ROUND_ID_REUSED") == [REUSED]
    assert len(found(dsn, "--pit", "Pit 3")) == 2
    assert found(dsn, "--pit", "Pit 9") == []
    assert found(dsn, "--game", "four_card_poker") == []
    assert found(dsn, "--severity", "critical") == [WRONG]
    assert found(dsn, "--severity", "high") == [REUSED]
    assert found(dsn, "--dealer", "DL-4") == [WRONG]
    assert found(dsn, "--dealer", "DL-5") == [REUSED]
    # WRONG_PAYOUT's time is its round's (21:40:01), ROUND_ID_REUSED's the second's (21:41:00)
    assert found(dsn, "--since", "2026-11-29T21:40:30.000Z") == [REUSED]
    assert found(dsn, "--until", "2026-11-29T21:40:30.000Z") == [WRONG]
    assert found(dsn, "--since", "2026-11-29T21:40:01.000Z", "--until", "2026-11-29T21:41:00Z") == [
        WRONG
    ]


def test_each_filter_of_rounds_and_the_cursor(dsn: str) -> None:
    newest_first = [("FCP-G", "R-8", "F-41"), ("LIR-G", "R-77", "L2-0"), ("LIR-G", "R-77", "L-301")]
    assert listed(dsn) == newest_first
    assert listed(dsn, "--game", "let_it_ride") == newest_first[1:]
    assert listed(dsn, "--pit", "Pit 3") == newest_first[1:]
    assert listed(dsn, "--dealer", "DL-7") == newest_first[:1]
    assert listed(dsn, "--check", "WRONG_PAYOUT") == newest_first[2:]
    assert listed(dsn, "--severity", "high") == newest_first[1:2]
    assert (
        listed(dsn, "--table", "LIR-G", "--since", "2026-11-29T21:41:00.000Z") == newest_first[1:2]
    )
    assert listed(dsn, "--until", "2026-11-29T21:41:00.000Z") == newest_first[2:]
    code, out, err = run(rounds, dsn, "list", "--limit", "1", "--format", "json")
    assert code == 0 and [r["round_id"] for r in json_lines(out)] == ["R-8"]
    assert err.startswith("more rows: --cursor ")
    cursor = err.split()[-1]
    assert listed(dsn, "--limit", "1", "--cursor", cursor) == newest_first[1:2]
    code, _, err = run(rounds, dsn, "list", "--limit", "2", "--cursor", cursor, "--format", "json")
    assert (code, err) == (0, "")  # the last page: no cursor


def test_the_formats(dsn: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code, out, _ = run(findings, dsn, "--check", "WRONG_PAYOUT", "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and len(rows) == 1
    assert {
        k: rows[0][k]
        for k in (
            "table_id",
            "round_id",
            "check",
            "severity",
            "seat",
            "bet",
            "expected",
            "actual",
            "event_ids",
            "ts",
        )
    } == {
        "table_id": "LIR-G",
        "round_id": "R-77",
        "check": "WRONG_PAYOUT",
        "severity": "critical",
        "seat": "5",
        "bet": "bet3",
        "expected": "500",
        "actual": "400",
        "event_ids": "L-331",
        "ts": "2026-11-29T21:40:01.000Z",
    }
    out_file = tmp_path / "f.parquet"
    code, out, _ = run(findings, dsn, "--format", "parquet", "--out", str(out_file))
    assert (code, out) == (0, "")
    table = pq.read_table(out_file)
    assert table.num_rows == 2
    assert str(table.schema.field("expected").type) == "int64"
    assert sorted(table.column("check").to_pylist()) == ["ROUND_ID_REUSED", "WRONG_PAYOUT"]
    assert table.column("event_ids").to_pylist()[
        table.column("check").to_pylist().index("WRONG_PAYOUT")
    ] == ["L-331"]
    code, out, _ = run(rounds, dsn, "list", "--format", "parquet")  # stdout not a terminal
    assert (
        code == 0
        and pq.read_table(
            io.BytesIO(
                CliRunner()
                .invoke(rounds, ["list", "--format", "parquet", "--dsn", dsn])
                .stdout_bytes
            )
        ).num_rows
        == 3
    )
    monkeypatch.setattr("tablewatch.commands.row_output.stdout_is_terminal", lambda: True)
    code, _, err = run(rounds, dsn, "list", "--format", "parquet")
    assert code == 2 and "--out FILE" in err
    code, out, _ = run(rounds, dsn, "list", "--table", "FCP-G")
    assert code == 0 and "FCP-G" in out and "R-8" in out and out.endswith("1 row(s)\n")
    code, out, _ = run(findings, dsn, "--format", "json", "--out", str(tmp_path / "f.json"))
    assert (code, out) == (0, "")
    assert len(json_lines((tmp_path / "f.json").read_text())) == 2


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (("--since", "yesterday"), "--since"),
        (("--until", "2026-13-01T00:00:00Z"), "--until"),
        (("--check", "NO_SUCH_CHECK"), "--check"),
        (("--game", "poker"), "--game"),
        (("--severity", "urgent"), "--severity"),
        (("--limit", "0"), "--limit"),
        (("--limit", "100001"), "--limit"),
        (("--table", "T" * 129), "--table"),
        (("--cursor", "not a cursor"), "--cursor"),
        (("--cursor", "WzFd"), "--cursor"),  # base64url of [1]: not a cursor of this list
    ],
)
def test_a_bad_filter_is_exit_2_naming_it(dsn: str, args: tuple[str, ...], named: str) -> None:
    for command, prefix in ((findings, []), (rounds, ["list"])):
        code, out, err = run(command, dsn, *prefix, *args)
        assert (code, out) == (2, "")
        assert f": {named}: " in err, err


@pytest.mark.parametrize("value", HOSTILE)
def test_sql_metacharacters_in_every_parameter_change_nothing(dsn: str, value: str) -> None:
    for option in ("--pit", "--dealer"):
        assert found(dsn, option, value) == []
        assert listed(dsn, option, value) == []
    for command in (findings, rounds):  # a table the store does not know is named
        code, out, err = run(
            command, dsn, *(["list"] if command is rounds else []), "--table", value
        )
        assert (code, out) == (2, "") and ": --table: no table " in err
    for option in ("--check", "--game", "--severity", "--since", "--until", "--cursor"):
        code, out, err = run(findings, dsn, option, value)
        assert (code, out) == (2, "") and f": {option}: " in err
    assert len(found(dsn)) == 2 and len(listed(dsn)) == 3  # the store is as it was
