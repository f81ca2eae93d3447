"""Signed events: every event type takes the optional ``kid`` and ``sig``, which change
nothing else about it."""

from __future__ import annotations

import json

import msgspec
import pytest

from tablewatch.rules.decode import EventRejected, decode_event, decode_lines, encode_event
from tablewatch.rules.events import EVENT_TYPES, AnyEvent, event_type
from tablewatch.script import TableScript
from tablewatch.sim.floor import Floor
from tests.sim.floors import FIRST_TWO

SIG = "q3Vz0M2Fh0yQe6gXjv9V1Wm2oP7kJxT4rL8sN5bC0aE"  # 43 characters, as an HMAC-SHA256


def one_of_each_type() -> list[AnyEvent]:
    script = TableScript("SIGN-1")
    script.table_open("let_it_ride", "lir-std")
    script.device_fault("shuffler", "jam")
    script.deck_in("D-1", "automated_shoe")
    script.round_start("R-1", "D-1", "DL-1")
    script.wager(3, "bet1", 500)
    script.void("shoe fault")
    script.deck_out("D-1", "scheduled change")
    first: dict[str, AnyEvent] = {}
    floor = Floor(4, 60, 11, error_rate=0.1, jackpot_rate=0.2, games=FIRST_TWO)
    events = [*floor.events(), *script.events]
    for event in events:
        first.setdefault(event_type(event), event)
    assert len(first) == len(EVENT_TYPES)
    return list(first.values())


@pytest.mark.parametrize("event", one_of_each_type(), ids=event_type)
def test_every_event_type_takes_kid_and_sig(event: AnyEvent) -> None:
    fields = json.loads(encode_event(event))
    raw = json.dumps({**fields, "kid": "k-2026", "sig": SIG}).encode()
    signed = decode_event(raw)
    assert (signed.kid, signed.sig) == ("k-2026", SIG)
    assert msgspec.structs.replace(signed, kid=None, sig=None) == event
    assert json.loads(encode_event(signed)) == {**fields, "kid": "k-2026", "sig": SIG}
    assert decode_lines([raw], "f").events == [signed]


def test_unsigned_events_encode_as_before() -> None:
    for event in one_of_each_type():
        assert event.kid is None and event.sig is None
        assert b'"kid"' not in encode_event(event) and b'"sig"' not in encode_event(event)


@pytest.mark.parametrize(
    ("name", "value", "words"),
    [
        ("kid", "", "empty"),
        ("kid", "k" * 65, "longer than 64 characters"),
        ("kid", "k\u200b", "U+200B"),
        ("sig", 7, "Expected `str | null`, got `int`"),
        ("sig", "s" * 65, "longer than 64 characters"),
    ],
)
def test_kid_and_sig_are_names(name: str, value: object, words: str) -> None:
    fields = json.loads(encode_event(one_of_each_type()[0]))
    with pytest.raises(EventRejected) as info:
        decode_event(json.dumps({**fields, name: value}).encode())
    assert info.value.field == name
    assert words in info.value.reason
