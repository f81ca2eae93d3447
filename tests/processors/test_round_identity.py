"""The worker's rows and messages carry each round's start_event_id; a round_id given again
after the worker restarted is still found (the saved state's round ids)."""

from __future__ import annotations

import json

from tablewatch.processors.processor import LiveProcessor
from tablewatch.rules.decode import encode_event
from tablewatch.rules.events import AnyEvent
from tablewatch.store.rows import FINDING_COLUMNS, ROUND_COLUMNS, SETTLEMENT_COLUMNS
from tests.scenarios import configs, lir_round, lir_table

Token = tuple[int, int]


def _events() -> list[AnyEvent]:
    t = lir_table()
    lir_round(t, "R-1")
    lir_round(t, "R-2", paid_each=2000)
    t.skip_seq(1)
    t.meter(100_000)  # a table-level SEQUENCE_GAP
    lir_round(t, "R-1", paid_each=2000)  # R-1 again
    return t.events


def _feed(processor: LiveProcessor[Token], events: list[AnyEvent], first: int = 0) -> None:
    for offset, event in enumerate(events, start=first):
        processor.handle(encode_event(event), 0, offset, (0, offset))


def test_rows_and_messages_carry_the_round_identity() -> None:
    events = _events()
    starts = [e.event_id for e in events if type(e).__name__ == "RoundStart"]
    processor: LiveProcessor[Token] = LiveProcessor(configs(), lambda _: None)
    _feed(processor, events)
    batch = processor.drain()

    rounds = [dict(zip(ROUND_COLUMNS, row, strict=True)) for row in batch.rounds]
    assert [(r["round_id"], r["start_event_id"]) for r in rounds] == [
        ("R-1", starts[0]),
        ("R-2", starts[1]),
        ("R-1", starts[2]),
    ]
    lines = [dict(zip(SETTLEMENT_COLUMNS, row, strict=True)) for row in batch.settlements]
    assert sorted({(s["round_id"], s["start_event_id"]) for s in lines}) == sorted(
        (r["round_id"], r["start_event_id"]) for r in rounds
    )
    found = [dict(zip(FINDING_COLUMNS, row, strict=True)) for row in batch.findings]
    by_check = {(f["check"], f["start_event_id"]) for f in found}
    assert ("ROUND_ID_REUSED", starts[2]) in by_check
    assert ("SEQUENCE_GAP", "") in by_check
    assert {f["start_event_id"] for f in found if f["check"] == "WRONG_PAYOUT"} == {
        starts[1],
        starts[2],
    }
    assert len({f["finding_id"] for f in found}) == len(found)

    messages = [json.loads(value) for _, value in batch.round_messages]
    assert [(m["round_id"], m["start_event_id"]) for m in messages] == [
        (r["round_id"], r["start_event_id"]) for r in rounds
    ]
    finding_messages = [json.loads(value) for _, value in batch.finding_messages]
    assert sorted(
        (m["check"], m["start_event_id"], m["finding_id"]) for m in finding_messages
    ) == sorted((f["check"], f["start_event_id"], f["finding_id"]) for f in found)


def test_a_reuse_after_a_restart_is_found_from_the_saved_state() -> None:
    events = _events()
    split = next(  # the second round_start of R-1: the worker restarts just before it
        i for i, e in enumerate(events) if type(e).__name__ == "RoundStart" and i > 0
        and getattr(e, "round_id", None) == "R-1"
    )  # fmt: skip
    saved: dict[str, bytes] = {}
    first: LiveProcessor[Token] = LiveProcessor(configs(), saved.get)
    _feed(first, events[:split])
    saved.update(first.drain().snapshots)
    assert "LIR-1" in saved

    second: LiveProcessor[Token] = LiveProcessor(configs(), saved.get)
    _feed(second, events[split:], first=split)
    batch = second.drain()
    checks = [dict(zip(FINDING_COLUMNS, row, strict=True))["check"] for row in batch.findings]
    assert "ROUND_ID_REUSED" in checks
