"""The live floor's stream while a real worker runs (it holds the embedded store): the
feed reads through the worker's /query with an auditor's token, and every finding the
audit makes of a floor stamped in the present reaches the stream once, with each table's
tile counting its open cases by severity."""

from __future__ import annotations

import contextlib
import time
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path

import pytest
import yaml

from tablewatch.access.access_file import AccessEntry, AccessFile, save
from tablewatch.access.roles import Role
from tablewatch.access.tokens import hash_token, new_token
from tablewatch.api.app import create_app
from tablewatch.api.floor_feed import FloorFeed
from tablewatch.api.sources import WorkerSource
from tablewatch.rules.audit import Auditor, findings_of
from tablewatch.rules.config import parse_config
from tablewatch.rules.decode import decode_event, encode_event
from tablewatch.services import free_port
from tablewatch.sim.floor import Floor
from tests.api.live_server import served
from tests.api.sse import listening
from tests.integration.pipeline import new_deployment, write_jsonl

pytestmark = pytest.mark.integration


def test_the_stream_reads_through_a_running_workers_query(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    floor = Floor(tables=3, rounds=60, seed=3, error_rate=0.2, jackpot_rate=0.05)
    config = tmp_path / "tables.yaml"
    config.write_text(yaml.safe_dump(floor.config, sort_keys=False))
    events = [encode_event(e) for e in floor.present(speed=1000)]  # stamped now
    auditor = Auditor(parse_config(floor.config))
    outcomes = [o for raw in events for o in auditor.feed(decode_event(raw))]
    findings = list(findings_of(outcomes + auditor.finish()))
    assert findings
    token = new_token()
    save(
        tmp_path / "access.yaml",
        AccessFile((AccessEntry("alice", Role.AUDITOR, hash_token(token), datetime.now(UTC)),)),
    )
    deployment = new_deployment(kafka_bootstrap, tmp_path, free_port())
    extra = ("--access-file", str(tmp_path / "access.yaml"))
    with deployment.worker(config, extra_args=extra):
        source = WorkerSource(f"http://127.0.0.1:{deployment.web_port}", token)
        app = create_app(source, described_as="the worker")
        app.state.floor_feed = FloorFeed(source, interval_s=0.5, activity_every_s=2.0)
        try:
            with served(app) as base, listening(f"{base}/api/v1/stream") as stream:
                stream.snapshot(timeout_s=30)
                deployment.ingest(write_jsonl(tmp_path / "events.jsonl", events))
                want = Counter((f.table_id, f.round_id or None, f.check) for f in findings)
                got: Counter[tuple[str, str | None, str]] = Counter()
                deadline = time.monotonic() + 180
                while got != want:
                    left = deadline - time.monotonic()
                    assert left > 0, f"missing {want - got}; {deployment.log_tail()}"
                    f = stream.next("finding", timeout_s=left).data
                    got[(f["table_id"], f["round_id"], f["check"])] += 1
                # every finding once; each table's last tile counts them by severity
                severities = Counter((f.table_id, str(f.severity)) for f in findings)
                deadline = time.monotonic() + 10
                while True:
                    tiles = {e.data["table_id"]: e.data for e in stream.seen if e.event == "tile"}
                    counted = Counter(
                        {(t, s): n for t, d in tiles.items() for s, n in d["open_cases"].items()}
                    )
                    if +counted == severities or time.monotonic() > deadline:
                        break
                    with contextlib.suppress(AssertionError):
                        stream.next("tile", timeout_s=0.5)
                assert +counted == severities
        finally:
            source.close()
