"""The ``theoretical`` table: house edge and per-unit standard deviation of each priced wager.

Written by ``tablewatch db migrate`` from the computations of ``tablewatch edge``
(:mod:`tablewatch.rules.edge`): every exactly enumerated wager under each of its pay
tables, and a wager priced by Monte-Carlo (pay table '', or the letter of the other
wager's table it is settled with) with fewer deals than ``tablewatch edge`` runs by
default (:data:`ANTE_SAMPLES`; a standard error of about 0.0014 unit). Only the rows a
store lacks are computed and written: a store that has them all costs one query. A
wager priced by the rows a table states (:class:`~tablewatch.rules.game_rules.RowsEdge`)
has no pay table to compute ahead: its figures are those of the configured tables' rows
(:func:`fill_configured`, when the worker starts), keyed by the rows as
``table_paytables`` writes them.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from clickhouse_connect.driver.client import Client

if TYPE_CHECKING:  # the rules are imported when figures are computed, not with this module
    from tablewatch.rules.edge.result import EdgeResult
    from tablewatch.rules.table_config import TableConfig

THEORETICAL = "theoretical"
COLUMNS = ("game", "wager", "paytable", "edge", "std_dev", "exact", "hands", "unit", "computed_at")
ANTE_SAMPLES = 4_000_000
ANTE_TRAIN_SAMPLES = 4_000_000
_MONTE_CARLO: dict[str, int] = {"samples": ANTE_SAMPLES, "train_samples": ANTE_TRAIN_SAMPLES}


@dataclass(frozen=True, slots=True)
class Theoretical:
    game: str
    wager: str
    paytable: str  # '' when the wager has none
    edge: float
    std_dev: float
    exact: bool
    hands: int
    unit: str

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.game, self.wager, self.paytable)


@cache
def figures() -> tuple[Theoretical, ...]:
    """Every priced wager under every pay table (computed once per process)."""
    from tablewatch.rules.edge import (
        ExactEdge,
        RowsEdge,
        exact_edge,
        games_with_edges,
        wager_edge,
        wagers_of,
    )

    out: list[Theoretical] = []
    for game in games_with_edges():
        for wager in wagers_of(game):
            spec = wager_edge(game, wager)
            if isinstance(spec, RowsEdge):
                continue  # priced by the rows a table states: no pay table to compute ahead
            if isinstance(spec, ExactEdge):
                results = [(letter, exact_edge(game, wager, letter)) for letter in spec.tables]
            elif spec.tables is not None:  # settled with another wager's table, by its letter
                results = [
                    (letter, spec.compute(game, letter=letter, **_MONTE_CARLO))
                    for letter in spec.tables
                ]
            else:
                results = [("", spec.compute(game, **_MONTE_CARLO))]
            out.extend(_figure(game, wager, letter, result) for letter, result in results)
    return tuple(out)


def _figure(game: str, wager: str, paytable: str, result: EdgeResult) -> Theoretical:
    std = result.extras.get("std_dev")
    if not isinstance(std, float):
        raise RuntimeError(f"{game} {wager}: no std_dev in the edge's result")
    unit = result.extras.get("unit")
    return Theoretical(
        game=game,
        wager=wager,
        paytable=paytable,
        edge=result.house_edge,
        std_dev=std,
        exact=result.exact,
        hands=result.hands,
        unit=unit if isinstance(unit, str) else "the wager",
    )


def configured_keys(configs: Mapping[str, TableConfig]) -> dict[tuple[str, str, str], str]:
    """(game, wager, rows) of every wager the configured tables price by rows -> the table
    whose configuration states them (the first, by table id)."""
    from tablewatch.rules.game_rules import RowsEdge
    from tablewatch.store.table_paytables import priced_by

    keys: dict[tuple[str, str, str], str] = {}
    for table_id, config in sorted(configs.items()):
        for wager, spec in config.rules.edges.items():
            if isinstance(spec, RowsEdge) and spec.slot in config.paytables:
                keys.setdefault((config.game, wager, priced_by(config, wager)), table_id)
    return keys


def fill_configured(
    client: Client, configs: Mapping[str, TableConfig], now_ms: int | None = None
) -> int:
    """Write the figures of the configured tables' row-priced wagers the store lacks (each
    distinct pay table computed once, exactly); the number of rows written."""
    from tablewatch.rules.game_rules import RowsEdge

    have = stored(client)
    missing = {k: t for k, t in configured_keys(configs).items() if k not in have}
    rows = []
    for (game, wager, paytable), table_id in sorted(missing.items()):
        config = configs[table_id]
        spec = config.rules.edges[wager]
        assert isinstance(spec, RowsEdge)
        result = spec.compute(game, config.paytables[spec.slot], None)
        rows.append(_figure(game, wager, paytable, result))
    return _insert(client, rows, now_ms)


def expected_keys() -> set[tuple[str, str, str]]:
    """(game, wager, paytable) of every figure :func:`figures` gives, without computing them."""
    from tablewatch.rules.edge import RowsEdge, games_with_edges, wager_edge, wagers_of

    keys: set[tuple[str, str, str]] = set()
    for game in games_with_edges():
        for wager in wagers_of(game):
            spec = wager_edge(game, wager)
            if isinstance(spec, RowsEdge):
                continue  # as in figures()
            letters = list(spec.tables) if spec.tables is not None else [""]
            keys.update((game, wager, letter) for letter in letters)
    return keys


def stored(client: Client) -> dict[tuple[str, str, str], tuple[float, float]]:
    rows = client.query(
        "SELECT game, wager, paytable, edge, std_dev FROM theoretical_v"
    ).result_rows
    return {(str(g), str(w), str(p)): (float(e), float(s)) for g, w, p, e, s in rows}


def fill(client: Client, now_ms: int | None = None) -> int:
    """Write the figures the store lacks; the number of rows written."""
    missing = expected_keys() - set(stored(client))
    if not missing:
        return 0
    return _insert(client, [f for f in figures() if f.key in missing], now_ms)


def _insert(client: Client, rows: list[Theoretical], now_ms: int | None) -> int:
    if not rows:
        return 0
    when = now_ms if now_ms is not None else int(time.time() * 1000)
    client.insert(
        THEORETICAL,
        [
            [f.game, f.wager, f.paytable, f.edge, f.std_dev, f.exact, f.hands, f.unit, when]
            for f in rows
        ],
        column_names=list(COLUMNS),
    )
    return len(rows)
