"""A click group whose subcommands are imported only when one of them runs.

Each subcommand is named by ``"module:attribute"`` with its one-line help, so
that ``tablewatch --help`` lists them without importing a single command
module (their imports, numpy, msgspec, rich, clickhouse-connect, Faust, take
most of a second). A command that runs the rules engine is marked so: the
compiled engine (:mod:`tablewatch.native`) is activated before its module is
imported, while no module of ``tablewatch.rules`` is loaded yet.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import click
from click.utils import make_default_short_help


@dataclass(frozen=True, slots=True)
class LazyCommand:
    """Where a subcommand lives (``"module:attribute"``), its one-line help, and
    whether it runs the rules engine."""

    target: str
    help: str
    rules: bool = True

    def load(self) -> click.Command:
        module_name, _, attribute = self.target.partition(":")
        if self.rules:
            from tablewatch import native

            native.activate()
        command = getattr(importlib.import_module(module_name), attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{self.target} is not a click command")
        return command


class LazyGroup(click.Group):
    """A group of :class:`LazyCommand` s, each imported on first use."""

    def __init__(self, *args: Any, lazy: Mapping[str, LazyCommand], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.lazy = dict(lazy)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*self.lazy, *self.commands})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = self.commands.get(cmd_name)
        if command is None and cmd_name in self.lazy:
            command = self.lazy[cmd_name].load()
            self.commands[cmd_name] = command
        return command

    def invoke(self, ctx: click.Context) -> Any:
        """The subcommand; a reader of standard output that went away ends it quietly
        (:mod:`tablewatch.closed_pipe`)."""
        try:
            return super().invoke(ctx)
        except BrokenPipeError as exc:
            from tablewatch import closed_pipe

            if closed_pipe.stdout_closed():
                closed_pipe.exit_quietly()
            raise closed_pipe.PeerClosed(exc) from exc

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The listing of ``--help``, as click writes it, from the one-line helps."""
        names = self.list_commands(ctx)
        if not names:
            return
        limit = formatter.width - 6 - max(len(name) for name in names)
        rows = []
        for name in names:
            loaded = self.commands.get(name)
            if loaded is not None:
                if loaded.hidden:
                    continue
                rows.append((name, loaded.get_short_help_str(limit)))
            else:
                rows.append((name, make_default_short_help(self.lazy[name].help, limit)))
        with formatter.section("Commands"):
            formatter.write_dl(rows)
