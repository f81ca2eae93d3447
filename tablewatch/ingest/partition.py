"""Sharing the tables of a JSON Lines file among processes.

Every event of a table must go to the same process (a table's state spans
the whole input), so every share reads each line's ``table_id`` and keeps
the lines of its own tables. Tables are dealt to the shares in the order
they first appear (the first to share 0, the next to share 1, ...): every
share reads the same lines, so all agree, and a floor of tables of similar
size is split evenly (a hash of the id had split twelve tables 7 to 5).
A line that does not even give a ``table_id`` cannot be an event: share 0
alone decodes it, to report its rejection.

Each share reads every line's ``table_id`` with a msgspec decoder that
knows no other field: in C it skips the rest of the line, exact whatever the
JSON looks like (spacing, escapes, a key given twice), and faster than
finding the key with a regular expression (tried: more than twice as slow).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress
from operator import attrgetter

import msgspec


class _TableOnly(msgspec.Struct, gc=False):
    table_id: str


_decode_table = msgspec.json.Decoder(_TableOnly).decode
_table_id_of = attrgetter("table_id")


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
        except (msgspec.DecodeError, RecursionError):  # RecursionError: nested too deep
            ids.append(None)


class Router:
    """Which lines of a block one share decodes."""

    def __init__(self, shares: int, share: int) -> None:
        self.shares = shares
        self.share = share
        # table_id -> whether this share decodes its lines; None: lines with no table_id
        self._decodes: dict[str | None, bool] = {None: share == 0}
        self._tables = 0  # tables seen so far (dealt in turn)

    def select(self, lines: Sequence[bytes]) -> list[int]:
        """Indexes of the lines this share decodes, in order."""
        ids = table_ids(lines)
        decodes = self._decodes
        try:
            keep = list(map(decodes.__getitem__, ids))
        except KeyError:  # tables not seen before: dealt in the order they appear
            for table_id in dict.fromkeys(ids):
                if table_id not in decodes:
                    decodes[table_id] = self._tables % self.shares == self.share
                    self._tables += 1
            keep = list(map(decodes.__getitem__, ids))
        return list(compress(range(len(lines)), keep))
