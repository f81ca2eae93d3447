"""`tablewatch ingest` without a broker: reading files into items, and an unreadable file."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from tablewatch.commands.ingest import _batches, ingest


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
