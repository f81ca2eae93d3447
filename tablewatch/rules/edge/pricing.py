"""Price hands through the pay tables and the hand names settlement uses.

Every hand of an enumeration is given a *key* that determines the names it
answers to (its strength, and for three cards whether they are all spades).
Each distinct key is priced once, from one representative hand, with
:meth:`PayTable.odds_for` and :class:`Odds` exactly as settlement does; the
prices are then gathered back to every hand.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable

import numpy as np
import numpy.typing as npt

from tablewatch.rules.edge.result import EdgeResult
from tablewatch.rules.paytables.odds import Odds, OddsKind
from tablewatch.rules.paytables.table import PayTable

LOSE = -1.0
"""Net result of a losing unit stake."""

_UNIT = 100
"""A stake in cents, large enough that every payout is an exact number of cents."""


def net_win(odds: Odds) -> float:
    """Net result, per unit staked, of a wager won at ``odds`` (protocol meaning).

    "X to 1": the stake is returned and X paid (net +X); "X for 1" and "$N"
    (per $1, for 1): X (N) paid and the stake kept (net X - 1).
    """
    paid = odds.paid(_UNIT)
    if paid is None or odds.kind is OddsKind.METER:
        raise ValueError(f"{odds} depends on the progressive meter: no fixed house edge")
    if odds.kind is OddsKind.TO_ONE:
        return paid / _UNIT
    return (paid - _UNIT) / _UNIT


def net_of_names(table: PayTable, names: Iterable[str]) -> float:
    """Net result per unit of a wager on ``table`` for a hand answering to ``names``."""
    won = table.odds_for(names)
    return LOSE if won is None else net_win(won[1])


def bonus_of_names(table: PayTable, names: Iterable[str]) -> float:
    """What a bonus paid on another wager adds per unit of it (0 when not paid)."""
    won = table.odds_for(names)
    return 0.0 if won is None else net_win(won[1])


def price_by_key(
    keys: npt.NDArray[np.integer], price_row: Callable[[int], float]
) -> npt.NDArray[np.float64]:
    """``price_row(i)`` of every row ``i``, calling it once per distinct key.

    ``keys[i]`` must determine the price of row ``i``; the first row of each
    key is the one priced.
    """
    unique, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    prices = np.fromiter((price_row(int(i)) for i in first), dtype=np.float64, count=len(unique))
    gathered: npt.NDArray[np.float64] = prices[inverse.reshape(-1)]
    return gathered


def price_strengths(
    strengths: npt.NDArray[np.integer],
    value_of_names: Callable[[Iterable[str]], float],
    names_of: Callable[[int], tuple[str, ...]],
) -> npt.NDArray[np.float64]:
    """Price hands whose names depend on their strength alone."""
    return price_by_key(strengths, lambda i: value_of_names(names_of(int(strengths[i]))))


def house_edge_of(net: npt.NDArray[np.float64]) -> float:
    """House edge of equally likely outcomes ``net`` (per unit staked)."""
    return -float(net.mean())


def side_bet_edge(
    game: str,
    wager: str,
    letter: str,
    section: str,
    build: Callable[[str], npt.NDArray[np.float64]],
) -> EdgeResult:
    """The exact edge of a wager priced hand by hand: ``build(letter)`` nets every hand."""
    start = time.perf_counter()
    net = build(letter)
    return EdgeResult(
        game=game,
        wager=wager,
        paytable=letter,
        house_edge=house_edge_of(net),
        exact=True,
        hands=len(net),
        seconds=time.perf_counter() - start,
        extras={
            "hit_frequency": float((net > LOSE).mean()),
            "std_dev": float(net.std()),
            "section": section,
        },
    )
