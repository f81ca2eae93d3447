"""``tablewatch native build|status``: the rules engine compiled with mypyc (tablewatch.native)."""

from __future__ import annotations

import sys

import click

from tablewatch import native as engine


@click.group()
def native() -> None:
    """The compiled rules engine: same sources, same results, less time."""


@native.command()
def build() -> None:
    """Compile tablewatch.rules into .native/ (about a minute; nothing if up to date)."""
    engine.build()


@native.command()
def status() -> None:
    """Whether this process runs the compiled rules, and why not (exit 1 if not)."""
    click.echo(engine.STATUS.reason)
    sys.exit(0 if engine.STATUS.active else 1)
