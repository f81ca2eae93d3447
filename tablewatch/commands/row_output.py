"""Rows printed the way ``--format table|json|csv|parquet [--out FILE]`` asks (the
auditor's list commands: ``tablewatch findings``, ``tablewatch rounds list``)."""

from __future__ import annotations

import csv
import io
import json
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, BinaryIO

import click

from tablewatch.csv_cells import csv_cell
from tablewatch.terminal_text import json_printable, printable

FORMATS = ("table", "json", "csv", "parquet")


class OutputRefused(click.UsageError):
    """An output that cannot be written as asked (parquet to a terminal)."""


class OutputFailed(Exception):
    """``--out FILE`` could not be written (the reason, one line)."""


def format_options(command: Any) -> Any:
    command = click.option(
        "--out",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help="Write the rows to FILE instead of standard output.",
    )(command)
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(FORMATS),
        default="table",
        show_default=True,
        help="table: for reading; json: one object a line; csv: a header, then a row a "
        "line (lists joined by spaces); parquet: needs --out or standard output not a "
        "terminal.",
    )(command)


def write_rows(
    rows: Sequence[Mapping[str, Any]],
    columns: Sequence[tuple[str, str]],
    fmt: str,
    out: Path | None,
    title: str,
) -> None:
    """``rows`` (each a mapping of every column) in ``fmt``; ``columns`` is
    ``(name, arrow type)`` in order, the type one of ``string int64 bool list``."""
    if fmt == "parquet":
        if out is None and stdout_is_terminal():
            raise OutputRefused(
                "--format parquet writes binary: give --out FILE or redirect standard output"
            )
        _parquet(rows, columns, out)
        return
    text = _text(rows, [name for name, _ in columns], fmt, title)
    if out is None:
        # a CSV shown on a terminal has its control characters escaped (the table and
        # JSON never hold one); to a pipe it is exact (color: click strips no ANSI code)
        if fmt == "csv" and stdout_is_terminal():
            click.echo(printable(text, lines=True), nl=False)
        else:
            click.echo(text, nl=False, color=True)
    else:
        _write(out, lambda: out.write_text(text, encoding="utf-8"))


def stdout_is_terminal() -> bool:
    return sys.stdout.isatty()


def _write(out: Path, write: Callable[[], object]) -> None:
    try:
        write()
    except OSError as exc:  # a directory, a file it may not write, /proc/version, ...
        raise OutputFailed(f"--out {out}: cannot write: {exc.strerror or exc}") from None


def _text(rows: Sequence[Mapping[str, Any]], names: Sequence[str], fmt: str, title: str) -> str:
    """The rows as text: JSON Lines with the C1 and bidi controls escaped too (the same
    values once parsed); CSV with every text cell neutralised (:mod:`tablewatch.csv_cells`);
    a table with every control character of a cell shown as an escape
    (:mod:`tablewatch.terminal_text`)."""
    if fmt == "json":
        return "".join(
            json_printable(json.dumps({n: row[n] for n in names}, ensure_ascii=False)) + "\n"
            for row in rows
        )
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(names)
        for row in rows:
            writer.writerow([csv_cell(_joined(row[n])) for n in names])
        return buffer.getvalue()
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    table = Table(*names, title=title)
    for row in rows:  # Text: a cell's "[...]" is text, never rich's markup
        table.add_row(*(Text(printable(_cell(row[n]) or "-")) for n in names))
    buffer = io.StringIO()
    Console(file=buffer, highlight=False, width=1_000).print(table)  # cells never cut
    return buffer.getvalue() + f"{len(rows):,} row(s)\n"


def _joined(value: Any) -> Any:
    return " ".join(str(v) for v in value) if isinstance(value, list) else value


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, list):
        return " ".join(str(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _parquet(
    rows: Sequence[Mapping[str, Any]], columns: Sequence[tuple[str, str]], out: Path | None
) -> None:
    import pyarrow as pa  # type: ignore[import-untyped]
    import pyarrow.parquet as pq  # type: ignore[import-untyped]

    types = {
        "string": pa.string(),
        "int64": pa.int64(),
        "bool": pa.bool_(),
        "list": pa.list_(pa.string()),
    }
    schema = pa.schema([(name, types[kind]) for name, kind in columns])
    table = pa.Table.from_pylist([dict(row) for row in rows], schema=schema)
    if out is not None:
        _write(out, lambda: pq.write_table(table, out))
        return
    sink: BinaryIO = sys.stdout.buffer
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    sink.write(buffer.getvalue())
    sink.flush()
