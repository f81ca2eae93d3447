"""A table's ``patterns:`` settings: defaults, values taken, and each bad one refused."""

from __future__ import annotations

from copy import deepcopy
from typing import Any

import pytest

from tablewatch.rules.config import ConfigError, parse_config
from tablewatch.rules.config_patterns import PatternSettings
from tests.scenarios import CONFIG


def _with(patterns: Any) -> dict[str, Any]:
    document = deepcopy(CONFIG)
    document["tables"]["LIR-1"]["patterns"] = patterns
    return document


def test_absent_every_default() -> None:
    settings = parse_config(CONFIG)["LIR-1"].patterns
    assert settings == PatternSettings()
    assert (settings.shift_hours, settings.shift_start_hour) == (8, 6)
    assert (settings.hold_cusum_k, settings.hold_cusum_h, settings.hold_clip) == (0.25, 20.0, 4.0)
    assert settings.meter_cents_per_wager == 1
    assert (settings.dealer_error_alpha, settings.favours_seat_alpha) == (1e-6, 1e-6)


def test_given_values_are_taken_and_the_rest_default() -> None:
    settings = parse_config(_with({"shift_hours": 12, "hold_cusum_h": 8, "dealer_min_errors": 5}))[
        "LIR-1"
    ].patterns
    assert settings.shift_hours == 12
    assert settings.hold_cusum_h == 8.0 and isinstance(settings.hold_cusum_h, float)
    assert settings.dealer_min_errors == 5
    assert settings.shift_start_hour == 6
    assert parse_config(CONFIG)["FCP-1"].patterns == PatternSettings()


@pytest.mark.parametrize(
    ("patterns", "problem"),
    [
        ({"hold_cusum_hh": 3}, "table LIR-1: patterns.hold_cusum_hh: unknown setting (known: "),
        ({"hold_cusum_h": -1}, "table LIR-1: patterns.hold_cusum_h: -1 is not above 0"),
        ({"hold_cusum_h": "ten"}, "table LIR-1: patterns.hold_cusum_h: a number, not the text"),
        ({"hold_clip": True}, "table LIR-1: patterns.hold_clip: a number, not true/false"),
        ({"shift_hours": 7}, "table LIR-1: patterns.shift_hours: 7 does not divide 24"),
        ({"shift_hours": 2.5}, "table LIR-1: patterns.shift_hours: 2.5 is not a whole number"),
        ({"shift_start_hour": 24}, "table LIR-1: patterns.shift_start_hour: 24 is not an hour"),
        ({"dealer_error_alpha": 1}, "table LIR-1: patterns.dealer_error_alpha: 1 is not a prob"),
        ({"favours_seat_min_errors": 0}, "table LIR-1: patterns.favours_seat_min_errors: 0 is"),
        ({"meter_cents_per_wager": -2}, "table LIR-1: patterns.meter_cents_per_wager: -2 is neg"),
        ([1, 2], "table LIR-1: patterns: a mapping of settings"),
    ],
)
def test_a_bad_setting_is_refused_naming_table_field_and_reason(
    patterns: Any, problem: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config(_with(patterns))
    assert len(caught.value.problems) == 1
    assert caught.value.problems[0].startswith(problem)
