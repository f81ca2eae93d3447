"""``tablewatch native build|status``: the rules engine compiled with mypyc (tablewatch.native)."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager

import click

from tablewatch import native as engine


@click.group()
def native() -> None:
    """The compiled rules engine: same sources, same results, less time."""


@native.command()
def build() -> None:
    """Compile tablewatch.rules into .native/ (about a minute; nothing if up to date).

    On a terminal, a progress bar on stderr says what mypyc is doing.
    """
    with _progress() as phase:
        engine.build(phase=phase)


@native.command()
def status() -> None:
    """Whether the commands that run the rules use the compiled build, and why not
    (exit 1 if not): TABLEWATCH_PURE_PYTHON set, no build, a build for another Python,
    or the sources that changed since it was made."""
    for line in engine.describe():
        click.echo(line)
    sys.exit(0 if engine.check().active else 1)


@contextmanager
def _progress() -> Iterator[engine.Phase | None]:
    if not sys.stderr.isatty():
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("mypyc: {task.description}"),
        BarColumn(),
        TimeElapsedColumn(),
        console=Console(stderr=True),
        transient=True,
    ) as bar:
        task = bar.add_task("starting", total=None)

        def phase(what: str, done: int, steps: int) -> None:
            bar.update(task, description=what, completed=done, total=steps)

        yield phase
