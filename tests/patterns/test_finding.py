"""A pattern's finding becomes a Finding like any other, on its heaviest evidence round."""

from __future__ import annotations

import pytest

from tablewatch.patterns.finding import PatternFinding
from tablewatch.rules.checks.catalog import CHECKS, PATTERN_CHECKS, PROTOCOL_CHECKS


def _pattern(table_id: str | None, evidence: tuple[tuple[str, str], ...]) -> PatternFinding:
    return PatternFinding(
        check="DEALER_FAVOURS_SEAT",
        unit="D-7",
        table_id=table_id,
        message="dealer D-7 overpaid seat 3 in 20 of 100 rounds",
        statistic_name="binomial -log10 p",
        statistic=9.5,
        threshold=6.0,
        false_alarm_rate="1 per 1,000,000 dealer-seats",
        evidence=evidence,
        first_ts="2026-12-01T06:00:00.000Z",
        last_ts="2026-12-01T09:12:34.567Z",
        seat=3,
    )


def test_the_five_codes_are_own_codes_in_the_catalog_not_the_protocols() -> None:
    assert set(PATTERN_CHECKS) == {
        "ADVANTAGE_PLAY_SUSPECTED",
        "DEALER_FAVOURS_SEAT",
        "DEALER_ERROR_RATE_HIGH",
        "HOLD_OUT_OF_BAND",
        "METER_INCREMENT_WRONG",
    }
    assert not set(PATTERN_CHECKS) & set(PROTOCOL_CHECKS)
    assert all(CHECKS[code] is PATTERN_CHECKS[code] for code in PATTERN_CHECKS)


def test_as_finding_goes_on_the_heaviest_round_of_its_table() -> None:
    found = _pattern("T-1", (("T-1", "R-9"), ("T-1", "R-2"))).as_finding()
    assert (found.table_id, found.round_id, found.check, found.seat) == (
        "T-1",
        "R-9",
        "DEALER_FAVOURS_SEAT",
        3,
    )
    assert found.severity == "high"
    assert found.ts == "2026-12-01T09:12:34.567Z"
    assert found.event_ids == ()
    assert "no regulation section" in found.regulation and "§" not in found.regulation
    assert found.message == (
        "dealer D-7 overpaid seat 3 in 20 of 100 rounds (binomial -log10 p 9.50, threshold "
        "6.00, false alarms 1 per 1,000,000 dealer-seats; 2026-12-01T06:00:00.000Z to "
        "2026-12-01T09:12:34.567Z)"
    )


def test_a_pattern_across_tables_goes_on_the_heaviest_rounds_table() -> None:
    found = _pattern(None, (("T-4", "R-1"), ("T-1", "R-2"))).as_finding()
    assert (found.table_id, found.round_id) == ("T-4", "R-1")


def test_with_no_evidence_round_it_is_the_tables() -> None:
    found = _pattern("T-1", ()).as_finding()
    assert (found.table_id, found.round_id) == ("T-1", None)


def test_a_code_that_is_no_pattern_is_refused() -> None:
    with pytest.raises(ValueError, match="WRONG_PAYOUT"):
        PatternFinding("WRONG_PAYOUT", "T-1", "T-1", "m", "s", 1.0, 1.0, "r", (), "a", "b")
