"""/api/v1/tables against the simulated floor: every table, its game and pit from the
directory, its last event, its findings."""

from __future__ import annotations

from collections import Counter

from fastapi.testclient import TestClient

from tablewatch.rules.events import ms_to_ts, ts_to_ms
from tests.api.store import FilledStore


def test_every_table_with_its_game_pit_last_event_and_findings(
    client: TestClient, filled: FilledStore
) -> None:
    tables = filled.config["tables"]
    assert isinstance(tables, dict)
    last: dict[str, int] = {}
    for _, event in filled.audited.raw:
        last[event.table_id] = max(last.get(event.table_id, 0), ts_to_ms(event.ts))
    findings = Counter(f.table_id for f in filled.audited.findings)
    items = client.get("/api/v1/tables").json()["items"]
    assert [t["table_id"] for t in items] == sorted(tables)
    for t in items:
        entry = tables[t["table_id"]]
        assert t["game"] == entry["game"]
        assert t["pit"] == entry.get("pit")
        assert t["cameras"] == entry.get("cameras", [])
        assert t["last_event_ts"] == ms_to_ts(last[t["table_id"]])
        assert t["findings_total"] == findings[t["table_id"]]
        assert t["rounds_today"] == 0  # the floor played on 2026-11-29, before today
        assert t["seconds_since_last_event"] > 0
