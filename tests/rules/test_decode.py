"""Strict decoding of protocol v1 events: every malformed event names the field and the reason."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tablewatch.rules.decode import (
    EventRejected,
    OverlongLine,
    decode_event,
    decode_lines,
    decode_whole_lines,
    encode_event,
    peek_field,
)
from tablewatch.rules.events import (
    CardDealt,
    Decision,
    Meter,
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
        ({"type": "meter", "amount": 5, "v": 2}, "v", "the protocol version `v` is 1, not 2"),
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


@pytest.mark.parametrize(
    ("field", "reason"),
    [
        ("v", "the protocol version `v` (1) is missing"),
        ("type", "the event type `type` is missing"),
        ("table_id", "the table's id `table_id` is missing"),
        ("seq", "the table's event number `seq` is missing"),
        ("ts", "the event's time `ts` is missing"),
        ("round_id", "the round's id `round_id` is missing"),
        ("amount", "`amount` is missing: a `wager` event needs it"),
        ("seat", "`seat` is missing: a `wager` event needs it"),
    ],
)
def test_a_missing_field_is_named_for_what_it_is(field: str, reason: str) -> None:
    fields = {**BASE, "type": "wager", "round_id": "R", "seat": 2, "bet": "bet1", "amount": 5}
    del fields[field]
    problem = rejected(json.dumps(fields))
    assert (problem.field, problem.reason) == (field, reason)
    assert str(problem) == f"line 7 (event_id e-1): field `{field}`: {reason}"


def test_a_missing_event_id_leaves_the_rejection_without_one() -> None:
    fields = {key: value for key, value in BASE.items() if key != "event_id"}
    problem = rejected(json.dumps({**fields, "type": "meter", "amount": 5}))
    assert (problem.field, problem.reason) == ("event_id", "the event's id `event_id` is missing")
    assert str(problem) == "line 7: field `event_id`: the event's id `event_id` is missing"


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
        ("2100-02-29T12:00:00.000Z", "calendar"),  # divisible by 100, not by 400
        ("1900-02-29T12:00:00.000Z", "year 1900 is outside 2000 to 2199"),
        ("1999-12-31T23:59:59.999Z", "year 1999 is outside 2000 to 2199"),
        ("2200-01-01T00:00:00.000Z", "year 2200 is outside 2000 to 2199"),
        ("0000-01-01T00:00:00.000Z", "year 0000 is outside"),
        ("2000-01-01T00:00:00.000Z", None),
        ("2199-12-31T23:59:59.999Z", None),
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


# ---- the protocol's ranges -------------------------------------------------------------

ROUND: dict[str, Any] = {"round_id": "R-1"}
TOO_BIG = [2**53, 2**63, 2**64, 10**30]


def both_reject(raw: bytes) -> EventRejected:
    """The rejection of ``raw`` by decode_event, checked to be decode_lines' too."""
    problem = rejected(raw)
    decoded = decode_lines([raw], "f.jsonl")
    assert decoded.events == []
    line = decoded.failed[0][1]
    assert line is not None
    assert (line.field, line.reason) == (problem.field, problem.reason)
    return problem


def both_accept(raw: bytes) -> None:
    decode_event(raw)
    decoded = decode_lines([raw], "f.jsonl")
    assert len(decoded.events) == 1 and decoded.failed == []


@pytest.mark.parametrize("seq", [0, -1, *TOO_BIG])
def test_seq_is_at_least_1_and_below_2_to_the_53(seq: int) -> None:
    problem = both_reject(event(type="meter", amount=5, seq=seq))
    assert problem.field == "seq"
    assert "seq is at least 1 and below 2^53" in problem.reason


@pytest.mark.parametrize("seq", [1, 2, 2**53 - 1])
def test_seq_in_range_is_accepted(seq: int) -> None:
    both_accept(event(type="meter", amount=5, seq=seq))


AMOUNT_FIELDS: list[tuple[dict[str, Any], str]] = [
    ({"type": "meter"}, "amount"),
    ({"type": "wager", **ROUND, "seat": 2, "bet": "bet1"}, "amount"),
    ({"type": "decision", **ROUND, "seat": 2, "action": "play"}, "amount"),
    ({"type": "settle", **ROUND, "seat": 2, "bet": "bet1", "result": "win"}, "paid"),
    (
        {"type": "settle", **ROUND, "seat": 2, "bet": "progressive", "result": "win", "paid": 5},
        "meter",
    ),
    ({"type": "envy_payout", **ROUND, "seat": 2, "for_seat": 3}, "paid"),
]


@pytest.mark.parametrize(("fields", "name"), AMOUNT_FIELDS)
@pytest.mark.parametrize("cents", TOO_BIG)
def test_amounts_are_below_2_to_the_53_cents(fields: dict[str, Any], name: str, cents: int) -> None:
    problem = both_reject(event(**fields, **{name: cents}))
    assert problem.field == name
    assert "amounts are whole cents below 2^53" in problem.reason


@pytest.mark.parametrize(("fields", "name"), AMOUNT_FIELDS)
def test_amounts_up_to_2_to_the_53_minus_1_are_accepted(fields: dict[str, Any], name: str) -> None:
    both_accept(event(**fields, **{name: 2**53 - 1}))


@pytest.mark.parametrize("digits", [17, 400, 5000, 100_000])
def test_a_number_of_many_digits_is_rejected_with_the_event_id(digits: int) -> None:
    raw = event(type="meter", amount=0).replace(b'"amount": 0', b'"amount": ' + b"9" * digits)
    problem = both_reject(raw)
    assert (problem.field, problem.event_id) == ("amount", "e-1")
    assert "below 2^53" in problem.reason


@pytest.mark.parametrize(
    "fields",
    [
        {"type": "stub_count", **ROUND, "count": 2**53},
        {"type": "lockout", **ROUND, "progressive_accepted": 0, "progressive_chips": 2**64},
        {"type": "shuffle", "deck_id": "D", "method": "automated", "card_count": 2**63},
    ],
)
def test_counts_are_below_2_to_the_53(fields: dict[str, Any]) -> None:
    problem = both_reject(event(**fields))
    assert "a count is below 2^53" in problem.reason


ID_FIELDS: list[tuple[dict[str, Any], str]] = [
    ({"type": "meter", "amount": 5}, "event_id"),
    ({"type": "meter", "amount": 5}, "table_id"),
    ({"type": "round_end", **ROUND}, "round_id"),
    ({"type": "deck_in", "dealing": "hand"}, "deck_id"),
    ({"type": "round_start", **ROUND, "deck_id": "D-1"}, "dealer_id"),
    ({"type": "dealer_change"}, "dealer_id"),
    ({"type": "table_open", "game": "let_it_ride"}, "config"),
    ({"type": "meter", "amount": 5}, "kid"),  # a signed event's key id and signature
    ({"type": "round_end", **ROUND}, "sig"),
    (
        {"type": "settle", **ROUND, "seat": 2, "bet": "progressive", "result": "win", "paid": 5},
        "validated_by",
    ),
]
# (value, words of the reason): each refused as an id
BAD_IDS = [
    ("", "empty"),
    ("x" * 65, "longer than 64 characters"),
    ("a" * 10_000, "longer than 64 characters"),
    ("LIR-07\n", "U+000A"),
    ("LIR\x00", "U+0000"),
    ("\x1b[31mLIR", "U+001B"),
    ("LIR\x7f", "U+007F"),
    ("LIR\x85", "U+0085"),  # a C1 control
    ("LIR\u200b", "U+200B"),  # zero-width space: a format character
    ("LIR\u2028", "U+2028"),  # line separator
    ("LIR\ufeff", "U+FEFF"),
]
GOOD_IDS = ["x", "x" * 64, "LIR 07", "Täble-é", "桌-7", "e-" + "9" * 62, 'a"b\\c']


def _id_event(fields: dict[str, Any], name: str, value: str) -> bytes:
    return event(**{**fields, name: value})  # each case lacks only the field it sets


@pytest.mark.parametrize(("fields", "name"), ID_FIELDS)
@pytest.mark.parametrize(("value", "words"), BAD_IDS)
def test_ids_and_names_are_1_to_64_printable_characters(
    fields: dict[str, Any], name: str, value: str, words: str
) -> None:
    problem = both_reject(_id_event(fields, name, value))
    assert problem.field == name
    assert words in problem.reason
    assert "1 to 64 printable characters" in problem.reason


@pytest.mark.parametrize(("fields", "name"), ID_FIELDS)
@pytest.mark.parametrize("value", GOOD_IDS)
def test_printable_ids_of_1_to_64_characters_are_accepted(
    fields: dict[str, Any], name: str, value: str
) -> None:
    raw = _id_event(fields, name, value)
    decoded = decode_event(raw)
    assert getattr(decoded, name) == value
    both_accept(raw)
    both_accept(json.dumps(json.loads(raw), ensure_ascii=False).encode())  # as UTF-8


@pytest.mark.parametrize("raw_text", ['"LIR\\u0007"', '"LIR\\t"', '"\\u001b[2J"', '"LIR\\u00ad"'])
def test_an_escaped_control_character_in_an_id_is_refused(raw_text: str) -> None:
    raw = event(type="meter", amount=5).replace(b'"LIR-07"', raw_text.encode())
    problem = both_reject(raw)
    assert problem.field == "table_id"
    assert "not a printable character" in problem.reason


@pytest.mark.parametrize("type_", ["void", "deck_out"])
@pytest.mark.parametrize(
    ("reason", "words"),
    [
        ("misdeal\nSECOND LINE", "U+000A"),
        ("shoe\x00fault", "U+0000"),
        ("\x1b[31mred", "U+001B"),
        ("x\x9b", "U+009B"),
        ("x" * 513, "longer than 512 characters"),
    ],
)
def test_free_text_has_no_control_characters_and_at_most_512(
    type_: str, reason: str, words: str
) -> None:
    fields: dict[str, Any] = {"type": type_, "reason": reason}
    fields.update(ROUND if type_ == "void" else {"deck_id": "D-1"})
    problem = both_reject(event(**fields))
    assert problem.field == "reason"
    assert words in problem.reason


@pytest.mark.parametrize(
    "reason", ["", "misdeal", "carte vue \u00e0 l\u2019avance\u00a0!", "x" * 512]
)
def test_free_text_may_be_any_printable_text(reason: str) -> None:
    both_accept(event(type="void", **ROUND, reason=reason))
    both_accept(event(type="deck_out", deck_id="D-1", reason=reason))


def test_a_block_of_lines_rejects_only_the_bad_strings_and_keeps_going() -> None:
    def meter(seq: int, **fields: Any) -> bytes:
        return event(**{"type": "meter", "amount": 5, "seq": seq, "event_id": f"e-{seq}", **fields})

    lines = [
        meter(1),
        meter(2, table_id="T\x01"),
        meter(3, table_id="Tä"),  # printable, not ASCII: checked one by one, accepted
        meter(4, ts="2026-11-29T20:15:61.000Z"),
        meter(5, event_id="e-5\u200b"),
        b"{not json",
        meter(7).replace(b'"LIR-07"', b'"LIR\\u002d07"'),  # an escaped hyphen: fine
        meter(8),
    ]
    decoded = decode_lines(lines, "f.jsonl", first=1)
    assert [e.seq for e in decoded.events] == [1, 3, 7, 8]
    assert decoded.events[2].table_id == "LIR-07"
    found = [(r.where, r.field) for _, r in decoded.failed if r]
    assert found == [
        ("f.jsonl:2", "table_id"),
        ("f.jsonl:4", "ts"),
        ("f.jsonl:5", "event_id"),
        ("f.jsonl:6", None),
    ]


def _meter(seq: int, **fields: Any) -> bytes:
    return event(**{"type": "meter", "amount": 5, "seq": seq, "event_id": f"e-{seq}", **fields})


def test_lines_each_an_event_decode_together_as_one_by_one() -> None:
    lines = [
        _meter(1),
        _meter(2, table_id="Tä"),  # not ASCII: its strings checked one by one, accepted
        _meter(3).replace(b'"LIR-07"', b'"LIR\\u002d07"'),  # an escaped hyphen: fine
        json.dumps({**BASE, "type": "meter", "amount": 5, "seq": 4}, indent=None).encode(),
    ]
    events = decode_whole_lines(b"".join(line + b"\n" for line in lines))
    assert events == [decode_event(line) for line in lines]
    assert events is not None and events[2].table_id == "LIR-07"
    assert decode_whole_lines(b"") == []


@pytest.mark.parametrize(
    "bad",
    [
        _meter(2, table_id="T\x01"),  # a control character in an id
        _meter(2, event_id="e-2\u200b"),  # not printable, given as an escape
        _meter(2, ts="2026-11-29T20:15:61.000Z"),  # a second of 61
        _meter(2, amount=-1),  # refused by msgspec
        _meter(2, colour="red"),  # a key no event has
    ],
)
def test_lines_with_one_event_refused_are_left_to_decode_lines(bad: bytes) -> None:
    lines = [_meter(1), bad, _meter(3)]
    assert decode_whole_lines(b"".join(line + b"\n" for line in lines)) is None
    decoded = decode_lines(lines, "f.jsonl")
    assert [e.seq for e in decoded.events] == [1, 3]
    assert [index for index, rejection in decoded.failed if rejection] == [1]


@pytest.mark.parametrize(
    "lines",
    [
        [_meter(1)[:30], _meter(1)[30:]],  # an event cut over two lines
        [_meter(1) + b" " + _meter(2), b"{}"],  # two on a line, an empty object after
        [_meter(1) + _meter(2), _meter(3)[:30], _meter(3)[30:]],  # two values as three lines
        [b" " + _meter(1)],  # valid alone, but not an object alone on its line
        [_meter(1), b""],  # a blank line
    ],
)
def test_lines_not_each_an_object_alone_are_left_to_decode_lines(lines: list[bytes]) -> None:
    """msgspec reads JSON values apart by whitespace, not by lines: these would decode
    together as events, which line by line are refused (or, the last two, skipped)."""
    assert decode_whole_lines(b"".join(line + b"\n" for line in lines)) is None


def test_lines_not_ending_in_a_newline_are_left_to_decode_lines() -> None:
    assert decode_whole_lines(_meter(1) + b"\n" + _meter(2)) is None


def test_a_rejection_prints_control_characters_escaped() -> None:
    problem = rejected(event(type="meter", amount=5, event_id="e\x1b[2J", table_id="T\x07"))
    assert problem.event_id == "e\x1b[2J"  # as read, for the dead-letter record
    text = str(problem)
    assert text.isprintable()
    assert "e\\x1b[2J" in text


def test_a_long_unknown_key_is_cut_in_the_rejection() -> None:
    problem = rejected(event(type="meter", amount=5, **{"k" * 60_000: 1}))
    assert problem.field is not None and len(problem.field) <= 64
    assert len(problem.reason) <= 300


# ---- keys given twice ------------------------------------------------------------------

GOOD_METER = b'{"v":1,"event_id":"e-1","table_id":"T","seq":1,"ts":"2026-11-29T20:15:03.123Z",'


@pytest.mark.parametrize(
    ("raw", "field"),
    [
        (GOOD_METER + b'"type":"meter","amount":5,"amount":7}', "amount"),
        (GOOD_METER + b'"seq":2,"type":"meter","amount":5}', "seq"),
        (GOOD_METER + b'"type":"meter","type":"meter","amount":5}', "type"),
        (GOOD_METER + b'"ts":"2026-11-29T20:15:03.123Z","type":"meter","amount":5}', "ts"),
        (GOOD_METER + b'"table_id":"OTHER","type":"meter","amount":5}', "table_id"),
        (GOOD_METER + b'"event_id":"e-2","type":"meter","amount":5}', "event_id"),
        (GOOD_METER + b'"s\\u0065q":2,"type":"meter","amount":5}', "seq"),  # escaped key
        (GOOD_METER + b' "seq" : 2 , "type":"meter","amount":5}', "seq"),  # with spaces
        (GOOD_METER.replace(b'"v":1', b'"v":1,"v":1') + b'"type":"meter","amount":5}', "v"),
    ],
)
def test_decode_event_refuses_a_key_given_twice(raw: bytes, field: str) -> None:
    problem = rejected(raw)
    assert problem.field == field
    assert f"key `{field}` given twice" in problem.reason
    assert problem.event_id is not None
    assert "given twice" in rejected(raw.decode()).reason  # as text too


def test_a_null_optional_field_is_not_a_key_given_twice() -> None:
    fold = event(type="decision", **ROUND, seat=2, action="fold", bet=None, amount=None)
    decoded = decode_event(fold)
    assert isinstance(decoded, Decision) and decoded.bet is None
    settle = event(
        type="settle", **ROUND, seat=1, bet="ante", result="lose", paid=0, paid_from=None
    )
    assert isinstance(decode_event(settle), Settle)


def test_decode_lines_judges_the_last_of_a_key_given_twice() -> None:
    # Not refused on the audit's hot path (docs/ingest.md: the cost measured); the live
    # path (decode_event: ingest and the worker) refuses it.
    decoded = decode_lines([GOOD_METER + b'"type":"meter","amount":5,"amount":7}'], "f")
    assert [e.amount for e in decoded.events if isinstance(e, Meter)] == [7]


# ---- any input: a rejection, never another exception -------------------------------------

DEEP = 100_000
HOSTILE: list[bytes] = [
    b"[" * DEEP + b"]" * DEEP,
    b"[" * DEEP,
    b"{" * DEEP,
    b'{"a":' * DEEP + b"1" + b"}" * DEEP,
    GOOD_METER + b'"type":"meter","amount":5,"x":' + b"[" * DEEP + b"]" * DEEP + b"}",
    b'{"type":"meter","event_id":"e-9","x":' + b'{"y":' * DEEP + b"}",
    b'{"event_id":' + b"[" * DEEP,
    b"\xff\xfe\x00",
    b'{"event_id":"\xc3\x28"}',
    b'{"event_id":"\\ud800"}',
    b"",
    b"   ",
    b"\x00",
    b"null",
    b"1" * 10_000,
    b'"' + b"a" * 100_000,
]


@pytest.mark.parametrize("raw", HOSTILE, ids=[f"hostile-{i}" for i in range(len(HOSTILE))])
def test_hostile_input_is_rejected_not_raised(raw: bytes) -> None:
    problem = rejected(raw)
    assert problem.reason
    decoded = decode_lines([raw, event(type="meter", amount=5)], "f.jsonl")
    assert len(decoded.events) == 1  # the good line after it is still decoded
    if raw.strip():
        assert decoded.failed[0][1] is not None


def test_nested_too_deep_says_so() -> None:
    problem = rejected(b'{"a":' * DEEP + b"1" + b"}" * DEEP)
    assert "nested too deeply" in problem.reason
    decoded = decode_lines([b"[" * DEEP], "f.jsonl")
    assert decoded.failed[0][1] is not None


def test_text_with_a_lone_surrogate_is_rejected() -> None:
    assert "UTF-8" in rejected('{"v":1,"event_id":"\ud800"}').reason


@given(st.binary(max_size=300))
def test_any_bytes_decode_or_are_rejected(raw: bytes) -> None:
    with contextlib.suppress(EventRejected):
        decode_event(raw)
    decode_lines([raw], "f.jsonl")


_JSON_SCALARS = st.none() | st.booleans() | st.integers() | st.text(max_size=70)
_JSON = st.recursive(
    _JSON_SCALARS, lambda inner: st.lists(inner, max_size=3), max_leaves=6
) | st.dictionaries(st.text(max_size=5), _JSON_SCALARS, max_size=3)


@given(
    st.lists(
        st.tuples(st.sampled_from([*BASE, "type", "amount", "round_id", "x"]), _JSON),
        max_size=3,
    )
)
def test_any_json_object_decodes_or_is_rejected(changes: list[tuple[str, Any]]) -> None:
    obj: dict[str, Any] = {**BASE, "type": "meter", "amount": 5}
    obj.update(changes)
    raw = json.dumps(obj).encode()
    try:
        decode_event(raw)
    except EventRejected as problem:
        assert str(problem)
    decode_lines([raw], "f.jsonl")


def test_peek_field_never_raises() -> None:
    for raw in HOSTILE:
        assert peek_field(raw, "event_id") is None
    assert peek_field(b'{"event_id":"e-1","amount":' + b"9" * 5000 + b"}", "event_id") == "e-1"


def test_an_overlong_line_is_rejected_with_its_size() -> None:
    lines = [event(type="meter", amount=5), OverlongLine(5_000_000, 1 << 20), b""]
    decoded = decode_lines(lines, "f.jsonl", first=3)
    assert len(decoded.events) == 1
    problem = decoded.failed[0][1]
    assert problem is not None and problem.where == "f.jsonl:4"
    assert problem.reason == "line of 5,000,000 bytes exceeds the limit of 1,048,576 bytes"
    assert decoded.failed[1] == (2, None)


def test_a_rejection_travels_through_with_blocks_and_pickles() -> None:
    """Python sets __traceback__ and __context__ on an exception as it travels: a
    rejection must take them (it did not as a frozen dataclass), and cross processes."""
    import pickle

    @contextlib.contextmanager
    def block() -> Iterator[None]:
        yield

    with pytest.raises(EventRejected) as caught, block():
        decode_event(b"{", "item 3")
    rejected = caught.value
    assert rejected.where == "item 3" and rejected.reason.startswith("bad JSON")
    assert pickle.loads(pickle.dumps(rejected)) == rejected
