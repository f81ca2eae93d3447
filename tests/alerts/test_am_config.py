"""The generated Alertmanager configuration, checked by Alertmanager's own tool: it
loads (``amtool check-config``) and routes each pit, shift and level to the contact the
example file names for it (``amtool config routes test``)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import yaml

from tablewatch.alerts.am_config import GROUP_BY, NOTIFIED_PATH, render
from tablewatch.alerts.local_alertmanager import check_config
from tablewatch.alerts.rules_file import load_rules
from tests.alerts.test_rules_file import EXAMPLE


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("am") / "alertmanager.yml"
    path.write_text(render(load_rules(EXAMPLE), "http://127.0.0.1:8095"))
    return path


def route(config: Path, *labels: str) -> str:
    done = subprocess.run(
        ["amtool", "config", "routes", "test", f"--config.file={config}", *labels],
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


def test_amtool_accepts_the_generated_configuration(generated: Path) -> None:
    out = check_config(generated)
    assert "SUCCESS" in out
    assert "7 receivers" in out
    assert "1 inhibit rules" in out


@pytest.mark.parametrize(
    ("labels", "receiver"),
    [
        (("pit=Pit 1", "shift=day", "escalation=0"), "contact-dana.pit1"),
        (("pit=Pit 1", "shift=day", "escalation=1"), "contact-sam.shift"),
        (("pit=Pit 1", "shift=day", "escalation=2"), "contact-surveillance"),
        (("pit=Pit 1", "shift=swing", "escalation=0"), "contact-eli.pit1"),
        (("pit=Pit 2", "shift=grave", "escalation=0"), "contact-gus.pit2"),
        (("pit=Pit 2", "shift=grave", "escalation=1"), "contact-nia.shift"),
        (("pit=unassigned", "shift=day", "escalation=0"), "contact-surveillance"),
        (("pit=unassigned", "shift=day", "escalation=1"), "contact-sam.shift"),
        (("pit=somewhere", "shift=day", "escalation=0"), "contact-surveillance"),
    ],
)
def test_routes_by_pit_shift_and_escalation(
    generated: Path, labels: tuple[str, ...], receiver: str
) -> None:
    assert route(generated, *labels) == receiver


def test_grouping_inhibition_and_receivers(generated: Path) -> None:
    config = yaml.safe_load(generated.read_text())
    assert config["route"]["group_by"] == list(GROUP_BY)
    assert config["route"]["group_wait"] == "1s"
    assert config["route"]["group_interval"] == "3s"
    assert config["inhibit_rules"] == [
        {
            "source_matchers": ['severity="critical"'],
            "target_matchers": ['severity=~"high|medium|low"'],
            "equal": ["table_id"],
        }
    ]
    receivers = {r["name"]: r for r in config["receivers"]}
    gus = receivers["contact-gus.pit2"]
    assert gus["email_configs"][0]["to"] == "gus@casino.example"
    assert gus["email_configs"][0]["smarthost"] == "127.0.0.1:2525"
    assert gus["email_configs"][0]["require_tls"] is False
    assert gus["slack_configs"][0]["api_url"] == "http://127.0.0.1:9/slack/gus"
    for receiver in receivers.values():  # every notification reaches the trail too
        assert receiver["webhook_configs"][-1]["url"] == "http://127.0.0.1:8095" + NOTIFIED_PATH
