"""A progress bar for a replay on a terminal (rich): events, events/s, ETA.

Silent (no bar, nothing printed) when standard output is not a terminal.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text


class _Rate(ProgressColumn):
    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text(f"{speed:,.0f} events/s" if speed else "- events/s")


class _Count(ProgressColumn):
    def render(self, task: Task) -> Text:
        total = f"/~{task.total:,.0f}" if task.total else ""
        return Text(f"{task.completed:,.0f}{total} events")


@contextmanager
def progress_bar(
    total: int | None, description: str, *, enabled: bool | None = None
) -> Iterator[Callable[[int], None]]:
    """A callback taking the events done so far; the bar is drawn only on a terminal."""
    if enabled is None:
        enabled = sys.stdout.isatty()
    if not enabled:
        yield lambda _done: None
        return
    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        _Count(),
        _Rate(),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=Console(),
        transient=True,
    )
    task = bar.add_task(description, total=total)
    with bar:

        def update(done: int) -> None:
            if total is not None and done > total:
                bar.update(task, completed=done, total=done)
            else:
                bar.update(task, completed=done)

        yield update
