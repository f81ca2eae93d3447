"""Reading protocol events from JSON Lines files, in blocks (memory stays flat).

A file is read in blocks split into lines in C, rather than iterated line by
line: per line, the only Python work left is decoding. A block is small
enough (a few hundred events) for its decoded events to be still in the CPU
cache when the audit folds them: 4 MB blocks made the whole audit about 10%
slower.

A line longer than :data:`MAX_LINE_BYTES` (valid events are under 2 KiB) is
not kept: its bytes are counted and skipped up to its newline, and it comes
out as an :class:`~tablewatch.rules.decode.OverlongLine`, which the decoder
rejects with its size. A file of any line length is read in linear time and
flat memory.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from tablewatch.rules.decode import (
    DecodedLines,
    EventRejected,
    OverlongLine,
    decode_lines,
    is_plain,
)
from tablewatch.rules.events import AnyEvent

BLOCK_SIZE = 64 << 10  # bytes read at a time
MAX_LINE_BYTES = 1 << 20  # a longer line (without its newline) is rejected unread


@dataclass(slots=True)
class EventBlock:
    """Consecutive lines of one file, decoded."""

    path: Path
    first: int  # number of the block's first line (from 1)
    lines: int  # how many lines the block has
    decoded: DecodedLines


def read_jsonl(paths: Iterable[Path]) -> Iterator[AnyEvent | EventRejected]:
    """Every event of every file, in order; a bad line yields its rejection instead.

    Blank lines are skipped. Raises ``OSError`` for a file that cannot be read.
    """
    for block in read_blocks(paths):
        yield from block.decoded.in_order()


def read_blocks(paths: Iterable[Path], block_size: int = BLOCK_SIZE) -> Iterator[EventBlock]:
    """:func:`read_jsonl` a block of lines at a time (no Python step per line but decoding)."""
    for path in paths:
        where = str(path)
        for first, lines, plain in _line_blocks(path, block_size, MAX_LINE_BYTES):
            decoded = decode_lines(lines, where, first, plain=plain)
            yield EventBlock(path, first, len(lines), decoded)


def line_blocks(
    path: Path, block_size: int = BLOCK_SIZE, max_line: int = MAX_LINE_BYTES
) -> Iterator[tuple[int, list[bytes]]]:
    """The lines of ``path`` (without their newline), a block at a time, with the number
    of each block's first line (from 1). A line of more than ``max_line`` bytes is an
    :class:`OverlongLine` (its size, not its bytes). Raises ``OSError`` if it cannot be
    read."""
    for number, lines, _ in _line_blocks(path, block_size, max_line):
        yield number, lines


def _line_blocks(
    path: Path, block_size: int, max_line: int
) -> Iterator[tuple[int, list[bytes], bool]]:
    """:func:`line_blocks`, and whether each block's lines are all plain (ASCII, no
    backslash, no DEL: :func:`~tablewatch.rules.decode.is_plain`), looked at in the
    blocks as read, which the decoder then need not join to look at."""
    number = 1
    with path.open("rb") as file:
        head: list[bytes] = []  # the start of a line cut by the ends of blocks
        held = 0  # bytes in head
        head_plain = True  # whether the blocks head came from were plain
        skipped = 0  # > 0: the bytes so far of a line too long to keep
        while block := file.read(block_size):
            block_plain = plain = is_plain(block)
            lines = block.split(b"\n")
            tail = lines.pop()  # after the block's last newline: a line not ended yet
            if lines:
                first = lines[0]
                if skipped:
                    lines[0] = OverlongLine(skipped + len(first), max_line)
                    skipped = 0
                elif head:
                    size = held + len(first)
                    lines[0] = (
                        b"".join((*head, first))
                        if size <= max_line
                        else OverlongLine(size, max_line)
                    )
                    head, held = [], 0
                    plain = plain and head_plain
                    head_plain = True
                if block_size > max_line and max(map(len, lines)) > max_line:
                    lines = [_kept(line, max_line) for line in lines]
                yield number, lines, plain
                number += len(lines)
            if skipped:
                skipped += len(tail)
            elif held + len(tail) > max_line:
                skipped = held + len(tail)
                head, held = [], 0
                head_plain = True
            elif tail:
                head.append(tail)
                held += len(tail)
                head_plain = head_plain and block_plain
        if skipped:
            yield number, [OverlongLine(skipped, max_line)], True
        elif head:
            yield number, [b"".join(head)], head_plain


def _kept(line: bytes, max_line: int) -> bytes:
    return line if len(line) <= max_line else OverlongLine(len(line), max_line)
