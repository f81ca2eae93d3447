"""A signed event's signature: HMAC-SHA256 over its canonical form, base64url without padding.

The canonical form (docs/protocol.md, "Signed events") is the event as sent,
its ``sig`` left out and its ``kid`` kept, serialized by RFC 8785
(:func:`~tablewatch.rules.canonical.canonical_json`). It is taken from the JSON the
controller sent, not from the decoded event: a field sent as ``null`` is part of it.

Pure: the key's bytes are given by the caller (:mod:`tablewatch.table_keys` reads them).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from collections.abc import Mapping
from typing import Any

import msgspec

from tablewatch.rules.canonical import canonical_json

SIG_LENGTH = 43  # 32 bytes of HMAC-SHA256 in base64url without padding
_SIG_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
_decode = msgspec.json.decode
_encode_str = msgspec.json.Encoder().encode


def signing_input(fields: Mapping[str, Any]) -> bytes:
    """What the signature covers: ``fields`` (one event's JSON object) without ``sig``, in
    canonical form. ``ValueError`` for what RFC 8785 cannot hold here (a float)."""
    return canonical_json({name: value for name, value in fields.items() if name != "sig"})


def signature(fields: Mapping[str, Any], key: bytes) -> str:
    """The ``sig`` of ``fields`` (its ``sig``, if any, left out) under ``key``."""
    mac = hmac.new(key, signing_input(fields), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).rstrip(b"=").decode("ascii")


def well_formed(sig: str) -> bool:
    """Whether ``sig`` can be an HMAC-SHA256 in base64url without padding (43 characters)."""
    return len(sig) == SIG_LENGTH and _SIG_CHARACTERS.issuperset(sig)


def verifies(fields: Mapping[str, Any], sig: str, key: bytes) -> bool:
    """Whether ``sig`` is the signature of ``fields`` under ``key`` (compared in constant
    time)."""
    expected = signature(fields, key).encode("ascii")
    return hmac.compare_digest(expected, sig.encode("utf-8"))


def event_fields(raw: bytes | str) -> dict[str, Any]:
    """The JSON object of one event as sent (``ValueError`` if ``raw`` is not one)."""
    try:
        fields = _decode(raw)
    except (msgspec.DecodeError, RecursionError):
        raise ValueError("not a JSON object") from None
    if not isinstance(fields, dict) or not fields:
        raise ValueError("not a JSON object of fields")
    return fields


def signed(raw: bytes, kid: str, key: bytes) -> bytes:
    """``raw`` (one event's JSON object) signed with the key ``kid``: its text as it is
    with ``"kid"`` and ``"sig"`` added at the end; an event that had either is encoded
    again with them replaced (its other fields in their order)."""
    fields = event_fields(raw)
    if "kid" in fields or "sig" in fields:
        fields.pop("kid", None)
        fields.pop("sig", None)
        fields["kid"] = kid
        fields["sig"] = signature(fields, key)
        return msgspec.json.encode(fields)
    fields["kid"] = kid
    body = raw.strip()
    if not body.endswith(b"}"):
        raise ValueError("not a JSON object")
    sig = signature(fields, key).encode("ascii")
    return body[:-1] + b',"kid":' + _encode_str(kid) + b',"sig":"' + sig + b'"}'
