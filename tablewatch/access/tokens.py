"""Bearer tokens: made at random, kept only as their SHA-256, compared in constant time.

A token is 32 random bytes (``secrets``), URL-safe base64 with a ``tw_`` prefix (so a
leaked one is recognisable in a log or a repository). Its hash is SHA-256: with 256 bits
of randomness there is nothing to guess, so a slow password hash would add nothing.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from typing import Final

TOKEN_PREFIX: Final = "tw_"
TOKEN_BYTES: Final = 32
HASH_SCHEME: Final = "sha256"
HASH_FORMAT: Final = re.compile(r"^sha256:[0-9a-f]{64}$")
# what a presented token may look like before it is hashed (bounds the work on garbage)
MAX_TOKEN_LENGTH: Final = 4096


def new_token() -> str:
    """A fresh token: shown once to its holder, never stored."""
    return TOKEN_PREFIX + secrets.token_urlsafe(TOKEN_BYTES)


def hash_token(token: str) -> str:
    """``sha256:<hex>`` of the token's UTF-8 bytes: what the access file keeps."""
    return f"{HASH_SCHEME}:{hashlib.sha256(token.encode('utf-8', 'surrogatepass')).hexdigest()}"


def hashes_equal(a: str, b: str) -> bool:
    """Constant-time comparison of two stored-form hashes."""
    return hmac.compare_digest(a.encode("ascii", "replace"), b.encode("ascii", "replace"))


def token_matches(token: str, token_hash: str) -> bool:
    """Whether ``token`` is the one whose hash is ``token_hash`` (constant time)."""
    return hashes_equal(hash_token(token), token_hash)
