"""Reading protocol events from JSON Lines files, one line at a time (memory stays flat)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path

from tablewatch.rules.decode import EventRejected, decode_event
from tablewatch.rules.events import AnyEvent


def read_jsonl(paths: Iterable[Path]) -> Iterator[AnyEvent | EventRejected]:
    """Every event of every file, in order; a bad line yields its rejection instead.

    Blank lines are skipped. Raises ``OSError`` for a file that cannot be read.
    """
    for path in paths:
        with path.open("rb") as lines:
            for number, line in enumerate(lines, 1):
                if not line.strip():
                    continue
                try:
                    yield decode_event(line, f"{path}:{number}")
                except EventRejected as rejected:
                    yield rejected
