"""`tablewatch ingest` without a broker: reading files into items, and an unreadable file."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from tablewatch.commands.ingest import _batches, ingest
from tablewatch.ingest.batch import classify, dead_letter_of
from tablewatch.ingest.files import MAX_LINE_BYTES


def test_lines_become_items_named_file_line_in_batches(tmp_path: Path) -> None:
    a = tmp_path / "a.jsonl"
    b = tmp_path / "b.jsonl"
    a.write_bytes(b'{"n":1}\n\n  {"n":2} \r\n{"n":3}')  # blank line, spaces, no final newline
    b.write_bytes(b'{"n":4}\n')
    batches = list(_batches((a, b), 2))
    assert [[(i.where, i.raw) for i in batch] for batch in batches] == [
        [(f"{a}:1", b'{"n":1}'), (f"{a}:3", b'{"n":2}')],
        [(f"{a}:4", b'{"n":3}'), (f"{b}:1", b'{"n":4}')],
    ]


def test_unreadable_file_is_exit_2(tmp_path: Path) -> None:
    missing = tmp_path / "missing.jsonl"
    result = CliRunner().invoke(ingest, [str(missing), "--bootstrap", "127.0.0.1:1"])
    assert result.exit_code == 2
    assert result.stderr == f"tablewatch ingest: {missing}: No such file or directory\n"
    assert result.stdout.startswith("0 accepted, 0 duplicates, 0 rejected")


def test_an_overlong_line_becomes_an_item_with_its_size_only(tmp_path: Path) -> None:
    path = tmp_path / "long.jsonl"
    long_size = 3 * MAX_LINE_BYTES
    path.write_bytes(b'{"n":1}\n' + b"x" * long_size + b'\n{"n":3}')
    items = [item for batch in _batches((path,), 10) for item in batch]
    assert [(i.where, i.raw, i.bytes_in) for i in items] == [
        (f"{path}:1", b'{"n":1}', 7),
        (f"{path}:2", b"", long_size),
        (f"{path}:3", b'{"n":3}', 7),
    ]
    rejected = classify(items, set()).rejected
    assert rejected[1].rejection.reason == f"event of {long_size:,} bytes exceeds 65,536 bytes"
    letter = json.loads(dead_letter_of(rejected[1], "2026-11-29T20:15:03.123Z", "test").value)
    assert (letter["raw_bytes"], letter["truncated"], letter["where"]) == (
        long_size,
        True,
        f"{path}:2",
    )
