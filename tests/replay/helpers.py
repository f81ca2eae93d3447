"""Running ``tablewatch replay`` as a real process, and reading what it recorded."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import yaml

from tablewatch.rules.decode import encode_event
from tablewatch.rules.events import AnyEvent
from tablewatch.store.client import open_store
from tablewatch.store.migrate import migrate
from tablewatch.store.query_limits import QueryLimits
from tablewatch.store.read_only import ReadOnlyReader


def replay_cli(
    *args: str, timeout: float = 300, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "tablewatch.cli", "replay", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def replay_json(*args: str) -> tuple[int, dict[str, Any], str]:
    """Exit code, the JSON document and stderr of ``tablewatch replay ... --format json``."""
    result = replay_cli(*args, "--format", "json")
    assert result.stdout, result.stderr
    return result.returncode, json.loads(result.stdout), result.stderr


def write_events(path: Path, events: Iterable[AnyEvent]) -> Path:
    path.write_bytes(b"".join(encode_event(e) + b"\n" for e in events))
    return path


def write_config(path: Path, document: dict[str, Any]) -> Path:
    path.write_text(yaml.safe_dump(document, sort_keys=False))
    return path


def query(dsn: str, sql: str) -> Sequence[Sequence[Any]]:
    with open_store(dsn) as client:
        migrate(client)
        return client.query(sql).result_rows


def reader_rows(dsn: str, sql: str) -> Sequence[Sequence[Any]]:
    """``sql`` through the read-only reader (as the auditor API reads)."""
    with open_store(dsn) as client:
        return ReadOnlyReader(client, QueryLimits(), embedded=True).run(sql).rows
