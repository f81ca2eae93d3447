"""Messages the worker cannot decode, judge or store: each is dead-lettered with its reason and
coordinates, its table gets an EVENT_NOT_PROCESSED finding, and the rest is judged as if the
message had never come.

The broker is modelled as in ``test_processor.py`` (partitions, offsets, acks); poison
messages are added to a table's partition between two of its rounds. They take no ``seq``
of the table (the controller did not number them), so every other verdict stays the audit's.
"""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from typing import Any

import msgspec
import pytest

from tablewatch import message_fate
from tablewatch.processors import processor as processor_module
from tablewatch.processors.processor import FlushBatch, LiveProcessor
from tablewatch.processors.state_codec import snapshot as real_snapshot
from tablewatch.rules.audit import Auditor
from tablewatch.rules.config import TableConfig, parse_config
from tablewatch.rules.decode import decode_event, encode_event
from tablewatch.rules.events import AnyEvent, Meter, RoundEnd, RoundStart, Wager
from tablewatch.sim.floor import Floor
from tablewatch.store.rows import RoundRows
from tablewatch.store.rows import round_rows as real_round_rows
from tablewatch.topics import EVENTS
from tests.processors.test_processor import PARTITIONS, FakeDeployment, Message, audited, feed

Token = tuple[int, int]


def small_floor() -> Floor:
    """A new one each time: a floor's events can be read once."""
    return Floor(tables=4, rounds=160, seed=7, error_rate=0.15, jackpot_rate=0.05)


class Recorder(FakeDeployment):
    """The durable side, with the dead letters, findings and output messages kept too."""

    def __init__(self) -> None:
        super().__init__()
        self.letters: list[dict[str, Any]] = []
        self.letter_keys: list[bytes | None] = []
        self.finding_rows: dict[str, tuple[object, ...]] = {}
        self.finding_messages: list[dict[str, Any]] = []
        self.round_messages: list[dict[str, Any]] = []
        self.event_ids: set[str] = set()

    def write(self, batch: FlushBatch[Token]) -> None:
        super().write(batch)
        for key, value in batch.dead_letters:
            self.letter_keys.append(key)
            self.letters.append(json.loads(value))
        self.finding_rows.update({str(row[0]): row for row in batch.findings})
        self.finding_messages += [json.loads(v) for _, v in batch.finding_messages]
        self.round_messages += [json.loads(v) for _, v in batch.round_messages]
        self.event_ids |= {str(row[1]) for row in batch.events}

    def not_processed(self) -> list[tuple[object, ...]]:
        return [r for r in self.finding_rows.values() if r[4] == "EVENT_NOT_PROCESSED"]


def partition_of(table_id: str) -> int:
    return zlib.crc32(table_id.encode()) % PARTITIONS


def log_with(floor: Floor, poisons: dict[str, list[bytes]]) -> tuple[list[Message], list[Token]]:
    """The floor's Kafka log with ``poisons[table]`` put in that table's partition, one after
    each of the table's round_end events from its third on; their (partition, offset)."""
    offsets = [0] * PARTITIONS
    log: list[Message] = []
    placed: list[Token] = []
    left = {table: list(raws) for table, raws in poisons.items()}
    ends: dict[str, int] = {}

    def put(partition: int, value: bytes) -> None:
        log.append((partition, offsets[partition], value))
        offsets[partition] += 1

    for event in floor.events():
        partition = partition_of(event.table_id)
        put(partition, encode_event(event))
        if type(event) is RoundEnd and left.get(event.table_id):
            ends[event.table_id] = ends.get(event.table_id, 0) + 1
            if ends[event.table_id] >= 3:
                put(partition, left[event.table_id].pop(0))
                placed.append((partition, offsets[partition] - 1))
    assert not any(left.values()), "the floor has too few rounds for the poisons"
    return log, placed


def run(
    configs: dict[str, TableConfig],
    log: list[Message],
    deployment: Recorder,
    *,
    flush_every: int = 97,
    crash_after: int | None = None,
    prepare: Callable[[LiveProcessor[Token]], None] = lambda _: None,
) -> LiveProcessor[Token]:
    processor: LiveProcessor[Token] = LiveProcessor(configs, deployment.snapshots.get)
    prepare(processor)
    return feed(processor, log, deployment, crash_after=crash_after, flush_every=flush_every)


def assert_all_acknowledged(deployment: Recorder, log: list[Message]) -> None:
    for p in range(PARTITIONS):
        last = max((o for q, o, _ in log if q == p), default=-1)
        assert deployment.committed(p) == last + 1, f"partition {p}"


def verdicts(deployment: Recorder) -> set[str]:
    """Finding ids of every finding but EVENT_NOT_PROCESSED."""
    return {i for i, r in deployment.finding_rows.items() if r[4] != "EVENT_NOT_PROCESSED"}


def table_event(table_id: str, **fields: Any) -> bytes:
    event = {
        "v": 1, "event_id": "poison", "table_id": table_id, "seq": 7,
        "ts": "2026-11-29T20:15:00.000Z", "type": "meter", "amount": 100,
    }  # fmt: skip
    event.update(fields)
    return json.dumps(event).encode()


def wager(table_id: str, amount: int) -> bytes:
    event = {
        "v": 1, "event_id": "p-wager", "table_id": table_id, "seq": 7,
        "ts": "2026-11-29T20:15:00.000Z", "type": "wager", "round_id": "R-none",
        "seat": 1, "bet": "bet1", "amount": amount,
    }  # fmt: skip
    return json.dumps(event).encode()


def poison_kinds(table_id: str) -> list[tuple[str, bytes, bool]]:
    """Every kind of message the protocol refuses: (name, bytes, whether a table is readable)."""
    t = table_id.encode()
    bad_utf8 = (
        b'{"v":1,"event_id":"p-\xff","table_id":"' + t + b'","seq":7,'
        b'"ts":"2026-11-29T20:15:00.000Z","type":"meter","amount":1}'
    )
    twice = table_event(table_id, event_id="p-dup").replace(
        b'"amount": 100', b'"amount": 100, "amount": 200'
    )
    year_9999 = table_event(table_id, event_id="p-9999", ts="9999-01-01T00:00:00.000Z")
    return [
        ("seq 2^64", table_event(table_id, event_id="p-seq64", seq=2**64), True),
        ("seq 2^63", table_event(table_id, event_id="p-seq63", seq=2**63), True),
        ("wager of 2^63 cents", wager(table_id, 2**63), True),
        ("negative amount", table_event(table_id, event_id="p-neg", amount=-1), True),
        ("year 9999", year_9999, True),
        ("invalid UTF-8", bad_utf8, True),
        ("not JSON", b"not json at all", False),
        ("a JSON array", b'[{"table_id":"' + t + b'"}]', False),
        ("a JSON number", b"42", False),
        ("JSON null", b"null", False),
        ("arrays nested 100,000 deep", b"[" * 100_000 + b"]" * 100_000, False),
        ("duplicate keys", twice, True),
        ("an empty value", b"", False),
        ("a 1 MB event_id", table_event(table_id, event_id="x" * 1_000_000), True),
        ("an unknown type", table_event(table_id, event_id="p-type", type="jackpot_party"), True),
    ]


def test_every_kind_of_poison_is_dead_lettered_and_the_floor_judged_as_without_it() -> None:
    floor = small_floor()
    configs = parse_config(floor.config)
    table_id = next(iter(configs))
    kinds = poison_kinds(table_id)
    log, placed = log_with(floor, {table_id: [raw for _, raw, _ in kinds]})
    deployment = Recorder()
    processor = run(configs, log, deployment)
    want_ids, want_rounds = audited(configs, small_floor())
    assert verdicts(deployment) == want_ids
    assert deployment.rounds == want_rounds
    assert_all_acknowledged(deployment, log)
    # one dead letter each, with its coordinates and the stage that refused it
    assert [(r["partition"], r["offset"]) for r in deployment.letters] == placed
    for (name, _, readable), letter in zip(kinds, deployment.letters, strict=True):
        assert letter["stage"] == "decode", name
        assert letter["topic"] == EVENTS and letter["source"] == "worker"
        assert letter["reason"], name
        assert letter["table_id"] == (table_id if readable else None), name
    assert processor.counters.refused == {"decode": len(kinds), "judge": 0, "store": 0}
    assert processor.counters.rejected == len(kinds)
    # a finding for each one whose table can be read, naming its partition and offset
    found = sorted(deployment.not_processed(), key=lambda r: str(r[11]))
    expected = [at for (_, _, readable), at in zip(kinds, placed, strict=True) if readable]
    assert len(found) == len(expected)
    messages = " | ".join(str(r[11]) for r in found)
    for partition, offset in expected:
        assert f"{EVENTS} partition {partition} offset {offset} " in messages
    assert {(r[1], r[2], r[3], r[5], r[6]) for r in found} == {
        (table_id, "", "", "critical", "CONTROLLER_PROTOCOL v1")
    }
    produced = [m for m in deployment.finding_messages if m["check"] == "EVENT_NOT_PROCESSED"]
    assert len(produced) == len(expected)
    assert processor.counters.findings_by_check["EVENT_NOT_PROCESSED"] == len(expected)
    # the event_id is named when it can be read
    assert any("(event_id p-neg)" in str(r[11]) for r in found)
    assert any("(event_id unreadable)" in str(r[11]) for r in found)  # the 1 MB one


def test_a_poison_read_again_after_a_crash_gives_the_same_finding() -> None:
    floor = small_floor()
    configs = parse_config(floor.config)
    table_id = next(iter(configs))
    kinds = poison_kinds(table_id)
    log, placed = log_with(floor, {table_id: [raw for _, raw, _ in kinds]})
    want_ids, want_rounds = audited(configs, small_floor())
    once = Recorder()
    run(configs, log, once)
    for crash_after in (700, 2500):
        deployment = Recorder()
        run(configs, log, deployment, crash_after=crash_after)
        run(configs, log, deployment)
        assert verdicts(deployment) == want_ids
        assert deployment.rounds == want_rounds
        assert set(deployment.finding_rows) == set(once.finding_rows)  # same ids: not doubled
        assert {(r["partition"], r["offset"]) for r in deployment.letters} == set(placed)
        assert_all_acknowledged(deployment, log)


# ---- values the decoder lets through but the store cannot hold -----------------------------


def decoding_as(poisons: dict[bytes, AnyEvent]) -> Callable[..., AnyEvent]:
    """The decoder, giving the events of ``poisons`` for their bytes as it would if its
    ranges were wider than the store's (the worker must not rely on them)."""

    def decode(raw: bytes | str, where: str = "event") -> AnyEvent:
        found = poisons.get(raw if isinstance(raw, bytes) else raw.encode())
        return found if found is not None else decode_event(raw, where)

    return decode


def test_values_the_store_cannot_hold_are_refused_before_they_are_judged(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    floor = small_floor()
    configs = parse_config(floor.config)
    table_id = next(iter(configs))
    base = Meter(v=1, event_id="m", table_id=table_id, seq=7, ts="2026-11-29T20:15:00.000Z",
                 amount=100)  # fmt: skip
    wager = Wager(v=1, event_id="w", table_id=table_id, seq=7, ts="2026-11-29T20:15:00.000Z",
                  round_id="R-none", seat=1, bet="bet1", amount=100)  # fmt: skip
    replace = msgspec.structs.replace
    poisons: dict[bytes, AnyEvent] = {
        b"seq 2^64": replace(base, event_id="s64", seq=2**64),
        b"meter 2^63": replace(base, event_id="m63", amount=2**63),
        b"wager 2^63": replace(wager, event_id="w63", amount=2**63),
        b"year 9999": replace(base, event_id="y9999", ts="9999-01-01T00:00:00.000Z"),
        b"year 1800": replace(base, event_id="y1800", ts="1800-01-01T00:00:00.000Z"),
    }
    monkeypatch.setattr(message_fate, "decode_event", decoding_as(poisons))
    log, placed = log_with(floor, {table_id: list(poisons)})
    deployment = Recorder()
    processor = run(configs, log, deployment)
    want_ids, want_rounds = audited(configs, small_floor())
    assert verdicts(deployment) == want_ids  # not folded: no EVENT_OUTSIDE_ROUND, no gap
    assert deployment.rounds == want_rounds
    assert_all_acknowledged(deployment, log)
    assert [(r["partition"], r["offset"], r["stage"]) for r in deployment.letters] == [
        (p, o, "store") for p, o in placed
    ]
    reasons = [r["reason"] for r in deployment.letters]
    assert "raw_events.seq cannot hold 18446744073709551616 (UInt64)" in reasons[0]
    assert "amount 9223372036854775808 does not fit" in reasons[1]
    assert "amount 9223372036854775808 does not fit" in reasons[2]
    assert "9999-01-01T00:00:00.000Z" in reasons[3] and "DateTime64" in reasons[3]
    assert "DateTime64" in reasons[4]
    assert not deployment.event_ids & {"s64", "m63", "w63", "y9999", "y1800"}  # no raw row
    assert processor.counters.refused["store"] == len(poisons)
    assert len(deployment.not_processed()) == len(poisons)


def rounds_of(floor: Floor, table_id: str) -> list[str]:
    return [e.round_id for e in floor.events() if type(e) is RoundStart and e.table_id == table_id]


def test_a_round_whose_rows_cannot_be_stored_is_set_aside_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Its rows would not fit (a sum of wagers past Int64): not stored, not produced, its
    round_end refused; every other round and finding is the audit's."""
    floor = small_floor()
    configs = parse_config(floor.config)
    table_id = next(iter(configs))
    victim = rounds_of(small_floor(), table_id)[5]

    def round_rows(result: Any, judged_at_ms: int) -> RoundRows:
        rows = real_round_rows(result, judged_at_ms)
        if (result.table_id, result.round_id) != (table_id, victim):
            return rows
        too_much = (*rows.round_row[:9], 2**63, *rows.round_row[10:])
        return RoundRows(too_much, rows.settlement_rows, rows.finding_rows)

    monkeypatch.setattr(processor_module, "round_rows", round_rows)
    log, _ = log_with(floor, {})
    deployment = Recorder()
    run(configs, log, deployment)
    want_ids, want_rounds = audited(configs, small_floor())
    assert deployment.rounds == want_rounds - {(table_id, victim)}
    victim_ids = audited_round_findings(configs, small_floor(), table_id, victim)
    assert verdicts(deployment) == want_ids - victim_ids
    assert not any(
        (m["table_id"], m["round_id"]) == (table_id, victim) for m in deployment.round_messages
    )
    assert_all_acknowledged(deployment, log)
    (letter,) = deployment.letters
    end = next(
        (p, o) for p, o, v in log
        if b'"type":"round_end"' in v and f'"round_id":"{victim}"'.encode() in v
        and f'"table_id":"{table_id}"'.encode() in v
    )  # fmt: skip
    assert (letter["partition"], letter["offset"], letter["stage"]) == (*end, "store")
    assert f"round {victim} not stored: rounds.wagered cannot hold" in letter["reason"]
    assert json.loads(letter["raw"])["type"] == "round_end"
    (finding,) = deployment.not_processed()
    assert f"offset {end[1]} " in str(finding[11]) and f"round {victim}" in str(finding[11])


def audited_round_findings(
    configs: dict[str, TableConfig], floor: Floor, table_id: str, round_id: str
) -> set[str]:
    from tablewatch.rules.judge import RoundResult
    from tablewatch.store.rows import round_finding_ids

    auditor = Auditor(configs)
    ids: set[str] = set()
    for event in floor.events():
        for outcome in auditor.feed(event):
            if isinstance(outcome, RoundResult) and (outcome.table_id, outcome.round_id) == (
                table_id,
                round_id,
            ):
                ids |= set(round_finding_ids(outcome))
    return ids


class FailingAuditor:
    """The processor's auditor, failing on the events ``fails`` picks (a bug of the rules)."""

    def __init__(self, auditor: Auditor, fails: Callable[[AnyEvent], bool]) -> None:
        self._auditor = auditor
        self._fails = fails

    def feed(self, event: AnyEvent) -> list[Any]:
        if self._fails(event):
            self._auditor.feed(event)  # folded, then failing: the state is what it is
            raise RuntimeError(f"judging {event.event_id} failed")
        return self._auditor.feed(event)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._auditor, name)


def test_a_judging_failure_dead_letters_the_message_and_the_table_goes_on() -> None:
    floor = small_floor()
    configs = parse_config(floor.config)
    table_id = next(iter(configs))
    victim = rounds_of(small_floor(), table_id)[4]

    def fails(event: AnyEvent) -> bool:
        return type(event) is RoundEnd and (event.table_id, event.round_id) == (table_id, victim)

    def prepare(processor: LiveProcessor[Token]) -> None:
        processor.auditor = FailingAuditor(processor.auditor, fails)  # type: ignore[assignment]

    log, _ = log_with(floor, {})
    deployment = Recorder()
    processor = run(configs, log, deployment, prepare=prepare)
    assert_all_acknowledged(deployment, log)
    (letter,) = deployment.letters
    assert letter["stage"] == "judge" and "RuntimeError: judging" in letter["reason"]
    assert json.loads(letter["raw"])["type"] == "round_end"
    (finding,) = deployment.not_processed()
    assert "could not be judged" in str(finding[11])
    assert processor.counters.refused == {"decode": 0, "judge": 1, "store": 0}
    # every round of every table after it is still judged
    _, want_rounds = audited(configs, small_floor())
    assert deployment.rounds >= want_rounds - {(table_id, victim)}
    later = rounds_of(small_floor(), table_id)[5:]
    assert all((table_id, r) in deployment.rounds for r in later)


def test_a_judging_failure_mid_round_drops_the_round_it_may_have_spoiled() -> None:
    floor = small_floor()
    configs = parse_config(floor.config)
    table_id = next(iter(configs))
    victim = rounds_of(small_floor(), table_id)[4]
    first_wager = [True]

    def fails(event: AnyEvent) -> bool:
        hit = type(event) is Wager and (event.table_id, event.round_id) == (table_id, victim)
        if hit and first_wager[0]:
            first_wager[0] = False
            return True
        return False

    def prepare(processor: LiveProcessor[Token]) -> None:
        processor.auditor = FailingAuditor(processor.auditor, fails)  # type: ignore[assignment]

    log, _ = log_with(floor, {})
    deployment = Recorder()
    run(configs, log, deployment, prepare=prepare)
    assert_all_acknowledged(deployment, log)
    (letter,) = deployment.letters
    assert letter["stage"] == "judge"
    assert f"round {victim}, open, was dropped unjudged" in letter["reason"]
    assert (table_id, victim) not in deployment.rounds
    # its later events are reported as outside any round, not judged as a new round
    outside = {r[2] for r in deployment.finding_rows.values() if r[4] == "EVENT_OUTSIDE_ROUND"}
    assert victim in outside
    later = rounds_of(small_floor(), table_id)[5:]
    assert all((table_id, r) in deployment.rounds for r in later)


def test_a_state_that_cannot_be_saved_goes_back_to_the_last_saved_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    floor = small_floor()
    configs = parse_config(floor.config)
    table_id = next(iter(configs))
    calls = [0]

    def snapshot(table: Any, kafka_offset: int | None = None, chain: Any = None) -> bytes:
        if table.table_id == table_id:
            calls[0] += 1
            if calls[0] == 60:
                raise ValueError("cannot encode this state")
        return real_snapshot(table, kafka_offset, chain)

    monkeypatch.setattr(processor_module, "snapshot", snapshot)
    log, _ = log_with(floor, {})
    deployment = Recorder()
    saved: list[bytes] = []

    def prepare(processor: LiveProcessor[Token]) -> None:
        load = processor._load

        def loading(tid: str) -> bytes | None:
            data = load(tid)
            if tid == table_id and data is not None:
                saved.append(data)
            return data

        processor._load = loading

    processor = run(configs, log, deployment, flush_every=13, prepare=prepare)
    assert_all_acknowledged(deployment, log)
    (letter,) = deployment.letters
    assert letter["stage"] == "store" and "could not be saved" in letter["reason"]
    assert letter["raw"]  # the message after which it could not be saved
    assert processor.counters.states_not_saved == 1
    assert saved, "the table went back to its last saved state"
    # it goes on: every later round of the table is judged
    _, want_rounds = audited(configs, small_floor())
    assert {r for r in want_rounds if r[0] == table_id} <= deployment.rounds


def open_round_log(floor: Floor) -> tuple[str, str, list[Message]]:
    """One table's messages up to, not including, its first round_end."""
    events = list(floor.events())
    first_end = next(e for e in events if type(e) is RoundEnd)
    table_id = first_end.table_id
    mine: list[Message] = []
    for e in events:
        if e is first_end:
            break
        if e.table_id == table_id:
            mine.append((partition_of(table_id), len(mine), encode_event(e)))
    return table_id, first_end.round_id, mine


def silent(
    configs: dict[str, TableConfig], log: list[Message], prepare: Callable[..., None]
) -> tuple[LiveProcessor[Token], FlushBatch[Token]]:
    now = [1_000.0]
    processor: LiveProcessor[Token] = LiveProcessor(
        configs, lambda _: None, silence_ms=60_000, clock=lambda: now[0]
    )
    prepare(processor)
    for partition, offset, value in log:
        processor.handle(value, partition, offset, (partition, offset))
    now[0] += 61
    assert processor.close_silent_rounds() == 1
    return processor, processor.drain()


def test_the_silence_timer_refuses_a_round_it_cannot_store(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    floor = small_floor()
    configs = parse_config(floor.config)
    _, round_id, log = open_round_log(floor)

    def round_rows(result: Any, judged_at_ms: int) -> RoundRows:
        raise OverflowError("no room")

    monkeypatch.setattr(processor_module, "round_rows", round_rows)
    processor, batch = silent(configs, log, lambda _: None)
    assert batch.rounds == [] and processor.open_rounds() == 0
    assert sorted(batch.acks) == [(p, o) for p, o, _ in log]
    letter = json.loads(batch.dead_letters[0][1])
    last = log[-1]
    assert (letter["partition"], letter["offset"], letter["stage"]) == (last[0], last[1], "store")
    assert letter["where"].startswith(f"the silence timer closing round {round_id}")
    assert "OverflowError: no room" in letter["reason"] and letter["raw"] == ""
    assert [row[4] for row in batch.findings] == ["EVENT_NOT_PROCESSED"]


class FailingTable:
    """A table whose ``finish`` fails; everything else (setting attributes too) is the table's."""

    def __init__(self, table: Any) -> None:
        object.__setattr__(self, "_table", table)

    def finish(self, why: str) -> list[Any]:
        raise RuntimeError("finish failed")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._table, name)

    def __setattr__(self, name: str, value: Any) -> None:
        setattr(self._table, name, value)


def test_the_silence_timer_drops_a_round_it_cannot_judge() -> None:
    floor = small_floor()
    configs = parse_config(floor.config)
    _, round_id, log = open_round_log(floor)

    def prepare(processor: LiveProcessor[Token]) -> None:
        auditor = processor.auditor

        class Tables:
            def table_states(self) -> list[Any]:
                return [FailingTable(t) for t in auditor.table_states()]

            def __getattr__(self, name: str) -> Any:
                return getattr(auditor, name)

        processor.auditor = Tables()  # type: ignore[assignment]

    processor, batch = silent(configs, log, prepare)
    assert processor.open_rounds() == 0
    assert sorted(batch.acks) == [(p, o) for p, o, _ in log]
    letter = json.loads(batch.dead_letters[0][1])
    assert letter["stage"] == "judge" and "RuntimeError: finish failed" in letter["reason"]
    assert f"round {round_id} dropped unjudged" in letter["reason"]
    assert processor.close_silent_rounds() == 0  # not refused again on the next tick


def test_a_failure_of_the_worker_itself_never_escapes_handle(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(*_: Any) -> None:
        raise RecursionError("deep")

    floor = small_floor()
    configs = parse_config(floor.config)
    processor: LiveProcessor[Token] = LiveProcessor(configs, lambda _: None)
    monkeypatch.setattr(message_fate, "decode_event", broken)
    monkeypatch.setattr(processor, "_view", broken)
    processor.handle(b"[" * 100_000, 0, 0, (0, 0))
    monkeypatch.setattr(message_fate, "decode_event", decode_event)
    raw = next(encode_event(e) for e in floor.events())
    processor.handle(raw, 0, 1, (0, 1))  # fails in _view: the worker's own bug
    batch = processor.drain()
    assert batch.acks == [(0, 0), (0, 1)]
    letters = [json.loads(v) for _, v in batch.dead_letters]
    assert [(r["offset"], r["stage"]) for r in letters] == [(0, "decode"), (1, "judge")]
    assert "RecursionError: deep" in letters[0]["reason"]
    assert processor.counters.errors == 1


def test_a_saved_state_that_cannot_be_read_starts_the_table_afresh() -> None:
    floor = small_floor()
    configs = parse_config(floor.config)
    processor: LiveProcessor[Token] = LiveProcessor(configs, lambda _: b"{not a snapshot")
    first = log_with(floor, {})[0][:200]
    for partition, offset, value in first:
        processor.handle(value, partition, offset, (partition, offset))
    batch = processor.drain()
    assert batch.dead_letters == []
    tables = {decode_event(v).table_id for _, _, v in first}
    assert processor.counters.states_not_restored == len(tables) > 1
    assert len(batch.events) == 200
