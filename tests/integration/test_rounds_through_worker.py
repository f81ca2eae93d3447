"""``tablewatch rounds show`` and ``tablewatch findings`` while a real worker holds the
embedded store: read through its ``/query`` (``--worker``), the golden rounds ingested
through Kafka give the report the files give, with the stored findings; the worker
wrote the table directory when it started."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablewatch.commands.auditor_lists import findings
from tablewatch.commands.rounds import rounds
from tablewatch.services import free_port
from tests.integration.pipeline import new_deployment
from tests.rounds.golden import write_files

pytestmark = pytest.mark.integration


def test_rounds_show_and_findings_through_a_running_workers_query(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    events, config = write_files(tmp_path)
    deployment = new_deployment(kafka_bootstrap, tmp_path, free_port())
    with deployment.worker(config):
        url = f"http://127.0.0.1:{deployment.web_port}"
        directory = deployment.query("SELECT table_id, pit, cameras FROM tables_v ORDER BY 1")
        assert directory == [["FCP-G", "", []], ["LIR-G", "Pit 3", ["CAM-071", "CAM-072"]]]
        deployment.ingest(events)
        deployment.wait_for_rounds(2)
        runner = CliRunner()
        for table, round_id in (("LIR-G", "R-77"), ("FCP-G", "R-8")):
            live = runner.invoke(
                rounds, ["show", table, round_id, "--worker", url, "--format", "json"]
            )
            assert live.exit_code == 0, live.stderr
            files = runner.invoke(
                rounds,
                ["show", table, round_id, "--events", str(events), "--config", str(config),
                 "--format", "json"],
            )  # fmt: skip
            stored, judged = json.loads(live.stdout), json.loads(files.stdout)
            assert stored["findings_source"] == "store"
            for finding in [*stored["findings"], *judged["findings"]]:
                finding.pop("finding_id")
            judged["findings_source"] = "store"
            assert stored == judged
        listed = runner.invoke(findings, ["--worker", url, "--format", "json"])
        assert listed.exit_code == 0, listed.stderr
        rows = [json.loads(line) for line in listed.stdout.splitlines()]
        assert [(r["table_id"], r["check"], r["seat"], r["bet"], r["expected"], r["actual"])
                for r in rows] == [("LIR-G", "WRONG_PAYOUT", 5, "bet3", 500, 400)]  # fmt: skip
        missing = runner.invoke(rounds, ["show", "LIR-G", "R-78", "--worker", url])
        assert missing.exit_code == 1 and "'R-78'" in missing.stderr
