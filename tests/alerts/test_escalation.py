"""The escalation clock on a controlled clock (milliseconds given)."""

from __future__ import annotations

from tablewatch.alerts.escalation import Due, due, next_change_ms

STEPS = (300.0, 900.0)  # 5 and 15 minutes after the raise
T0 = 1_000_000


def at(seconds: float, *, level: int = 0, acknowledged: bool = False, max_level: int = 2) -> Due:
    return due(
        raised_ms=T0,
        level=level,
        acknowledged=acknowledged,
        resolved=False,
        steps_s=STEPS,
        max_level=max_level,
        expire_s=3600,
        now_ms=T0 + int(seconds * 1000),
    )


def test_unacknowledged_alert_climbs_one_level_per_step() -> None:
    assert at(0) == Due(0, False)
    assert at(299.999) == Due(0, False)
    assert at(300) == Due(1, False)
    assert at(899) == Due(1, False)
    assert at(900) == Due(2, False)
    assert at(3000) == Due(2, False)


def test_an_acknowledged_alert_never_escalates() -> None:
    assert at(1000, level=1, acknowledged=True) == Due(1, False)
    assert at(5000, acknowledged=True) == Due(0, False)


def test_the_chain_caps_the_level_and_a_level_never_goes_down() -> None:
    assert at(1000, max_level=1) == Due(1, False)
    assert at(10, level=1) == Due(1, False)


def test_expiry_after_its_time_unacknowledged() -> None:
    assert at(3599) == Due(2, False)
    assert at(3600) == Due(2, True)


def test_next_change_is_the_next_step_or_the_expiry() -> None:
    kw = {"raised_ms": T0, "steps_s": STEPS, "max_level": 2, "expire_s": 3600.0}
    assert next_change_ms(level=0, **kw) == T0 + 300_000  # type: ignore[arg-type]
    assert next_change_ms(level=1, **kw) == T0 + 900_000  # type: ignore[arg-type]
    assert next_change_ms(level=2, **kw) == T0 + 3_600_000  # type: ignore[arg-type]
