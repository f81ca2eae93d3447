"""The chain's definition, and the checkpoints' signatures and key files."""

from __future__ import annotations

import hashlib
import json
import stat
import struct
from dataclasses import replace
from pathlib import Path

import pytest

from tablewatch.integrity.chain import GENESIS, GENESIS_HEX, ChainHead, link
from tablewatch.integrity.checkpoints import (
    Checkpoint,
    advance,
    sign,
    signature_ok,
    signed_bytes,
)
from tablewatch.integrity.keys import (
    KeyFileError,
    generate,
    key_id,
    load_public_keys,
    load_signer,
    new_signer,
    signature_valid,
)

PAYLOAD = b'{"v":1,"event_id":"e-1","table_id":"LIR-07","seq":1,"ts":"2026-11-29T20:15:00.000Z"}'


def test_a_link_is_sha256_of_the_documented_layout() -> None:
    prev = bytes(range(32))
    want = hashlib.sha256(
        b"tablewatch-chain-v1\x00"
        + prev
        + struct.pack(">Q", 7)
        + struct.pack(">Q", 101)
        + struct.pack(">I", 6)
        + b"LIR-07"
        + PAYLOAD
    ).digest()
    assert link(prev, "LIR-07", 7, 101, PAYLOAD) == want
    assert bytes(32) == GENESIS and GENESIS_HEX == "0" * 64


def test_every_input_of_a_link_changes_it() -> None:
    base = link(GENESIS, "LIR-07", 1, 1, PAYLOAD)
    changed = [
        link(b"\x01" + GENESIS[1:], "LIR-07", 1, 1, PAYLOAD),
        link(GENESIS, "LIR-08", 1, 1, PAYLOAD),
        link(GENESIS, "LIR-07", 2, 1, PAYLOAD),
        link(GENESIS, "LIR-07", 1, 2, PAYLOAD),
        link(GENESIS, "LIR-07", 1, 1, PAYLOAD.replace(b"e-1", b"e-2")),
        link(GENESIS, "LIR-07", 1, 1, PAYLOAD + b" "),
    ]
    assert base not in changed and len(set(changed)) == len(changed)
    # the table id's length is in the hash: the bytes cannot slide between table and payload
    assert link(GENESIS, "A", 1, 1, b"B{}") != link(GENESIS, "AB", 1, 1, b"{}")


def test_a_head_extends_one_position_at_a_time() -> None:
    head = ChainHead()
    first = head.extend("T", 5, 1_000, b"{}", 2, 40)
    assert first == (1, GENESIS_HEX, link(GENESIS, "T", 1, 5, b"{}").hex())
    second = head.extend("T", 6, 2_000, b"{ }", 2, 41)
    assert second[:2] == (2, first[2])
    assert (head.position, head.hash_hex, head.offset, head.seq, head.ts_ms, head.partition) == (
        2,
        second[2],
        41,
        6,
        2_000,
        2,
    )


def test_a_checkpoint_signature_covers_every_field() -> None:
    signer = new_signer()
    head = ChainHead()
    head.extend("T", 5, 1_000, b"{}", 2, 40)
    checkpoint = sign("T", head, signer, 1_800_000_000_000)
    assert signature_ok(checkpoint, signer.public_key)
    assert json.loads(signed_bytes(checkpoint)) == [
        "tablewatch-checkpoint-v2", "T", 1, head.hash_hex, 5, 1_000, 2, 40,
        1_800_000_000_000, signer.key_id, 1, "0" * 64,
    ]  # fmt: skip
    forged: list[Checkpoint] = [
        replace(checkpoint, number=2),
        replace(checkpoint, prev_link="1" * 64),
        replace(checkpoint, table_id="U"),
        replace(checkpoint, chain_pos=2),
        replace(checkpoint, chain_hash="0" * 64),
        replace(checkpoint, seq=6),
        replace(checkpoint, event_ts_ms=1_001),
        replace(checkpoint, kafka_partition=3),
        replace(checkpoint, kafka_offset=41),
        replace(checkpoint, signed_at_ms=1_800_000_000_001),
        replace(checkpoint, key_id="0" * 16),
        replace(checkpoint, signature="00" * 64),
        replace(checkpoint, signature="not hex"),
    ]
    assert not any(signature_ok(f, signer.public_key) for f in forged)
    assert not signature_ok(checkpoint, new_signer().public_key)


def test_key_files(tmp_path: Path) -> None:
    out = tmp_path / "checkpoint.key"
    signer = generate(out)
    assert stat.S_IMODE(out.stat().st_mode) == 0o600
    assert b"PRIVATE KEY" in out.read_bytes()
    loaded = load_signer(out)
    assert (loaded.key_id, loaded.public_key) == (signer.key_id, signer.public_key)
    assert loaded.key_id == key_id(loaded.public_key) and len(loaded.key_id) == 16
    assert signer.key_id in repr(loaded) and "PRIVATE" not in repr(loaded)
    public = load_public_keys(tmp_path / "checkpoint.key.pub")
    assert public == {signer.key_id: signer.public_key}
    assert signature_valid(public[signer.key_id], b"m", loaded.sign(b"m"))
    with pytest.raises(KeyFileError, match="not overwritten"):
        generate(out)


def test_key_files_that_cannot_be_used(tmp_path: Path) -> None:
    with pytest.raises(KeyFileError, match="cannot read"):
        load_signer(tmp_path / "missing")
    junk = tmp_path / "junk"
    junk.write_bytes(b"not a key")
    with pytest.raises(KeyFileError, match="not an unencrypted PEM"):
        load_signer(junk)
    signer = new_signer()
    lines = tmp_path / "keys.pub"
    lines.write_text(f"ed25519 {'0' * 16} {signer.public_key.hex()}\n")  # not its key id
    with pytest.raises(KeyFileError, match="whose key id is its key's"):
        load_public_keys(lines)
    lines.write_text("# nothing\n")
    with pytest.raises(KeyFileError, match="no public key"):
        load_public_keys(lines)


def test_a_checkpoint_signed_before_they_were_numbered_keeps_its_layout() -> None:
    signer = new_signer()
    head = ChainHead()
    head.extend("T", 5, 1_000, b"{}", 2, 40)
    v1 = replace(sign("T", head, signer, 1_800_000_000_000), number=0, prev_link="", signature="")
    v1 = replace(v1, signature=signer.sign(signed_bytes(v1)).hex())
    assert json.loads(signed_bytes(v1)) == [
        "tablewatch-checkpoint-v1", "T", 1, head.hash_hex, 5, 1_000, 2, 40,
        1_800_000_000_000, signer.key_id,
    ]  # fmt: skip
    assert signature_ok(v1, signer.public_key)
    assert not signature_ok(replace(v1, number=1, prev_link="0" * 64), signer.public_key)


def test_checkpoints_are_chained_by_their_links() -> None:
    signer = new_signer()
    head = ChainHead()
    head.extend("T", 5, 1_000, b"{}", 2, 40)
    first = sign("T", head, signer, 1_800_000_000_000)
    advance(head, first, 1_800_000_000.0)
    head.extend("T", 6, 2_000, b"{ }", 2, 41)
    second = sign("T", head, signer, 1_800_000_060_000)
    assert (first.number, first.prev_link) == (1, "0" * 64)
    assert (second.number, second.prev_link) == (2, first.link)
    expected = hashlib.sha256(
        json.dumps(
            ["tablewatch-checkpoint-link-v1", "T", 1, 1, first.chain_hash, "0" * 64],
            separators=(",", ":"),
        ).encode()
    ).hexdigest()
    assert first.link == expected
    # signed again later (a worker killed before it saved the table's state): the same link
    again = replace(sign("T", ChainHead(1, bytes.fromhex(first.chain_hash), 40, 5, 1_000, 2),
                         signer, 1_800_000_999_000))  # fmt: skip
    assert again.signature != first.signature and again.link == first.link
