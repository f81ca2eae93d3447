"""Opening the store: one clickhouse-connect client API for the embedded engine and a server.

The embedded engine (chDB) is ClickHouse itself, linked into this process.
Its limits, measured with chdb 4.4 (see ``docs/store.md``):

- a process hosts one engine, bound to one directory: any number of clients
  may be open on that directory (threads may query in parallel), but a
  client on another directory is refused until every client is closed;
- a directory is locked (``<dir>/status``) by the process whose engine uses
  it: no other process can open it, not even read-only.

:func:`connect` turns both refusals into a :class:`StoreBusy` that says which,
in one line: for a directory held by another process, which process, and
when it is a worker, that its ``/query`` endpoint answers queries meanwhile.
The engine's own report of the refusal, which it prints on standard error,
is kept out of the way.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
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
    """A client for ``dsn`` (default: ``chdb:///.data/tablewatch``).

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
        return _engine_quiet(
            lambda: clickhouse_connect.get_client(interface="chdb", path=str(directory))
        )
    except ClickHouseError as exc:
        message = str(exc)
        if "already initialized with path" in message:
            raise StoreBusy(
                f"this process already has the embedded store open at another directory "
                f"(one directory per process; close its clients first): {message}"
            ) from exc
        holder = _lock_holder(directory)
        if holder is not None:
            raise StoreBusy(busy_message(directory, holder)) from exc
        raise StoreError(f"cannot open the embedded store {directory}: {message}") from exc


WORKER_WEB_PORT = 6066  # `tablewatch worker --web-port`'s default

_stderr_aside = threading.Lock()


def _engine_quiet(start: Callable[[], Client]) -> Client:
    """``start()`` with standard error (the file descriptor: the engine writes there
    itself) set aside. A refusal raises, and its text is in the exception; anything the
    engine printed on a start that worked is passed on to standard error."""
    with _stderr_aside, tempfile.TemporaryFile() as aside:
        sys.stderr.flush()
        saved = os.dup(2)
        os.dup2(aside.fileno(), 2)
        started = False
        try:
            client = start()
            started = True
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            if started:
                aside.seek(0)
                printed = aside.read()
                if printed:
                    os.write(2, printed)
    return client


@dataclass(frozen=True, slots=True)
class Holder:
    """The process that holds an embedded store's directory."""

    pid: str | None
    argv: tuple[str, ...] = ()  # its command line, when it can be read

    def command(self) -> str:
        """Its command line, the interpreter and the script's directory left out."""
        words = list(self.argv)
        if len(words) > 1 and Path(words[0]).name.startswith("python") and words[1][:1] != "-":
            words = words[1:]  # python /path/to/tablewatch worker: tablewatch worker
        if words:
            words[0] = Path(words[0]).name
        text = " ".join(" ".join(words).split())
        return text if len(text) <= 100 else text[:99] + "…"

    def worker_port(self) -> int | None:
        """The web port of a ``tablewatch worker``, or None if it is not one."""
        words = list(self.argv)
        for i, word in enumerate(words[:-1]):
            if Path(word).name in ("tablewatch", "tablewatch.cli") and words[i + 1] == "worker":
                break
        else:
            return None
        port = WORKER_WEB_PORT
        for i, word in enumerate(words):
            if word == "--web-port" and i + 1 < len(words) and words[i + 1].isdigit():
                port = int(words[i + 1])
            elif word.startswith("--web-port=") and word.partition("=")[2].isdigit():
                port = int(word.partition("=")[2])
        return port


def busy_message(directory: Path, holder: Holder) -> str:
    """One line: who holds ``directory``, and how to read the store meanwhile."""
    who = f"pid {holder.pid}" if holder.pid else "another process (pid unknown)"
    if holder.argv:
        who += f" ({holder.command()})"
    port = holder.worker_port()
    if port is not None:
        return (
            f"the embedded store {directory} is held by the worker, {who}: while it runs, "
            f"queries go through it: http://127.0.0.1:{port}/query?sql=... (one process at "
            "a time opens a chdb directory)"
        )
    return (
        f"the embedded store {directory} is held by {who}; one process at a time opens a "
        "chdb directory: stop that one, or use a ClickHouse server (http://...) for "
        "concurrent access (while a worker runs, queries go through it: "
        f"http://127.0.0.1:{WORKER_WEB_PORT}/query?sql=...)"
    )


def _lock_holder(directory: Path) -> Holder | None:
    """Who holds ``<dir>/status`` (the engine's lock file), or None when nobody does."""
    status = directory / "status"
    try:
        with status.open("rb") as handle:
            try:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                pid = _status_pid(handle.read(4096).decode("utf-8", "replace"))
                return Holder(pid, _command_line(pid))
            fcntl.flock(handle, fcntl.LOCK_UN)
    except OSError:
        return None
    return None


def _command_line(pid: str | None) -> tuple[str, ...]:
    """The command line of process ``pid`` (Linux's /proc), or () when it cannot be read."""
    if not pid or not pid.isdigit():
        return ()
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return ()
    return tuple(word.decode("utf-8", "replace") for word in raw.split(b"\0") if word)


def _status_pid(text: str) -> str | None:
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip().upper() == "PID":
            return value.strip()
    return None
