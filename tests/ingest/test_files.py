"""Reading JSON Lines in blocks: every line once, numbered, an overlong line as its size only,
and the blocks' "plain" flag never claimed for a line that is not."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tablewatch.ingest.files import _line_blocks, line_blocks, read_blocks
from tablewatch.rules.decode import OverlongLine, is_plain

PIECES = [b"x", b"{}", b"\\", b"\xc3\xa9", b"\x7f", b" ", b"\r"]


@settings(max_examples=150)
@given(
    lines=st.lists(st.lists(st.sampled_from(PIECES), max_size=12).map(b"".join), max_size=12),
    final_newline=st.booleans(),
    block_size=st.sampled_from([1, 2, 3, 7, 16, 64]),
    max_line=st.sampled_from([4, 9, 20, 100]),
)
def test_blocks_give_every_line_once(
    tmp_path_factory: pytest.TempPathFactory,
    lines: list[bytes],
    final_newline: bool,
    block_size: int,
    max_line: int,
) -> None:
    data = b"\n".join(lines) + (b"\n" if final_newline and lines else b"")
    path = tmp_path_factory.mktemp("blocks") / "f.jsonl"
    path.write_bytes(data)
    expected = data.split(b"\n")
    if expected and expected[-1] == b"":
        expected.pop()
    blocks = list(_line_blocks(path, block_size, max_line, events=False))
    got = [
        ("long", line.size) if isinstance(line, OverlongLine) else line
        for _, block, _ in blocks
        for line in block
    ]
    assert got == [line if len(line) <= max_line else ("long", len(line)) for line in expected]
    number = 1
    for first, block, plain in blocks:
        assert first == number
        number += len(block)
        if plain:
            assert all(is_plain(line) for line in block)
    assert [lines for _, lines in line_blocks(path, block_size, max_line, events=False)] == [
        block for _, block, _ in blocks
    ]


def test_read_blocks_refuses_an_unprintable_id_in_a_block_not_plain(tmp_path: Path) -> None:
    good = (
        b'{"v":1,"event_id":"e-%d","table_id":"T","seq":%d,'
        b'"ts":"2026-11-29T20:15:03.123Z","type":"meter","amount":5}'
    )
    lines = [good % (n, n) for n in range(1, 400)]
    lines[200] = lines[200].replace(b'"T"', b'"T\\u0007"')
    lines[300] = lines[300].replace(b'"T"', b'"T\xc2\x85"')  # U+0085, raw UTF-8
    path = tmp_path / "f.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    found = [
        (r.where, r.field)
        for block in read_blocks([path], block_size=4096)
        for _, r in block.decoded.failed
        if r is not None
    ]
    assert found == [(f"{path}:201", "table_id"), (f"{path}:301", "table_id")]
