"""A signed floor end to end: `simulate --sign`, `tablewatch ingest --config` into the real
broker with forged events among the real ones, the real worker: every round judged as the
unsigned floor's are, the raw bytes stored as sent, every forgery in the DLQ only."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tablewatch.rules.signature import signed
from tablewatch.services import free_port
from tablewatch.topics import Topics
from tests.ingest.events import edited
from tests.ingest.kafka_topics import end_offsets, read_between
from tests.integration.pipeline import new_deployment

pytestmark = pytest.mark.integration

ARGS = ["--tables", "4", "--rounds", "160", "--seed", "43", "--error-rate", "0.15"]


def tablewatch(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tablewatch.cli", *args],
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, **(env or {})},
    )


def findings_of_audit(floor: Path) -> set[tuple[str, str, str]]:
    """(table, round, check) of every finding `tablewatch audit` makes of a floor."""
    audit = tablewatch(
        "audit", str(floor / "events.jsonl"), "--config", str(floor / "tables.yaml"),
        "--format", "json", "--jobs", "1",
    )  # fmt: skip
    assert audit.returncode == 1, audit.stderr
    rows = [json.loads(line) for line in audit.stdout.splitlines()]
    return {(r["table_id"], r["round_id"] or "", r["check"]) for r in rows}


def test_a_signed_floor_is_judged_as_the_unsigned_one(kafka_bootstrap: str, tmp_path: Path) -> None:
    plain, floor = tmp_path / "plain", tmp_path / "signed"
    for out, extra in ((plain, ()), (floor, ("--sign",))):
        made = tablewatch("simulate", *ARGS, "--out", str(out), *extra)
        assert made.returncode == 0, made.stderr
    keys = dict(line.split("=", 1) for line in (floor / "keys.env").read_text().splitlines())
    lines = (floor / "events.jsonl").read_bytes().splitlines()
    rounds = 160  # judged, with or without a round_end

    # forgeries of real events, each under a new event_id (else merely a duplicate)
    real = [json.loads(line) for line in lines[100:105]]
    for event in real:
        event["event_id"] = f"forged-{uuid.uuid4()}"
    forged = [
        edited(json.dumps({**real[0], "seq": real[0]["seq"] + 10_000}).encode()),  # altered
        edited(json.dumps(real[1]).encode(), kid=None, sig=None),  # unsigned
        signed(json.dumps(real[2]).encode(), "sim-9", b"a key of its own"),  # unknown kid
        signed(json.dumps(real[3]).encode(), "sim-1", b"a guessed key"),  # wrong key
        edited(json.dumps(real[4]).encode(), sig=json.loads(lines[0])["sig"]),  # another's sig
    ]
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_bytes(b"".join(line + b"\n" for line in [*lines[:300], *forged, *lines[300:]]))

    deployment = new_deployment(kafka_bootstrap, tmp_path, free_port())
    topics = Topics.prefixed(deployment.prefix)
    events_topic, dlq_topic = topics.events, topics.dead_letters
    dlq_start = end_offsets(kafka_bootstrap, dlq_topic)
    # the worker needs no key: it judges what ingest accepted
    with deployment.worker(floor / "tables.yaml"):
        ingest = tablewatch(
            "ingest", str(mixed), "--config", str(floor / "tables.yaml"),
            "--bootstrap", kafka_bootstrap, "--events-topic", events_topic,
            "--dlq-topic", dlq_topic,
            env=keys,
        )  # fmt: skip
        assert ingest.returncode == 2, ingest.stderr  # the forged lines are rejected
        assert ingest.stdout.startswith(f"{len(lines):,} accepted, 0 duplicates, 5 rejected")
        rejected = [line for line in ingest.stderr.splitlines() if line.startswith("rejected:")]
        assert [line.split(": ")[2:4] for line in rejected] == [
            ["field `sig`", "bad sig"],
            ["field `sig`", "unsigned"],
            ["field `kid`", "unknown kid 'sim-9'"],
            ["field `sig`", "bad sig"],
            ["field `sig`", "bad sig"],
        ]
        deployment.wait_for_rounds(rounds)
        stored = deployment.query("SELECT table_id, round_id, check FROM findings_v")
        judged = {(str(t), str(r), str(c)) for t, r, c in stored}
        payloads = deployment.query("SELECT payload FROM raw_events_v")
        metrics = deployment.get("/metrics")

    truth = {
        (t["table_id"], t["round_id"] or "", t["check"])
        for t in map(json.loads, (floor / "truth.jsonl").read_text().splitlines())
    }
    assert judged == findings_of_audit(plain) == truth
    assert metrics["rounds"] == rounds and metrics["duplicates"] == 0
    assert sorted(str(p).encode() for (p,) in payloads) == sorted(lines)  # as sent, signed

    letters = [json.loads(r.value) for r in read_between(kafka_bootstrap, dlq_topic, dlq_start)]
    assert sorted(d["raw"].encode() for d in letters) == sorted(forged)
    assert {d["field"] for d in letters} == {"sig", "kid"}
    assert all(d["where"].startswith(f"{mixed}:") for d in letters)
