"""A finding as an alert: labels, annotations in dollars, the round's link, and which
findings alert anyone."""

from __future__ import annotations

from tablewatch.alerts.convert import alert_of_finding, alert_of_silence, round_url
from tablewatch.alerts.model import iso_ms
from tablewatch.alerts.rules_file import parse_rules
from tablewatch.rules.findings import Finding
from tablewatch.store.rows import finding_id
from tests.alerts.test_rules_file import GOOD

RULES = parse_rules(GOOD.replace("rules:\n", "auditor_url: https://audit.casino.test/\nrules:\n"))
RAISED = 1_764_590_400_000  # 2025-12-01T12:00:00Z: the day shift (UTC)


def message(**change: object) -> dict[str, object]:
    base: dict[str, object] = {
        "table_id": "LIR-07",
        "round_id": "R 42/a",
        "check": "WRONG_PAYOUT",
        "regulation": "§ 643a.12(a)",
        "message": "Five Card Bonus paid at table C, not B",
        "seat": 3,
        "bet": "five_card_bonus",
        "expected": 2500,
        "actual": 12550,
        "event_ids": ["e9", "e1"],
        "ts": "2026-11-30T21:15:03.123Z",
        "severity": "critical",
        "start_event_id": "e0",
    }
    return base | change


def test_a_wrong_payout_becomes_an_alert_with_its_labels_and_dollar_amounts() -> None:
    alert = alert_of_finding(message(), RULES, raised_ms=RAISED, game="let_it_ride")
    assert alert is not None
    assert alert.labels(0) == {
        "alertname": "TableWatchFinding",
        "alert_id": alert.alert_id,
        "table_id": "LIR-07",
        "pit": "Pit 1",
        "game": "let_it_ride",
        "check": "WRONG_PAYOUT",
        "severity": "critical",
        "escalation": "0",
        "shift": "day",
    }
    a = alert.annotations
    assert a["expected"] == "$25.00"
    assert a["actual"] == "$125.50"
    assert a["difference"] == "$100.50 over"
    assert a["money"] == "owed $25.00, paid $125.50: overpaid by $100.50"
    assert a["regulation"] == "§ 643a.12(a)"
    assert a["round_url"] == "https://audit.casino.test/rounds/LIR-07/R%2042%2Fa"
    assert a["summary"] == (
        "WRONG_PAYOUT at LIR-07 seat 3 five_card_bonus (Pit 1): owed $25.00, paid $125.50: "
        "overpaid by $100.50"
    )
    assert alert.generator_url == a["round_url"]
    assert alert.finding_ids == (a["finding_ids"],)
    assert a["ack"] == f"tablewatch alerts ack {alert.alert_id} --by NAME"
    # the store's id of the same finding (computed by the store's own function)
    stored = finding_id(
        Finding(
            "LIR-07",
            "R 42/a",
            "WRONG_PAYOUT",
            "§ 643a.12(a)",
            "Five Card Bonus paid at table C, not B",
            3,
            "five_card_bonus",
            2500,
            12550,
            ("e9", "e1"),
            "2026-11-30T21:15:03.123Z",
        ),
        start_event_id="e0",
    )
    assert alert.finding_ids == (stored,)
    posted = alert.postable(RAISED + 3_600_000)
    assert [p["startsAt"] for p in posted] == ["2025-12-01T12:00:00.000Z"]
    assert posted[0]["endsAt"] == "2025-12-01T13:00:00.000Z"


def test_the_same_finding_read_again_is_the_same_alert_another_is_another() -> None:
    one = alert_of_finding(message(), RULES, raised_ms=RAISED)
    again = alert_of_finding(message(), RULES, raised_ms=RAISED)
    other = alert_of_finding(message(event_ids=["e2"]), RULES, raised_ms=RAISED)
    assert one is not None and again is not None and other is not None
    assert one.alert_id == again.alert_id
    assert one.alert_id != other.alert_id
    assert len(one.alert_id) == 20


def test_an_underpayment_and_a_finding_with_no_money() -> None:
    under = alert_of_finding(message(expected=5000, actual=1000), RULES, raised_ms=RAISED)
    assert under is not None and under.annotations["difference"] == "$40.00 under"
    late = alert_of_finding(
        message(check="BET_AFTER_LOCKOUT", severity="high", expected=None, actual=None),
        RULES,
        raised_ms=RAISED,
    )
    assert late is not None
    assert late.annotations["expected"] == "" and late.annotations["difference"] == ""
    assert (
        late.annotations["summary"] == "BET_AFTER_LOCKOUT at LIR-07 seat 3 five_card_bonus (Pit 1)"
    )


def test_below_the_rules_minimum_severity_no_alert() -> None:
    medium = message(check="UNEQUAL_BETS", severity="medium")
    assert alert_of_finding(medium, RULES, raised_ms=RAISED) is None


def test_a_table_no_pit_names_is_unassigned_and_a_table_level_finding_links_the_table() -> None:
    alert = alert_of_finding(
        message(
            table_id="FCP-02",
            round_id=None,
            seat=None,
            bet=None,
            check="SEQUENCE_GAP",
            severity="high",
            expected=None,
            actual=None,
        ),
        RULES,
        raised_ms=RAISED,
    )
    assert alert is not None
    assert alert.pit == "unassigned"
    assert alert.annotations["round_url"] == ""
    assert alert.generator_url == "https://audit.casino.test/tables/FCP-02"
    assert alert.game == "unknown"


def test_a_configured_pit_the_rules_know_is_used_when_no_pattern_names_the_table() -> None:
    alert = alert_of_finding(
        message(table_id="FCP-02"), RULES, raised_ms=RAISED, configured_pit="Pit 1"
    )
    assert alert is not None and alert.pit == "Pit 1"


def test_a_silent_controller_alert_names_when_it_was_last_heard() -> None:
    rules = parse_rules(GOOD.replace("min_severity: high", "checks: [CONTROLLER_SILENT]"))
    alert = alert_of_silence(
        "LIR-07", rules, last_heard_ms=RAISED, silent_for_s=600, raised_ms=RAISED + 600_000
    )
    assert alert is not None
    assert alert.check == "CONTROLLER_SILENT" and alert.severity == "high"
    assert alert.annotations["last_heard_at"] == iso_ms(RAISED) == "2025-12-01T12:00:00.000Z"
    assert "no event for 10 min" in alert.annotations["summary"]
    assert alert_of_finding(message(), rules, raised_ms=RAISED) is None  # not a wanted check


def test_round_url_quotes_both_parts() -> None:
    assert round_url("http://a", "T 1", "r#2") == "http://a/rounds/T%201/r%232"


def test_a_payout_with_no_expected_amount_says_only_what_was_paid() -> None:
    alert = alert_of_finding(
        message(
            check="JACKPOT_NOT_VALIDATED",
            severity="high",
            bet="progressive",
            expected=None,
            actual=100060,
        ),
        RULES,
        raised_ms=RAISED,
    )
    assert alert is not None
    assert alert.annotations["summary"] == (
        "JACKPOT_NOT_VALIDATED at LIR-07 seat 3 progressive (Pit 1): "
        "paid without validation $1,000.60"
    )
    assert alert.annotations["difference"] == ""


def test_the_id_a_message_carries_is_the_alert_s_finding() -> None:
    """The worker's messages carry their row's ``finding_id``: the alert takes it as it is
    (an EVENT_NOT_PROCESSED id rests on Kafka coordinates no message field holds)."""
    given = "0123456789abcdef0123456789abcdef"
    alert = alert_of_finding(
        message(check="EVENT_NOT_PROCESSED", severity="high", round_id=None, seat=None,
                bet=None, expected=None, actual=None, event_ids=[], start_event_id="",
                finding_id=given),
        RULES,
        raised_ms=RAISED,
    )  # fmt: skip
    assert alert is not None
    assert alert.finding_ids == (given,)
    computed = alert_of_finding(message(), RULES, raised_ms=RAISED)
    with_id = alert_of_finding(message(finding_id=given), RULES, raised_ms=RAISED)
    assert computed is not None and with_id is not None
    assert with_id.alert_id != computed.alert_id and with_id.finding_ids == (given,)
