"""Pattern findings as alerts: an ADVANTAGE_PLAY_SUSPECTED message (as the patterns
companion sends it: ``finding.as_dict() | {start_event_id: "", finding_id}``) becomes an
alert to the pit's on-call chain whose summary names the unit and the statistic; hold,
meter and a dealer's error rate go to the ``fallback`` chain (surveillance), in the rules
and in the generated Alertmanager routes."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from tablewatch.alerts.alerter import Alerter
from tablewatch.alerts.am_config import render
from tablewatch.alerts.convert import alert_of_finding
from tablewatch.alerts.rules_file import parse_rules
from tablewatch.patterns.finding import PatternFinding
from tests.alerts.test_alerter_clock import Clock, FakeAlertmanager, FakeTrail
from tests.alerts.test_am_config import route
from tests.alerts.test_rules_file import GOOD

RAISED = 1_764_590_400_000  # 2025-12-01T12:00:00Z: the day shift (UTC)
SURVEILLANCE = GOOD.replace(
    "  sm: {email: sm@casino.test", "  sv: {email: sv@casino.test}\n  sm: {email: sm@casino.test"
).replace("fallback: [sm]\n", "fallback: [sv, pm]\n")
RULES = parse_rules(SURVEILLANCE)

ADVANTAGE = PatternFinding(
    check="ADVANTAGE_PLAY_SUSPECTED",
    unit="P-77",
    table_id="LIR-07",
    message="P-77: decisions track the dealer's first card (60 decisions, 19 against the "
    "known strategy)",
    statistic_name="LLR",
    statistic=12.5,
    threshold=9.21,
    false_alarm_rate="1 per 10,000 player-hours",
    evidence=(("LIR-07", "R-9"), ("LIR-07", "R-3")),
    first_ts="2025-12-01T10:00:00.000Z",
    last_ts="2025-12-01T11:30:00.250Z",
    seat=3,
)
HOLD = PatternFinding(
    check="HOLD_OUT_OF_BAND",
    unit="LIR-07",
    table_id="LIR-07",
    message="LIR-07 held below its band in the shift from 2025-12-01T08:00:00.000Z",
    statistic_name="CUSUM (below)",
    statistic=7.0,
    threshold=5.0,
    false_alarm_rate="1 per 1,000 table-shifts",
    evidence=(("LIR-07", "R-4"),),
    first_ts="2025-12-01T08:00:00.000Z",
    last_ts="2025-12-01T11:00:00.000Z",
)


def message(pattern: PatternFinding, finding_id: str = "ab" * 16) -> dict[str, Any]:
    return pattern.as_finding().as_dict() | {"start_event_id": "", "finding_id": finding_id}


def test_advantage_play_alerts_the_pits_chain_naming_the_unit_and_statistic() -> None:
    alert = alert_of_finding(message(ADVANTAGE), RULES, raised_ms=RAISED, game="a-game")
    assert alert is not None
    labels = alert.labels(0)
    assert (labels["check"], labels["severity"], labels["pit"], labels["shift"]) == (
        "ADVANTAGE_PLAY_SUSPECTED", "high", "Pit 1", "day",
    )  # fmt: skip
    assert RULES.chain(alert.pit, alert.shifts[0], alert.check) == ("pm", "sm")
    assert RULES.max_level(alert.pit, alert.shifts[0], alert.check) == 1
    a = alert.annotations
    assert a["summary"] == (
        "ADVANTAGE_PLAY_SUSPECTED at LIR-07 seat 3 (Pit 1): P-77: decisions track the "
        "dealer's first card (60 decisions, 19 against the known strategy) (LLR 12.50, "
        "threshold 9.21, false alarms 1 per 10,000 player-hours; 2025-12-01T10:00:00.000Z "
        "to 2025-12-01T11:30:00.250Z)"
    )
    assert a["message"].startswith("P-77: ") and "LLR 12.50, threshold 9.21" in a["message"]
    assert a["regulation"].startswith("TableWatch statistic: sequential likelihood-ratio")
    assert a["round_url"] == "http://127.0.0.1:8000/rounds/LIR-07/R-9"  # the heaviest round
    assert a["money"] == "" and a["seat"] == "3"
    assert alert.finding_ids == ("ab" * 16,)


def test_hold_meter_and_a_dealers_error_rate_go_to_the_fallback_chain() -> None:
    alert = alert_of_finding(message(HOLD), RULES, raised_ms=RAISED, game="a-game")
    assert alert is not None
    assert (alert.check, alert.severity, alert.pit) == ("HOLD_OUT_OF_BAND", "high", "Pit 1")
    assert RULES.chain(alert.pit, alert.shifts[0], alert.check) == ("sv", "pm")
    for check in ("METER_INCREMENT_WRONG", "DEALER_ERROR_RATE_HIGH"):
        assert RULES.chain("Pit 1", "day", check) == ("sv", "pm")
    for check in ("DEALER_FAVOURS_SEAT", "WRONG_PAYOUT"):
        assert RULES.chain("Pit 1", "day", check) == ("pm", "sm")
    # escalation along that chain: as long as it is
    assert RULES.max_level("Pit 1", "day", "HOLD_OUT_OF_BAND") == 1
    assert parse_rules(GOOD).chain("Pit 1", "day", "HOLD_OUT_OF_BAND") == ("sm",)
    assert parse_rules(GOOD).max_level("Pit 1", "day", "HOLD_OUT_OF_BAND") == 0


@pytest.mark.parametrize(
    ("labels", "receiver"),
    [
        (("check=ADVANTAGE_PLAY_SUSPECTED", "pit=Pit 1", "shift=day", "escalation=0"), "pm"),
        (("check=DEALER_FAVOURS_SEAT", "pit=Pit 1", "shift=day", "escalation=1"), "sm"),
        (("check=HOLD_OUT_OF_BAND", "pit=Pit 1", "shift=day", "escalation=0"), "sv"),
        (("check=METER_INCREMENT_WRONG", "pit=unassigned", "shift=night", "escalation=1"), "pm"),
        (("check=DEALER_ERROR_RATE_HIGH", "pit=Pit 1", "shift=night", "escalation=0"), "sv"),
    ],
)
def test_alertmanager_routes_pattern_checks(
    tmp_path: Path, labels: tuple[str, ...], receiver: str
) -> None:
    config = tmp_path / "alertmanager.yml"
    config.write_text(render(RULES, "http://127.0.0.1:8095"))
    assert route(config, *labels).split(",")[0] == f"contact-{receiver}"


def test_the_alerter_escalates_each_along_its_own_chain() -> None:
    # the day shift's chain of Pit 1 has two contacts (pm, sm), the fallback one (sm)
    clock = Clock(RAISED)
    alerter = Alerter(parse_rules(GOOD), FakeAlertmanager(), FakeTrail(), clock=clock)
    advantage = alerter.alert_for(message(ADVANTAGE, "a1" * 16), RAISED)
    hold = alerter.alert_for(message(HOLD, "b2" * 16), RAISED)
    assert advantage is not None and hold is not None
    asyncio.run(alerter.raise_alerts([advantage, hold], None))
    clock.advance(3600)  # past both steps (5 and 15 minutes)
    asyncio.run(alerter.tick())
    assert alerter.alerts[advantage.alert_id].level == 1
    assert alerter.alerts[hold.alert_id].level == 0
