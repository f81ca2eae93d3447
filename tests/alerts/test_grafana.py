"""The rules file as Grafana alerting provisioning (the SDK's alerting builders), and
``tablewatch dashboards build --alerts``."""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

import yaml
from click.testing import CliRunner

from tablewatch.alerts.grafana import _pattern_regex, provisioning_document
from tablewatch.alerts.rules_file import load_rules, parse_rules
from tablewatch.cli import main as cli
from tests.alerts.test_rules_file import EXAMPLE, GOOD


def test_one_rule_per_rule_of_the_file_counting_the_findings_it_wants() -> None:
    document = provisioning_document(load_rules(EXAMPLE), "ds-1")
    rules = document["groups"][0]["rules"]
    assert [r["title"] for r in rules] == [
        "TableWatch: money and integrity",
        "TableWatch: stub counts in Pit 2",
    ]
    money, stubs = (r["data"][0]["model"]["rawSql"] for r in rules)
    assert "severity IN ('high', 'critical')" in money
    assert "check IN" not in money
    assert "check IN ('STUB_COUNT_MISMATCH', 'STUB_COUNT_MISSING')" in stubs
    assert stubs.endswith("HAVING pit IN ('Pit 2')")
    assert "multiIf(match(table_id, '^LIR\\\\-.*$'), 'Pit 1'" in money
    for rule in rules:
        assert rule["condition"] == "C"
        assert [q["refId"] for q in rule["data"]] == ["A", "B", "C"]
        assert rule["data"][0]["datasourceUid"] == "ds-1"
        assert rule["data"][0]["model"]["datasource"]["type"] == "grafana-clickhouse-datasource"
        assert rule["data"][2]["model"]["conditions"][0]["evaluator"] == {
            "type": "gt",
            "params": [0],
        }
        assert rule["noDataState"] == "OK" and rule["execErrState"] == "Alerting"
    assert document["groups"][0]["folder"] == "TableWatch"


def test_contact_points_policies_and_shifts() -> None:
    document = provisioning_document(load_rules(EXAMPLE), "ds-1")
    points = {p["name"]: [r["type"] for r in p["receivers"]] for p in document["contactPoints"]}
    assert points["contact-gus.pit2"] == ["email", "slack"]
    assert len(points) == 7
    policy = document["policies"][0]
    assert policy["receiver"] == "contact-surveillance"
    assert policy["group_by"] == ["alertname", "table_id", "check"]
    pit2 = policy["routes"][1]
    assert pit2["object_matchers"] == [["pit", "=", "Pit 2"]]
    assert [(r["active_time_intervals"], r["receiver"]) for r in pit2["routes"]] == [
        (["shift-day"], "contact-fay.pit2"),
        (["shift-swing"], "contact-gus.pit2"),
        (["shift-grave"], "contact-gus.pit2"),
    ]
    assert policy["routes"][2] == {
        "object_matchers": [["pit", "=", "unassigned"]],
        "receiver": "contact-surveillance",
    }


def test_a_shift_past_midnight_is_two_time_ranges() -> None:
    document = provisioning_document(parse_rules(GOOD), "ds-1")
    night = next(m for m in document["muteTimes"] if m["name"] == "shift-night")
    assert night["time_intervals"] == [
        {
            "times": [
                {"start_time": "20:00", "end_time": "24:00"},
                {"start_time": "00:00", "end_time": "08:00"},
            ],
            "location": "UTC",
        }
    ]


def test_table_patterns_match_in_sql_as_they_match_for_the_alerter() -> None:
    ids = ["LIR-07", "LIR-", "XLIR-07", "FCP-02", "LIR.07", "L1R-07", "lir-07"]
    for pattern in ("LIR-*", "L?R-0*", "FCP-02", "LIR.07"):
        regex = re.compile(_pattern_regex(pattern))
        for table_id in ids:
            assert bool(regex.match(table_id)) == fnmatch.fnmatchcase(table_id, pattern)


def test_dashboards_build_writes_the_alerting_file_and_refuses_a_bad_rules_file(
    tmp_path: Path,
) -> None:
    result = CliRunner().invoke(
        cli, ["dashboards", "build", "--out", str(tmp_path / "g"), "--alerts", str(EXAMPLE)]
    )
    assert result.exit_code == 0, result.output
    written = tmp_path / "g" / "provisioning" / "alerting" / "tablewatch-alerts.yaml"
    assert str(written) in result.output
    document = yaml.safe_load(written.read_text())
    assert document["apiVersion"] == 1
    assert len(document["groups"][0]["rules"]) == 2
    bad = tmp_path / "bad.yaml"
    bad.write_text(EXAMPLE.read_text().replace("min_severity: high", "min_severity: hgh"))
    refused = CliRunner().invoke(
        cli, ["dashboards", "build", "--out", str(tmp_path / "h"), "--alerts", str(bad)]
    )
    assert refused.exit_code == 2
    assert "min_severity: 'hgh' is not one of low, medium, high, critical" in refused.output
