"""A `wager`'s optional `player_id`: decoded and kept, refused naming the field when bad,
and an event without it is exactly the protocol's (nothing added when encoded)."""

from __future__ import annotations

import json

import pytest

from tablewatch.rules.decode import EventRejected, decode_event, encode_event
from tablewatch.rules.events import Wager

WAGER = {
    "v": 1,
    "type": "wager",
    "event_id": "e-1",
    "table_id": "TCP-1",
    "seq": 7,
    "ts": "2026-12-01T20:15:03.123Z",
    "round_id": "R-1",
    "seat": 3,
    "bet": "ante",
    "amount": 2500,
}


def test_a_player_id_is_decoded_and_encoded_again() -> None:
    raw = json.dumps({**WAGER, "player_id": "PC-0042 Gold"}).encode()
    event = decode_event(raw)
    assert isinstance(event, Wager)
    assert event.player_id == "PC-0042 Gold"
    assert json.loads(encode_event(event)) == json.loads(raw)


def test_a_wager_without_one_is_the_protocols() -> None:
    raw = json.dumps(WAGER, separators=(",", ":")).encode()
    event = decode_event(raw)
    assert isinstance(event, Wager) and event.player_id is None
    encoded = encode_event(event)
    assert b"player_id" not in encoded
    assert json.loads(encoded) == WAGER


@pytest.mark.parametrize(
    ("player_id", "reason"),
    [
        ("", "field `player_id`: empty: an id is 1 to 64 printable characters"),
        ("P" * 65, "field `player_id`: longer than 64 characters"),
        ("PC\u0007", "field `player_id`: holds U+0007, which is not a printable character"),
        (42, "field `player_id`"),
    ],
)
def test_a_bad_player_id_is_refused_naming_the_field(player_id: object, reason: str) -> None:
    with pytest.raises(EventRejected) as refused:
        decode_event(json.dumps({**WAGER, "player_id": player_id}).encode())
    assert reason in str(refused.value)
    assert "e-1" in str(refused.value)
