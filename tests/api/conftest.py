"""The API over a store filled from a simulated floor (module-scoped: one engine directory
per process, closed at the module's end so that the next module may open another)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tablewatch.api.app import create_app
from tablewatch.api.sources import ReaderPool, open_product_reader
from tests.api.store import FilledStore, fill_store


@pytest.fixture(scope="module")
def filled(tmp_path_factory: pytest.TempPathFactory) -> FilledStore:
    return fill_store(Path(tmp_path_factory.mktemp("api")) / "store")


@pytest.fixture(scope="module")
def pool(filled: FilledStore) -> Iterator[ReaderPool]:
    readers = ReaderPool(lambda: open_product_reader(filled.dsn), size=2)
    try:
        yield readers
    finally:
        readers.close()


@pytest.fixture(scope="module")
def app(pool: ReaderPool, filled: FilledStore) -> FastAPI:
    return create_app(pool, described_as=filled.dsn)


@pytest.fixture(scope="module")
def client(app: FastAPI) -> TestClient:
    return TestClient(app)
