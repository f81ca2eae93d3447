"""Strict decoding of protocol v1 events: every malformed event names the field and the reason."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablewatch.rules.decode import EventRejected, decode_event, decode_lines, encode_event
from tablewatch.rules.events import (
    CardDealt,
    Decision,
    Settle,
    Shuffle,
    check_ts,
    ms_to_ts,
    timestamps_valid,
    ts_to_ms,
)

BASE: dict[str, Any] = {
    "v": 1,
    "event_id": "e-1",
    "table_id": "LIR-07",
    "seq": 1,
    "ts": "2026-11-29T20:15:03.123Z",
}


def event(**fields: Any) -> bytes:
    return json.dumps({**BASE, **fields}).encode()


def rejected(raw: bytes | str) -> EventRejected:
    with pytest.raises(EventRejected) as info:
        decode_event(raw, "line 7")
    return info.value


def test_protocol_example_decodes() -> None:
    card = decode_event(event(type="card", round_id="R-1", to="seat:2", card="Ah", face_up=False))
    assert isinstance(card, CardDealt)
    assert (card.to, card.card, card.face_up) == ("seat:2", "Ah", False)
    settle = decode_event(
        event(
            type="settle",
            round_id="R-1",
            seat=2,
            bet="progressive",
            result="win",
            paid=100,
            paid_from="cage",
            meter=100,
            validated_by="FL-1",
        )
    )
    assert isinstance(settle, Settle)
    assert settle.paid_from == "cage"
    shuffle = decode_event(event(type="shuffle", deck_id="D", method="manual", card_count=None))
    assert isinstance(shuffle, Shuffle)
    assert shuffle.card_count is None


def test_round_trip_encoding() -> None:
    raw = event(type="decision", round_id="R-1", seat=3, action="play", amount=2000)
    decoded = decode_event(raw)
    assert isinstance(decoded, Decision)
    assert decode_event(encode_event(decoded)) == decoded


@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        ({"type": "shuffle_cards"}, "type", "unknown event type"),
        (
            {"type": "card", "round_id": "R", "to": "seat:2", "card": "1x", "face_up": False},
            "card",
            "not a card",
        ),
        (
            {"type": "wager", "round_id": "R", "seat": 2, "bet": "bet1", "amount": -5},
            "amount",
            ">= 1",
        ),
        ({"type": "wager", "round_id": "R", "seat": 9, "bet": "bet1", "amount": 5}, "seat", "<= 7"),
        (
            {"type": "wager", "round_id": "R", "seat": 2, "bet": "bet1", "amount": "5"},
            "amount",
            "Expected `int`",
        ),
        ({"type": "wager", "round_id": "R", "seat": 2, "bet": "bet1"}, "amount", "missing"),
        (
            {"type": "wager", "round_id": "R", "seat": 2, "bet": "big", "amount": 5},
            "bet",
            "Invalid enum value",
        ),
        ({"type": "meter", "amount": 5, "ts": "2026-11-29 20:15:03"}, "ts", "not an RFC 3339"),
        ({"type": "meter", "amount": 5, "ts": "2026-02-30T20:15:03.123Z"}, "ts", "calendar"),
        ({"type": "meter", "amount": 5, "ts": "2026-11-29T20:15:03Z"}, "ts", "not an RFC 3339"),
        ({"type": "meter", "amount": 5, "colour": "red"}, "colour", "unknown field"),
        ({"type": "meter", "amount": 5, "round_id": "R-1"}, "round_id", "unknown field"),
        ({"type": "round_end"}, "round_id", "missing"),
        ({"type": "meter", "amount": 5, "v": 2}, "v", "Invalid enum value"),
        ({"type": "decision", "round_id": "R", "seat": 2, "action": "play"}, "amount", "needs"),
        ({"type": "decision", "round_id": "R", "seat": 2, "action": "pull"}, "bet", "needs"),
        ({"type": "reveal", "round_id": "R", "target": "community"}, "index", "needs"),
        (
            {
                "type": "settle",
                "round_id": "R",
                "seat": 2,
                "bet": "bet1",
                "result": "tie",
                "paid": 0,
            },
            "result",
            "Invalid enum value",
        ),
    ],
)
def test_malformed_event_names_field_and_reason(
    fields: dict[str, Any], field: str, words: str
) -> None:
    problem = rejected(event(**fields))
    assert problem.field == field
    assert words in problem.reason
    assert problem.event_id == "e-1"
    assert problem.where == "line 7"
    assert str(problem).startswith("line 7 (event_id e-1): field `" + field + "`")


def test_bad_json_and_missing_event_id() -> None:
    problem = rejected(b'{"v": 1, "event_id": ')
    assert problem.reason.startswith("bad JSON")
    assert problem.event_id is None
    problem = rejected(b"[1, 2]")
    assert problem.event_id is None


def test_timestamps_are_utc_milliseconds() -> None:
    assert ts_to_ms("1970-01-01T00:00:01.001Z") == 1001
    # the second call of a minute is answered from its cached epoch
    for _ in range(2):
        assert ts_to_ms("2024-02-29T23:59:59.999Z") == 1709251199999
        assert ts_to_ms("2024-03-01T00:00:00.000Z") == 1709251200000


@given(st.integers(min_value=0, max_value=253_402_300_799_999))  # to 9999-12-31T23:59:59.999Z
def test_timestamps_round_trip(ms: int) -> None:
    moment = datetime(1970, 1, 1, tzinfo=UTC) + timedelta(milliseconds=ms)
    ts = moment.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    assert ms_to_ts(ms) == ts
    assert ts_to_ms(ts) == ms
    assert ts_to_ms(ts) == ms  # from the minute cache


@pytest.mark.parametrize(
    ("ts", "words"),
    [
        ("2024-02-29T12:00:00.000Z", None),  # a leap year
        ("2000-02-29T12:00:00.000Z", None),  # divisible by 400
        ("2026-12-31T23:59:59.999Z", None),
        ("2026-02-29T12:00:00.000Z", "calendar"),
        ("1900-02-29T12:00:00.000Z", "calendar"),  # divisible by 100, not by 400
        ("2026-04-31T12:00:00.000Z", "calendar"),
        ("2026-11-29T24:00:00.000Z", "not an RFC 3339"),
        ("2026-11-29T23:60:00.000Z", "not an RFC 3339"),
        ("2026-11-29T23:59:60.000Z", "not an RFC 3339"),
        ("2026-13-01T00:00:00.000Z", "not an RFC 3339"),
        ("2026-11-29T20:15:03.12xZ", "not an RFC 3339"),
        ("2026-11-29T20:15:03.-12", "not an RFC 3339"),  # 24 characters, fromisoformat's offset
        ("2026-11-29T20:15:03.12\u0663Z", "not an RFC 3339"),  # an Arabic-Indic digit
        ("2026-11-29T20:15:03,123Z", "not an RFC 3339"),
        ("2026-11-29t20:15:03.123Z", "not an RFC 3339"),
        ("2026-11-29T20:15:03.1234Z", "not an RFC 3339"),
    ],
)
def test_timestamp_shape_clock_and_calendar(ts: str, words: str | None) -> None:
    # Each case twice: the second finds its minute already checked (the fast path).
    for _ in range(2):
        raw = event(type="meter", amount=5, ts=ts)
        if words is None:
            assert decode_event(raw).ts == ts
        else:
            problem = rejected(raw)
            assert problem.field == "ts"
            assert words in problem.reason


def test_a_bad_timestamp_in_a_minute_already_seen_is_refused() -> None:
    decode_event(event(type="meter", amount=5, ts="2026-11-29T20:15:03.123Z"))
    for ts in ("2026-11-29T20:15:60.000Z", "2026-11-29T20:15:03.1 3Z", "2026-11-29T20:15:03.123z"):
        assert rejected(event(type="meter", amount=5, ts=ts)).field == "ts"


def test_decode_lines_keeps_order_and_numbers_rejections() -> None:
    good = event(type="meter", amount=5)
    lines = [good, b"", b"{not json", good.replace(b'"seq": 1', b'"seq": "x"'), b"  ", good]
    decoded = decode_lines(lines, "f.jsonl", first=10)
    assert len(decoded.events) == 2
    assert [(index, r.where if r else None) for index, r in decoded.failed] == [
        (1, None),
        (2, "f.jsonl:12"),
        (3, "f.jsonl:13"),
        (4, None),
    ]
    items = list(decoded.in_order())
    assert [type(item).__name__ for item in items] == [
        "Meter",
        "EventRejected",
        "EventRejected",
        "Meter",
    ]


# The timestamp cases above, as the decoder checks a block's timestamps together.
_TS_CASES = [
    "2024-02-29T12:00:00.000Z",
    "2026-12-31T23:59:59.999Z",
    "2026-02-29T12:00:00.000Z",
    "2026-04-31T12:00:00.000Z",
    "2026-11-29T24:00:00.000Z",
    "2026-11-29T23:60:00.000Z",
    "2026-11-29T23:59:60.000Z",
    "2026-13-01T00:00:00.000Z",
    "2026-11-29T20:15:03.12xZ",
    "2026-11-29T20:15:03.-12",
    "2026-11-29T20:15:03.12\u0663Z",
    "2026-11-29T20:15:03,123Z",
    "2026-11-29t20:15:03.123Z",
    "2026-11-29T20:15:03.123z",
    "2026-11-29T20:15:03 123Z",
    "2026-11-29T20:15:0a.123Z",
]


@pytest.mark.parametrize("ts", [ts for ts in _TS_CASES if len(ts) == 24])
def test_a_block_of_timestamps_is_valid_exactly_when_each_one_is(ts: str) -> None:
    good = ["2026-11-29T20:15:03.123Z", "2026-11-29T20:16:59.000Z"]
    try:
        check_ts(ts)
        alone = True
    except ValueError:
        alone = False
    for _ in range(2):  # the second time its minute may be known
        assert timestamps_valid([ts]) is alone
        assert timestamps_valid([*good, ts, *good]) is alone
    assert timestamps_valid(good)
    assert timestamps_valid([])


def test_decode_lines_rejects_a_bad_timestamp_and_goes_on_after_it() -> None:
    def meter(seq: int, ts: str = "2026-11-29T20:15:03.123Z") -> bytes:
        return event(type="meter", amount=5, seq=seq, event_id=f"e-{seq}", ts=ts)

    lines = [
        meter(1),
        meter(2, "2026-11-29T20:15:61.123Z"),
        meter(3),
        b"{not json",
        meter(5, "2026-02-30T20:15:03.123Z"),
        meter(6),
    ]
    decoded = decode_lines(lines, "f.jsonl", first=10)
    assert [e.seq for e in decoded.events] == [1, 3, 6]
    reasons = [(index, r.where, r.field, r.event_id) for index, r in decoded.failed if r]
    assert reasons == [
        (1, "f.jsonl:11", "ts", "e-2"),
        (3, "f.jsonl:13", None, None),
        (4, "f.jsonl:14", "ts", "e-5"),
    ]
    assert "calendar" in decoded.failed[2][1].reason  # type: ignore[union-attr]
    assert [type(item).__name__ for item in decoded.in_order()] == [
        "Meter",
        "EventRejected",
        "Meter",
        "EventRejected",
        "EventRejected",
        "Meter",
    ]


def test_a_bad_timestamp_is_the_reason_given_before_a_decision_problem() -> None:
    fields = {"type": "decision", "round_id": "R-1", "seat": 2, "action": "play"}  # no amount
    assert rejected(event(**fields)).field == "amount"
    assert rejected(event(**fields, ts="2026-11-29T24:00:00.000Z")).field == "ts"
    decoded = decode_lines([event(**fields, ts="2026-11-29T24:00:00.000Z")], "f.jsonl")
    assert decoded.failed[0][1] is not None and decoded.failed[0][1].field == "ts"


@given(
    st.lists(
        st.tuples(st.integers(0, 23), st.sampled_from("0123456789-T:.Z tz\u0663")),
        max_size=3,
    )
)
def test_timestamps_valid_agrees_with_check_ts(changes: list[tuple[int, str]]) -> None:
    chars = list("2026-11-29T20:15:03.123Z")
    for position, char in changes:
        chars[position] = char
    ts = "".join(chars)
    try:
        check_ts(ts)
        alone = True
    except ValueError:
        alone = False
    assert timestamps_valid(["2026-11-29T20:15:03.123Z", ts]) is alone
