"""The simulator's pattern injections do what they say, and a floor without them is the
floor it was."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from click.testing import CliRunner

from tablewatch.cli import main as cli
from tablewatch.patterns.meter_rate import MeterRate
from tablewatch.rules.audit import Auditor
from tablewatch.rules.config import parse_config
from tablewatch.rules.events import Meter, Settle
from tablewatch.rules.round_result import RoundResult
from tablewatch.sim.floor import Floor
from tablewatch.sim.injections import (
    FavouringDealer,
    HoldDrift,
    MeterDrift,
    PatternInjection,
    parse_pattern,
)

ROUNDS = 400


def _floor(*patterns: PatternInjection) -> Floor:
    return Floor(tables=1, rounds=ROUNDS, seed=5, patterns=patterns)


def _results(floor: Floor) -> list[RoundResult]:
    auditor = Auditor(parse_config(floor.config))
    return [o for o in auditor.feed_all(floor.events()) if isinstance(o, RoundResult)]


def test_walked_chips_push_every_lost_wager_of_a_share_of_rounds() -> None:
    floor = _floor(HoldDrift(0, 0.2))
    results = _results(floor)
    truth = floor.truth()
    assert {t.check for t in truth} == {"WRONG_PAYOUT"}
    walked = {t.round_id for t in truth}
    assert 0.12 * ROUNDS < len(walked) < 0.28 * ROUNDS  # 0.2 of 400: SD 8 rounds
    found = {
        (r.round_id, f.seat, f.bet)
        for r in results
        for f in r.findings
        if f.check == "WRONG_PAYOUT"
    }
    assert found == {(t.round_id, t.seat, t.bet) for t in truth}
    for result in results:
        if result.round_id in walked:  # every wager the house won was pushed
            lines = [s for s in result.settlements if s.expected_result == "lose"]
            assert lines and all(s.actual_result == "push" for s in lines)


def test_a_meter_growing_half_again_too_fast() -> None:
    floor = _floor(MeterDrift(0, 0.5))
    events = list(floor.events())
    readings = [e.amount for e in events if isinstance(e, Meter)]
    paid = any(isinstance(e, Settle) and e.meter is not None for e in events)
    honest = _floor()
    honest_readings = [e.amount for e in honest.events() if isinstance(e, Meter)]
    assert not paid  # no payout reset the meters: growth alone
    # the same wagers: each step 1.5 times the honest one, give or take the cent rounded off
    steps = [b - a for a, b in itertools.pairwise(readings)]
    honest_steps = [b - a for a, b in itertools.pairwise(honest_readings)]
    assert len(steps) == len(honest_steps) > 50
    assert all(abs(s - 1.5 * h) <= 1.5 for s, h in zip(steps, honest_steps, strict=True))
    configs = parse_config(floor.config)
    fold = MeterRate(configs)
    assert [f.check for r in _results(floor) for f in fold.feed(r)][:1] == ["METER_INCREMENT_WRONG"]
    fold = MeterRate(configs)
    assert [f for r in _results(honest) for f in fold.feed(r)] == []


def test_a_colluding_dealer_overpays_one_seat_in_his_rounds() -> None:
    floor = _floor(FavouringDealer(0, 3, 0.3))
    results = _results(floor)
    truth = floor.truth()
    dealers = {r.round_id: r.dealer_id for r in results}
    assert truth and all(t.seat == 3 and t.check == "WRONG_PAYOUT" for t in truth)
    assert {dealers[t.round_id or ""] for t in truth} == {"DL-FCP-01-C"}
    his = [
        r
        for r in results
        if r.dealer_id == "DL-FCP-01-C" and any(s.seat == 3 for s in r.settlements)
    ]
    assert 0.15 * len(his) < len(truth) < 0.45 * len(his)
    assert {r.dealer_id for r in results} >= {"DL-FCP-01-C", "DL-FCP-01-2"}


def test_without_patterns_the_floor_is_the_same() -> None:
    plain = Floor(tables=2, rounds=200, seed=3)
    none = Floor(tables=2, rounds=200, seed=3, patterns=())
    assert list(plain.events()) == list(none.events())


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("hold:0", "'hold:0': expected hold:TABLE:X"),
        ("leak:0:0.1", "'leak:0:0.1': kind 'leak' is not one of hold, meter, dealer"),
        ("hold:x:0.1", "'hold:x:0.1': TABLE 'x' is not a table's number from 0"),
        ("hold:0:1.5", "'hold:0:1.5': strength 1.5 is not a share from 0 to 1"),
        ("dealer:0:9:0.2", "'dealer:0:9:0.2': SEAT 9 is not a seat 1 to 7"),
        ("meter:0:abc", "'meter:0:abc': strength 'abc' is not a number"),
    ],
)
def test_a_bad_injection_is_refused_naming_it(text: str, problem: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_pattern(text)
    assert str(caught.value) == problem


def test_parsed_injections() -> None:
    assert parse_pattern("hold:2:0.1") == HoldDrift(2, 0.1)
    assert parse_pattern("meter:0:-0.1") == MeterDrift(0, -0.1)
    assert parse_pattern("dealer:1:3:0.2") == FavouringDealer(1, 3, 0.2)


def test_a_meter_drift_on_a_table_with_no_meter_is_refused() -> None:
    # the floor's fifth table (index 4) offers no progressive
    with pytest.raises(ValueError, match=r"table 4 .* has no progressive meter"):
        Floor(tables=5, rounds=10, seed=1, patterns=(MeterDrift(4, 0.1),))


def test_simulate_takes_patterns_and_refuses_a_bad_one(tmp_path: Path) -> None:
    runner = CliRunner()
    args = ["simulate", "--tables", "1", "--rounds", "120", "--error-rate", "0"]
    done = runner.invoke(cli, [*args, "--out", str(tmp_path), "--pattern", "dealer:0:3:0.5"])
    assert done.exit_code == 0, done.output
    truth = (tmp_path / "truth.jsonl").read_text().splitlines()
    assert truth and all('"seat":3' in line and "WRONG_PAYOUT" in line for line in truth)
    bad = runner.invoke(cli, [*args, "--out", str(tmp_path), "--pattern", "meter:9:0.1"])
    assert bad.exit_code == 2
    assert "Invalid value for --pattern: meter:9:0.1: table 9 is not 0 to 0" in bad.output
