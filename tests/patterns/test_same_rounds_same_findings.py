"""The folds are deterministic: the same judged rounds in the same order give the same
findings (what lets live and replay agree)."""

from __future__ import annotations

from collections.abc import Mapping

from tablewatch.patterns.dealer_errors import DealerErrors
from tablewatch.patterns.finding import PatternFinding
from tablewatch.patterns.hold_band import HoldBand
from tablewatch.patterns.meter_rate import MeterRate
from tablewatch.patterns.pattern_round import Figure
from tablewatch.rules.audit import Auditor
from tablewatch.rules.config import parse_config
from tablewatch.rules.round_result import RoundResult
from tablewatch.rules.table_config import TableConfig
from tablewatch.sim.floor import Floor
from tablewatch.sim.injections import FavouringDealer, HoldDrift, MeterDrift


def _figures(config: TableConfig) -> Mapping[str, Figure]:
    return {wager: (0.03, 2.0) for wager in config.rules.edges}


def _findings(results: list[RoundResult], configs: dict[str, TableConfig]) -> list[PatternFinding]:
    folds = [HoldBand(configs, _figures).feed, MeterRate(configs).feed, DealerErrors(configs).feed]
    return [f for result in results for feed in folds for f in feed(result)]


def test_the_same_rounds_give_the_same_findings_twice() -> None:
    floor = Floor(
        tables=2,
        rounds=800,
        seed=11,
        error_rate=0.02,
        patterns=(HoldDrift(0, 0.4), MeterDrift(0, 0.1), FavouringDealer(1, 3, 0.4)),
    )
    configs = parse_config(floor.config)
    auditor = Auditor(configs)
    results = [o for o in auditor.feed_all(floor.events()) if isinstance(o, RoundResult)]
    first = _findings(results, configs)
    assert {f.check for f in first} >= {
        "HOLD_OUT_OF_BAND",
        "METER_INCREMENT_WRONG",
        "DEALER_FAVOURS_SEAT",
    }
    assert _findings(results, configs) == first
    assert [f.as_finding() for f in _findings(results, configs)] == [f.as_finding() for f in first]
