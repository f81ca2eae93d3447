"""What a message of the events topic becomes (:func:`tablewatch.message_fate.message_fate`):
each fate on its own, then the worker and ``verify --kafka`` on one corpus of messages, which
must chain the same messages at the same positions with the same hashes."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable

import msgspec
import pytest

from tablewatch import message_fate as fate_module
from tablewatch.integrity.kafka_source import recompute
from tablewatch.message_fate import (
    Chained,
    Duplicate,
    Redelivered,
    Refused,
    TableView,
    message_fate,
)
from tablewatch.processors.processor import LiveProcessor
from tablewatch.rules.config import parse_config
from tablewatch.rules.decode import decode_event, encode_event
from tablewatch.rules.events import AnyEvent, Meter
from tablewatch.rules.id_window import IdWindow
from tablewatch.store.rows import event_row
from tests.integrity.helpers import kafka_log, small_floor

METER = Meter(v=1, event_id="m-1", table_id="T-1", seq=7, ts="2026-11-29T20:15:00.000Z",
              amount=100)  # fmt: skip
RAW = encode_event(METER)
NOW_MS = 1_796_000_000_123
Calls = list[tuple[str, int]]


def views(view: TableView) -> tuple[Callable[[str, int], TableView], Calls]:
    """A view giving ``view`` for every table, and the (table_id, partition) it was asked."""
    calls: Calls = []

    def of(table_id: str, partition: int) -> TableView:
        calls.append((table_id, partition))
        return view

    return of, calls


def decoding_as(poisons: dict[bytes, AnyEvent | Exception]) -> Callable[..., AnyEvent]:
    """The decoder, giving for the bytes of ``poisons`` an event it would refuse (one the
    store cannot hold) or raising an error of its own."""

    def decode(raw: bytes | str, where: str = "event") -> AnyEvent:
        found = poisons.get(raw if isinstance(raw, bytes) else raw.encode())
        if isinstance(found, Exception):
            raise found
        return found if found is not None else decode_event(raw, where)

    return decode


def test_an_event_neither_seen_nor_applied_is_chained_with_its_row() -> None:
    view, calls = views(TableView(IdWindow(10), applied_to=4))
    fate = message_fate(RAW, 2, 5, NOW_MS, view)
    assert fate == Chained(METER, event_row(RAW, METER, 2, 5, NOW_MS))
    assert isinstance(fate, Chained)
    ts_ms = 1_795_983_300_000  # 2026-11-29T20:15:00Z (datetime(...).timestamp())
    assert fate.row[:10] == ("T-1", "m-1", 7, ts_ms, "meter", "", RAW, 2, 5, NOW_MS)
    assert calls == [("T-1", 2)]


def test_bytes_that_are_not_json_are_refused_at_decode_without_asking_the_table() -> None:
    view, calls = views(TableView(IdWindow(10)))
    fate = message_fate(b'{"v":1', 0, 3, NOW_MS, view)
    assert fate == Refused("decode", "bad JSON: Input data was truncated")
    assert calls == []


def test_a_bad_field_is_refused_at_decode_naming_the_field_and_the_event() -> None:
    raw = RAW.replace(b'"amount":100', b'"amount":-5')
    view, calls = views(TableView(IdWindow(10)))
    fate = message_fate(raw, 0, 3, NOW_MS, view)
    assert fate == Refused("decode", "Expected `int` >= 0", "amount", event_id="m-1")
    assert calls == []


def test_an_unreadable_event_id_is_not_named() -> None:
    raw = RAW.replace(b'"event_id":"m-1"', b'"event_id":"m\\u00071"').replace(b"100", b"-5")
    fate = message_fate(raw, 0, 3, NOW_MS, views(TableView(None))[0])
    assert isinstance(fate, Refused) and fate.stage == "decode" and fate.event_id is None


def test_a_decoder_failing_on_the_bytes_is_a_refusal_at_decode(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(fate_module, "decode_event", decoding_as({RAW: RecursionError("deep")}))
    fate = message_fate(RAW, 0, 3, NOW_MS, views(TableView(None))[0])
    assert fate == Refused("decode", "decoder: RecursionError: deep")


@pytest.mark.parametrize(
    ("event", "reason"),
    [
        (msgspec.structs.replace(METER, amount=2**63),
         "amount 9223372036854775808 does not fit the store's Int64 columns"),
        (msgspec.structs.replace(METER, seq=2**64),
         "raw_events.seq cannot hold 18446744073709551616 (UInt64)"),
    ],
)  # fmt: skip
def test_an_event_whose_row_the_store_cannot_hold_is_refused_at_store(
    monkeypatch: pytest.MonkeyPatch, event: AnyEvent, reason: str
) -> None:
    monkeypatch.setattr(fate_module, "decode_event", decoding_as({RAW: event}))
    view, calls = views(TableView(IdWindow(10)))
    fate = message_fate(RAW, 1, 9, NOW_MS, view)
    assert isinstance(fate, Refused)
    assert (fate.stage, fate.field, fate.table_id, fate.event_id) == ("store", None, "T-1", "m-1")
    assert reason in fate.reason
    assert calls == []


def test_a_message_at_or_below_the_offset_its_table_applied_is_redelivered() -> None:
    window = IdWindow(10)  # the event_id is not in it: the offset alone decides
    for offset in (3, 5):
        fate = message_fate(RAW, 2, offset, NOW_MS, views(TableView(window, applied_to=5))[0])
        assert fate == Redelivered(METER)
    assert isinstance(message_fate(RAW, 2, 6, NOW_MS, views(TableView(window, 5))[0]), Chained)


def test_an_event_id_in_the_tables_window_is_a_duplicate_and_the_window_is_not_changed() -> None:
    window = IdWindow(3)
    window.add_all(["a", "m-1", "b"])
    fate = message_fate(RAW, 2, 5, NOW_MS, views(TableView(window))[0])
    assert fate == Duplicate(METER, event_row(RAW, METER, 2, 5, NOW_MS))
    assert window.recent(10) == ["a", "m-1", "b"]
    window.add_all(["c", "d"])  # m-1 out of the window's three: no longer a duplicate
    assert isinstance(message_fate(RAW, 2, 6, NOW_MS, views(TableView(window))[0]), Chained)


def test_a_table_with_no_window_ignores_no_duplicate_and_a_new_id_is_not_remembered() -> None:
    assert isinstance(message_fate(RAW, 0, 1, NOW_MS, views(TableView(None))[0]), Chained)
    window = IdWindow(10)
    message_fate(RAW, 0, 1, NOW_MS, views(TableView(window))[0])
    assert len(window) == 0  # remembered by the table as it folds the event, not here


# ---- the worker and verify --kafka on one corpus -------------------------------------------


def test_the_worker_and_verify_chain_the_same_messages_of_a_corpus(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A floor's messages with, among one table's: bytes that are not JSON, a bad field, an
    event the store cannot hold, bytes the decoder fails on, an event sent again (its
    event_id seen); and an unconfigured table's event sent twice (no window: both chained).
    The worker also gets messages delivered again. Its stored chain is verify's, link for
    link; and what each extra message became is written here by hand."""
    floor = small_floor(tables=3, rounds=12)
    configs = parse_config(floor.config)
    events = list(floor.events())
    table = events[0].table_id
    own = [i for i, e in enumerate(events) if e.table_id == table]
    stray = msgspec.structs.replace(METER, table_id="ZZ-99", event_id="z-1")
    store_refuses = b'{"store":"refuses"}'
    decoder_fails = b'{"decoder":"fails"}'
    poisons: dict[bytes, AnyEvent | Exception] = {
        store_refuses: msgspec.structs.replace(METER, table_id=table, amount=2**63),
        decoder_fails: RecursionError("deep"),
    }
    monkeypatch.setattr(fate_module, "decode_event", decoding_as(poisons))
    again = encode_event(events[own[3]])  # its event_id seen: a duplicate
    bad_field = encode_event(msgspec.structs.replace(events[own[5]], event_id="bad"))
    bad_field = bad_field.replace(b'"seq":', b'"seq":-', 1)
    extras = {  # before the table's n-th event: (bytes, table, what it becomes)
        own[6]: (b'{"v":1', table, "decode"),
        own[8]: (bad_field, table, "decode"),
        own[10]: (store_refuses, table, "store"),
        own[12]: (decoder_fails, table, "decode"),
        own[14]: (again, table, "duplicate"),
        own[16]: (encode_event(stray), "ZZ-99", "chained"),
        own[18]: (encode_event(stray), "ZZ-99", "chained"),
    }
    raws: list[bytes] = []
    tables: list[str] = []
    fates: list[str | None] = []
    for i, event in enumerate(events):
        if i in extras:
            raw, table_of, fate = extras[i]
            raws.append(raw)
            tables.append(table_of)
            fates.append(fate)
        raws.append(encode_event(event))
        tables.append(event.table_id)
        fates.append(None)
    log = kafka_log(raws, tables)
    expected = {(p, o): fate for (p, o, _), fate in zip(log, fates, strict=True) if fate}

    worker: LiveProcessor[tuple[int, int]] = LiveProcessor(configs, lambda _: None)
    redelivered = 0
    batches = []
    for n, (partition, offset, raw) in enumerate(log):
        worker.handle(raw, partition, offset, (partition, offset))
        if n % 7 == 6:  # the message before it in its partition, delivered again
            previous = next(m for m in reversed(log[:n]) if m[0] == partition)
            worker.handle(previous[2], partition, previous[1], (partition, previous[1]))
            redelivered += 1
        if n % 50 == 49:
            batches.append(worker.drain())
    batches.append(worker.drain())
    rows = [row for batch in batches for row in batch.events]
    letters = [json.loads(value) for batch in batches for _, value in batch.dead_letters]
    # a refused or duplicate message delivered again is refused or ignored again: no table
    # applied it
    assert 0 < worker.counters.redelivered <= redelivered
    assert worker.auditor.stats.duplicates >= 1

    stored: dict[str, list[tuple[object, ...]]] = defaultdict(list)
    for row in rows:  # (position, hash, partition, offset)
        stored[str(row[0])].append((row[10], row[12], row[7], row[8]))
    links, truncated = recompute(iter(log), {}, configured=frozenset(configs))
    recomputed: dict[str, list[tuple[object, ...]]] = {
        table_id: [(k.position, k.hash, k.partition, k.offset) for k in chain]
        for table_id, chain in links.items()
    }
    assert truncated == {}
    assert recomputed == dict(stored)
    assert set(recomputed) == {*configs, "ZZ-99"}

    chained = {(p, o) for chain in recomputed.values() for _, _, p, o in chain}
    assert len(chained) == len(events) + 2  # every floor event and the stray table's two
    assert [pos for pos, _, _, _ in recomputed["ZZ-99"]] == [1, 2]
    for table_id, chain in recomputed.items():
        assert [pos for pos, _, _, _ in chain] == list(range(1, len(chain) + 1)), table_id
    for where, fate in expected.items():
        assert (where in chained) == (fate == "chained"), (where, fate)
    refused = {(r["partition"], r["offset"]): r["stage"] for r in letters}
    assert refused == {w: f for w, f in expected.items() if f in ("decode", "store")}
