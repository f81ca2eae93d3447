"""``tablewatch report shift --worker`` while a real worker holds the embedded store: every
statement of the report goes through the worker's /query with an auditor's token; the
shift's findings and those carried over are the audit's, and a case claimed through the
worker's desk shows in the next report."""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest
import yaml
from click.testing import CliRunner

from tablewatch.access.access_file import AccessEntry, AccessFile, save
from tablewatch.access.roles import Role
from tablewatch.access.tokens import hash_token, new_token
from tablewatch.cli import main
from tablewatch.rules.audit import Auditor, findings_of
from tablewatch.rules.config import parse_config
from tablewatch.rules.decode import decode_event
from tablewatch.services import free_port
from tests.integration.pipeline import new_deployment, simulated_floor, write_jsonl

pytestmark = pytest.mark.integration

# UTC: the simulated floor's events run 2026-11-29 18:00 to 22:35, across "late"'s start
RULES = """\
timezone: UTC
contacts: {surveillance: {email: surveillance@casino.example}}
shifts:
  early: {start: "00:00", end: "20:00"}
  late:  {start: "20:00", end: "00:00"}
pits:
  Pit 1:
    tables: ["*"]
    on_call: {early: [surveillance], late: [surveillance]}
fallback: [surveillance]
rules: [{name: all}]
"""


def report(worker: str, token: str, rules: Path, day: str, shift: str) -> dict[str, object]:
    result = CliRunner().invoke(
        main,
        ["report", "shift", "--date", day, "--shift", shift, "--format", "json",
         "--rules", str(rules), "--worker", worker],
        env={"TABLEWATCH_API_TOKEN": token}, prog_name="tablewatch",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    got: dict[str, object] = json.loads(result.stdout)
    return got


def test_report_through_a_running_workers_query(kafka_bootstrap: str, tmp_path: Path) -> None:
    floor = simulated_floor(tmp_path, tables=3, rounds=90, seed=1)
    auditor = Auditor(parse_config(yaml.safe_load(floor.config.read_text())))
    outcomes = [o for raw in floor.events for o in auditor.feed(decode_event(raw))]
    timed = [
        (f.ts, (f.table_id, f.round_id or "", f.check))
        for f in findings_of([*outcomes, *auditor.finish()])
        if f.ts is not None  # a table-level finding's time is its judgement's: now
    ]
    late = sorted(key for ts, key in timed if ts >= "2026-11-29T20:00:00.000Z")
    before = sorted(key for ts, key in timed if ts < "2026-11-29T20:00:00.000Z")
    assert late and before
    rules = tmp_path / "alerts.yaml"
    rules.write_text(RULES, encoding="utf-8")
    tokens = {"alice": new_token(), "sam": new_token()}
    now = datetime.now(UTC)
    save(
        tmp_path / "access.yaml",
        AccessFile((AccessEntry("alice", Role.AUDITOR, hash_token(tokens["alice"]), now),
                    AccessEntry("sam", Role.SURVEILLANCE, hash_token(tokens["sam"]), now))),
    )  # fmt: skip
    deployment = new_deployment(kafka_bootstrap, tmp_path, free_port())
    extra = ("--access-file", str(tmp_path / "access.yaml"))
    with deployment.worker(floor.config, extra_args=extra):
        url = f"http://127.0.0.1:{deployment.web_port}"
        deployment.ingest(write_jsonl(tmp_path / "events.jsonl", floor.events))
        deadline = time.monotonic() + 180
        while True:
            got = report(url, tokens["alice"], rules, "2026-11-29", "late")
            shown = got["findings"]
            assert isinstance(shown, list)
            if len(shown) >= len(late):
                break
            assert time.monotonic() < deadline, deployment.log_tail()
            time.sleep(1)
        assert sorted((f["table_id"], f["round_id"] or "", f["check"]) for f in shown) == late
        assert all(f["state"] == "open" and f["dealer_id"] for f in shown)
        carried = got["carried_over"]
        assert isinstance(carried, list)
        assert sorted((f["table_id"], f["round_id"] or "", f["check"]) for f in carried) == before

        # a case claimed now, through the worker's desk: today's report carries it over
        claimed = shown[0]["finding_id"]
        answer = httpx.post(
            f"{url}/cases/{claimed}/claim", json={},
            headers={"Authorization": f"Bearer {tokens['sam']}"}, timeout=30,
        )  # fmt: skip
        assert answer.status_code == 200, answer.text
        today = datetime.now(UTC)
        shift = "early" if today.hour < 20 else "late"
        later = report(url, tokens["alice"], rules, today.date().isoformat(), shift)
        states = {f["finding_id"]: (f["state"], f["assignee"]) for f in later["carried_over"]}  # type: ignore[attr-defined]
        assert states[claimed] == ("in_review", "sam")
        assert len(states) == len(late) + len(before)
