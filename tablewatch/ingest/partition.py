"""Sharing the tables of a JSON Lines file among processes.

Every event of a table must go to the same process (a table's state spans
the whole input), so a line goes to the share its ``table_id`` hashes to.
Each share reads every line's ``table_id`` with a msgspec decoder that
knows no other field: in C it skips the rest of the line, no faster than a
byte search done in Python but exact whatever the JSON looks like (spacing,
escapes, a key given twice). A line that does not even give a ``table_id``
cannot be an event: share 0 alone decodes it, to report its rejection.

The hash is CRC-32 of the id's UTF-8 bytes: the same in every process
(``hash()`` of a string is salted per process).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from itertools import compress
from operator import attrgetter

import msgspec


class _TableOnly(msgspec.Struct, gc=False):
    table_id: str


_decode_table = msgspec.json.Decoder(_TableOnly).decode
_table_id_of = attrgetter("table_id")


def share_of(table_id: str, shares: int) -> int:
    """The share (0 .. shares-1) of a table."""
    return zlib.crc32(table_id.encode("utf-8")) % shares


def table_ids(lines: Sequence[bytes]) -> list[str | None]:
    """Each line's ``table_id``, or None where the line gives none.

    ``list.extend(map(...))`` runs the decoder over the lines with no Python
    code between them; a line that fails stops it, with the iterator just
    past that line, which gets None.
    """
    ids: list[str | None] = []
    remaining = iter(lines)
    while True:
        try:
            ids.extend(map(_table_id_of, map(_decode_table, remaining)))
            return ids
        except msgspec.DecodeError:
            ids.append(None)


class Router:
    """Which lines of a block one share decodes."""

    def __init__(self, shares: int, share: int) -> None:
        self.shares = shares
        self.share = share
        # table_id -> whether this share decodes its lines; None: lines with no table_id
        self._decodes: dict[str | None, bool] = {None: share == 0}

    def select(self, lines: Sequence[bytes]) -> list[int]:
        """Indexes of the lines this share decodes, in order."""
        ids = table_ids(lines)
        decodes = self._decodes
        try:
            keep = list(map(decodes.__getitem__, ids))
        except KeyError:  # tables not seen before
            for table_id in set(ids) - decodes.keys():
                if table_id is not None:
                    decodes[table_id] = share_of(table_id, self.shares) == self.share
            keep = list(map(decodes.__getitem__, ids))
        return list(compress(range(len(lines)), keep))
