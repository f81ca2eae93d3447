"""A round as a fold: every round event type has its place."""

from __future__ import annotations

import pytest

from tablewatch.rules.events import ROUND_EVENT_TYPES, RoundEnd, RoundStart, TableOpen, Void
from tablewatch.rules.round import Round


def test_every_round_event_type_is_collected_or_kept() -> None:
    kept = {RoundStart, Void, RoundEnd}  # the round's own fields, not lists
    assert set(Round("T", "R").collectors) | kept == set(ROUND_EVENT_TYPES)


def test_an_event_type_the_round_does_not_know_is_refused() -> None:
    rnd = Round("T", "R")
    event = TableOpen(v=1, event_id="e-1", table_id="T", seq=1,
                      ts="2026-11-29T20:15:00.000Z", game="let_it_ride", config="A")  # fmt: skip
    with pytest.raises(TypeError, match="TableOpen"):
        rnd.apply(event)  # type: ignore[arg-type]
    assert rnd.others == 0
