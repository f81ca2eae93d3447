"""The events of JSON Lines files, as runs for :func:`tablewatch.replay.fold.fold`.

Read a block at a time (:func:`tablewatch.ingest.files.read_blocks`: memory stays
flat), decoded by the same decoder as ``tablewatch audit``. A file that cannot be read
raises ``OSError`` where it is met.
"""

from __future__ import annotations

import stat
from collections.abc import Collection, Iterator, Sequence
from pathlib import Path

from tablewatch.ingest.files import read_blocks
from tablewatch.replay.fold import Run
from tablewatch.rules.decode import EventRejected
from tablewatch.rules.events import ts_to_ms

# bytes of the first block an estimate of the events in the files rests on
_SAMPLE = 64 << 10


def file_runs(paths: Sequence[Path]) -> Iterator[Run]:
    """The files' events in runs, each rejected line between two runs, in line order."""
    for block in read_blocks(paths):
        for events, rejection in block.decoded.runs():
            if events:
                yield events
            if rejection is not None:
                yield rejection


def estimated_events(paths: Sequence[Path]) -> int | None:
    """About how many lines ``paths`` hold (their size over the mean line length of the
    first file's start), for a progress bar; None when it cannot be told."""
    size = 0
    sample = b""
    for path in paths:
        try:
            status = path.stat()
            if not stat.S_ISREG(status.st_mode):
                return None  # a pipe: its size is not known
            size += status.st_size
            if not sample:
                with path.open("rb") as file:
                    sample = file.read(_SAMPLE)
        except OSError:
            return None
    lines = sample.count(b"\n")
    if not lines:
        return None
    return max(1, round(size * lines / len(sample)))


class FileSource:
    """The events of ``paths`` (of ``tables``, with ``since_ms <= ts <= until_ms``), in
    their files' order."""

    def __init__(
        self,
        paths: Sequence[Path],
        *,
        tables: Collection[str] | None = None,
        since_ms: int | None = None,
        until_ms: int | None = None,
    ) -> None:
        self.paths = list(paths)
        self.tables = frozenset(tables) if tables is not None else None
        self.since_ms = since_ms
        self.until_ms = until_ms

    @property
    def total(self) -> int | None:
        return estimated_events(self.paths)

    def describe(self) -> str:
        return " ".join(map(str, self.paths))

    def runs(self) -> Iterator[Run]:
        runs = file_runs(self.paths)
        if self.tables is None and self.since_ms is None and self.until_ms is None:
            return runs
        return self._kept(runs)

    def _kept(self, runs: Iterator[Run]) -> Iterator[Run]:
        tables, since, until = self.tables, self.since_ms, self.until_ms
        for run in runs:
            if isinstance(run, EventRejected):
                yield run
                continue
            kept = [
                event
                for event in run
                if (tables is None or event.table_id in tables)
                and (since is None or ts_to_ms(event.ts) >= since)
                and (until is None or ts_to_ms(event.ts) <= until)
            ]
            if kept:
                yield kept
