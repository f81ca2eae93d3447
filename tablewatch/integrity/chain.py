"""The per-table hash chain over the stored events.

Each event row a table's worker writes carries its position in the table's
chain (1, 2, 3 ...: the order the worker applied them in, which is the
table's Kafka offset order), the hash of the row before it and its own::

    chain_hash(n) = SHA-256( b"tablewatch-chain-v1\\0"
                             || chain_hash(n - 1)               32 bytes; 32 zero bytes for n = 1
                             || uint64_be(n) || uint64_be(seq)
                             || uint32_be(len(table_id)) || table_id (UTF-8)
                             || payload )                       the event's bytes as received

so that changing, inserting, deleting or reordering a stored event changes
every hash after it. A chain hash is stored as 64 lower-case hex digits.
Rows outside any chain (written before the chain existed) have position 0
and empty hashes.
"""

from __future__ import annotations

import hashlib
import struct
from dataclasses import dataclass
from typing import Final

DOMAIN: Final = b"tablewatch-chain-v1\x00"
GENESIS: Final = bytes(32)  # the "hash before" the first event of a table's chain
GENESIS_HEX: Final = GENESIS.hex()
NO_HASH: Final = ""  # chain_prev and chain_hash of a row outside the chain
_FIELDS: Final = struct.Struct(">QQI")
_sha256 = hashlib.sha256


def link(prev: bytes, table_id: str, position: int, seq: int, payload: bytes) -> bytes:
    """The chain hash of the event at ``position`` whose predecessor's hash is ``prev``."""
    table = table_id.encode()
    return _sha256(
        DOMAIN + prev + _FIELDS.pack(position, seq, len(table)) + table + payload
    ).digest()


@dataclass(slots=True)
class ChainHead:
    """A table's chain after its last stored event, and what the worker signs of it.

    ``offset``: the Kafka offset of the last event chained (None: none yet), so that
    a message delivered again is not chained twice. ``seq``, ``ts_ms`` and
    ``partition`` describe that event for a checkpoint. ``signed`` is the last
    position a checkpoint covers, ``signed_at`` when (wall clock, seconds);
    ``checkpoint_no`` is that checkpoint's number in the table's chain of checkpoints
    (0: none signed yet) and ``checkpoint_link`` its link hash, which the next
    checkpoint signs (:func:`tablewatch.integrity.checkpoints.checkpoint_link`)."""

    position: int = 0
    hash: bytes = GENESIS
    offset: int | None = None
    seq: int = 0
    ts_ms: int = 0
    partition: int = -1
    signed: int = 0
    signed_at: float = 0.0
    checkpoint_no: int = 0
    checkpoint_link: bytes = GENESIS

    def extend(
        self, table_id: str, seq: int, ts_ms: int, payload: bytes, partition: int, offset: int
    ) -> tuple[int, str, str]:
        """Chain one event; its row's ``(chain_pos, chain_prev, chain_hash)``."""
        position = self.position + 1
        prev = self.hash
        digest = link(prev, table_id, position, seq, payload)
        self.position, self.hash, self.offset = position, digest, offset
        self.seq, self.ts_ms, self.partition = seq, ts_ms, partition
        return position, prev.hex(), digest.hex()

    @property
    def hash_hex(self) -> str:
        return self.hash.hex()
