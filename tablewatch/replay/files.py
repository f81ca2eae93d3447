"""The events of JSON Lines files, as runs for :func:`tablewatch.replay.fold.fold`.

Read a block at a time (:func:`tablewatch.ingest.files.read_blocks`: memory stays
flat), decoded by the same decoder as ``tablewatch audit``. A file that cannot be read
raises ``OSError`` where it is met.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from tablewatch.ingest.files import read_blocks
from tablewatch.replay.fold import Run

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
            size += path.stat().st_size
            if not sample:
                with path.open("rb") as file:
                    sample = file.read(_SAMPLE)
        except OSError:
            return None
    lines = sample.count(b"\n")
    if not lines:
        return None
    return max(1, round(size * lines / len(sample)))
