"""The generated Alertmanager configuration, checked by Alertmanager's own tool: it
loads (``amtool check-config``) and routes each pit, shift and level to the contact the
example file names for it, and to that contact's trail receiver (``amtool config routes
test``)."""

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
    assert "14 receivers" in out  # a contact's own and its trail receiver
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
    assert route(generated, *labels) == f"{receiver},trail-{receiver}"


def test_grouping_inhibition_and_receivers(generated: Path) -> None:
    config = yaml.safe_load(generated.read_text())
    assert config["route"]["group_by"] == list(GROUP_BY)
    assert config["route"]["group_wait"] == "1s"
    assert config["route"]["group_interval"] == "3s"
    assert config["inhibit_rules"] == [
        {
            "source_matchers": ['severity="critical"'],
            "target_matchers": [
                'severity=~"high|medium|low"',
                'check!~"ADVANTAGE_PLAY_SUSPECTED|DEALER_ERROR_RATE_HIGH|DEALER_FAVOURS_SEAT'
                '|HOLD_OUT_OF_BAND|METER_INCREMENT_WRONG"',
            ],
            "equal": ["table_id"],
        }
    ]
    receivers = {r["name"]: r for r in config["receivers"]}
    gus = receivers["contact-gus.pit2"]
    assert gus["email_configs"][0]["to"] == "gus@casino.example"
    assert gus["email_configs"][0]["smarthost"] == "127.0.0.1:2525"
    assert gus["email_configs"][0]["require_tls"] is False
    assert gus["slack_configs"][0]["api_url"] == "http://127.0.0.1:9/slack/gus"
    own = "http://127.0.0.1:8095" + NOTIFIED_PATH
    contacts = {n for n in receivers if n.startswith("contact-")}
    assert {n for n in receivers if n not in contacts} == {f"trail-{n}" for n in contacts}
    for name in contacts:  # every notification reaches the trail too, by a receiver of its own
        assert own not in [h["url"] for h in receivers[name].get("webhook_configs", [])]
        assert receivers[f"trail-{name}"] == {
            "name": f"trail-{name}",
            "webhook_configs": [{"url": own, "send_resolved": False}],
        }


def test_the_trail_webhook_holds_no_mail(generated: Path) -> None:
    """Alertmanager flushes a group again only once every integration of its receiver has
    answered or given up (10 s at the least, retrying a 5xx): the alerter's webhook sharing
    a receiver with the mail held the group's next mail while it failed (2-3 group
    intervals late). Its notifications go by a sibling route (``continue``) of their own:
    groups of their own."""
    route_ = yaml.safe_load(generated.read_text())["route"]
    mail, trail = route_["routes"]
    assert mail["continue"] is True and "matchers" not in mail
    assert "matchers" not in trail and not trail.get("continue", False)
    assert mail["receiver"] == "contact-surveillance"
    assert trail["receiver"] == "trail-contact-surveillance"
