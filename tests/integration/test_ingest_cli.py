"""`tablewatch ingest FILE...` against the real broker: counts, rejections, events in Kafka."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablewatch.commands.ingest import ingest
from tablewatch.topics import DEAD_LETTERS, EVENTS, table_key
from tests.ingest.events import edited, table_events
from tests.ingest.kafka_topics import end_offsets, read_between

pytestmark = pytest.mark.integration


def test_ingest_file(kafka_bootstrap: str, tmp_path: Path) -> None:
    table = f"{uuid.uuid4().hex[:10]}-LIR"
    good = table_events(table, rounds=3)  # 13 events
    lines = [*good[:6], b"", edited(good[6], bet="bet9"), good[2], *good[7:]]
    path = tmp_path / "shift.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    events_start = end_offsets(kafka_bootstrap, EVENTS)
    dlq_start = end_offsets(kafka_bootstrap, DEAD_LETTERS)

    result = CliRunner().invoke(ingest, [str(path), "--bootstrap", kafka_bootstrap, "--batch", "4"])
    assert result.exit_code == 2, result.output
    assert result.stdout.startswith(f"12 accepted, 1 duplicates, 1 rejected -> {EVENTS}")
    assert result.stderr.splitlines() == [
        f"rejected: {path}:8 (event_id {table}-e7): field `bet`: Invalid enum value 'bet9'"
    ]

    records = [r for r in read_between(kafka_bootstrap, EVENTS, events_start)]
    assert [r.value for r in records if r.key == table_key(table)] == [*good[:6], *good[7:]]
    letters = [json.loads(r.value) for r in read_between(kafka_bootstrap, DEAD_LETTERS, dlq_start)]
    ours = [d for d in letters if d["table_id"] == table]
    assert [(d["where"], d["field"]) for d in ours] == [(f"{path}:8", "bet")]
