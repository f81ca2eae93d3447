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

What is not a file of events is refused before its events are read
(:class:`NotEventsFile`, an ``OSError`` naming the file): a device (``/dev/zero``), a
directory or a socket; a start with no line end in its first :data:`MAX_LINE_BYTES`;
a start whose lines are mostly not JSON objects (binary data, another format). A named
pipe is read like a file.
"""

from __future__ import annotations

import errno
import itertools
import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

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
_BOM = b"\xef\xbb\xbf"


class NotEventsFile(OSError):
    """A path that is not a file of events (``filename``), and why (``strerror``)."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(errno.EINVAL, reason, str(path))

    def __str__(self) -> str:
        return f"{self.filename}: {self.strerror}"


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
    path: Path,
    block_size: int = BLOCK_SIZE,
    max_line: int = MAX_LINE_BYTES,
    *,
    events: bool = True,
) -> Iterator[tuple[int, list[bytes]]]:
    """The lines of ``path`` (without their newline), a block at a time, with the number
    of each block's first line (from 1). A line of more than ``max_line`` bytes is an
    :class:`OverlongLine` (its size, not its bytes). Raises ``OSError`` if it cannot be
    read, :class:`NotEventsFile` if it is not a file, or, with ``events``, if its start is
    not JSON Lines."""
    for number, lines, _ in _line_blocks(path, block_size, max_line, events=events):
        yield number, lines


def _line_blocks(
    path: Path, block_size: int, max_line: int, *, events: bool = True
) -> Iterator[tuple[int, list[bytes], bool]]:
    """:func:`line_blocks`, and whether each block's lines are all plain (ASCII, no
    backslash, no DEL: :func:`~tablewatch.rules.decode.is_plain`), looked at in the
    blocks as read, which the decoder then need not join to look at."""
    number = 1
    with path.open("rb") as file:
        kind = _not_a_file(os.fstat(file.fileno()).st_mode)
        if kind is not None:
            raise NotEventsFile(path, f"{kind}, not a file of events")
        start = _start(file, path, block_size, max_line) if events else b""
        blocks = itertools.chain(
            (start,) if start else (), iter(lambda: file.read(block_size), b"")
        )
        head: list[bytes] = []  # the start of a line cut by the ends of blocks
        held = 0  # bytes in head
        head_plain = True  # whether the blocks head came from were plain
        skipped = 0  # > 0: the bytes so far of a line too long to keep
        for block in blocks:
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
                if len(block) > max_line and max(map(len, lines)) > max_line:
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


def check_events_file(path: Path) -> None:
    """Refuse ``path`` before its events are read, as reading it would
    (:class:`NotEventsFile`): by its kind, and, a regular file, by its start (a named pipe
    is not read here: what is read of it would be lost). Raises ``OSError`` for a path that
    cannot be read."""
    kind = _not_a_file(path.stat().st_mode)
    if kind is not None:
        raise NotEventsFile(path, f"{kind}, not a file of events")
    if stat.S_ISREG(path.stat().st_mode):
        with path.open("rb") as file:
            _start(file, path, BLOCK_SIZE, MAX_LINE_BYTES)


def _not_a_file(mode: int) -> str | None:
    """What a path of this mode is when it is not a file (or a named pipe) to read."""
    if stat.S_ISREG(mode) or stat.S_ISFIFO(mode):
        return None
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _start(file: BinaryIO, path: Path, block_size: int, max_line: int) -> bytes:
    """The file's first block, read on to its first line end (at most ``max_line`` + 1
    bytes), once it looks like JSON Lines; raises :class:`NotEventsFile` when it does not:
    no line end within ``max_line`` bytes, or fewer than half its lines JSON objects (a
    line that begins with ``{``: what a decoder then makes of it is its own affair)."""
    data = file.read(block_size)
    while data and b"\n" not in data and len(data) <= max_line:
        more = file.read(min(block_size, max_line + 1 - len(data)))
        if not more:
            break
        data += more
    ended = b"\n" in data
    if not ended and len(data) > max_line and not _object_start(data):
        raise NotEventsFile(
            path, f"not JSON Lines: no line end in its first {max_line:,} bytes, and no {{ first"
        )
    lines = data.split(b"\n")
    if ended and len(data) >= block_size:
        lines.pop()  # a line the block cut
    given = [(n, line.strip()) for n, line in enumerate(lines, 1) if line.strip()]
    others = [(n, line) for n, line in given if not _object_start(line)]
    if given and len(others) * 2 > len(given):
        n, line = others[0]
        what = "binary data" if b"\x00" in data else "not JSON Lines"
        raise NotEventsFile(
            path,
            f"{what}: {len(others):,} of its first {len(given):,} lines are not JSON objects "
            f"(line {n} begins {line[:16]!r})",
        )
    return data


def _object_start(data: bytes) -> bool:
    """Whether ``data`` begins as a JSON object would (after a BOM and blanks)."""
    return data.removeprefix(_BOM).lstrip().startswith(b"{")
