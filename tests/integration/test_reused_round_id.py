"""A table gives a round_id a second time, after the worker was restarted: through the real
broker and the real worker, both rounds are in rounds_v with their own lines and findings,
and the second has a ROUND_ID_REUSED finding in findings_v."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
import yaml

from tablewatch.rules.decode import encode_event
from tablewatch.rules.events import AnyEvent, RoundStart
from tablewatch.services import free_port
from tests.integration.pipeline import Deployment, new_deployment, write_jsonl
from tests.scenarios import CONFIG, lir_round, lir_table

pytestmark = pytest.mark.integration


def _events() -> tuple[list[AnyEvent], list[AnyEvent]]:
    """Before the restart: R-1 paid right, R-2 underpaid. After: R-1 again, underpaid."""
    t = lir_table()
    lir_round(t, "R-1")
    lir_round(t, "R-2", paid_each=2000)
    before = t.drain()
    lir_round(t, "R-1", paid_each=1500)
    return before, t.drain()


def _wait_for(deployment: Deployment, sql: str, want: int, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    seen = -1
    while time.monotonic() < deadline:
        try:
            seen = int(deployment.query(sql)[0][0])
        except OSError:
            seen = -1
        if seen >= want:
            return
        time.sleep(0.5)
    raise AssertionError(f"{sql}: {seen} of {want}; {deployment.log_tail()}")


def test_a_reused_round_id_keeps_both_rounds(kafka_bootstrap: str, tmp_path: Path) -> None:
    config = tmp_path / "tables.yaml"
    config.write_text(yaml.safe_dump(CONFIG))
    before, after = _events()
    first_start, second_start = (
        e.event_id for e in before + after if isinstance(e, RoundStart) and e.round_id == "R-1"
    )
    deployment = new_deployment(kafka_bootstrap, tmp_path, free_port())
    with deployment.worker(config):
        deployment.ingest(write_jsonl(tmp_path / "before.jsonl", [encode_event(e) for e in before]))
        deployment.wait_for_rounds(2)
    with deployment.worker(config, "worker-2.log"):  # restored from the table's saved state
        deployment.ingest(write_jsonl(tmp_path / "after.jsonl", [encode_event(e) for e in after]))
        deployment.wait_for_rounds(3)
        _wait_for(deployment, "SELECT count() FROM findings_v WHERE check = 'ROUND_ID_REUSED'", 1)
        time.sleep(1)  # the rest of the last flush
        rounds = deployment.query(
            "SELECT round_id, start_event_id, paid, finding_count FROM rounds_v ORDER BY start_ts"
        )
        lines = deployment.query(
            "SELECT round_id, start_event_id, bet, actual_paid FROM settlements_v"
            " ORDER BY start_ts, bet"
        )
        found = deployment.query(
            "SELECT round_id, start_event_id, check, event_ids FROM findings_v"
            " ORDER BY check, start_event_id, bet"
        )
        metrics = deployment.get("/metrics")

    r2_start = next(r[1] for r in rounds if r[0] == "R-2")
    assert [r[:3] for r in rounds] == [
        ["R-1", first_start, 7500],
        ["R-2", r2_start, 6000],
        ["R-1", second_start, 4500],
    ]
    assert [r[3] for r in rounds] == [0, 3, 4]
    assert lines == [
        *(["R-1", first_start, bet, 2500] for bet in ("bet1", "bet2", "bet3")),
        *(["R-2", r2_start, bet, 2000] for bet in ("bet1", "bet2", "bet3")),
        *(["R-1", second_start, bet, 1500] for bet in ("bet1", "bet2", "bet3")),
    ]
    assert sorted(tuple(f[:3]) for f in found) == sorted(
        [
            ("R-1", second_start, "ROUND_ID_REUSED"),
            *(("R-2", r2_start, "WRONG_PAYOUT") for _ in range(3)),
            *(("R-1", second_start, "WRONG_PAYOUT") for _ in range(3)),
        ]
    )
    reused = next(f for f in found if f[2] == "ROUND_ID_REUSED")
    assert reused[3] == [first_start, second_start]
    assert metrics["findings_by_check"]["ROUND_ID_REUSED"] == 1
