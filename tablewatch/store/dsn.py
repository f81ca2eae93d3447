"""Where the store lives: a DSN naming an embedded chDB directory or a ClickHouse server.

- ``chdb:///<dir>``: the ClickHouse engine embedded in this process (chDB),
  its data in ``<dir>``. As in SQLAlchemy's SQLite URLs, what follows
  ``chdb:///`` is the directory: ``chdb:///.data/tablewatch`` is relative to
  the current directory, ``chdb:////var/lib/tablewatch`` (four slashes) is
  absolute, ``chdb:///~/tw`` is under the home directory.
- ``http://user:pass@host:8123/db`` or ``https://...``: a ClickHouse server.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

ENV_VAR = "TABLEWATCH_DSN"  # of the commands' --dsn option
DEFAULT_DSN = "chdb:///.data/tablewatch"

CHDB_PREFIX = "chdb:///"


class DsnError(ValueError):
    """A DSN this store cannot use."""


@dataclass(frozen=True, slots=True)
class EmbeddedDsn:
    """An embedded (chDB) store: its directory, absolute and resolved."""

    directory: Path


@dataclass(frozen=True, slots=True)
class ServerDsn:
    """A ClickHouse server reached over HTTP(S); ``url`` is passed to clickhouse-connect."""

    url: str


Dsn = EmbeddedDsn | ServerDsn


def default_dsn() -> str:
    """:data:`DEFAULT_DSN`: the store when none is named. Commands name one (``--dsn``,
    whose environment variable is :data:`ENV_VAR`); nothing here reads the environment."""
    return DEFAULT_DSN


def parse_dsn(dsn: str, cwd: Path | None = None) -> Dsn:
    """Read ``dsn``; a relative chDB directory is resolved against ``cwd`` (default: the CWD)."""
    if dsn.startswith(CHDB_PREFIX):
        rest = dsn[len(CHDB_PREFIX) :]
        if not rest or "?" in rest or "#" in rest:
            raise DsnError(f"{dsn!r}: expected chdb:///<directory> (no query string)")
        path = Path(rest).expanduser()
        if not path.is_absolute():
            path = (cwd or Path.cwd()) / path
        # chDB compares engine paths literally: one spelling per directory
        return EmbeddedDsn(Path(os.path.realpath(path)))
    if dsn.startswith("chdb:"):
        raise DsnError(f"{dsn!r}: an embedded store is chdb:///<directory>")
    parts = urlsplit(dsn)
    if parts.scheme in ("http", "https") and parts.hostname:
        return ServerDsn(dsn)
    raise DsnError(
        f"{dsn!r}: expected chdb:///<directory> or http(s)://user:password@host:8123/database"
    )


def redact(dsn: str) -> str:
    """``dsn`` with any password replaced by ``***`` (for messages and logs)."""
    parts = urlsplit(dsn)
    if parts.password is None:
        return dsn
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return parts._replace(netloc=netloc).geturl()
