"""A table's round-id window: the round ids of the last ``size`` rounds it opened.

The protocol makes ``round_id`` unique per table. A round is opened by its
``round_start`` (or by its first event when the ``round_start`` never came);
:meth:`RoundIdWindow.open` remembers the round's id with where that round
began (:class:`RoundOpening`) and says whether a round with the same id was
opened before, among the last ``size`` rounds. For each id the window keeps
where the first of its rounds still remembered began, and how many of them
there are: an id is forgotten once every round that carried it has left the
window.

One dict lookup and an append per round opened; nothing per event. The
window's rounds are plain tuples, so that a snapshot of the last ones
(:meth:`RoundIdWindow.recent`) is a slice, encoded as it is.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from itertools import islice
from typing import NamedTuple


class RoundOpening(NamedTuple):
    """Where a round began: the event that opened it (its ``round_start``, or its first
    event when none came), with that event's ``seq`` and ``ts``."""

    event_id: str
    seq: int
    ts: str


# A round of the window: its round_id, and where the first round of that id in the window began.
WindowRound = tuple[str, RoundOpening]


class _Remembered:
    """An id in the window: where its first remembered round began; how many rounds carry it."""

    __slots__ = ("opening", "rounds")

    def __init__(self, opening: RoundOpening) -> None:
        self.opening = opening
        self.rounds = 1


class RoundIdWindow:
    """The round ids of the last ``size`` rounds opened, oldest first."""

    __slots__ = ("_ids", "_order", "size")

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError("a round-id window holds at least one round")
        self.size = size
        self._ids: dict[str, _Remembered] = {}
        self._order: deque[WindowRound] = deque()

    def __len__(self) -> int:
        """Rounds in the window (an id carried by two of them counts twice)."""
        return len(self._order)

    def first_opening(self, round_id: str) -> RoundOpening | None:
        """Where the first round with ``round_id`` still in the window began, if any."""
        known = self._ids.get(round_id)
        return known.opening if known is not None else None

    def open(self, round_id: str, opening: RoundOpening) -> RoundOpening | None:
        """Remember a round opened with ``round_id`` at ``opening``; returns where the first
        earlier round with the same id still in the window began (None: the id is new)."""
        known = self._ids.get(round_id)
        if known is None:
            self._ids[round_id] = _Remembered(opening)
            first = opening
        else:
            known.rounds += 1
            first = known.opening
        order = self._order
        order.append((round_id, first))
        if len(order) > self.size:
            oldest = order.popleft()[0]
            left = self._ids[oldest]
            left.rounds -= 1
            if left.rounds == 0:
                del self._ids[oldest]
        return known.opening if known is not None else None

    def recent(self, n: int) -> list[WindowRound]:
        """The last ``n`` rounds of the window, oldest first: each one's round id, with where
        the first round of that id in the window began. :meth:`open_all` of them on an empty
        window gives the same answers for those rounds' ids."""
        newest_first = list(islice(reversed(self._order), max(n, 0)))
        newest_first.reverse()
        return newest_first

    def open_all(self, rounds: Iterable[WindowRound]) -> None:
        """:meth:`open` each of ``rounds`` (as :meth:`recent` gives them), in order."""
        for round_id, opening in rounds:
            self.open(round_id, opening)
