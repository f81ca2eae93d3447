"""Opening the store: one clickhouse-connect client API for the embedded engine and a server.

The embedded engine (chDB) is ClickHouse itself, linked into this process.
Its limits, measured with chdb 4.4 (see ``docs/store.md``):

- a process hosts one engine, bound to one directory: any number of clients
  may be open on that directory (threads may query in parallel), but a
  client on another directory is refused until every client is closed;
- a directory is locked (``<dir>/status``) by the process whose engine uses
  it: no other process can open it, not even read-only.

:func:`connect` turns both refusals into a :class:`StoreBusy` that says which.
"""

from __future__ import annotations

import contextlib
import fcntl
from collections.abc import Iterator
from pathlib import Path

import clickhouse_connect
from clickhouse_connect.driver.client import Client
from clickhouse_connect.driver.exceptions import ClickHouseError

from tablewatch.store.dsn import (
    DEFAULT_DSN,
    ENV_VAR,
    EmbeddedDsn,
    ServerDsn,
    default_dsn,
    parse_dsn,
    redact,
)

__all__ = [
    "DEFAULT_DSN",
    "ENV_VAR",
    "Client",
    "StoreBusy",
    "StoreError",
    "connect",
    "default_dsn",
    "open_store",
]


class StoreError(Exception):
    """The store could not be opened or used."""


class StoreBusy(StoreError):
    """The embedded store's directory is held by another process, or this
    process's engine is bound to another directory."""


def connect(dsn: str | None = None) -> Client:
    """A client for ``dsn`` (default: ``$TABLEWATCH_DSN`` or ``chdb:///.data/tablewatch``).

    An embedded store's directory is created if missing. Close the client
    when done (``with connect(dsn) as client:`` or :func:`open_store`): with
    the embedded engine, an open client keeps the directory locked.
    """
    dsn = dsn or default_dsn()
    target = parse_dsn(dsn)
    if isinstance(target, ServerDsn):
        return _server(target)
    return _embedded(target)


@contextlib.contextmanager
def open_store(dsn: str | None = None) -> Iterator[Client]:
    """:func:`connect`, closing the client at the end of the block."""
    client = connect(dsn)
    try:
        yield client
    finally:
        client.close()


def _server(target: ServerDsn) -> Client:
    try:
        # No session: the store never relies on session state (temporary
        # tables, SET), and without one a client may be used from several
        # threads at once.
        return clickhouse_connect.get_client(dsn=target.url, autogenerate_session_id=False)
    except ClickHouseError as exc:
        raise StoreError(f"cannot open the store at {redact(target.url)}: {exc}") from exc


def _embedded(target: EmbeddedDsn) -> Client:
    directory = target.directory
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StoreError(f"cannot create the store directory {directory}: {exc}") from exc
    try:
        return clickhouse_connect.get_client(interface="chdb", path=str(directory))
    except ClickHouseError as exc:
        message = str(exc)
        if "already initialized with path" in message:
            raise StoreBusy(
                f"this process already has the embedded store open at another directory "
                f"(one directory per process; close its clients first): {message}"
            ) from exc
        holder = _lock_holder(directory)
        if holder is not None:
            raise StoreBusy(
                f"the embedded store {directory} is in use by another process ({holder}). "
                "Only one process at a time can open a chdb directory: stop that process, "
                "or use a ClickHouse server (http://...) for concurrent access."
            ) from exc
        raise StoreError(f"cannot open the embedded store {directory}: {message}") from exc


def _lock_holder(directory: Path) -> str | None:
    """Who holds ``<dir>/status`` (the engine's lock file), or None when nobody does."""
    status = directory / "status"
    try:
        with status.open("rb") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                pid = _status_pid(handle.read(4096).decode("utf-8", "replace"))
                return f"pid {pid}" if pid else "pid unknown"
            fcntl.flock(handle, fcntl.LOCK_UN)
    except OSError:
        return None
    return None


def _status_pid(text: str) -> str | None:
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip().upper() == "PID":
            return value.strip()
    return None
