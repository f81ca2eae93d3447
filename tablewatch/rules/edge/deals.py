"""Random deals for Monte-Carlo runs: rows of distinct cards, vectorised."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from tablewatch.rules.cards import DECK_SIZE

_ONE = np.uint64(1)


def sample_cards(rng: np.random.Generator, rows: int, cards: int) -> npt.NDArray[np.uint8]:
    """``(rows, cards)`` array: each row ``cards`` distinct cards in dealing order.

    Column by column, each card is drawn uniformly from the deck and drawn
    again while it is already in its row (a 52-bit mask per row), so it is
    uniform over the cards not yet dealt: every ordered deal is equally likely,
    as with a shuffled deck.
    """
    if not 0 <= cards <= DECK_SIZE:
        raise ValueError(f"cannot deal {cards} cards from one deck")
    out = np.empty((rows, cards), dtype=np.uint8)
    used = np.zeros(rows, dtype=np.uint64)
    for i in range(cards):
        column = rng.integers(0, DECK_SIZE, size=rows, dtype=np.uint8)
        again = np.flatnonzero((used >> column.astype(np.uint64)) & _ONE)
        while len(again):
            redrawn = rng.integers(0, DECK_SIZE, size=len(again), dtype=np.uint8)
            column[again] = redrawn
            taken = (used[again] >> redrawn.astype(np.uint64)) & _ONE
            again = again[taken.astype(bool)]
        out[:, i] = column
        used |= _ONE << column.astype(np.uint64)
    return out
