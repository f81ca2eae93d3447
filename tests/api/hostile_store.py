"""A store of ids and text that break naive links, exports and terminals: the golden Let It
Ride round (tests/rounds/golden.py, one WRONG_PAYOUT) as ``LIR-G``/``R-77``, again under
ids holding ``/`` (:data:`SLASH`) and under ids a spreadsheet would run as formulas
(:data:`FORMULA`); with ``controls``, two copies of the plain finding that hold terminal
control sequences, as an insider with write access to the store could write them: one in
its message (the round R-77's), one in its round id."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from tablewatch.store.client import connect
from tests.rounds.conftest import fill_store
from tests.rounds.golden import LIR_EVENTS, TABLES_YAML

SLASH = ("PIT/1", "R/7")
FORMULA = ('=HYPERLINK("http://evil.example/","open")', "@SUM(A1:A9)")


def relabel(table_id: str, round_id: str, prefix: str) -> list[dict[str, Any]]:
    """The golden LIR events under other ids (event ids prefixed: one event id, one event)."""
    out = []
    for event in LIR_EVENTS:
        copy = {**event, "table_id": table_id, "event_id": prefix + event["event_id"]}
        if "round_id" in copy:
            copy["round_id"] = round_id
        out.append(copy)
    return out


def hostile_store(directory: Path, *, controls: bool = False) -> str:
    entry = yaml.safe_load(TABLES_YAML)["tables"]["LIR-G"]
    tables = {"LIR-G": entry, SLASH[0]: entry, FORMULA[0]: entry}
    config = directory / "tables.yaml"
    config.write_text(json.dumps({"tables": tables}), encoding="utf-8")  # JSON is YAML
    events = directory / "events.jsonl"
    lines = [*LIR_EVENTS, *relabel(*SLASH, "S"), *relabel(*FORMULA, "F")]
    events.write_text("".join(json.dumps(e) + "\n" for e in lines), encoding="utf-8")
    dsn = f"chdb:///{directory / 'store'}"
    fill_store(dsn, events, config)
    if controls:
        inject_controls(dsn)
    return dsn


CONTROL_ROUND = "R-77\x1b[2J\x1b]0;owned\x07"
CONTROL_MESSAGE_START = "\x1b[31m\u202e\x9b"


def inject_controls(dsn: str) -> None:
    """Two copies of LIR-G's finding (other finding ids): its message begun with
    :data:`CONTROL_MESSAGE_START`, and its round id :data:`CONTROL_ROUND`."""
    client = connect(dsn)
    try:
        for column, value, prefix in (
            ("message", f"concat({_literal(CONTROL_MESSAGE_START)}, message)", "ctl-m-"),
            ("round_id", _literal(CONTROL_ROUND), "ctl-r-"),
        ):
            client.command(
                f"INSERT INTO findings SELECT * REPLACE ({value} AS {column}, "
                f"concat('{prefix}', finding_id) AS finding_id) FROM (SELECT * FROM findings "
                "WHERE table_id = 'LIR-G' AND NOT startsWith(finding_id, 'ctl-'))"
            )
    finally:
        client.close()


def _literal(text: str) -> str:
    from tablewatch.store.sql_literals import quote

    return quote(text)
