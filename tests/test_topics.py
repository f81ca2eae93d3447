"""The topics' names, the prefix rule, the keys, and the dead-letter records."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tablewatch import topics
from tablewatch.topics import (
    DEAD_LETTERS,
    EVENTS,
    FINDINGS,
    NAMES,
    PARTITIONS,
    ROUNDS,
    Topics,
    dead_letter,
    table_key,
    worker_dead_letter,
)

KAFKA_SH = Path(__file__).parents[1] / "deploy" / "kafka.sh"


def test_the_names_and_the_prefix_rule() -> None:
    assert NAMES == ("table-events", "table-events-dlq", "rounds", "findings")
    assert Topics().names() == NAMES == (EVENTS, DEAD_LETTERS, ROUNDS, FINDINGS)
    assert Topics.prefixed("") == Topics()
    assert Topics.prefixed("t1-") == Topics(
        "t1-table-events", "t1-table-events-dlq", "t1-rounds", "t1-findings"
    )


def test_deploy_kafka_sh_creates_the_same_topics() -> None:
    """Its shell list is a copy of NAMES (the events topic with PARTITIONS partitions)."""
    line = re.search(r'^TOPICS="\$\{KAFKA_TOPICS:-([^}]*)\}"', KAFKA_SH.read_text(), re.M)
    assert line is not None
    specs = dict(spec.partition(":")[::2] for spec in line.group(1).split())
    assert tuple(specs) == NAMES
    assert specs[EVENTS] == str(PARTITIONS)


def test_every_message_is_keyed_by_its_table() -> None:
    assert table_key("LIR-07") == b"LIR-07"
    assert table_key("Tisch-ä") == "Tisch-ä".encode()


def test_a_dead_letter_record() -> None:
    letter = dead_letter(
        reason="unknown event type 'tip'", field="type", where="item 2", event_id="e-103",
        raw=b'{"type":"tip"}', received_at="2026-11-29T20:15:03.123Z", source="http 10.1.4.22",
        table_id="LIR-07",
    )  # fmt: skip
    assert letter.key == b"LIR-07"
    assert list(json.loads(letter.value).items()) == [
        ("reason", "unknown event type 'tip'"),
        ("field", "type"),
        ("where", "item 2"),
        ("event_id", "e-103"),
        ("table_id", "LIR-07"),
        ("raw", '{"type":"tip"}'),
        ("raw_encoding", "utf-8"),
        ("raw_bytes", 14),
        ("truncated", False),
        ("received_at", "2026-11-29T20:15:03.123Z"),
        ("source", "http 10.1.4.22"),
    ]
    body = dead_letter(reason="malformed: bad JSON", field=None, where="body", event_id=None,
                       raw=b"\xff\xfe", received_at="t", source="s")  # fmt: skip
    assert body.key is None
    assert json.loads(body.value)["raw_encoding"] == "base64"


def test_the_worker_s_dead_letter_adds_the_stage_and_coordinates() -> None:
    letter = worker_dead_letter(
        topic="p-table-events", partition=3, offset=1234, stage="judge", reason="boom",
        field=None, where="partition 3 offset 1234", event_id="e-1", table_id="FCP-02",
        raw=b"{}", received_at="t",
    )  # fmt: skip
    record = json.loads(letter.value)
    assert letter.key == b"FCP-02"
    assert list(record)[-5:] == ["source", "stage", "topic", "partition", "offset"]
    assert (record["source"], record["stage"], record["topic"], record["partition"],
            record["offset"]) == ("worker", "judge", "p-table-events", 3, 1234)  # fmt: skip


def test_the_worker_s_dead_letter_is_made_even_when_its_record_cannot_be(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def cannot(**_: object) -> dict[str, object]:
        raise ValueError("no")

    monkeypatch.setattr(topics, "_record", cannot)
    letter = worker_dead_letter(
        topic="t", partition=0, offset=7, stage="decode", reason="bad", field=None,
        where="w", event_id=None, table_id="T-1", raw=b"x", received_at="t",
    )  # fmt: skip
    record = json.loads(letter.value)
    assert letter.key == b"T-1"
    assert record["reason"] == "bad (and its record could not be written whole: ValueError('no'))"
    assert (record["stage"], record["offset"], "raw" in record) == ("decode", 7, False)
