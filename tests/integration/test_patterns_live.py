"""The patterns computed live: the worker's companion finds, on a floor sent through Kafka, what
the folds find reading the floor's rounds in order, across a restart of the worker, and stores
each finding once."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from tablewatch.patterns.floor_folds import FloorFolds
from tablewatch.rules.audit import Auditor
from tablewatch.rules.checks.catalog import PATTERN_CHECKS
from tablewatch.rules.config import parse_config
from tablewatch.rules.decode import encode_event
from tablewatch.rules.round_result import RoundResult
from tablewatch.services import free_port
from tablewatch.sim.floor import Floor
from tablewatch.sim.games import simulated
from tablewatch.sim.injections import FavouringDealer, MeterDrift
from tablewatch.sim.players import HoleCarder
from tablewatch.store.rows import finding_row
from tests.integration.pipeline import Deployment, new_deployment, write_jsonl
from tests.replay.helpers import query, replay_json

pytestmark = pytest.mark.integration

CODES = ", ".join(f"'{code}'" for code in PATTERN_CHECKS)


def _wait_for_patterns(deployment: Deployment, rounds: int, timeout: float = 240) -> Any:
    deadline = time.monotonic() + timeout
    metrics: Any = None
    while time.monotonic() < deadline:
        try:
            metrics = deployment.get("/metrics")["patterns"]
        except OSError:
            metrics = None
        if metrics is not None and metrics["rounds"] >= rounds:
            return metrics
        time.sleep(1)
    raise AssertionError(f"patterns: {metrics} of {rounds} rounds; {deployment.log_tail()}")


def test_the_live_patterns_are_the_folds_on_the_rounds_in_order_across_a_restart(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    floor = Floor(
        3,
        600,
        31,
        games=(simulated("three_card_poker"),),
        hole_carders=(HoleCarder(0, 3, 1.0, "PC-LIVE", 31),),
        patterns=(FavouringDealer(1, 2, 0.5), MeterDrift(2, 0.2)),
    )
    events = list(floor.events())
    config = tmp_path / "tables.yaml"
    config.write_text(yaml.safe_dump(floor.config, sort_keys=False))
    configs = parse_config(floor.config)
    results = [r for r in Auditor(configs).feed_all(events) if isinstance(r, RoundResult)]
    folds = FloorFolds(configs)
    expected = [
        f for rnd in sorted(map(folds.round_of, results), key=lambda r: r.key)
        for f in folds.take(rnd)
    ]  # fmt: skip
    assert {"ADVANTAGE_PLAY_SUSPECTED", "DEALER_FAVOURS_SEAT", "METER_INCREMENT_WRONG"} <= {
        f.check for f in expected
    }
    wanted = {
        (row[0], row[4], row[11])
        for row in (finding_row(f.as_finding(), 0, origin=f.origin) for f in expected)
    }

    lines = [encode_event(e) for e in events]
    half = len(lines) // 2
    deployment = new_deployment(kafka_bootstrap, tmp_path, free_port())
    first = write_jsonl(tmp_path / "first.jsonl", lines[:half])
    second = write_jsonl(tmp_path / "second.jsonl", lines[half:])
    deployment.ingest(first)
    first_rounds = sum(1 for r in results if r.end_ts <= events[half - 1].ts)
    with deployment.worker(config, extra_args=("--patterns",)):
        _wait_for_patterns(deployment, first_rounds)
    deployment.ingest(second)
    with deployment.worker(config, "worker2.log", extra_args=("--patterns",)):
        metrics = _wait_for_patterns(deployment, len(results))
        stored = deployment.query(
            f"SELECT finding_id, check, message FROM findings_v WHERE check IN ({CODES})"
        )
        rows = deployment.query(
            f"SELECT count(), uniqExact(finding_id) FROM findings WHERE check IN ({CODES})"
        )
    assert metrics["late_rounds"] == 0
    assert {tuple(r) for r in stored} == wanted
    assert len(stored) == len(expected)
    # each pattern finding stored once, though the worker stopped between them
    assert rows[0][1] == len(expected)

    # replay of the worker's store, with the patterns: the live findings, patterns and all
    dsn = f"chdb:///{tmp_path / 'chdb'}"
    code, document, stderr = replay_json(
        "--source", "store", "--config", str(config), "--dsn", dsn, "--patterns"
    )
    assert code == 0, (document.get("diff"), stderr)
    diff = document["diff"]
    assert (diff["new"], diff["gone"], diff["changed"]) == (0, 0, 0)
    replayed = query(
        dsn,
        "SELECT finding_id, check, message FROM replay_findings_v "
        f"WHERE run_id = '{document['run']['run_id']}' AND check IN ({CODES})",
    )
    assert {tuple(r) for r in replayed} == wanted
