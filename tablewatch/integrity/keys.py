"""Ed25519 keys of the checkpoints: key files, key ids, signatures.

The private key is a PEM file (PKCS #8, unencrypted, mode 0600) written by
``tablewatch keys generate --out FILE``, which also writes ``FILE.pub``: one
line ``ed25519 <key id> <public key, 64 hex digits>``. The worker reads the
private key from the file its ``--checkpoint-key`` option (or
``$TABLEWATCH_CHECKPOINT_KEY``) names; it never logs it and never stores it.
It publishes the public key in the store (``signing_keys``), where ``tablewatch
verify`` finds it; a copy kept away from the store (``FILE.pub``) can be given
to ``verify --public-key`` so that a key added to the store is not trusted.

A key id is the first 16 hex digits of the SHA-256 of the raw public key.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

ALGORITHM = "ed25519"
ENV_VAR = "TABLEWATCH_CHECKPOINT_KEY"


class KeyFileError(Exception):
    """A key file that cannot be written or read as an Ed25519 key."""


def key_id(public_key: bytes) -> str:
    return hashlib.sha256(public_key).hexdigest()[:16]


@dataclass(frozen=True, slots=True)
class Signer:
    """A private key, with its key id and public key (raw, 32 bytes)."""

    key_id: str
    public_key: bytes
    _private: Ed25519PrivateKey

    def sign(self, message: bytes) -> bytes:
        return self._private.sign(message)

    def __repr__(self) -> str:  # never show the private key
        return f"Signer(key_id={self.key_id!r})"


def _signer(private: Ed25519PrivateKey) -> Signer:
    public = private.public_key().public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw
    )
    return Signer(key_id(public), public, private)


def new_signer() -> Signer:
    """A new key, in memory only (tests; ``generate`` writes one to files)."""
    return _signer(Ed25519PrivateKey.generate())


def public_line(signer: Signer) -> str:
    """The line of ``FILE.pub``."""
    return f"{ALGORITHM} {signer.key_id} {signer.public_key.hex()}\n"


def generate(out: Path) -> Signer:
    """A new key in ``out`` (mode 0600, never overwritten) and its public line in ``out.pub``."""
    signer = new_signer()
    pem = signer._private.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    public = out.with_name(out.name + ".pub")
    for path in (out, public):
        if path.exists():
            raise KeyFileError(f"{path} exists: not overwritten")
    try:
        fd = os.open(out, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.write(pem)
        public.write_text(public_line(signer))
    except OSError as exc:
        raise KeyFileError(f"cannot write {exc.filename}: {exc.strerror}") from exc
    return signer


def load_signer(path: Path) -> Signer:
    """The private key of a file written by :func:`generate`."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise KeyFileError(f"cannot read the checkpoint key {path}: {exc.strerror}") from exc
    try:
        private = serialization.load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        raise KeyFileError(f"{path} is not an unencrypted PEM private key") from exc
    if not isinstance(private, Ed25519PrivateKey):
        raise KeyFileError(f"{path} is not an Ed25519 key")
    return _signer(private)


def load_public_keys(path: Path) -> dict[str, bytes]:
    """Key id -> public key, from lines ``ed25519 <key id> <hex>`` (``FILE.pub``, several
    files' lines put together)."""
    keys: dict[str, bytes] = {}
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise KeyFileError(f"cannot read the public keys {path}: {exc}") from exc
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        parts = line.split()
        try:
            if len(parts) != 3 or parts[0] != ALGORITHM:
                raise ValueError
            public = bytes.fromhex(parts[2])
            if len(public) != 32 or key_id(public) != parts[1]:
                raise ValueError
        except ValueError:
            raise KeyFileError(
                f"{path}:{number}: not a line 'ed25519 <key id> <64 hex digits>' "
                "whose key id is its key's"
            ) from None
        keys[parts[1]] = public
    if not keys:
        raise KeyFileError(f"{path} holds no public key")
    return keys


def signature_valid(public_key: bytes, message: bytes, signature: bytes) -> bool:
    try:
        Ed25519PublicKey.from_public_bytes(public_key).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True
