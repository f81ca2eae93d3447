"""Replay of a simulated floor of every game judged by the live pipeline: from the worker's
store, from the events topic and from the files, each gives the live findings (an empty
diff), and the three give the same findings, byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablewatch.replay.run import findings_json
from tablewatch.services import free_port
from tablewatch.sim.games import played
from tablewatch.store.client import open_store
from tests.integration.pipeline import new_deployment, simulated_floor, write_jsonl
from tests.replay.helpers import query, replay_json

pytestmark = pytest.mark.integration


def test_replays_of_a_live_floor_find_what_it_found(kafka_bootstrap: str, tmp_path: Path) -> None:
    # a table of each game: the live pipeline finds exactly the floor's truth, as replay does
    floor = simulated_floor(tmp_path, tables=4, rounds=240, seed=41, games=played())
    deployment = new_deployment(kafka_bootstrap, tmp_path, free_port())
    files = write_jsonl(tmp_path / "events.jsonl", floor.events)
    with deployment.worker(floor.config):
        deployment.ingest(files)
        deployment.wait_for_rounds(floor.rounds)
        live_count = int(deployment.query("SELECT count() FROM findings_v")[0][0])
        deployment_findings = deployment.query("SELECT table_id, round_id, check FROM findings_v")
    live = {tuple(r) for r in deployment_findings}
    assert live == floor.truth  # the floor's injected errors, found live: no more, no fewer
    assert live_count == len(floor.truth)
    assert {table[:3] for table, _, _ in live} == {"FCP", "LIR", "TCP", "UTH"}
    dsn = f"chdb:///{tmp_path / 'chdb'}"  # the worker's store, the worker stopped
    config = ["--config", str(floor.config), "--dsn", dsn]
    sources = {
        "store": ["--source", "store"],
        "kafka": ["--source", "kafka", "--bootstrap", kafka_bootstrap,
                  "--topic", f"{deployment.prefix}table-events"],
        "files": ["--source", "files", str(files)],
    }  # fmt: skip
    runs = {}
    for name, source in sources.items():
        code, document, stderr = replay_json(*source, *config)
        assert code == 0, (name, document["diff"], stderr)
        diff, run = document["diff"], document["run"]
        assert (diff["new"], diff["gone"], diff["changed"]) == (0, 0, 0), name
        assert diff["rounds"] == floor.rounds and diff["rounds_not_live"] == 0, name
        assert run["status"] == "complete", name
        assert (run["events"], run["rounds"], run["findings"]) == (
            len(floor.events), floor.rounds, live_count,
        ), name  # fmt: skip
        runs[name] = run["run_id"]
    with open_store(dsn) as client:
        found = {name: b"\n".join(findings_json(client, run_id)) for name, run_id in runs.items()}
    assert found["store"] == found["kafka"] == found["files"]
    assert found["store"].count(b"\n") + 1 == live_count
    # the live findings were not written by any replay
    assert query(dsn, "SELECT count() FROM findings_v")[0][0] == live_count
    statuses = query(dsn, "SELECT status, count() FROM replay_runs_v GROUP BY status")
    assert [tuple(r) for r in statuses] == [("complete", 3)]
