"""METER_INCREMENT_WRONG on hand-made rounds: two $1.00 progressive wagers a round at a
rate of 20% grow the meter 40 cents, give or take 1 cent a wager (2 cents)."""

from __future__ import annotations

from tablewatch.patterns.finding import PatternFinding
from tablewatch.patterns.meter_rate import MeterRate
from tablewatch.rules.config import parse_config
from tests.patterns import rounds


def _run(step: int, n: int = 30) -> list[tuple[str, PatternFinding]]:
    """``n`` rounds, the meter read before each: $1,000.00 plus ``step`` cents a round."""
    t = rounds.table()
    for i in range(1, n + 1):
        rounds.play(t, f"R-{i}", progressive=(1, 2), meter=100_000 + step * (i - 1))
    configs = rounds.configs()
    fold = MeterRate(configs)
    return [(r.round_id, f) for r in rounds.judged(t, configs) for f in fold.feed(r)]


def test_a_meter_growing_at_its_rate_finds_nothing() -> None:
    assert _run(40) == []


def test_within_the_rounding_finds_nothing() -> None:
    # 42 cents a round: 1 cent a wager more, the most the rounding allows
    assert _run(42) == []


def test_a_meter_growing_a_quarter_too_fast_is_found_on_the_seventh_round() -> None:
    # before round k the meter reads 100000 + 50(k - 1); the band's top after round k is
    # 100000 + 42k: 100300 > 100294 first at k = 7, by 6 cents
    found = _run(50)
    assert [round_id for round_id, _ in found] == ["R-7"]  # one per table and shift
    finding = found[0][1]
    assert finding.check == "METER_INCREMENT_WRONG"
    assert finding.statistic == 6.0 and finding.threshold == 0.0
    assert finding.evidence[0] == ("LIR-P", "R-7")
    assert finding.message.startswith(
        "LIR-P's progressive meter read $1,003.00: from $1,000.00 (2026-12-01T06:00:02.500Z) "
        "the rate of progression 20.00% of $14.00 in 14 progressive wagers makes it "
        "$1,002.28 to $1,002.94"
    )


def test_a_meter_that_stopped_is_found_on_the_second_round() -> None:
    # still $1,000.00 before round 2: the band's bottom is 100000 + 38
    found = _run(0)
    assert [round_id for round_id, _ in found] == ["R-2"]
    assert found[0][1].statistic == 38.0


def test_a_table_with_no_rate_is_not_read() -> None:
    t = rounds.table()
    for i in range(1, 10):
        rounds.play(t, f"R-{i}", progressive=(1, 2), meter=100_000)
    document = rounds.document()
    del document["tables"]["LIR-P"]["progressive_rate"]
    configs = parse_config(document)
    fold = MeterRate(configs)
    assert [f for r in rounds.judged(t, configs) for f in fold.feed(r)] == []
