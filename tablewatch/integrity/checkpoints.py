"""Signed checkpoints: a table's chain hash at a position, signed with the worker's key.

The worker signs a checkpoint of a table when its chain reaches a multiple of
``every_events`` (1,000) and, for a table with events not yet covered, when
``every_minutes`` (5) have passed since its last checkpoint. The signature
(Ed25519) is over the checkpoint's every field but itself, as
:func:`signed_bytes` lays them out: a JSON array, no spaces::

    ["tablewatch-checkpoint-v1", table_id, chain_pos, chain_hash, seq, event_ts_ms,
     kafka_partition, kafka_offset, signed_at_ms, key_id]

A checkpoint vouches for every event up to its position: changing one (and
recomputing the hashes after it, which anyone can) no longer gives the signed
hash. The events after a table's last checkpoint are protected by the chain
only, until the next checkpoint.

The checkpoints of a table form a chain of their own: each is numbered (1, 2,
3 ...) and signs the link hash of the one before it, so a checkpoint deleted
from between two others is seen (the number is missing, or the next one names a
link the store does not hold). Such a checkpoint is signed over::

    ["tablewatch-checkpoint-v2", table_id, chain_pos, chain_hash, seq, event_ts_ms,
     kafka_partition, kafka_offset, signed_at_ms, key_id, checkpoint_no, prev_link]

Its link hash (:func:`checkpoint_link`) covers what is the same whenever the
same checkpoint is signed again (a worker killed after signing it and before
saving its table's state signs it anew, at another ``signed_at``)::

    SHA-256( ["tablewatch-checkpoint-link-v1", table_id, checkpoint_no, chain_pos,
              chain_hash, prev_link] as JSON )

The first checkpoint's ``prev_link`` is 64 zeros. A checkpoint signed before
they were numbered has number 0 and the v1 layout above, and stands alone.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, replace
from typing import Final

import msgspec
from clickhouse_connect.driver.client import Client

from tablewatch.integrity.chain import GENESIS_HEX, ChainHead
from tablewatch.integrity.keys import ALGORITHM, Signer, signature_valid

DOMAIN: Final = "tablewatch-checkpoint-v1"
DOMAIN_V2: Final = "tablewatch-checkpoint-v2"
LINK_DOMAIN: Final = "tablewatch-checkpoint-link-v1"
FIRST_PREV: Final = GENESIS_HEX  # the prev_link of a table's checkpoint number 1
EVERY_EVENTS: Final = 1_000
EVERY_MINUTES: Final = 5.0

CHECKPOINTS: Final = "chain_checkpoints"
CHECKPOINT_COLUMNS: Final = (
    "table_id",
    "chain_pos",
    "chain_hash",
    "seq",
    "event_ts",
    "kafka_partition",
    "kafka_offset",
    "signed_at",
    "key_id",
    "signature",
    "checkpoint_no",
    "prev_checkpoint",
)
SIGNING_KEYS: Final = "signing_keys"
SIGNING_KEY_COLUMNS: Final = ("key_id", "algorithm", "public_key", "created_at")

_ENCODER = msgspec.json.Encoder()


@dataclass(frozen=True, slots=True)
class CheckpointPolicy:
    every_events: int = EVERY_EVENTS
    every_minutes: float = EVERY_MINUTES

    def __post_init__(self) -> None:
        if self.every_events < 1 or self.every_minutes <= 0:
            raise ValueError("checkpoints: every_events >= 1 and every_minutes > 0")


@dataclass(frozen=True, slots=True)
class Checkpoint:
    table_id: str
    chain_pos: int
    chain_hash: str  # hex
    seq: int  # of the event at chain_pos
    event_ts_ms: int  # its ts
    kafka_partition: int
    kafka_offset: int
    signed_at_ms: int
    key_id: str
    signature: str = ""  # hex
    number: int = 0  # in the table's chain of checkpoints (0: signed before they were numbered)
    prev_link: str = ""  # the link hash of checkpoint number - 1 (hex; FIRST_PREV for 1)

    def signed_bytes(self) -> bytes:
        return signed_bytes(self)

    @property
    def link(self) -> str:
        """Its link hash (hex), which the next checkpoint of its table signs."""
        return checkpoint_link(self)

    def row(self) -> tuple[object, ...]:
        """Its ``chain_checkpoints`` row (CHECKPOINT_COLUMNS)."""
        return (
            self.table_id,
            self.chain_pos,
            self.chain_hash,
            self.seq,
            self.event_ts_ms,
            self.kafka_partition,
            self.kafka_offset,
            self.signed_at_ms,
            self.key_id,
            self.signature,
            self.number,
            self.prev_link,
        )


def signed_bytes(checkpoint: Checkpoint) -> bytes:
    """What the signature of ``checkpoint`` is over (v1 for a checkpoint numbered 0)."""
    numbered = checkpoint.number > 0
    return _ENCODER.encode(
        [
            DOMAIN_V2 if numbered else DOMAIN,
            checkpoint.table_id,
            checkpoint.chain_pos,
            checkpoint.chain_hash,
            checkpoint.seq,
            checkpoint.event_ts_ms,
            checkpoint.kafka_partition,
            checkpoint.kafka_offset,
            checkpoint.signed_at_ms,
            checkpoint.key_id,
            *((checkpoint.number, checkpoint.prev_link) if numbered else ()),
        ]
    )


def checkpoint_link(checkpoint: Checkpoint) -> str:
    """The link hash of ``checkpoint`` (hex): what the next checkpoint of its table signs."""
    return hashlib.sha256(
        _ENCODER.encode(
            [
                LINK_DOMAIN,
                checkpoint.table_id,
                checkpoint.number,
                checkpoint.chain_pos,
                checkpoint.chain_hash,
                checkpoint.prev_link,
            ]
        )
    ).hexdigest()


def sign(table_id: str, head: ChainHead, signer: Signer, now_ms: int) -> Checkpoint:
    """The next checkpoint of ``head`` (a table's chain after its last event), signed: number
    ``head.checkpoint_no + 1``, after ``head.checkpoint_link``. The head is not changed
    (:func:`advance` records it once it is kept)."""
    unsigned = Checkpoint(
        table_id,
        head.position,
        head.hash_hex,
        head.seq,
        head.ts_ms,
        head.partition,
        -1 if head.offset is None else head.offset,
        now_ms,
        signer.key_id,
        number=head.checkpoint_no + 1,
        prev_link=head.checkpoint_link.hex(),
    )
    signature = signer.sign(signed_bytes(unsigned)).hex()
    return replace(unsigned, signature=signature)


def advance(head: ChainHead, checkpoint: Checkpoint, signed_at: float) -> None:
    """Record in ``head`` that ``checkpoint`` covers it (the next one follows it)."""
    head.signed, head.signed_at = checkpoint.chain_pos, signed_at
    head.checkpoint_no = checkpoint.number
    head.checkpoint_link = bytes.fromhex(checkpoint.link)


def signature_ok(checkpoint: Checkpoint, public_key: bytes) -> bool:
    try:
        signature = bytes.fromhex(checkpoint.signature)
    except ValueError:
        return False
    return signature_valid(public_key, signed_bytes(checkpoint), signature)


def key_row(signer: Signer, created_at_ms: int) -> tuple[object, ...]:
    """The ``signing_keys`` row publishing ``signer``'s public key (SIGNING_KEY_COLUMNS)."""
    return (signer.key_id, ALGORITHM, signer.public_key.hex(), created_at_ms)


def publish_key(client: Client, signer: Signer, now_ms: int) -> bool:
    """Put ``signer``'s public key in the store's ``signing_keys`` unless it is there (its
    first publication's time is kept); True if it was added."""
    rows = client.query(
        "SELECT count() FROM signing_keys WHERE key_id = {k:String} AND public_key = {p:String}",
        parameters={"k": signer.key_id, "p": signer.public_key.hex()},
    ).result_rows
    if rows and int(rows[0][0]):
        return False
    client.insert(SIGNING_KEYS, [key_row(signer, now_ms)], column_names=list(SIGNING_KEY_COLUMNS))
    return True
