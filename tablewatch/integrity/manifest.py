"""The record kept outside the store: every checkpoint, and signed floor manifests.

The store's own checkpoints prove nothing once someone who can write to the store
deletes them with the events they vouch for. So the worker also writes each
checkpoint it signs, and at every checkpoint round a signed *floor manifest*
(every table of its partitions with its last checkpoint: number, position, chain
hash and link), to places the store's writers cannot reach: the
``chain-checkpoints`` Kafka topic and an append-only file (``--manifest-file``)
that a site keeps on write-once storage. ``tablewatch verify --manifests FILE``
holds the store against that copy (:mod:`tablewatch.integrity.verify`).

One record a line, JSON, told apart by ``kind``::

    {"kind": "checkpoint", "table_id": ..., "chain_pos": ..., ..., "signature": ...}
    {"kind": "manifest", "writer": ..., "number": ..., "prev": ..., "signed_at_ms": ...,
     "key_id": ..., "partitions": [...], "tables": [[table_id, checkpoint_no, chain_pos,
     chain_hash, link], ...], "signature": ...}

A manifest is signed with the checkpoint key over::

    ["tablewatch-manifest-v1", writer, number, prev, signed_at_ms, key_id, partitions, tables]

``writer`` names the worker process that signed it; its manifests are numbered
from 1 and each names the SHA-256 of the one before (``prev``; 64 zeros for the
first), so a manifest cut out from between two of one writer is seen.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import msgspec

from tablewatch.integrity.chain import GENESIS_HEX
from tablewatch.integrity.checkpoints import Checkpoint, signature_ok
from tablewatch.integrity.keys import Signer, signature_valid
from tablewatch.topics import CHECKPOINTS as CHECKPOINTS_TOPIC

DOMAIN: Final = "tablewatch-manifest-v1"
TOPIC: Final = CHECKPOINTS_TOPIC
RECORD_BYTES: Final = 16 * 1024 * 1024  # one line of the external record, at most

# a manifest's table entry: table_id, checkpoint_no, chain_pos, chain_hash, link
Entry = tuple[str, int, int, str, str]


class CheckpointRecord(msgspec.Struct, tag="checkpoint", tag_field="kind", frozen=True):
    table_id: str
    chain_pos: int
    chain_hash: str
    seq: int
    event_ts_ms: int
    kafka_partition: int
    kafka_offset: int
    signed_at_ms: int
    key_id: str
    signature: str
    checkpoint_no: int = 0
    prev_checkpoint: str = ""

    def checkpoint(self) -> Checkpoint:
        return Checkpoint(
            self.table_id, self.chain_pos, self.chain_hash, self.seq, self.event_ts_ms,
            self.kafka_partition, self.kafka_offset, self.signed_at_ms, self.key_id,
            self.signature, self.checkpoint_no, self.prev_checkpoint,
        )  # fmt: skip


class ManifestRecord(msgspec.Struct, tag="manifest", tag_field="kind", frozen=True):
    writer: str
    number: int
    prev: str
    signed_at_ms: int
    key_id: str
    partitions: list[int]
    tables: list[Entry]
    signature: str = ""

    def signed_bytes(self) -> bytes:
        return _ENCODER.encode(
            [
                DOMAIN,
                self.writer,
                self.number,
                self.prev,
                self.signed_at_ms,
                self.key_id,
                self.partitions,
                [list(e) for e in self.tables],
            ]
        )

    @property
    def digest(self) -> str:
        """What the writer's next manifest names as ``prev`` (hex)."""
        return hashlib.sha256(self.signed_bytes()).hexdigest()

    def signature_ok(self, public_key: bytes) -> bool:
        try:
            signature = bytes.fromhex(self.signature)
        except ValueError:
            return False
        return signature_valid(public_key, self.signed_bytes(), signature)


Record = CheckpointRecord | ManifestRecord
_ENCODER = msgspec.json.Encoder()
_DECODER = msgspec.json.Decoder(Record)


def checkpoint_record(checkpoint: Checkpoint) -> bytes:
    """The external line (no newline) of a signed checkpoint."""
    c = checkpoint
    return _ENCODER.encode(
        CheckpointRecord(
            c.table_id, c.chain_pos, c.chain_hash, c.seq, c.event_ts_ms, c.kafka_partition,
            c.kafka_offset, c.signed_at_ms, c.key_id, c.signature, c.number, c.prev_link,
        )
    )  # fmt: skip


def encode_record(record: Record) -> bytes:
    return _ENCODER.encode(record)


@dataclass(slots=True)
class ManifestSigner:
    """Signs one writer's manifests in order (number and ``prev`` kept here)."""

    signer: Signer
    writer: str
    number: int = 0
    prev: str = GENESIS_HEX

    def sign(self, partitions: Iterable[int], tables: Iterable[Entry], now_ms: int) -> bytes:
        """The next manifest's external line (no newline)."""
        unsigned = ManifestRecord(
            self.writer,
            self.number + 1,
            self.prev,
            now_ms,
            self.signer.key_id,
            sorted(partitions),
            sorted(tables),
        )
        signature = self.signer.sign(unsigned.signed_bytes()).hex()
        record = msgspec.structs.replace(unsigned, signature=signature)
        self.number, self.prev = record.number, record.digest
        return _ENCODER.encode(record)


def entry_of(
    table_id: str, checkpoint_no: int, chain_pos: int, chain_hash: str, link: str
) -> Entry:
    return (table_id, checkpoint_no, chain_pos, chain_hash, link)


# ---- the append-only file ---------------------------------------------------------------


class ManifestFileError(Exception):
    """The manifest file cannot be opened for appending."""


class ManifestFile:
    """The append-only file: each line written whole (``O_APPEND``) and synced to disk."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o640)
        except OSError as exc:
            raise ManifestFileError(
                f"cannot open the manifest file {path}: {exc.strerror}"
            ) from exc

    def append(self, lines: Sequence[bytes]) -> None:
        if not lines:
            return
        data = b"".join(line + b"\n" for line in lines)
        view = memoryview(data)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]
        os.fsync(self._fd)

    def close(self) -> None:
        os.close(self._fd)


# ---- reading it back --------------------------------------------------------------------


@dataclass(slots=True)
class External:
    """What the external record holds, as verify reads it: per table its checkpoints and the
    manifests' entries (each with where it was read), and the records that cannot be used."""

    checkpoints: dict[str, list[tuple[str, Checkpoint]]] = field(default_factory=dict)
    entries: dict[str, list[tuple[str, ManifestRecord, Entry]]] = field(default_factory=dict)
    manifests: list[tuple[str, ManifestRecord]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    records: int = 0

    def tables(self) -> set[str]:
        return set(self.checkpoints) | set(self.entries)


def read_external(lines: Iterable[tuple[str, bytes]], keys: dict[str, bytes]) -> External:
    """Parse and check the external record: each line ``(where, bytes)``. A line that is not
    a record, a record whose key is not trusted or whose signature does not verify, and a
    writer's manifests out of their chain are problems; the rest is kept."""
    out = External()
    last: dict[str, ManifestRecord] = {}  # writer -> its last manifest read
    for where, raw in lines:
        if not raw.strip():
            continue
        out.records += 1
        if len(raw) > RECORD_BYTES:
            out.problems.append(f"{where}: a line of {len(raw):,} bytes is not a record")
            continue
        try:
            record = _DECODER.decode(raw)
        except msgspec.DecodeError as exc:
            out.problems.append(f"{where}: not a checkpoint or manifest record: {exc}")
            continue
        public = keys.get(record.key_id)
        if public is None:
            out.problems.append(f"{where}: signed with key {record.key_id}, which is not trusted")
            continue
        if isinstance(record, CheckpointRecord):
            checkpoint = record.checkpoint()
            if not signature_ok(checkpoint, public):
                out.problems.append(
                    f"{where}: the checkpoint of {record.table_id} at position "
                    f"{record.chain_pos:,}: its signature does not verify"
                )
                continue
            out.checkpoints.setdefault(record.table_id, []).append((where, checkpoint))
            continue
        if not record.signature_ok(public):
            out.problems.append(
                f"{where}: manifest {record.number} of {record.writer}: its signature "
                "does not verify"
            )
            continue
        before = last.get(record.writer)
        if before is None and record.number == 1 and record.prev != GENESIS_HEX:
            out.problems.append(
                f"{where}: manifest 1 of {record.writer} names a manifest before it"
            )
        elif before is not None and (
            record.number != before.number + 1 or record.prev != before.digest
        ):
            out.problems.append(
                f"{where}: manifest {record.number} of {record.writer} does not follow its "
                f"manifest {before.number}: the manifests between are missing"
            )
        last[record.writer] = record
        out.manifests.append((where, record))
        for entry in record.tables:
            out.entries.setdefault(entry[0], []).append((where, record, entry))
    return out


def file_lines(path: Path) -> Iterator[tuple[str, bytes]]:
    """Each line of the file, with ``path:line`` (a line over RECORD_BYTES is cut there)."""
    with path.open("rb") as handle:
        for number, line in enumerate(iter(lambda: handle.readline(RECORD_BYTES + 1), b""), 1):
            yield f"{path}:{number}", line.rstrip(b"\n")
