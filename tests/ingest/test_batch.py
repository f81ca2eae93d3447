"""The pure ingest step: splitting a body, classifying items, limits, dead-letter records."""

from __future__ import annotations

import base64
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablewatch.ingest.batch import (
    Accepted,
    BodyRefused,
    Duplicate,
    Item,
    Limits,
    Rejected,
    check_body,
    classify,
    dead_letter_of,
    dead_letter_of_body,
    result_row,
    split_body,
)
from tablewatch.topics import DLQ_RAW_BYTES, dead_letter
from tests.ingest.events import array, edited, table_events


def test_split_keeps_each_items_exact_bytes() -> None:
    body = b'[ {"a": 1,  "b":[1, 2]} ,\n  3 , "x" ,{ }]'
    items = split_body(body)
    assert [i.raw for i in items] == [b'{"a": 1,  "b":[1, 2]}', b"3", b'"x"', b"{ }"]
    assert [i.where for i in items] == ["item 0", "item 1", "item 2", "item 3"]
    assert split_body(b" [ ] ") == []


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b'{"v": 1}', "the body must be a JSON array of events: Expected `array`, got `object`"),
        (b"", "bad JSON: Input data was truncated"),
        (b"[1,", "bad JSON: Input data was truncated"),
        (b"[1] [2]", "bad JSON: JSON is malformed: trailing characters (byte 5)"),
        (b"\xff[]", "bad JSON: JSON is malformed: invalid character (byte 0)"),
    ],
)
def test_malformed_body_is_refused_whole(body: bytes, reason: str) -> None:
    with pytest.raises(BodyRefused) as info:
        split_body(body)
    assert (info.value.kind, info.value.reason) == ("malformed", reason)


def test_limits_refuse_the_whole_body_as_oversized() -> None:
    events = table_events("T-1", rounds=2)  # 9 events
    body = array(events)
    with pytest.raises(BodyRefused) as info:
        split_body(body, Limits(max_body_bytes=len(body) - 1))
    assert info.value.kind == "oversized"
    assert info.value.reason == f"body of {len(body):,} bytes exceeds {len(body) - 1:,} bytes"
    with pytest.raises(BodyRefused) as info:
        split_body(body, Limits(max_events=8))
    assert (info.value.kind, info.value.reason) == ("oversized", "9 events exceed 8 per batch")
    assert len(split_body(body, Limits(max_body_bytes=len(body), max_events=9))) == 9


def test_classify_accepted_duplicate_rejected_in_order() -> None:
    good = table_events("T-1")
    items = [
        good[0],
        good[1],
        good[0],  # again in this batch
        edited(good[2], seat="two"),  # wrong type
        edited(good[3], type="tip"),  # unknown event type
        edited(good[4], event_id=None),  # no event_id
        b"[1, 2]",  # not an object
        good[4],
    ]
    batch = check_body(array(items), seen={"T-1-e2"})  # e2 accepted by an earlier batch
    rows = [result_row(o) for o in batch.outcomes]
    assert [(r["index"], r["event_id"], r["status"]) for r in rows] == [
        (0, "T-1-e1", "accepted"),
        (1, "T-1-e2", "duplicate"),
        (2, "T-1-e1", "duplicate"),
        (3, "T-1-e3", "rejected"),
        (4, "T-1-e4", "rejected"),
        (5, None, "rejected"),
        (6, None, "rejected"),
        (7, "T-1-e5", "accepted"),
    ]
    assert rows[1]["reason"] == "event_id already accepted"
    assert rows[2]["reason"] == "event_id already accepted earlier in this batch"
    assert (rows[3]["field"], rows[3]["reason"]) == ("seat", "Expected `int`, got `str`")
    assert (rows[4]["field"], rows[4]["reason"]) == ("type", "unknown event type 'tip'")
    assert (rows[5]["field"], rows[5]["reason"]) == (
        "event_id",
        "the event's id `event_id` is missing",
    )
    assert (rows[6]["field"], rows[6]["reason"]) == (None, "Expected `object`, got `array`")
    accepted = batch.accepted
    assert [a.raw for a in accepted] == [good[0], good[4]]  # the bytes as received
    assert [a.table_id for a in accepted] == ["T-1", "T-1"]
    assert [r.where for r in batch.rejected] == ["item 3", "item 4", "item 5", "item 6"]
    assert [r.table_id for r in batch.rejected] == ["T-1", "T-1", "T-1", None]
    assert len(batch.duplicates) == 2


def test_an_invalid_event_is_rejected_even_if_its_id_was_seen() -> None:
    good = table_events("T-1")
    batch = check_body(array([edited(good[0], seq=-1)]), seen={"T-1-e1"})
    (outcome,) = batch.outcomes
    assert isinstance(outcome, Rejected)
    assert outcome.rejection.field == "seq"


def test_a_rejected_event_does_not_claim_its_id() -> None:
    good = table_events("T-1")
    batch = check_body(array([edited(good[0], seq=-1), good[0]]), seen=set())
    assert [o.status for o in batch.outcomes] == ["rejected", "accepted"]


def test_per_event_size_limit() -> None:
    good = table_events("T-1")
    padded = good[0][:-1] + b" " * 200 + b"}"
    items = [Item("a.jsonl:1", padded), Item("a.jsonl:2", good[1])]
    batch = classify(items, set(), Limits(max_event_bytes=len(good[0]) + 100))
    first, second = batch.outcomes
    assert isinstance(first, Rejected) and isinstance(second, Accepted)
    assert first.rejection.where == "a.jsonl:1"
    assert first.rejection.event_id == "T-1-e1"
    assert first.rejection.reason == (
        f"event of {len(padded):,} bytes exceeds {len(good[0]) + 100:,} bytes"
    )


def test_file_items_keep_their_file_line() -> None:
    good = table_events("T-1")
    items = [Item("shift.jsonl:1", good[0]), Item("shift.jsonl:3", b'{"v":1}')]
    batch = classify(items, set())
    assert str(batch.rejected[0].rejection).startswith("shift.jsonl:3: field `type`:")


def test_dead_letter_of_a_rejected_item() -> None:
    good = table_events("T-9")
    batch = check_body(array([edited(good[2], amount=0)]), set())
    letter = dead_letter_of(batch.rejected[0], "2026-11-29T20:00:00.000Z", "http 10.0.0.7")
    assert letter.key == b"T-9"
    record = json.loads(letter.value)
    assert record == {
        "reason": "Expected `int` >= 1",
        "field": "amount",
        "where": "item 0",
        "event_id": "T-9-e3",
        "table_id": "T-9",
        "raw": edited(good[2], amount=0).decode(),
        "raw_encoding": "utf-8",
        "raw_bytes": len(edited(good[2], amount=0)),
        "truncated": False,
        "received_at": "2026-11-29T20:00:00.000Z",
        "source": "http 10.0.0.7",
    }


def test_dead_letter_of_a_body_not_utf8_is_base64_and_has_no_key() -> None:
    body = b"\xff\xfe not json"
    with pytest.raises(BodyRefused) as info:
        split_body(body)
    letter = dead_letter_of_body(info.value, body, "2026-11-29T20:00:00.000Z", "http -")
    assert letter.key is None
    record = json.loads(letter.value)
    assert record["raw_encoding"] == "base64"
    assert base64.b64decode(record["raw"]) == body
    assert record["reason"].startswith("malformed: bad JSON:")
    assert (record["where"], record["field"], record["event_id"]) == ("body", None, None)


def test_dead_letter_keeps_at_most_a_sample_of_a_huge_body() -> None:
    body = "[" + "é" * DLQ_RAW_BYTES + "]"  # 2 bytes per é: the cut splits one
    raw = body.encode()
    letter = dead_letter(
        reason="oversized: too big",
        field=None,
        where="body",
        event_id=None,
        raw=raw,
        received_at="t",
        source="s",
        raw_bytes=5_000_000,
    )
    record = json.loads(letter.value)
    assert record["truncated"] is True
    assert record["raw_bytes"] == 5_000_000
    assert record["raw_encoding"] == "utf-8"
    assert raw.startswith(record["raw"].encode())
    assert len(record["raw"].encode()) in (DLQ_RAW_BYTES - 1, DLQ_RAW_BYTES)
    assert len(letter.value) < 1024 * 1024


def test_outcome_types() -> None:
    good = table_events("T-1")
    batch = check_body(array([good[0], good[0]]), set())
    assert isinstance(batch.outcomes[0], Accepted)
    assert isinstance(batch.outcomes[1], Duplicate)


@pytest.mark.parametrize(
    "body",
    [
        b"[" * 100_000 + b"]" * 100_000,
        b"[" + b'{"a":' * 100_000 + b"1" + b"}" * 100_000 + b"]",
        b'[{"table_id":"T","x":' + b"[" * 100_000 + b"]" * 100_000 + b"}]",
    ],
)
def test_a_body_nested_too_deeply_is_refused_as_malformed(body: bytes) -> None:
    with pytest.raises(BodyRefused) as info:
        check_body(body, set())
    assert info.value.kind == "malformed"
    assert "nested too deeply" in info.value.reason


def test_items_with_a_key_twice_or_out_of_range_are_rejected_not_produced() -> None:
    good = table_events("T-1")
    items = [
        good[2].replace(b'"amount":2500', b'"amount":2500,"amount":1'),
        good[2].replace(b'"seq":3', b'"seq":3,"seq":4'),
        edited(good[3], seq=2**64),
        edited(good[3], amount=2**63),
        edited(good[4], table_id="T-1\n"),
        good[0],
    ]
    batch = check_body(array(items), set())
    assert [
        (o.status, o.rejection.field if isinstance(o, Rejected) else None) for o in batch.outcomes
    ] == [
        ("rejected", "amount"),
        ("rejected", "seq"),
        ("rejected", "seq"),
        ("rejected", "amount"),
        ("rejected", "table_id"),
        ("accepted", None),
    ]
    assert [r.table_id for r in batch.rejected] == ["T-1"] * 4 + ["T-1\n"]


@given(st.binary(max_size=400))
def test_any_body_is_classified_or_refused(body: bytes) -> None:
    try:
        batch = check_body(body, set())
    except BodyRefused as refused:
        assert refused.kind in ("malformed", "oversized")
    else:
        assert all(o.status in ("accepted", "duplicate", "rejected") for o in batch.outcomes)


@given(st.lists(st.binary(max_size=120), max_size=6))
def test_any_items_are_classified(raws: list[bytes]) -> None:
    batch = classify([Item(f"item {i}", raw) for i, raw in enumerate(raws)], set())
    assert len(batch.outcomes) == len(raws)
