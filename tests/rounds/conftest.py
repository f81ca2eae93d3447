"""A store holding the golden rounds (tests/rounds/golden.py) as the worker stores them:
the events with their bytes, the judged rounds, lines and findings, the table directory.
One per module (chDB: one engine a process, one directory at a time)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tablewatch.config_file import load_config, table_entries
from tablewatch.rules.audit import Auditor
from tablewatch.rules.decode import decode_event
from tablewatch.store.client import connect
from tablewatch.store.migrate import migrate
from tablewatch.store.rollups import refresh_rollups
from tablewatch.store.table_directory import directory_rows, write_directory
from tablewatch.store.writer import StoreWriter
from tests.rounds.golden import write_files
from tests.store.helpers import Audited


def fill_store(dsn: str, events_path: Path, config_path: Path) -> None:
    configs = load_config(config_path)
    audited = Audited()
    auditor = Auditor(configs)
    for line in events_path.read_bytes().splitlines():
        event = decode_event(line)
        audited.raw.append((line, event))
        audited.outcomes.extend(auditor.feed(event))
    audited.outcomes.extend(auditor.finish())
    client = connect(dsn)
    try:
        migrate(client)
        StoreWriter(client).insert_batch(audited.batch())
        write_directory(
            client, directory_rows(configs, table_entries(config_path), 1_796_000_000_000)
        )
        refresh_rollups(client)  # as the worker does after its inserts
    finally:
        client.close()


@pytest.fixture(scope="module")
def golden_files(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return write_files(tmp_path_factory.mktemp("golden"))


@pytest.fixture(scope="module")
def golden_dsn(
    tmp_path_factory: pytest.TempPathFactory, golden_files: tuple[Path, Path]
) -> Iterator[str]:
    dsn = f"chdb:///{tmp_path_factory.mktemp('golden-store')}"
    fill_store(dsn, *golden_files)
    yield dsn


def json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]
