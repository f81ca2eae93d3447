"""HOLD_OUT_OF_BAND: the CUSUM on hand-made rounds whose standardized win is known.

With figures edge 0 and SD 1 per unit, one seat's three lost $25.00 bets are a house
win of $75.00 on one unit of $25.00: z = 7500 / 2500 = 3; three won are z = -3. With
k = 0.25 each such round adds 2.75 to one side: 2.75, 5.5, 8.25, 11.0 passes h = 10 on
the fourth round.
"""

from __future__ import annotations

from collections.abc import Mapping

from tablewatch.patterns.finding import PatternFinding
from tablewatch.patterns.hold_band import HoldBand
from tablewatch.patterns.pattern_round import Figure
from tablewatch.rules.table_config import TableConfig
from tests.patterns import rounds

SETTINGS = {"hold_cusum_k": 0.25, "hold_cusum_h": 10}


def _flat(config: TableConfig) -> Mapping[str, Figure]:
    return {"main": (0.0, 1.0)}


def _run(start: str, n: int, *, won: bool = False) -> tuple[list[str], list[PatternFinding]]:
    t = rounds.table(start)
    for i in range(1, n + 1):
        rounds.play(t, f"R-{i}", seats=(1,), won_by=(1,) if won else ())
    configs = rounds.configs(SETTINGS)
    fold = HoldBand(configs, _flat)
    found: list[PatternFinding] = []
    starts = []
    for result in rounds.judged(t, configs):
        starts.append(result.start_ts)
        found += fold.feed(result)
    return starts, found


def test_four_lost_rounds_cross_above_on_the_fourth() -> None:
    t = rounds.table()
    for i in range(1, 5):
        rounds.play(t, f"R-{i}", seats=(1,))
    configs = rounds.configs(SETTINGS)
    fold = HoldBand(configs, _flat)
    per_round = [fold.feed(result) for result in rounds.judged(t, configs)]
    assert [len(found) for found in per_round] == [0, 0, 0, 1]
    finding = per_round[3][0]
    assert finding.check == "HOLD_OUT_OF_BAND" and finding.unit == "LIR-P"
    assert finding.statistic == 11.0 and finding.threshold == 10.0
    assert finding.statistic_name == "CUSUM of standardized house win (above)"
    assert finding.evidence == tuple(("LIR-P", f"R-{i}") for i in range(1, 5))
    assert finding.first_ts == "2026-12-01T06:00:00.000Z"
    assert finding.message == (
        "LIR-P held above its band in the shift from 2026-12-01T06:00:00.000Z: the house "
        "won $300.00 against $0.00 the edge expects (standard error $50.00) over 4 rounds"
    )
    assert finding.false_alarm_rate == "1 per 1,037 honest rounds (Siegmund's ARL, normal rounds)"
    assert finding.as_finding().round_id == "R-1"


def test_won_rounds_cross_below() -> None:
    _, found = _run("2026-12-01T06:00:00.000Z", 5, won=True)
    assert [f.statistic_name for f in found] == ["CUSUM of standardized house win (below)"]
    assert found[0].evidence[-1] == ("LIR-P", "R-4")


def test_the_sums_start_again_at_the_shift_boundary() -> None:
    starts, found = _run("2026-12-01T13:58:10.000Z", 7)
    # three rounds before 14:00 (8.25), then four in the next shift: 11.0 on the seventh
    assert starts[2] < "2026-12-01T14:00:00.000Z" <= starts[3]
    assert len(found) == 1
    assert found[0].first_ts == "2026-12-01T14:00:00.000Z"
    assert found[0].last_ts == starts[6]
    assert found[0].evidence == tuple(("LIR-P", f"R-{i}") for i in range(4, 8))


def test_once_per_table_shift_and_side() -> None:
    _, found = _run("2026-12-01T06:00:00.000Z", 12)
    assert len(found) == 1


def test_rounds_within_the_edge_find_nothing() -> None:
    # figures whose edge expects exactly the $75.00 won each round: z = 0
    t = rounds.table()
    for i in range(1, 30):
        rounds.play(t, f"R-{i}", seats=(1,))
    configs = rounds.configs(SETTINGS)
    fold = HoldBand(configs, lambda config: {"main": (3.0, 1.0)})
    assert [f for r in rounds.judged(t, configs) for f in fold.feed(r)] == []
