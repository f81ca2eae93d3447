"""``tablewatch sign FILE...``: sign protocol events as a controller does (integrators, tests).

Each line of the JSON Lines FILES is checked by the decoder, then signed: ``kid`` and
``sig`` (HMAC-SHA256 of the event's canonical form, :mod:`tablewatch.rules.signature`)
are added at the end of its text, which is otherwise kept as it is. The key is its
table's first key in ``--config`` (read from the environment variable the
configuration names), or the one of ``--kid`` and ``--key-env`` for every event.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import BinaryIO

import click

from tablewatch.ingest.files import line_blocks
from tablewatch.rules.config import ConfigError
from tablewatch.rules.decode import EventRejected, OverlongLine, decode_event
from tablewatch.rules.events import ID_MAX_LENGTH
from tablewatch.rules.signature import signed
from tablewatch.table_keys import TableKey, TableKeys, load_keys_of_file

EXIT_OK, EXIT_BAD_INPUT = 0, 2
_JSON_WHITESPACE = b" \t\r\n"


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--config",
    "config_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Table configuration: each event is signed with its table's first key.",
)
@click.option("--kid", help="With --key-env: sign every event with this key id ...")
@click.option(
    "--key-env",
    metavar="VAR",
    help="... and the key held by this environment variable (instead of --config).",
)
@click.option(
    "--out",
    "out_path",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Write the signed events here  [default: stdout]",
)
def sign(
    files: tuple[Path, ...],
    config_path: Path | None,
    kid: str | None,
    key_env: str | None,
    out_path: Path | None,
) -> None:
    """Sign the events of JSON Lines FILES with their tables' keys (kid and sig added).

    Keys come from the environment: --config names, for each table, the variables
    that hold its keys (the first is used), or --kid and --key-env give one key for
    every event. A line that does not decode, or whose table has no key, is reported
    on stderr and left out. Exit 0: every line signed; 2: lines left out, an
    unreadable file or configuration, or a key not set.
    """
    if (kid is None) != (key_env is None):
        raise click.UsageError("--kid and --key-env go together")
    if kid is None and config_path is None:
        raise click.UsageError("say which keys: --config TABLES.yaml, or --kid and --key-env")
    one_key: TableKey | None = None
    tables: dict[str, TableKeys] = {}
    try:
        if kid is not None and key_env is not None:
            one_key = _key_of_env(kid, key_env)
        else:
            assert config_path is not None
            tables = load_keys_of_file(config_path)
    except ConfigError as exc:
        click.echo(f"tablewatch sign: {exc}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    signed_count = left_out = 0
    try:
        with ExitStack() as stack:
            out: BinaryIO = (
                stack.enter_context(out_path.open("wb"))
                if out_path is not None
                else sys.stdout.buffer
            )
            for where, raw in _lines(files):
                problem, line = _signed(where, raw, one_key, tables, config_path)
                if line is None:
                    left_out += 1
                    click.echo(f"left out: {problem}", err=True)
                    continue
                out.write(line + b"\n")
                signed_count += 1
            out.flush()
    except OSError as exc:
        click.echo(f"tablewatch sign: {exc.filename or ''}: {exc.strerror or exc}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    click.echo(
        f"{signed_count:,} events signed, {left_out:,} left out -> {out_path or 'stdout'}",
        err=True,
    )
    sys.exit(EXIT_BAD_INPUT if left_out else EXIT_OK)


def _key_of_env(kid: str, variable: str) -> TableKey:
    if not kid or len(kid) > ID_MAX_LENGTH or not kid.isprintable():
        raise ConfigError(f"--kid: a kid is 1 to {ID_MAX_LENGTH} printable characters")
    value = os.environ.get(variable)
    if not value:
        raise ConfigError(
            f"--key-env: environment variable {variable} is "
            f"{'not set' if value is None else 'empty'} (it holds the key)"
        )
    return TableKey(kid, variable, value.encode("utf-8", "surrogateescape"))


def _lines(files: tuple[Path, ...]) -> Iterator[tuple[str, bytes | OverlongLine]]:
    for path in files:
        for first, lines in line_blocks(path):
            for number, line in enumerate(lines, first):
                raw = line if isinstance(line, OverlongLine) else line.strip(_JSON_WHITESPACE)
                if raw:
                    yield f"{path}:{number}", raw


def _signed(
    where: str,
    raw: bytes | OverlongLine,
    one_key: TableKey | None,
    tables: dict[str, TableKeys],
    config_path: Path | None,
) -> tuple[str, bytes | None]:
    """The signed line, or why it is left out."""
    if isinstance(raw, OverlongLine):
        return f"{where}: {raw.reason}", None
    try:
        event = decode_event(raw, where)
    except EventRejected as rejected:
        return str(rejected), None
    key = one_key
    if key is None:
        table = tables.get(event.table_id)
        if table is None:
            reason = f"table {event.table_id} has no keys in {config_path}"
            return f"{where} (event_id {event.event_id}): {reason}", None
        key = table.first
    return "", signed(raw, key.kid, key.secret)
