"""The auditor API while a real worker runs (it holds the embedded store): every read
goes through the worker's /query with an auditor's token, and the answers are the
audit's."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml
from fastapi.testclient import TestClient

from tablewatch.access.access_file import AccessEntry, AccessFile, save
from tablewatch.access.roles import Role
from tablewatch.access.tokens import hash_token, new_token
from tablewatch.api.app import create_app
from tablewatch.api.sources import WorkerSource
from tablewatch.rules.audit import Auditor, findings_of
from tablewatch.rules.config import parse_config
from tablewatch.rules.decode import decode_event
from tablewatch.services import free_port
from tests.integration.pipeline import new_deployment, simulated_floor, write_jsonl

pytestmark = pytest.mark.integration


def test_the_api_reads_through_a_running_workers_query(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    floor = simulated_floor(tmp_path, tables=3, rounds=90, seed=1)
    auditor = Auditor(parse_config(yaml.safe_load(floor.config.read_text())))
    outcomes = [o for raw in floor.events for o in auditor.feed(decode_event(raw))]
    outcomes += auditor.finish()
    findings = list(findings_of(outcomes))
    wrong = [f for f in findings if f.check == "WRONG_PAYOUT"]
    assert findings and wrong
    tokens = {"alice": new_token(), "sam": new_token()}
    now = datetime.now(UTC)
    save(
        tmp_path / "access.yaml",
        AccessFile(
            (
                AccessEntry("alice", Role.AUDITOR, hash_token(tokens["alice"]), now),
                AccessEntry("sam", Role.SURVEILLANCE, hash_token(tokens["sam"]), now),
            )
        ),
    )
    deployment = new_deployment(kafka_bootstrap, tmp_path, free_port())
    extra = ("--access-file", str(tmp_path / "access.yaml"))
    with deployment.worker(floor.config, extra_args=extra):
        deployment_url = f"http://127.0.0.1:{deployment.web_port}"
        source = WorkerSource(deployment_url, tokens["alice"])
        deployment.ingest(write_jsonl(tmp_path / "events.jsonl", floor.events))
        client = TestClient(create_app(source, described_as=deployment_url))
        # the worker's own wait reads /query without a token: wait through the API instead
        deadline = time.monotonic() + 180
        while len(client.get("/api/v1/rounds", params={"limit": 1000}).json()["items"]) < (
            floor.rounds
        ):
            assert time.monotonic() < deadline, deployment.log_tail()
            time.sleep(1)
        assert client.get("/health").json()["status"] == "ok"

        body = client.get("/api/v1/findings", params={"limit": 1000}).json()
        got = sorted((f["table_id"], f["round_id"] or "", f["check"]) for f in body["items"])
        assert got == sorted((f.table_id, f.round_id or "", f.check) for f in findings)

        first = wrong[0]
        reply = client.get(f"/api/v1/rounds/{first.table_id}/{first.round_id}")
        assert reply.status_code == 200, reply.text
        lines = [w for w in reply.json()["wagers"] if w["correct"] is False]
        assert (first.seat, first.bet, first.expected, first.actual) in [
            (w["seat"], w["bet"], w["expected_paid"], w["actual_paid"]) for w in lines
        ]
        page = client.get(f"/rounds/{first.table_id}/{first.round_id}")
        assert page.status_code == 200 and "✗ WRONG" in page.text
        tables = client.get("/api/v1/tables").json()["items"]
        assert sorted(t["table_id"] for t in tables) == sorted(
            yaml.safe_load(floor.config.read_text())["tables"]
        )
        source.close()

        # a token whose role lacks the query permission: 503 saying which roles have it
        refused = TestClient(create_app(WorkerSource(deployment_url, tokens["sam"])))
        reply = refused.get("/api/v1/findings")
        assert reply.status_code == 503
        assert "auditor or admin" in reply.json()["detail"]
