"""Patterns across rounds: detection rate and rounds to detect at stated strengths, against
the false-alarm rate measured on honest floors of the same size.

    python benchmarks/bench_patterns.py [--only hold,meter,dealer] [--runs 10]
                                        [--tables 4] [--rounds 3200] [--error-rate 0.02]
                                        [--first-seed 0]
                                        [--json]

Each run simulates a floor (``--tables`` tables, ``--rounds`` rounds shared among them,
``--error-rate`` of its rounds given a dealer or controller error, seed = the run's
number counted from ``--first-seed``), judges it with the audit engine and feeds every
judged round, in order, to the pattern's fold. With a pattern injected at the floor's
table ``run % tables`` (the games in turn) a run detects it when the fold reports it on
the injected unit; the rounds to detect are those the injected table (the colluding
dealer, for a dealer) had played up to the finding. The honest floors are the same seeds
without the injection: every finding there is a false alarm, given per unit observed (a
table's shift, a table, a dealer). Each part is a function (``hold_band``, ``meter``,
``dealer``); ``main`` runs those ``--only`` names.

``advantage`` (``advantage_play``) runs floors of one game at a time (each game whose
decisions are valued): a hole-carder with a player id at seat 3 of table ``run % tables``
who sees the first hidden card in a share p of rounds; its rounds to detect are his, and
the share caught within 200 of them is given; the false alarms fall on the other units
(player ids, ``table:dealer:seat``), given with their player-hours (each unit from its
first round's start to its last one's end) and the tables' rounds per hour.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass
from functools import partial
from typing import Any

from tablewatch.patterns.advantage_play import AdvantagePlay
from tablewatch.patterns.dealer_errors import DealerErrors
from tablewatch.patterns.finding import PatternFinding
from tablewatch.patterns.hold_band import HOUR_MS, HoldBand, registry_figures
from tablewatch.patterns.meter_rate import MeterRate
from tablewatch.patterns.pattern_round import unit_of
from tablewatch.rules.audit import Auditor
from tablewatch.rules.config import parse_config
from tablewatch.rules.events import ts_to_ms
from tablewatch.rules.round_result import RoundResult
from tablewatch.rules.table_config import TableConfig
from tablewatch.sim.floor import Floor
from tablewatch.sim.games import simulated
from tablewatch.sim.injections import (
    FavouringDealer,
    HoldDrift,
    MeterDrift,
    PatternInjection,
    pattern_text,
)
from tablewatch.sim.players import HoleCarder

Fold = Callable[[dict[str, TableConfig]], Callable[[RoundResult], list[PatternFinding]]]
HOLD_STRENGTHS = (0.1, 0.2, 0.4)  # share of rounds whose lost wagers are pushed
METER_STRENGTHS = (0.02, 0.05, 0.1)  # the meter grows by its rate times 1 + x
DEALER_STRENGTHS = (0.1, 0.2, 0.3)  # share of the colluder's rounds overpaying the seat
FIGURES = registry_figures()  # computed once for every run


@dataclass(frozen=True, slots=True)
class Options:
    runs: int
    tables: int
    rounds: int
    error_rate: float
    first_seed: int = 0

    def seeds(self) -> range:
        """The runs' seeds: ``runs`` of them from ``first_seed``."""
        return range(self.first_seed, self.first_seed + self.runs)


@dataclass(frozen=True, slots=True)
class Row:
    check: str
    injected: str  # the injection's kind and strength; "none" for the honest floors
    runs: int
    detected: int
    rounds_median: float | None  # rounds to detect, among the runs that detected
    rounds_max: int | None
    false_alarms: int  # findings on a unit not injected
    units: int  # the units those could have fallen on (table-shifts, tables, dealers)
    seconds: float
    within: int | None = None  # runs detected within TARGET_ROUNDS (advantage play)
    player_hours: float | None = None  # of the units a false alarm could have fallen on
    rounds_per_hour: float | None = None  # of the simulated tables, by their clocks


def judged(floor: Floor) -> Iterator[RoundResult]:
    auditor = Auditor(parse_config(floor.config))
    for out in auditor.feed_all(floor.events()):
        if isinstance(out, RoundResult):
            yield out


def _run(
    options: Options,
    seed: int,
    pattern: PatternInjection | None,
    fold: Fold,
    check: str,
    injected_unit: Callable[[Floor], str] | None,
    unit_of_round: Callable[[RoundResult], str],
) -> tuple[int | None, int, set[str]]:
    """(rounds of the injected unit to detect, or None; false alarms; units seen)."""
    floor = Floor(
        options.tables,
        options.rounds,
        seed,
        options.error_rate,
        patterns=(pattern,) if pattern is not None else (),
    )
    feed = fold(parse_config(floor.config))
    target = injected_unit(floor) if injected_unit is not None else None
    played = 0
    detected: int | None = None
    false_alarms = 0
    units: set[str] = set()
    for result in judged(floor):
        units.add(unit_of_round(result))
        if target in (result.table_id, result.dealer_id):
            played += 1
        for finding in feed(result):
            if finding.check != check:
                continue
            if target is not None and target in (finding.unit, finding.table_id, _dealer(finding)):
                detected = played if detected is None else detected
            else:
                false_alarms += 1
    if target is not None:  # the units a false alarm could have fallen on
        units = {unit for unit in units if not unit.startswith(target)}
    return detected, false_alarms, units


def _dealer(finding: PatternFinding) -> str | None:
    """The dealer a dealer finding is about (its unit or the dealer in table:dealer:seat)."""
    parts = finding.unit.split(":")
    return parts[1] if len(parts) == 3 else finding.unit


def _rows(
    options: Options,
    check: str,
    strengths: Sequence[float],
    make: Callable[[int, float], PatternInjection],
    fold: Fold,
    injected_unit: Callable[[PatternInjection, Floor], str],
    unit_of_round: Callable[[RoundResult], str],
) -> list[Row]:
    rows = []
    started = time.perf_counter()
    alarms = 0
    units = 0
    for seed in options.seeds():
        _, found, seen = _run(options, seed, None, fold, check, None, unit_of_round)
        alarms += found
        units += len(seen)
    rows.append(
        Row(
            check, "none", options.runs, 0, None, None, alarms, units, time.perf_counter() - started
        )
    )
    for strength in strengths:
        started = time.perf_counter()
        rounds: list[int] = []
        alarms = units = 0
        for seed in options.seeds():
            pattern = make(seed % options.tables, strength)
            detected, found, seen = _run(
                options,
                seed,
                pattern,
                fold,
                check,
                partial(injected_unit, pattern),
                unit_of_round,
            )
            alarms += found
            units += len(seen)
            if detected is not None:
                rounds.append(detected)
        kind = pattern_text(make(0, strength)).split(":")[0]
        rows.append(
            Row(
                check,
                f"{kind} {strength:g}",
                options.runs,
                len(rounds),
                statistics.median(rounds) if rounds else None,
                max(rounds) if rounds else None,
                alarms,
                units,
                time.perf_counter() - started,
            )
        )
    return rows


def _shift_unit(result: RoundResult) -> str:
    """A table's shift (the default 8 h shifts from 06:00 UTC)."""
    return f"{result.table_id}@{(ts_to_ms(result.start_ts) - 6 * HOUR_MS) // (8 * HOUR_MS)}"


def _table_of(pattern: PatternInjection, floor: Floor) -> str:
    return str(list(floor.config["tables"])[pattern.table])


def _colluder(pattern: PatternInjection, floor: Floor) -> str:
    return f"DL-{_table_of(pattern, floor)}-C"


def hold_band(options: Options) -> list[Row]:
    """HOLD_OUT_OF_BAND: chips walked in a share of a table's rounds."""
    return _rows(
        options,
        "HOLD_OUT_OF_BAND",
        HOLD_STRENGTHS,
        lambda table, x: HoldDrift(table, x),
        lambda configs: HoldBand(configs, FIGURES).feed,
        _table_of,
        _shift_unit,
    )


def meter(options: Options) -> list[Row]:
    """METER_INCREMENT_WRONG: a meter growing by its rate times 1 + x."""
    return _rows(
        options,
        "METER_INCREMENT_WRONG",
        METER_STRENGTHS,
        lambda table, x: MeterDrift(table, x),
        lambda configs: MeterRate(configs).feed,
        _table_of,
        lambda result: result.table_id,
    )


def dealer(options: Options) -> list[Row]:
    """DEALER_FAVOURS_SEAT: a colluding dealer overpaying seat 3 in a share of his rounds."""
    return _rows(
        options,
        "DEALER_FAVOURS_SEAT",
        DEALER_STRENGTHS,
        lambda table, x: FavouringDealer(table, 3, x),
        lambda configs: DealerErrors(configs).feed,
        _colluder,
        lambda result: result.dealer_id or "",
    ) + _rows(
        options,
        "DEALER_ERROR_RATE_HIGH",
        DEALER_STRENGTHS,
        lambda table, x: FavouringDealer(table, 3, x),
        lambda configs: DealerErrors(configs).feed,
        _colluder,
        lambda result: result.dealer_id or "",
    )


CARDER_SEAT = 3
CARDER_ID = "PC-HOLE"
ADVANTAGE_SEES = (0.25, 0.5, 1.0)  # the share of rounds the hole-carder sees the first card
ADVANTAGE_GAMES = ("three_card_poker", "ultimate_texas_holdem", "let_it_ride", "four_card_poker")
TARGET_ROUNDS = 200  # caught within this many of his rounds


def _advantage_run(
    options: Options, seed: int, game: str, sees: float | None
) -> tuple[int | None, int, int, float, int, float]:
    """One floor of ``game`` (a hole-carder with his player id at table ``seed % tables``,
    seat 3, when ``sees`` is given): (his rounds to the first finding on him, or None; false
    alarms; honest units; their player-hours, each unit from its first round's start to its
    last one's end; rounds; table-hours)."""
    carders = (
        (HoleCarder(seed % options.tables, CARDER_SEAT, sees, CARDER_ID, seed),)
        if sees is not None
        else ()
    )
    floor = Floor(
        options.tables,
        options.rounds,
        seed,
        options.error_rate,
        games=(simulated(game),),
        hole_carders=carders,
    )
    target = str(list(floor.config["tables"])[seed % options.tables]) if carders else None
    fold = AdvantagePlay()
    spans: dict[str, list[int]] = {}  # unit -> [first start, last end] (ms)
    tables: dict[str, list[int]] = {}
    played = rounds = false_alarms = 0
    detected: int | None = None
    for result in judged(floor):
        rounds += 1
        start, end = ts_to_ms(result.start_ts), ts_to_ms(result.end_ts)
        span = tables.setdefault(result.table_id, [start, end])
        span[1] = end
        played += result.table_id == target
        for seat in result._context.view.seats():
            unit = unit_of(result, seat)
            if unit != CARDER_ID:
                spans.setdefault(unit, [start, end])[1] = end
        for finding in fold.feed(result):
            if finding.unit == CARDER_ID:
                detected = played if detected is None else detected
            else:
                false_alarms += 1
    hours = sum(end - start for start, end in spans.values()) / HOUR_MS
    table_hours = sum(end - start for start, end in tables.values()) / HOUR_MS
    return detected, false_alarms, len(spans), hours, rounds, table_hours


def advantage_play(
    options: Options,
    games: Sequence[str] = ADVANTAGE_GAMES,
    strengths: Sequence[float] = ADVANTAGE_SEES,
) -> list[Row]:
    """ADVANTAGE_PLAY_SUSPECTED: a hole-carder who sees the first hidden card in a share p of
    rounds (each of ``strengths``), on floors of each of ``games``; honest floors of the
    same seeds and size for the false alarms, per player-hour."""
    rows = []
    for game in games:
        title = simulated(game).rules.title
        for sees in (None, *strengths):
            started = time.perf_counter()
            found: list[int] = []
            alarms = units = rounds = 0
            hours = table_hours = 0.0
            for seed in options.seeds():
                detected, false, seen, unit_hours, played, on_tables = _advantage_run(
                    options, seed, game, sees
                )
                alarms += false
                units += seen
                hours += unit_hours
                rounds += played
                table_hours += on_tables
                if detected is not None:
                    found.append(detected)
            rows.append(
                Row(
                    "ADVANTAGE_PLAY_SUSPECTED",
                    f"{title}: " + ("none" if sees is None else f"hole-carder p={sees:g}"),
                    options.runs,
                    len(found),
                    statistics.median(found) if found else None,
                    max(found) if found else None,
                    alarms,
                    units,
                    time.perf_counter() - started,
                    within=None if sees is None else sum(n <= TARGET_ROUNDS for n in found),
                    player_hours=hours,
                    rounds_per_hour=rounds / table_hours if table_hours else None,
                )
            )
    return rows


PARTS: dict[str, Callable[[Options], list[Row]]] = {
    "advantage": advantage_play,
    "hold": hold_band,
    "meter": meter,
    "dealer": dealer,
}


def table(rows: Sequence[Row]) -> str:
    lines = [
        "| check | injected | detected | rounds to detect (median, max) | false alarms "
        "(units) | seconds |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        detect = "-" if row.injected.endswith("none") else f"{row.detected}/{row.runs}"
        if row.within is not None:
            detect += f" ({row.within} within {TARGET_ROUNDS} rounds)"
        rounds = "-" if row.rounds_median is None else f"{row.rounds_median:g}, {row.rounds_max}"
        lines.append(
            f"| {row.check} | {row.injected} | {detect} | {rounds} | {row.false_alarms} "
            f"({row.units:,}{_hours(row)}) | {row.seconds:.0f} |"
        )
    return "\n".join(lines)


def _hours(row: Row) -> str:
    """The player-hours and the rounds per hour of a row that counts them."""
    if row.player_hours is None:
        return ""
    rate = f", {row.rounds_per_hour:.0f} rounds/h" if row.rounds_per_hour else ""
    return f"; {row.player_hours:,.0f} player-hours{rate}"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default=",".join(PARTS), help="parts, comma-separated")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument(
        "--first-seed", type=int, default=0, help="the first run's seed (the runs' are in a row)"
    )
    parser.add_argument("--tables", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3200)
    parser.add_argument("--error-rate", type=float, default=0.02)
    parser.add_argument("--json", action="store_true")
    parser.add_argument(
        "--advantage-games",
        default=",".join(ADVANTAGE_GAMES),
        help="the games of the advantage part, comma-separated",
    )
    parser.add_argument(
        "--advantage-sees",
        default=",".join(f"{p:g}" for p in ADVANTAGE_SEES),
        help="the hole-carder's shares of rounds seen, comma-separated (honest floors too)",
    )
    args = parser.parse_args(argv)
    chosen = [name.strip() for name in args.only.split(",") if name.strip()]
    unknown = [name for name in chosen if name not in PARTS]
    if unknown:
        parser.error(f"--only: {', '.join(unknown)} not among {', '.join(PARTS)}")
    options = Options(args.runs, args.tables, args.rounds, args.error_rate, args.first_seed)
    rows: list[Row] = []
    for name in chosen:
        if name == "advantage":
            games = [g.strip() for g in args.advantage_games.split(",") if g.strip()]
            strengths = [float(p) for p in args.advantage_sees.split(",") if p.strip()]
            rows += advantage_play(options, games, strengths)
        else:
            rows += PARTS[name](options)
    if args.json:
        out: list[dict[str, Any]] = [asdict(row) for row in rows]
        json.dump({"options": asdict(options), "rows": out}, sys.stdout, indent=1)
        print()
    else:
        print(table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
