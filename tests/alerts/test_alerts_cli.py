"""``tablewatch alerts config``: the file it writes loads in Alertmanager; a bad rules
file is refused with its line and reason, exit 2."""

from __future__ import annotations

from pathlib import Path

import yaml
from click.testing import CliRunner

from tablewatch.alerts.local_alertmanager import check_config
from tablewatch.cli import main as cli
from tests.alerts.test_rules_file import EXAMPLE


def test_alerts_config_writes_a_configuration_amtool_accepts(tmp_path: Path) -> None:
    out = tmp_path / "alertmanager.yml"
    result = CliRunner().invoke(
        cli,
        [
            "alerts",
            "config",
            "--rules",
            str(EXAMPLE),
            "--out",
            str(out),
            "--alerter",
            "http://127.0.0.1:8111",
        ],
    )
    assert result.exit_code == 0, result.output
    assert (
        "14 receivers (7 contacts and their trail receivers), 2 pits, 3 shifts, "
        "2 escalation steps" in result.output
    )
    assert "SUCCESS" in check_config(out)
    assert "http://127.0.0.1:8111/api/v1/alertmanager/notified" in out.read_text()
    assert "no --alerter-token-file: the alerter will refuse" in result.output


def test_alerts_config_has_alertmanager_send_the_alerters_token(tmp_path: Path) -> None:
    out = tmp_path / "alertmanager.yml"
    args = ["alerts", "config", "--rules", str(EXAMPLE), "--out", str(out), "--alerter",
            "http://127.0.0.1:8111", "--alerter-token-file", "/run/secrets/token"]  # fmt: skip
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    assert "SUCCESS" in check_config(out)  # the schema of the Alertmanager installed
    receivers = yaml.safe_load(out.read_text())["receivers"]
    own = [
        hook
        for receiver in receivers
        for hook in receiver.get("webhook_configs", [])
        if hook["url"] == "http://127.0.0.1:8111/api/v1/alertmanager/notified"
    ]
    assert len(own) == len(receivers) // 2 == 7  # one per contact: its trail receiver's
    for hook in own:
        assert hook["http_config"] == {
            "authorization": {"type": "Bearer", "credentials_file": "/run/secrets/token"}
        }


def test_alerts_config_refuses_a_bad_rules_file_with_line_and_reason(tmp_path: Path) -> None:
    bad = tmp_path / "alerts.yaml"
    bad.write_text(
        EXAMPLE.read_text().replace(
            "fallback: [surveillance, sam.shift]", "fallback: [surveilance, sam.shift]"
        )
    )
    out = tmp_path / "alertmanager.yml"
    result = CliRunner().invoke(cli, ["alerts", "config", "--rules", str(bad), "--out", str(out)])
    assert result.exit_code == 2
    assert f"{bad}:46: fallback[0]: 'surveilance' is not in contacts" in result.output
    assert not out.exists()


def test_alerts_ack_says_when_the_alerter_cannot_be_reached() -> None:
    result = CliRunner().invoke(
        cli,
        ["alerts", "ack", "abc", "--alerter", "http://127.0.0.1:9"],
        env={"TABLEWATCH_ALERTS_TOKEN": "tw_x"},
    )
    assert result.exit_code == 1
    assert "the alerter at http://127.0.0.1:9/api/v1/alerts/abc/ack cannot be reached" in (
        result.output
    )


def test_the_alerter_refuses_a_bad_rules_file_before_it_starts(tmp_path: Path) -> None:
    bad = tmp_path / "alerts.yaml"
    bad.write_text(EXAMPLE.read_text().replace("escalation: [5m, 15m]", "escalation: [15m, 5m]"))
    result = CliRunner().invoke(cli, ["alerter", "--rules", str(bad), "--kafka-wait", "0"])
    assert result.exit_code == 2
    assert f"{bad}:48: escalation[1]: must be later than the step before it" in result.output
