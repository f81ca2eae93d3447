"""Messages the worker cannot process, produced straight into ``table-events`` (past the ingest
endpoint's checks) between the rounds of a simulated floor: the real worker, as a child
process with its embedded store, must never stop on one.

For each of them: it is in the dead-letter topic with its reason and Kafka coordinates,
counted in ``/metrics``, and its table (when one can be read) has an EVENT_NOT_PROCESSED
finding; the rounds after it are judged; every offset ends up committed. The stored
findings are the simulator's truth plus what the poison messages must cause, worked out
here from the messages themselves:

- EVENT_NOT_PROCESSED for the table of every poison whose table_id can be read (a string
  of 1 to 64 printable characters in a JSON object, even with other bytes not UTF-8);
- SEQUENCE_GAP where a poison took a ``seq`` of its table: the controller numbered it, so
  the table's next event comes one number later than the last one judged. Those are the
  events of a table with a sound seq (a wager of 2^63 cents, a negative amount, a year
  9999, bytes not UTF-8, a key given twice, a 1 MB event_id, an unknown type); the
  table's later events are numbered one higher. The gap is reported on the round of the
  table's next event, or with no round when that is a table event.

A table of meter readings spread over 240 months is added: valid events, but the engine
refuses an insert block spanning more than 100 months, so the worker must write that
batch in parts (a data error of no single row) and set nothing aside.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec
import pytest
import yaml
from kafka import KafkaProducer  # type: ignore[import-untyped, unused-ignore]

from tablewatch.rules.decode import encode_event
from tablewatch.rules.events import AnyEvent, Meter, RoundEnd, RoundEvent
from tablewatch.services import free_port
from tablewatch.sim.floor import Floor
from tablewatch.topics import Topics, table_key
from tests.ingest.kafka_topics import read_between
from tests.integration.pipeline import Deployment, new_deployment

pytestmark = pytest.mark.integration

MONTHS_TABLE = "LIR-MONTHS"  # meter readings over 240 months (configured like a floor table)
MONTHS = 240


@dataclass(frozen=True)
class Poison:
    name: str
    raw: bytes
    table_readable: bool  # its table_id can be read: its table gets EVENT_NOT_PROCESSED
    takes_seq: bool  # numbered by the controller: the table's next event shows a gap


def poison_kinds(table_id: str, seq: int) -> list[Poison]:
    """Every kind, for ``table_id``; ``seq`` is the table's next number (used by those that
    take one). Built as bytes by hand: none of them can be encoded by the protocol's types."""

    def event(**fields: Any) -> bytes:
        base = {
            "v": 1, "event_id": f"poison-{fields.get('event_id', 'x')}", "table_id": table_id,
            "seq": seq, "ts": "2026-11-29T20:15:00.000Z", "type": "meter", "amount": 100,
        }  # fmt: skip
        base.update(fields)
        return json.dumps(base, separators=(",", ":")).encode()

    t = table_id.encode()
    wager = event(event_id="p-wager", type="wager", round_id="R-poison", seat=1, bet="bet1",
                  amount=2**63)  # fmt: skip
    bad_utf8 = event(event_id="p-utf8").replace(b'"p-utf8"', b'"p-\xff\xfe"')
    year_9999 = event(event_id="p-9999", ts="9999-06-01T12:00:00.000Z")
    twice = event(event_id="p-twice").replace(b'"amount":100', b'"amount":100,"amount":200')
    return [
        Poison("seq 2^64", event(event_id="p-seq64", seq=2**64), True, False),
        Poison("seq 2^63", event(event_id="p-seq63", seq=2**63), True, False),
        Poison("a wager of 2^63 cents", wager, True, True),
        Poison("a negative amount", event(event_id="p-negative", amount=-500), True, True),
        Poison("a ts in year 9999", year_9999, True, True),
        Poison("invalid UTF-8", bad_utf8, True, True),
        Poison("not JSON", b"<xml>not json</xml>", False, False),
        Poison("a JSON array", b'[{"table_id":"' + t + b'"}]', False, False),
        Poison("a JSON number", b"12345", False, False),
        Poison("JSON null", b"null", False, False),
        Poison("arrays nested 100,000 deep", b"[" * 100_000 + b"]" * 100_000, False, False),
        Poison("duplicate keys", twice, True, True),
        Poison("an empty value", b"", False, False),
        Poison("a 1 MB string id", event(event_id="i" * 1_000_000), True, True),
        Poison("an unknown type", event(event_id="p-type", type="jackpot_party"), True, True),
    ]


@dataclass
class Plan:
    """What is produced, in order (key, value, the poison or None), and what must follow."""

    messages: list[tuple[bytes, bytes, Poison | None]]
    expected_findings: set[tuple[str, str, str]]
    poisons: list[tuple[str, Poison]]  # (table, poison) in the order produced
    gaps: list[tuple[str, str, str]]  # the gaps they cause: (table, round_id, message)
    rounds: int
    valid: int  # valid events


def round_id_of(event: AnyEvent) -> str:
    return event.round_id if isinstance(event, RoundEvent) else ""


def plan(floor: Floor) -> Plan:
    """The floor's events, each table's poisons after its round_ends 3, 5, 7..., the later
    events of a table renumbered past the seqs its poisons took; the expected findings."""
    events = list(floor.events())
    truth = {(t.table_id, t.round_id or "", t.check) for t in floor.truth()}
    tables = sorted({e.table_id for e in events})
    kinds = poison_kinds("?", 0)
    mine: dict[str, list[int]] = {t: [] for t in tables}  # indexes of each table's poisons
    for index in range(len(kinds)):
        mine[tables[index % len(tables)]].append(index)
    shift = dict.fromkeys(tables, 0)
    last_seq: dict[str, int] = {}
    ends = dict.fromkeys(tables, 0)
    waiting_gap: dict[str, bool] = dict.fromkeys(tables, False)  # next new event shows a gap
    gaps: list[tuple[str, str, str]] = []
    seen: dict[str, set[str]] = {t: set() for t in tables}
    messages: list[tuple[bytes, bytes, Poison | None]] = []
    poisons: list[tuple[str, Poison]] = []
    expected = set(truth)
    rounds = 0
    for event in events:
        table = event.table_id
        if shift[table]:
            event = msgspec.structs.replace(event, seq=event.seq + shift[table])
        new = event.event_id not in seen[table]
        seen[table].add(event.event_id)
        if waiting_gap[table] and new:
            expected.add((table, round_id_of(event), "SEQUENCE_GAP"))
            last = last_seq[table]
            lost = f"seq jumped from {last} to {event.seq}: {event.seq - last - 1} event(s) lost"
            gaps.append((table, round_id_of(event), lost))
            waiting_gap[table] = False
        messages.append((table_key(table), encode_event(event), None))
        last_seq[table] = max(last_seq.get(table, 0), event.seq)
        if type(event) is not RoundEnd:
            continue
        rounds += 1
        ends[table] += 1
        if ends[table] >= 3 and ends[table] % 2 == 1 and mine[table]:
            poison = poison_kinds(table, last_seq[table] + 1)[mine[table].pop(0)]
            messages.append((table_key(table), poison.raw, poison))
            poisons.append((table, poison))
            if poison.table_readable:
                expected.add((table, "", "EVENT_NOT_PROCESSED"))
            if poison.takes_seq:
                shift[table] += 1
                waiting_gap[table] = True
    assert not any(mine.values()), "the floor has too few rounds for the poisons"
    assert not any(waiting_gap.values()), "a poison after a table's last event"
    valid = sum(1 for m in messages if m[2] is None)
    return Plan(messages, expected, poisons, gaps, rounds, valid)


def months_table() -> list[bytes]:
    """Meter readings one a month over 240 months: a valid table the store cannot take in one
    insert block (it refuses more than 100 months in one)."""
    events = []
    for i in range(MONTHS):
        year, month = 2001 + i // 12, 1 + i % 12
        ts = f"{year}-{month:02d}-15T12:00:00.000Z"
        events.append(Meter(v=1, event_id=f"month-{i}", table_id=MONTHS_TABLE, seq=i + 1, ts=ts,
                            amount=100_000 + i))  # fmt: skip
    return [encode_event(e) for e in events]


def wait_until(condition: Any, what: str, deployment: Deployment, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} within {timeout} s: {deployment.get('/metrics')}; "
                                 f"{deployment.log_tail()}")  # fmt: skip
        time.sleep(0.5)


def test_no_message_stops_the_worker(kafka_bootstrap: str, tmp_path: Path) -> None:
    floor = Floor(tables=4, rounds=120, seed=41, error_rate=0.15, jackpot_rate=0.05)
    the_plan = plan(floor)
    config = dict(floor.config)
    tables = dict(config["tables"])
    lir = next(t for t, c in tables.items() if c["game"] == "let_it_ride")
    tables[MONTHS_TABLE] = dict(tables[lir])
    config["tables"] = tables
    config_path = tmp_path / "tables.yaml"
    config_path.write_text(yaml.safe_dump(config, sort_keys=False))
    half = len(the_plan.messages) // 2
    messages = the_plan.messages[:half]
    messages += [(table_key(MONTHS_TABLE), raw, None) for raw in months_table()]
    messages += the_plan.messages[half:]
    deployment = new_deployment(kafka_bootstrap, tmp_path, free_port())
    topics = Topics.prefixed(deployment.prefix)
    topic, dlq = topics.events, topics.dead_letters
    with deployment.worker(config_path) as worker:
        producer = KafkaProducer(
            bootstrap_servers=kafka_bootstrap, acks="all", enable_idempotence=True,
            linger_ms=5, max_request_size=2 * 1024 * 1024,
        )  # fmt: skip
        futures = [(producer.send(topic, key=k, value=v), p) for k, v, p in messages]
        producer.flush(timeout=60)
        producer.close()
        placed = [(f.get(timeout=10), p) for f, p in futures]
        at = {(m.partition, m.offset): p for m, p in placed if p is not None}
        assert len(at) == len(the_plan.poisons)

        def done() -> bool:
            metrics = deployment.get("/metrics")
            return bool(
                metrics["events"] >= len(messages)
                and metrics["consumer_lag_total"] == 0
                and metrics["open_rounds"] == 0
                and metrics["batches_waiting"] == 0
            )

        wait_until(done, "every message handled", deployment, timeout=240)
        time.sleep(1.5)  # the last flush
        # every offset committed, the poison ones included (commits run every second)
        wait_until(lambda: sum(deployment.get("/metrics")["uncommitted"].values()) == 0,
                   "every offset committed", deployment, timeout=20)  # fmt: skip
        metrics = deployment.get("/metrics")
        assert worker.poll() is None, "the worker exited"
        assert deployment.get("/health")["status"] == "ok"
        rows = deployment.query("SELECT table_id, round_id, check FROM findings_v")
        found = {(str(t), str(r), str(c)) for t, r, c in rows}
        gaps = deployment.query(
            "SELECT table_id, round_id, message FROM findings_v WHERE check = 'SEQUENCE_GAP'"
        )
        not_processed = deployment.query(
            "SELECT table_id, message FROM findings_v WHERE check = 'EVENT_NOT_PROCESSED'"
        )
        events = deployment.query("SELECT count(), uniqExact(event_id) FROM raw_events_v")[0]
        months = deployment.query(
            f"SELECT count() FROM raw_events_v WHERE table_id = '{MONTHS_TABLE}'"
        )[0][0]
        rounds = deployment.query("SELECT count(), uniqExact(table_id, round_id) FROM rounds_v")
    log_text = (tmp_path / "worker.log").read_text(errors="replace")
    assert "crashed" not in log_text.lower(), deployment.worker_story("worker.log")

    # the findings: the truth, and what the poisons cause
    assert found == the_plan.expected_findings, (
        sorted(found - the_plan.expected_findings),
        sorted(the_plan.expected_findings - found),
    )
    assert len(the_plan.gaps) == sum(1 for _, p in the_plan.poisons if p.takes_seq)
    stored_gaps = [(str(t), str(r), str(m)) for t, r, m in gaps]
    for gap in the_plan.gaps:
        assert stored_gaps.count(gap) == 1, (gap, stored_gaps)
    # one EVENT_NOT_PROCESSED for each poison whose table can be read, naming where it was
    readable = {c: p for c, p in at.items() if p.table_readable}
    assert len(not_processed) == len(readable)
    for (partition, offset), poison in readable.items():
        named = [m for t, m in not_processed if f"partition {partition} offset {offset} " in m]
        assert len(named) == 1, (poison.name, not_processed)
        assert f"{topic} partition {partition} offset {offset}" in named[0]
        assert "refused by the decoder" in named[0]
    # every valid event stored once; every round judged once
    assert events == [the_plan.valid + MONTHS, the_plan.valid + MONTHS]
    assert months == MONTHS
    assert rounds[0] == [the_plan.rounds, the_plan.rounds]

    # /metrics counts them by stage: all refused by the decoder
    assert metrics["dead_lettered"] == {"decode": len(at), "judge": 0, "store": 0}
    assert metrics["rejected"] == len(at)
    assert metrics["findings_by_check"]["EVENT_NOT_PROCESSED"] == len(readable)
    assert metrics["events"] == len(messages)
    assert metrics["offset_gaps"] == 0
    assert metrics["processing_errors"] == 0
    # the 240-month batch went in parts, with nothing set aside
    assert metrics["batches_isolated"] >= 1 and metrics["rows_set_aside"] == 0

    # the dead-letter topic: each poison once, with its reason and coordinates, and nothing else
    letters = [json.loads(r.value) for r in read_between(kafka_bootstrap, dlq, {})]
    by_worker = [r for r in letters if r["source"] == "worker"]
    assert sorted((r["partition"], r["offset"]) for r in by_worker) == sorted(at)
    for letter in by_worker:
        poison = at[(letter["partition"], letter["offset"])]
        assert letter["topic"] == topic, poison.name
        assert letter["stage"] == "decode", poison.name
        assert letter["reason"], poison.name
        assert letter["where"] == f"partition {letter['partition']} offset {letter['offset']}"
        table = next(t for t, p in the_plan.poisons if p is poison)
        assert letter["table_id"] == (table if poison.table_readable else None), poison.name
        assert letter["raw_bytes"] == len(poison.raw), poison.name
