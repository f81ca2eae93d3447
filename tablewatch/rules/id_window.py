"""A table's duplicate window: the last ``size`` event_ids it accepted, oldest first.

A set answers "seen?"; a list keeps the arrival order. Forgetting the oldest
ids is moving the list's start forward and taking them out of the set, in
bulk (:meth:`IdWindow.trim`), rather than one ``popleft`` and one ``discard``
per event: between two trims the set may still hold ids already out of the
window, so an id found in it is only a candidate duplicate, decided by
:meth:`IdWindow.is_seen` after a trim. An id *not* in the set is never in
the window, which is what the fold's fast path asks (``table.fold_events``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

TRIM_SLACK: Final = 1024  # ids over the window size that may wait for the next trim


class IdWindow:
    """The last ``size`` ids added (each at most once), with exact membership after a trim.

    ``ids`` and ``order`` are public for the fold's fast path, which may add an
    id with ``ids.add(i); order.append(i)`` when ``i not in ids`` (then it is
    in no window). Invariant: ``ids == set(order[start:])``, each id once.
    """

    __slots__ = ("ids", "order", "size", "start")

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError("a duplicate window holds at least one id")
        self.size = size
        self.ids: set[str] = set()
        self.order: list[str] = []
        self.start = 0  # order[:start] is forgotten

    def __len__(self) -> int:
        """Ids in the window (after a trim; until then ids about to be forgotten count too)."""
        return len(self.order) - self.start

    def trim(self) -> None:
        """Forget all but the last ``size`` ids added (in bulk: a slice and a set update)."""
        order = self.order
        start = self.start
        over = len(order) - start - self.size
        if over > 0:
            self.ids.difference_update(order[start : start + over])
            start += over
            if start >= self.size:  # the forgotten prefix is as long as the window: drop it
                del order[:start]
                start = 0
            self.start = start

    def is_seen(self, event_id: str) -> bool:
        """Whether ``event_id`` is among the last ``size`` ids added."""
        if event_id not in self.ids:
            return False
        self.trim()
        return event_id in self.ids

    def add(self, event_id: str) -> bool:
        """Add ``event_id`` unless it is in the window; True if it was added."""
        # is_seen only for an id in the set (rare): a new id costs one lookup here
        if event_id in self.ids and self.is_seen(event_id):
            return False
        self.ids.add(event_id)
        self.order.append(event_id)
        if len(self.order) - self.start > self.size + TRIM_SLACK:
            self.trim()
        return True

    def add_all(self, event_ids: Iterable[str]) -> None:
        """:meth:`add` each of ``event_ids``, in order."""
        for event_id in event_ids:
            self.add(event_id)

    def recent(self, n: int) -> list[str]:
        """The last ``n`` ids of the window (at most ``size``), oldest first."""
        order = self.order
        first = max(self.start, len(order) - min(n, self.size), 0)
        return order[first:]
