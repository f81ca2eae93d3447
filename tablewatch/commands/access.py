"""``tablewatch access add | list | revoke``: the access file's token holders.

A token is printed once, by ``add``, on stdout alone (``TOKEN=$(tablewatch access add
...)``); the file keeps its SHA-256 only. A worker reading the file sees a change from its
next request.
"""

from __future__ import annotations

import sys
from datetime import datetime
from pathlib import Path
from typing import NoReturn

import click

from tablewatch.access.access_file import (
    ENV_VAR,
    AccessEntry,
    AccessFile,
    AccessFileError,
    format_time,
    load,
    parse_time,
    save,
)
from tablewatch.access.authenticate import utc_now
from tablewatch.access.roles import Role
from tablewatch.access.tokens import hash_token, new_token

EXIT_ERROR = 2

_file_option = click.option(
    "--file",
    "path",
    required=True,
    envvar=ENV_VAR,
    show_envvar=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="The access file (YAML).",
)


def _fail(message: str) -> NoReturn:
    click.echo(f"tablewatch access: {message}", err=True)
    sys.exit(EXIT_ERROR)


def _load(path: Path, *, missing_ok: bool = False) -> AccessFile:
    if missing_ok and not path.exists():
        return AccessFile()
    try:
        return load(path)
    except AccessFileError as exc:
        _fail(str(exc))


@click.group()
def access() -> None:
    """Tokens and roles of the worker's endpoints (the access file)."""


@access.command("add")
@_file_option
@click.option("--name", required=True, help="Who holds the token (unique in the file).")
@click.option(
    "--role",
    required=True,
    type=click.Choice([role.value for role in Role]),
    help="What the holder may do (docs/access.md).",
)
@click.option(
    "--expires",
    default=None,
    help="When the token stops working: a date (its midnight UTC) or an ISO 8601 time.",
)
@click.option(
    "--pit",
    "pits",
    multiple=True,
    help="A pit whose cases a floor_manager reads (repeat for several); a floor manager "
    "without one reads no case.",
)
def add(path: Path, name: str, role: str, expires: str | None, pits: tuple[str, ...]) -> None:
    """Make a token for NAME with ROLE; print it once (the file keeps its hash only)."""
    now = utc_now().replace(microsecond=0)
    until: datetime | None = None
    if expires is not None:
        try:
            until = parse_time(expires)
        except ValueError as exc:
            _fail(f"--expires: {exc}")
        if until <= now:
            _fail(f"--expires {format_time(until)} is already past")
    current = _load(path, missing_ok=True)
    token = new_token()
    try:
        entry = AccessEntry(
            name, Role(role), hash_token(token), now, until, tuple(dict.fromkeys(pits))
        )
        updated = current.with_entry(entry)
    except ValueError as exc:
        _fail(str(exc))
    try:
        save(path, updated)
    except OSError as exc:
        _fail(f"{path}: cannot be written: {exc.strerror or exc}")
    ending = f", expires {format_time(until)}" if until else ", no expiry"
    if pits:
        ending += f", pits {', '.join(dict.fromkeys(pits))}"
    click.echo(f"{name} ({role}) added to {path}{ending}. The token, shown once:", err=True)
    click.echo(token)


@access.command("list")
@_file_option
def list_(path: Path) -> None:
    """The token holders: name, role, created, expiry, whether the token still works, pits."""
    entries = _load(path).entries
    if not entries:
        click.echo(f"{path}: nobody holds a token")
        return
    now = utc_now()
    rows = [
        (
            e.name,
            e.role.value,
            format_time(e.created),
            format_time(e.expires) if e.expires else "never",
            "expired" if e.expired(now) else "active",
            e.token_hash[:19] + "...",
            ",".join(e.pits) or "-",
        )
        for e in entries
    ]
    header = ("name", "role", "created", "expires", "state", "token hash", "pits")
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    for row in [header, *rows]:
        click.echo("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))


@access.command("revoke")
@_file_option
@click.option("--name", required=True, help="Whose token to revoke.")
def revoke(path: Path, name: str) -> None:
    """Remove NAME's token from the file (a worker refuses it from its next request)."""
    current = _load(path)
    try:
        updated = current.without(name)
    except KeyError:
        _fail(f"nobody named {name!r} in {path}")
    try:
        save(path, updated)
    except OSError as exc:
        _fail(f"{path}: cannot be written: {exc.strerror or exc}")
    click.echo(f"{name}'s token revoked in {path}")
