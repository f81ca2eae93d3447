"""The ``theoretical`` table: house edge and per-unit standard deviation of each priced wager.

Written by ``tablewatch db migrate`` from the computations of ``tablewatch edge``
(:mod:`tablewatch.rules.edge`): every exactly enumerated wager under each of its pay
tables, and a wager priced by Monte-Carlo (pay table '') with fewer deals than
``tablewatch edge`` runs by default (:data:`ANTE_SAMPLES`; a standard error of about
0.0014 unit). Only the rows a store lacks are computed and written: a
store that has them all costs one query.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import cache

from clickhouse_connect.driver.client import Client

THEORETICAL = "theoretical"
COLUMNS = ("game", "wager", "paytable", "edge", "std_dev", "exact", "hands", "unit", "computed_at")
ANTE_SAMPLES = 4_000_000
ANTE_TRAIN_SAMPLES = 4_000_000


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
                results = [exact_edge(game, wager, letter) for letter in spec.tables]
            else:
                results = [
                    spec.compute(game, samples=ANTE_SAMPLES, train_samples=ANTE_TRAIN_SAMPLES)
                ]
            for result in results:
                std = result.extras.get("std_dev")
                if not isinstance(std, float):
                    raise RuntimeError(f"{game} {wager}: no std_dev in the edge's result")
                unit = result.extras.get("unit")
                out.append(
                    Theoretical(
                        game=game,
                        wager=wager,
                        paytable=result.paytable or "",
                        edge=result.house_edge,
                        std_dev=std,
                        exact=result.exact,
                        hands=result.hands,
                        unit=unit if isinstance(unit, str) else "the wager",
                    )
                )
    return tuple(out)


def expected_keys() -> set[tuple[str, str, str]]:
    """(game, wager, paytable) of every figure :func:`figures` gives, without computing them."""
    from tablewatch.rules.edge import ExactEdge, RowsEdge, games_with_edges, wager_edge, wagers_of

    keys: set[tuple[str, str, str]] = set()
    for game in games_with_edges():
        for wager in wagers_of(game):
            spec = wager_edge(game, wager)
            if isinstance(spec, RowsEdge):
                continue  # as in figures()
            letters = list(spec.tables) if isinstance(spec, ExactEdge) else [""]
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
    rows = [f for f in figures() if f.key in missing]
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
