"""The rules file: the example loads; a bad file is refused with each problem's line and
reason (lines counted by hand in the texts below)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from tablewatch.alerts.rules_file import (
    RulesError,
    go_duration,
    load_rules,
    parse_duration,
    parse_rules,
)

EXAMPLE = Path(__file__).parents[2] / "examples" / "alerts.yaml"

GOOD = """\
contacts:
  pm: {email: pm@casino.test}
  sm: {email: sm@casino.test, webhook: "http://127.0.0.1:9/hook"}
shifts:
  day: {start: "08:00", end: "20:00"}
  night: {start: "20:00", end: "08:00"}
pits:
  Pit 1:
    tables: ["LIR-*"]
    on_call: {day: [pm, sm], night: [sm]}
fallback: [sm]
escalation: [5m, 15m]
rules:
  - name: serious
    min_severity: high
"""


def refused(text: str) -> list[str]:
    with pytest.raises(RulesError) as caught:
        parse_rules(text, "alerts.yaml")
    return caught.value.problems


def test_the_example_file_loads_with_its_pits_shifts_and_steps() -> None:
    rules = load_rules(EXAMPLE)
    assert [p.name for p in rules.pits] == ["Pit 1", "Pit 2"]
    assert [s.name for s in rules.shifts] == ["day", "swing", "grave"]
    assert rules.escalation_s == (300.0, 900.0)
    assert rules.chain("Pit 2", "swing") == ("gus.pit2", "nia.shift", "surveillance")
    assert rules.pit_of("LIR-07") == "Pit 1"
    assert rules.pit_of("FCP-02") == "Pit 2"
    assert rules.pit_of("UTH-01") == "unassigned"
    assert rules.chain("unassigned", "day") == ("surveillance", "sam.shift")
    assert rules.silence_for("LIR-07", "Pit 1") == 300.0
    assert rules.silence_for("LIR-03", "Pit 1") == 600.0
    assert rules.smtp.require_tls is False
    # 13:00 UTC is 08:00 in New York in December: the day shift
    assert rules.shift_at(datetime(2026, 12, 1, 13, 0, tzinfo=UTC)) == "day"
    assert rules.shift_at(datetime(2026, 12, 1, 12, 59, tzinfo=UTC)) == "grave"


def test_a_good_file_chooses_who_by_severity_check_and_pit() -> None:
    rules = parse_rules(GOOD)
    assert rules.wanted(
        check="WRONG_PAYOUT",
        severity="critical",
        pit="Pit 1",
        table_id="LIR-07",
        game="let_it_ride",
    )
    assert not rules.wanted(
        check="UNEQUAL_BETS", severity="medium", pit="Pit 1", table_id="LIR-07", game="let_it_ride"
    )
    assert rules.max_level("Pit 1", "day") == 1  # two contacts: levels 0 and 1
    assert rules.max_level("Pit 1", "night") == 0


def test_durations_read_and_written_as_alertmanager_does() -> None:
    assert parse_duration("90s") == 90.0
    assert parse_duration("1h30m") == 5400.0
    assert go_duration(90) == "1m30s"
    assert go_duration(1) == "1s"
    assert go_duration(3600) == "1h"
    with pytest.raises(ValueError, match="not a duration"):
        parse_duration("5 minutes")


def test_unknown_contact_bad_severity_and_bad_duration_each_at_its_line() -> None:
    text = (
        GOOD.replace(
            "on_call: {day: [pm, sm], night: [sm]}", "on_call: {day: [pm, bob], night: [sm]}"
        )
        .replace("min_severity: high", "min_severity: urgent")
        .replace("escalation: [5m, 15m]", "escalation: [5m, soon]")
    )
    assert refused(text) == [
        "alerts.yaml:10: pits.Pit 1.on_call.day[1]: 'bob' is not in contacts",
        "alerts.yaml:12: escalation[1]: 'soon' is not a duration (like 30s, 5m, 1h30m)",
        "alerts.yaml:15: rules[0].min_severity: 'urgent' is not one of low, medium, high, critical",
    ]


def test_shifts_that_leave_an_hour_uncovered_or_overlap_are_refused() -> None:
    gap = GOOD.replace(
        'night: {start: "20:00", end: "08:00"}', 'night: {start: "21:00", end: "08:00"}'
    )
    assert refused(gap) == [
        "alerts.yaml:4: shifts: no shift holds 20:00 (every minute of the day needs one)"
    ]
    overlap = GOOD.replace('night: {start: "20:00"', 'night: {start: "19:00"')
    assert refused(overlap) == ["alerts.yaml:4: shifts: day and night both hold 19:00"]


def test_unknown_keys_check_codes_and_missing_sections_are_refused() -> None:
    text = GOOD.replace("  - name: serious\n", "  - name: serious\n    checks: [WRONG_PAYOT]\n")
    text = text.replace("fallback: [sm]\n", "fallback: [sm]\nescalate: [1m]\n")
    assert refused(text) == [
        "alerts.yaml:12: file.escalate: unknown key (known: timezone, auditor_url, smtp, timing, "
        "contacts, shifts, pits, fallback, escalation, silence, rules, casework)",
        "alerts.yaml:16: rules[0].checks[0]: 'WRONG_PAYOT' is no check code",
    ]
    assert refused("contacts:\n  pm: {email: pm@casino.test}\n") == [
        "alerts.yaml:1: shifts: is required",
        "alerts.yaml:1: pits: is required",
        "alerts.yaml:1: fallback: is required",
        "alerts.yaml:1: rules: is required",
    ]


def test_not_yaml_an_empty_file_and_a_key_given_twice_are_refused() -> None:
    assert refused("contacts: [pm\nshifts: {}\n") == [
        "alerts.yaml:2: not YAML: expected ',' or ']', but got ':'"
    ]
    assert refused("# nothing\n") == ["alerts.yaml:1: the file is empty"]
    assert refused(GOOD + "fallback: [pm]\n") == ["alerts.yaml:16: fallback: given twice"]


def test_a_contact_nobody_can_reach_and_a_bad_address_are_refused() -> None:
    text = GOOD.replace("pm: {email: pm@casino.test}", "pm: {}").replace(
        'webhook: "http://127.0.0.1:9/hook"', 'webhook: "ftp://x"'
    )
    assert refused(text) == [
        "alerts.yaml:2: contacts.pm: has no way to reach it (email, webhook or slack)",
        "alerts.yaml:3: contacts.sm.webhook: 'ftp://x' is not allowed here",
    ]


def test_a_file_that_cannot_be_read_is_refused_naming_it(tmp_path: Path) -> None:
    with pytest.raises(RulesError, match=r"missing.yaml: cannot be read"):
        load_rules(tmp_path / "missing.yaml")


def test_casework_dispositions_configured_or_the_default() -> None:
    from tablewatch.casework.dispositions import DEFAULT_DISPOSITIONS

    assert parse_rules(GOOD).dispositions == DEFAULT_DISPOSITIONS
    configured = parse_rules(GOOD + "casework:\n  dispositions: [confirmed, not an error]\n")
    assert configured.dispositions == ("confirmed", "not an error")
    assert refused(GOOD + "casework:\n  dispositions: []\n") == [
        "alerts.yaml:17: casework.dispositions: the list is empty: give at least one disposition"
    ]
    assert refused(GOOD + "casework:\n  dispositions: [a, a]\n") == [
        "alerts.yaml:17: casework.dispositions: item 2 ('a') is given twice"
    ]
    assert refused(GOOD + "casework:\n  disposition: [a]\n") == [
        "alerts.yaml:16: casework.dispositions: is required",
        "alerts.yaml:17: casework.disposition: unknown key (known: dispositions)",
    ]
