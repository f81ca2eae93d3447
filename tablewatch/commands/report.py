"""``tablewatch report shift``: the shift report (tablewatch/reports/) from the store, as
PDF, CSV or JSON. The store is read as ``tablewatch findings`` reads it (``--dsn``, or
``--worker`` while a worker owns an embedded store); the shifts, their time zone and the
pits are the alerts rules file's (``--rules``)."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn, TypeVar

import click

from tablewatch.commands.auditor_lists import open_source, source_options
from tablewatch.terminal_text import json_printable, printable

F = TypeVar("F", bound=Callable[..., Any])

EXIT_ERROR = 2
CASINO_ENV = "TABLEWATCH_CASINO"
RULES_ENV = "TABLEWATCH_ALERT_RULES"


def rules_option(command: F) -> F:
    return click.option(
        "--rules",
        "rules_path",
        envvar=RULES_ENV,
        show_envvar=True,
        type=click.Path(dir_okay=False, path_type=Path),
        help="The alerts rules file (YAML): its shifts, time zone and pits.",
    )(command)


def casino_option(command: F) -> F:
    return click.option(
        "--casino",
        envvar=CASINO_ENV,
        show_envvar=True,
        default="",
        help="The casino's name, at the head of the report.",
    )(command)


@click.group()
def report() -> None:
    """Reports from the store: the shift report (PDF, CSV or JSON) of a date and shift."""


def _fail(text: str) -> NoReturn:
    click.echo(f"tablewatch report shift: {printable(text)}", err=True)
    sys.exit(EXIT_ERROR)


@report.command("shift")
@click.option("--date", "day", required=True, help="The date the shift starts (YYYY-MM-DD).")
@click.option("--shift", required=True, help="A shift of the rules file (day, swing ...).")
@click.option("--pit", default=None, help="One pit of the rules file (default: every pit).")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(("pdf", "csv", "json")),
    default="pdf",
    show_default=True,
    help="pdf: for printing and signing (needs --out or standard output not a terminal).",
)
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the report to FILE instead of standard output.",
)
@rules_option
@casino_option
@source_options
def shift(
    day: str,
    shift: str,
    pit: str | None,
    fmt: str,
    out: Path | None,
    rules_path: Path | None,
    casino: str,
    dsn: str,
    worker_url: str | None,
    token: str | None,
) -> None:
    """Every finding of one shift with its case (state, disposition, who, notes, money
    expected, paid and recovered), totals by check, table and dealer, the open cases
    carried over.

    Each case as it stood at the shift's end. Exit 0; 2: a bad option, an unknown shift
    or pit (the known ones named), or a store that cannot answer, with the reason."""
    from tablewatch.alerts.rules_file import RulesError, load_rules
    from tablewatch.reports.shift import (
        ReportError,
        parse_day,
        read_shift_report,
        report_json,
        shift_window,
    )

    if rules_path is None:
        _fail(f"--rules: required: the alerts rules file, whose shifts name the window "
              f"(or ${RULES_ENV})")  # fmt: skip
    if fmt == "pdf" and out is None and sys.stdout.isatty():
        _fail("--format pdf writes binary: give --out FILE or redirect standard output")
    try:
        rules = load_rules(rules_path)
    except RulesError as exc:
        _fail(f"--rules: {exc.problems[0]}" + (f" (and {len(exc.problems) - 1} more)"
                                                if len(exc.problems) > 1 else ""))  # fmt: skip
    try:
        window = shift_window(rules, parse_day(day), shift, pit)
    except ReportError as exc:
        _fail(f"--{exc}")
    source = open_source("report shift", dsn, worker_url, token)
    try:
        made = read_shift_report(
            source, rules, window, casino=casino, now_ms=time.time_ns() // 1_000_000
        )
    except ReportError as exc:
        _fail(str(exc))
    except Exception as exc:  # the store's refusal or failure, in its words
        _fail(f"the store could not answer: {getattr(exc, 'reason', None) or exc}")
    finally:
        close = getattr(source, "close", None)
        if close is not None:
            close()
    data: bytes
    if fmt == "json":
        text = json.dumps(report_json(made), ensure_ascii=False, indent=2) + "\n"
        data = json_printable(text).encode()  # the same values once parsed
    elif fmt == "csv":
        from tablewatch.reports.shift_csv import shift_csv

        data = shift_csv(made).encode()
    else:
        from tablewatch.reports.shift_pdf import shift_pdf

        try:
            data = shift_pdf(made)
        except ReportError as exc:
            _fail(str(exc))
    if out is None:
        if fmt == "csv" and sys.stdout.isatty():  # shown: its control characters escaped
            data = printable(data.decode(), lines=True).encode()
        sys.stdout.buffer.write(data)
        sys.stdout.flush()
        return
    try:
        out.write_bytes(data)
    except OSError as exc:
        _fail(f"--out {out}: cannot write: {exc.strerror or exc}")
    click.echo(f"tablewatch report shift: {out} ({len(made.lines)} findings, "
               f"{len(made.carried_over)} carried over)", err=True)  # fmt: skip
