"""What the fuzzers found, each as a plain regression test (not marked ``fuzz``: always run)."""

from __future__ import annotations

import pytest

from tablewatch.rules.decode import EventRejected, decode_event

_METER = (
    b'{"v":1,"type":"meter","event_id":"e-1","table_id":"T-1","seq":1,'
    b'"ts":"2026-11-29T20:15:03.123Z","amount":5,'
)


@pytest.mark.parametrize("key", ["a`b", "", "k\n`", " - at `$.seq", "x - at `$.seat", "``"])
def test_an_unknown_key_is_the_field_whatever_it_holds(key: str) -> None:
    """The field of an unknown key is the key as given: it was cut at its first backtick,
    lost when empty or holding a line break, and a key ending in " - at `$.seat`" made
    the field ``seat``."""
    raw = _METER + b'"' + key.replace("\n", "\\n").encode() + b'":1}'
    with pytest.raises(EventRejected) as caught:
        decode_event(raw)
    assert caught.value.field == key
    assert caught.value.reason == f"Object contains unknown field `{key}`"
