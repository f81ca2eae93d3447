"""``tablewatch findings`` and ``tablewatch rounds list``: the store's findings and rounds,
filtered, in pages, as a table, JSON Lines, CSV or Parquet.

The filters and the statements are the auditor API's (:mod:`tablewatch.api.filters`,
:mod:`tablewatch.api.reads`): the same filter gives the same rows on the command line as
at ``/api/v1/findings``. Every value reaches the SQL as a quoted literal.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import click

from tablewatch.commands.options import dsn_option
from tablewatch.commands.row_output import OutputFailed, format_options, write_rows
from tablewatch.terminal_text import printable

EXIT_ERROR = 2
TOKEN_ENV = "TABLEWATCH_API_TOKEN"  # the same variables as tablewatch serve-api's
WORKER_ENV = "TABLEWATCH_API_WORKER"
MAX_ROWS = 100_000
PAGE = 1_000

FINDING_COLUMNS = (
    ("ts", "string"),
    ("table_id", "string"),
    ("round_id", "string"),
    ("start_event_id", "string"),
    ("check", "string"),
    ("severity", "string"),
    ("regulation", "string"),
    ("seat", "int64"),
    ("bet", "string"),
    ("expected", "int64"),
    ("actual", "int64"),
    ("money", "string"),  # the amounts in words (tablewatch.finding_money)
    ("message", "string"),
    ("event_ids", "list"),
    ("finding_id", "string"),
    ("judged_at", "string"),
)
ROUND_COLUMNS = (
    ("start_ts", "string"),
    ("end_ts", "string"),
    ("table_id", "string"),
    ("round_id", "string"),
    ("start_event_id", "string"),
    ("game", "string"),
    ("dealer_id", "string"),
    ("deck_id", "string"),
    ("seats", "int64"),
    ("wagered", "int64"),
    ("paid", "int64"),
    ("voided", "bool"),
    ("complete", "bool"),
    ("finding_count", "int64"),
)
# the table format shows these only (the others are in json, csv and parquet)
FINDING_BRIEF = (
    "ts",
    "table_id",
    "round_id",
    "check",
    "severity",
    "seat",
    "bet",
    "money",
)
ROUND_BRIEF = (
    "start_ts",
    "table_id",
    "round_id",
    "game",
    "dealer_id",
    "seats",
    "wagered",
    "paid",
    "voided",
    "finding_count",
)


def filter_options(command: Any) -> Any:
    options = [
        click.option("--table", default=None, help="A table_id."),
        click.option("--pit", default=None, help="A pit's name (the table directory's)."),
        click.option("--game", default=None, help="A game, by its protocol name."),
        click.option("--check", default=None, help="A check code (WRONG_PAYOUT ...)."),
        click.option("--severity", default=None, help="critical, high, medium or low."),
        click.option("--dealer", default=None, help="A dealer_id (its rounds)."),
        click.option("--since", default=None, help="From this time (RFC 3339 UTC, ...Z)."),
        click.option("--until", default=None, help="Before this time (RFC 3339 UTC, ...Z)."),
        click.option(
            "--limit",
            default=100,
            show_default=True,
            type=int,
            help=f"At most this many rows (1 to {MAX_ROWS:,}).",
        ),
        click.option("--cursor", default=None, help="Go on after the rows a run before gave."),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _fail(command: str, text: str) -> NoReturn:
    click.echo(f"tablewatch {command}: {printable(text)}", err=True)
    sys.exit(EXIT_ERROR)


def run_list(
    command: str,
    which: str,
    filters: dict[str, Any],
    source_of: tuple[str, str | None, str | None],
    fmt: str,
    out: Path | None,
) -> None:
    """Validate ``filters``, read the rows page by page, write them; exit 2 naming the
    parameter on a bad filter, or the store's reason."""
    from pydantic import ValidationError

    from tablewatch.api import reads
    from tablewatch.api.filters import Filters

    dsn, worker_url, token = source_of
    limit = filters.pop("limit")
    if not 1 <= limit <= MAX_ROWS:
        _fail(command, f"--limit: {limit} is not between 1 and {MAX_ROWS:,}")
    given = {k: v for k, v in filters.items() if v is not None}
    try:
        Filters.model_validate({**given, "limit": min(limit, PAGE)})
    except ValidationError as exc:
        problem = exc.errors()[0]
        where = str(problem["loc"][0]) if problem["loc"] else "filters"
        _fail(command, f"--{where}: {problem['msg']}")
    lister: Callable[[Any, Filters], Any] = (
        reads.list_findings if which == "findings" else reads.list_rounds
    )
    columns: tuple[tuple[str, str], ...] = FINDING_COLUMNS if which == "findings" else ROUND_COLUMNS
    source = open_source(command, dsn, worker_url, token)
    rows: list[dict[str, Any]] = []
    cursor = given.pop("cursor", None)
    try:
        if given.get("table") is not None:  # a typo is named, not answered with no rows
            unknown = reads.unknown_table(source, given["table"])
            if unknown is not None:
                _fail(command, f"--table: {unknown}")
        while len(rows) < limit:
            page = lister(
                source,
                Filters.model_validate(
                    {**given, "limit": min(limit - len(rows), PAGE), "cursor": cursor}
                ),
            )
            rows.extend(item.model_dump(mode="json") for item in page.items)
            cursor = page.next_cursor
            if cursor is None:
                break
    except reads.BadCursor as exc:
        _fail(command, f"--cursor: {exc}")
    except Exception as exc:  # the store's refusal or failure, in its words
        reason = getattr(exc, "reason", None) or str(exc)
        _fail(command, f"the store could not answer: {reason}")
    finally:
        source.close()
    if fmt == "table":
        brief = FINDING_BRIEF if which == "findings" else ROUND_BRIEF
        columns = tuple(c for c in columns if c[0] in brief)
    try:
        write_rows(rows, columns, fmt, out, "findings" if which == "findings" else "rounds")
    except OutputFailed as exc:
        _fail(command, str(exc))
    if cursor is not None:
        click.echo(f"more rows: --cursor {cursor}", err=True)


def source_options(command: Any) -> Any:
    """``--dsn``, and ``--worker``/``--token`` to read through a running worker instead."""
    command = click.option(
        "--token",
        envvar=TOKEN_ENV,
        show_envvar=True,
        default=None,
        help=f"The worker's bearer token (role auditor or admin) for --worker. Set {TOKEN_ENV} "
        "rather than this option: a command line can be read by other users. Never printed.",
    )(command)
    command = click.option(
        "--worker",
        "worker_url",
        envvar=WORKER_ENV,
        show_envvar=True,
        default=None,
        help="Read through this worker's /query (http://127.0.0.1:6066) instead of opening "
        "the store: the way to read an embedded store while the worker runs.",
    )(command)
    return dsn_option(command)


def open_source(command: str, dsn: str, worker_url: str | None, token: str | None) -> Any:
    """A row source with ``run(sql)`` and ``close()``: the worker's ``/query`` with
    ``worker_url``, else a read-only reader of the store at ``dsn``; exit 2 with the reason
    when the store cannot be opened."""
    if worker_url:
        from tablewatch.api.sources import WorkerSource

        return WorkerSource(worker_url, token)
    from tablewatch.store.client import StoreError
    from tablewatch.store.dsn import DsnError
    from tablewatch.store.read_only import open_reader

    try:
        return open_reader(dsn)
    except (StoreError, DsnError) as exc:
        _fail(command, str(exc))


@click.command()
@filter_options
@format_options
@source_options
def findings(
    dsn: str,
    worker_url: str | None,
    token: str | None,
    fmt: str,
    out: Path | None,
    **filters: Any,
) -> None:
    """The stored findings, filtered, as a table, JSON Lines, CSV or Parquet.

    Newest first (a table-level finding's time is its judgement's). Exit 0 (even with no
    rows); 2: a bad filter or a store that cannot answer, with the reason."""
    run_list("findings", "findings", filters, (dsn, worker_url, token), fmt, out)
