"""Each test gets its own embedded store in its own directory.

chDB hosts one engine per process, bound to one directory, and a client on
another directory is refused while any client is open. So no client may
outlive its test: the fixture opens the store, migrates it, and closes it
at teardown (switching directories then costs about 0.1 s).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from clickhouse_connect.driver.client import Client

from tablewatch.store.client import connect
from tablewatch.store.migrate import migrate


def dsn_of(directory: Path) -> str:
    """The chdb DSN of an absolute directory (``chdb:///`` + ``/abs/dir``)."""
    assert directory.is_absolute()
    return f"chdb:///{directory}"


@pytest.fixture
def store_dsn(tmp_path: Path) -> str:
    return dsn_of(tmp_path / "store")


@pytest.fixture
def bare_store(store_dsn: str) -> Iterator[Client]:
    """An empty (not migrated) store."""
    client = connect(store_dsn)
    try:
        yield client
    finally:
        client.close()


@pytest.fixture
def store(bare_store: Client) -> Client:
    """A migrated store."""
    migrate(bare_store)
    return bare_store
