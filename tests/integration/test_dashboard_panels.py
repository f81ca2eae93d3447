"""Every dashboard panel's SQL on the store a real worker wrote from a simulated floor.

The floor (8 tables, 900 rounds, seed 20, errors in 30% of rounds, jackpots in 10%) has
findings of every check code of the protocol, jackpots, meters, shuffles, stub counts
and deck changes. The worker (a real process, through the broker) writes the store, the
table directory and the pay tables; ``tablewatch db migrate`` fills the theoretical
edges. Then ``tablewatch dashboards check`` over the floor's hours: every panel returns
the columns it reads and rows, and the rollups agree with the views.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tablewatch.dashboards.catalog import DASHBOARDS
from tablewatch.rules.checks.catalog import PROTOCOL_CHECKS
from tablewatch.services import free_port
from tablewatch.sim.games import played
from tablewatch.store.client import connect
from tests.integration.pipeline import new_deployment, simulated_floor, write_jsonl

pytestmark = pytest.mark.integration


def test_every_panel_answers_on_a_store_the_worker_wrote(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    floor = simulated_floor(tmp_path, tables=8, rounds=900, seed=20, games=played())  # all four
    assert {check for _, _, check in floor.truth} == set(PROTOCOL_CHECKS)
    deployment = new_deployment(kafka_bootstrap, tmp_path, free_port())
    with deployment.worker(floor.config):
        deployment.ingest(write_jsonl(tmp_path / "events.jsonl", floor.events))
        deployment.wait_for_rounds(floor.rounds, timeout=900)
    dsn = f"chdb:///{tmp_path / 'chdb'}"
    cli = [sys.executable, "-m", "tablewatch.cli"]
    migrated = subprocess.run(
        [*cli, "db", "migrate", "--dsn", dsn], capture_output=True, text=True, timeout=300
    )
    assert migrated.returncode == 0, migrated.stderr
    # Four Card Poker 7 (Aces Up A-F, the Ante), Let It Ride 14 (main A-B, both bonuses A-F),
    # Ultimate Texas Hold 'Em 6 (the Ante by Blind A-B, Trips A-D); Three Card Poker's are
    # its tables' rows, written by the worker when it started
    assert "theoretical: 27 house edge(s)" in migrated.stderr

    client = connect(dsn)
    try:
        lo, hi = client.query("SELECT min(ts), max(ts) FROM raw_events_v").result_rows[0]
        by_rollup = client.query(
            "SELECT check, uniqExactMerge(ids) FROM findings_by_minute GROUP BY check ORDER BY 1"
        ).result_rows
        by_view = client.query(
            "SELECT check, count() FROM findings_v GROUP BY check ORDER BY 1"
        ).result_rows
        directory = client.query("SELECT count() FROM tables_v").result_rows[0][0]
    finally:
        client.close()
    assert by_rollup == by_view
    assert {c for c, _ in by_view} >= set(PROTOCOL_CHECKS)
    assert directory == 8

    window = [
        "--from",
        str(int(lo.timestamp() * 1000)),
        "--to",
        str(int(hi.timestamp() * 1000) + 1000),
    ]
    checked = subprocess.run(
        [*cli, "dashboards", "check", "--dsn", dsn, *window, "--format", "json"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stdout + checked.stderr
    results = {(r["dashboard"], r["panel"]): r for r in json.loads(checked.stdout)}
    for spec in DASHBOARDS:
        for panel in spec.panels:
            got = results[(spec.uid, panel.name)]
            assert got["problem"] == "", got
            assert tuple(got["columns"]) == panel.columns, got
            if panel.guaranteed_rows:
                assert got["rows"] > 0, got
    assert len(results) == sum(len(s.panels) for s in DASHBOARDS)

    # one table chosen: its panels answer for it alone
    table_id = sorted(yaml.safe_load(floor.config.read_text())["tables"])[0]
    one = subprocess.run(
        [*cli, "dashboards", "check", "--dsn", dsn, *window, "--format", "json",
         "--dashboard", "tablewatch-table", "--var", f"table={table_id}"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert one.returncode == 0, one.stdout + one.stderr
    alone = {r["panel"]: r for r in json.loads(one.stdout)}
    assert alone["rounds_over_time"]["rows"] > 0
    assert (
        alone["dealers_on_duty"]["rows"] < results[("tablewatch-table", "dealers_on_duty")]["rows"]
    )
