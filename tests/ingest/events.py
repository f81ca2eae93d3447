"""Valid protocol events as raw JSON for the ingest tests."""

from __future__ import annotations

import json
from typing import Any

from tablewatch.rules.decode import encode_event
from tablewatch.script import TableScript


def table_events(table_id: str, rounds: int = 1) -> list[bytes]:
    """A short valid stream of one table: deck in, then rounds of three wagers."""
    script = TableScript(table_id)
    script.deck_in("D-1")
    for r in range(1, rounds + 1):
        script.round_start(f"R-{r}", "D-1")
        for bet in ("bet1", "bet2", "bet3"):
            script.wager(2, bet, 2500)
    return [encode_event(e) for e in script.events]


def array(items: list[bytes]) -> bytes:
    return b"[" + b",".join(items) + b"]"


def edited(raw: bytes, **fields: Any) -> bytes:
    """``raw`` with some fields replaced (``None`` deletes the field)."""
    obj = json.loads(raw)
    for name, value in fields.items():
        if value is None:
            obj.pop(name, None)
        else:
            obj[name] = value
    return json.dumps(obj).encode()
