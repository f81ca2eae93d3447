"""Casework while a real worker runs (it holds the embedded store): the API (as
``serve-api --worker``) reads cases through the worker's /query and forwards each command
with the caller's own token to the worker's POST /cases/..., whose desk decides."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from tablewatch.access.access_file import AccessEntry, AccessFile, save
from tablewatch.access.authenticate import FileTokenAuthenticator
from tablewatch.access.gate import Gate
from tablewatch.access.roles import Role
from tablewatch.access.tokens import hash_token, new_token
from tablewatch.api.app import create_app
from tablewatch.api.case_actions import WorkerActions
from tablewatch.api.sources import WorkerSource
from tablewatch.services import free_port
from tests.integration.pipeline import new_deployment, simulated_floor, write_jsonl

pytestmark = pytest.mark.integration


def test_cases_worked_through_the_worker(kafka_bootstrap: str, tmp_path: Path) -> None:
    floor = simulated_floor(tmp_path, tables=2, rounds=60, seed=3)
    names = {"api": Role.AUDITOR, "sam": Role.SURVEILLANCE, "fm": Role.FLOOR_MANAGER}
    tokens = {name: new_token() for name in names}
    now = datetime.now(UTC)
    access = tmp_path / "access.yaml"
    save(access, AccessFile(tuple(
        AccessEntry(name, role, hash_token(tokens[name]), now) for name, role in names.items()
    )))  # fmt: skip
    deployment = new_deployment(kafka_bootstrap, tmp_path, free_port())
    with deployment.worker(floor.config, extra_args=("--access-file", str(access))):
        url = f"http://127.0.0.1:{deployment.web_port}"
        app = create_app(
            WorkerSource(url, tokens["api"]), described_as=url,
            gate=Gate(FileTokenAuthenticator(access)), case_actions=WorkerActions(url),
        )  # fmt: skip
        client = TestClient(app)
        deployment.ingest(write_jsonl(tmp_path / "events.jsonl", floor.events))
        sam = {"Authorization": f"Bearer {tokens['sam']}"}
        deadline = time.monotonic() + 180
        while not (queue := client.get("/api/v1/cases", headers=sam).json()["cases"]):
            assert time.monotonic() < deadline, deployment.log_tail()
            time.sleep(1)
        fid = queue[0]["finding_id"]
        assert queue[0]["state"] == "open"

        claimed = client.post(f"/api/v1/cases/{fid}/claim", json={}, headers=sam)
        assert claimed.status_code == 200, claimed.text
        assert (claimed.json()["state"], claimed.json()["assignee"]) == ("in_review", "sam")
        refused = client.post(
            f"/api/v1/cases/{fid}/close", json={"disposition": "duplicate"},
            headers={"Authorization": f"Bearer {tokens['fm']}"},
        )  # fmt: skip
        assert refused.status_code == 403, refused.text
        closed = client.post(
            f"/api/v1/cases/{fid}/close",
            json={"disposition": "duplicate", "note": "seen on camera"}, headers=sam,
        )  # fmt: skip
        assert closed.status_code == 200 and closed.json()["state"] == "closed", closed.text
        # the API's own token (an auditor's) cannot act: the worker decides who may
        as_api = client.post(
            f"/api/v1/cases/{fid}/reopen", json={"reason": "x"},
            headers={"Authorization": f"Bearer {tokens['api']}"},
        )  # fmt: skip
        assert as_api.status_code == 403
        # the worker's own view authenticates and authorizes again
        direct = f"{url}/cases/{fid}/reopen"
        body = {"reason": "x"}
        assert httpx.post(direct, json=body).status_code == 401
        fm = {"Authorization": f"Bearer {tokens['fm']}"}
        assert httpx.post(direct, json=body, headers=fm).status_code == 403
        assert httpx.post(direct, content=b"reason=x", headers=sam).status_code == 415
        shown = client.get(f"/api/v1/cases/{fid}", headers=sam).json()
        assert [(s["kind"], s["by"]) for s in shown["steps"]] == [
            ("claimed", "sam"), ("closed", "sam"),
        ]  # fmt: skip
        assert shown["steps"][1]["note"] == "seen on camera"
