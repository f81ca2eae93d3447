"""`tablewatch audit` of a file in which a table gives a round_id twice: both rounds judged,
the findings of both in the JSON output, and ROUND_ID_REUSED on the second."""

from __future__ import annotations

import json
from pathlib import Path

import yaml
from click.testing import CliRunner

from tablewatch.commands.audit import audit
from tablewatch.rules.decode import encode_event
from tests.scenarios import CONFIG, lir_round, lir_table


def _files(tmp_path: Path) -> tuple[str, str, list[str]]:
    t = lir_table()
    lir_round(t, "R-1", paid_each=2000)  # underpaid
    lir_round(t, "R-2")
    lir_round(t, "R-1", paid_each=3000)  # R-1 again (a controller reset), overpaid
    events = tmp_path / "events.jsonl"
    events.write_bytes(b"".join(encode_event(e) + b"\n" for e in t.events))
    config = tmp_path / "tables.yaml"
    config.write_text(yaml.safe_dump(CONFIG))
    starts = [e.event_id for e in t.events if type(e).__name__ == "RoundStart"]
    return str(events), str(config), starts


def test_both_rounds_judged_and_in_the_json_output(tmp_path: Path) -> None:
    events, config, (first, _, again) = _files(tmp_path)
    result = CliRunner().invoke(audit, [events, "--config", config, "--format", "json"])
    assert result.exit_code == 1, result.output
    rows = [json.loads(line) for line in result.stdout.splitlines()]
    r1 = [r for r in rows if r["round_id"] == "R-1"]
    paid = sorted((r["check"], r["bet"], r["actual"]) for r in r1 if r["check"] == "WRONG_PAYOUT")
    assert paid == [
        ("WRONG_PAYOUT", bet, actual) for bet in ("bet1", "bet2", "bet3") for actual in (2000, 3000)
    ]
    (reused,) = [r for r in rows if r["check"] == "ROUND_ID_REUSED"]
    assert (reused["table_id"], reused["round_id"], reused["severity"]) == ("LIR-1", "R-1", "high")
    assert reused["event_ids"] == [first, again]
    assert first in reused["message"] and again in reused["message"]
    assert "3 rounds, 7 findings" in result.stderr

    table = CliRunner().invoke(audit, [events, "--config", config])
    assert "ROUND_ID_REUSED" in table.stdout and "3 rounds, 7 findings" in table.stdout
    jobs = CliRunner().invoke(
        audit, [events, "--config", config, "--format", "json", "--jobs", "2"]
    )
    assert jobs.stdout == result.stdout
