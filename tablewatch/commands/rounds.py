"""``tablewatch rounds show`` (a round reconstructed) and ``tablewatch rounds list``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any, NoReturn

import click

from tablewatch.commands.auditor_lists import (
    filter_options,
    open_source,
    run_list,
    source_options,
)
from tablewatch.commands.row_output import format_options
from tablewatch.terminal_text import json_printable, printable

EXIT_SHOWN = 0
EXIT_NOT_FOUND = 1
EXIT_ERROR = 2


@click.group()
def rounds() -> None:
    """One round reconstructed (rounds show), or the stored rounds filtered (rounds list)."""


def _fail(text: str, code: int = EXIT_ERROR) -> NoReturn:
    click.echo(f"tablewatch rounds show: {printable(text)}", err=True)
    sys.exit(code)


@rounds.command()
@click.argument("table_id")
@click.argument("round_id")
@click.option(
    "--start",
    "start_event_id",
    default=None,
    help="The event that began the round, when the table gave its round_id to several "
    "(default: the one begun last; the others are listed).",
)
@click.option(
    "--events",
    "event_files",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Read the round from these JSON Lines files instead of the store (repeat it).",
)
@click.option(
    "--config",
    "config_path",
    default=None,
    type=click.Path(dir_okay=False, path_type=Path),
    help="Table configuration YAML: needed with --events; with the store, used instead of "
    "the table directory's.",
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "json"]),
    default="text",
    show_default=True,
    help="json: every field described in docs/rounds.md.",
)
@source_options
def show(
    table_id: str,
    round_id: str,
    start_event_id: str | None,
    event_files: tuple[Path, ...],
    config_path: Path | None,
    fmt: str,
    dsn: str,
    worker_url: str | None,
    token: str | None,
) -> None:
    """Reconstruct round ROUND_ID of TABLE_ID: its events in words, each seat's cards and
    hand, the decisions, each wager's money and what priced it, the findings with their
    evidence, and the video window.

    Exit 0: shown; 1: no such round or table (the reason on stderr); 2: input that cannot
    be used (files, configuration, store), or a rejected line in the files (the round is
    still shown).
    """
    from tablewatch.rounds.report import RoundNotFound, RoundReport
    from tablewatch.rounds.text import render_text

    configs = _configs(config_path) if config_path is not None else None
    code = EXIT_SHOWN
    try:
        if event_files:
            if configs is None:
                _fail("--events needs --config TABLES.yaml")
            reports, rejected = _from_files(event_files, configs, table_id, round_id)
            if rejected:
                code = EXIT_ERROR
            report = _pick(reports, start_event_id, table_id, round_id)
        else:
            source = open_source("rounds show", dsn, worker_url, token)
            report = _from_store(source, table_id, round_id, start_event_id, configs)
    except RoundNotFound as missing:
        _fail(missing.reason, EXIT_NOT_FOUND)
    shown: RoundReport = report
    # what the store holds is shown with its control characters escaped (terminal_text)
    if fmt == "json":
        click.echo(json_printable(json.dumps(shown.as_dict(), ensure_ascii=False, indent=2)))
    else:
        click.echo(printable(render_text(shown), lines=True), nl=False)
    sys.exit(code)


def _configs(path: Path) -> Any:
    from tablewatch.config_file import load_config
    from tablewatch.rules.config import ConfigError

    try:
        return load_config(path)
    except ConfigError as exc:
        _fail(str(exc))


def _from_files(
    paths: tuple[Path, ...], configs: Any, table_id: str, round_id: str
) -> tuple[list[Any], int]:
    from tablewatch.ingest.files import read_jsonl
    from tablewatch.rounds.from_files import rounds_in_events
    from tablewatch.rules.decode import EventRejected

    rejected = 0

    def events() -> Any:
        nonlocal rejected
        for item in read_jsonl(paths):
            if isinstance(item, EventRejected):
                rejected += 1
                click.echo(f"tablewatch rounds show: {printable(str(item))}", err=True)
                continue
            yield item

    try:
        return rounds_in_events(events(), configs, table_id, round_id), rejected
    except OSError as exc:
        _fail(f"{exc.filename or 'events'}: cannot read: {exc.strerror or exc}")


def _pick(reports: list[Any], start: str | None, table_id: str, round_id: str) -> Any:
    from tablewatch.rounds.report import RoundNotFound

    if start is None:
        return reports[-1]
    for report in reports:
        if report.start_event_id == start:
            return report
    begun = ", ".join(r.start_event_id for r in reports)
    raise RoundNotFound(
        f"table {table_id} has no round {round_id!r} begun by event {start!r} "
        f"(its rounds of that id begin with: {begun})"
    )


def _from_store(source: Any, table_id: str, round_id: str, start: str | None, configs: Any) -> Any:
    from tablewatch.api.sources import SourceError
    from tablewatch.rounds.from_store import load_round
    from tablewatch.rounds.report import RoundTooLarge
    from tablewatch.store.read_only import QueryFailed, QueryRefused

    try:
        return load_round(source, table_id, round_id, start_event_id=start, configs=configs)
    except RoundTooLarge as large:
        _fail(large.reason)
    except (QueryFailed, QueryRefused, SourceError) as exc:
        _fail(f"the store could not answer: {exc.reason}")
    finally:
        source.close()


@rounds.command("list")
@filter_options
@format_options
@source_options
def list_rounds(
    dsn: str,
    worker_url: str | None,
    token: str | None,
    fmt: str,
    out: Path | None,
    **filters: Any,
) -> None:
    """The stored rounds, the latest begun first, filtered (--check, --severity: rounds
    with such a finding). Exit 0 (even with no rows); 2: a bad filter or a store that
    cannot answer, with the reason."""
    run_list("rounds list", "rounds", filters, (dsn, worker_url, token), fmt, out)
