"""Ingest's signature rule: which signed and unsigned events a table accepts.

For the tables of the configuration that have ``keys`` (read from the environment by
:func:`tablewatch.table_keys.load_keys`), every event that decoded is checked before
the duplicate check:

- ``signing: required``: only an event whose ``sig`` verifies with the key its ``kid``
  names, one of the table's current keys, is accepted;
- ``signing: off`` with keys: an unsigned event is accepted, and a signed one is
  checked as above (a signature that does not verify is never taken as evidence);
- a table without keys (or not in the configuration): ``kid`` and ``sig`` are carried
  unchecked, as the decoder took them.

A refusal is a :class:`SignatureRejected` (its ``code`` counts it in ``/metrics``),
answered ``rejected`` with field ``sig`` or ``kid`` and written to the dead-letter topic
like any other. Verifying parses the event's bytes as sent (so a field sent as
``null`` is signed as such) and compares in constant time. Nothing here logs or shows
a key.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING

from tablewatch.ingest.batch import ClassifiedBatch
from tablewatch.rules.decode import EventRejected
from tablewatch.rules.events import AnyEvent
from tablewatch.rules.signature import SIG_LENGTH, event_fields, verifies, well_formed

if TYPE_CHECKING:  # kept light: service.py imports this module whether or not a table signs
    from tablewatch.table_keys import TableKeys

log = logging.getLogger(__name__)


class SignatureRejected(EventRejected):
    """An event refused for its signature; ``code``: one of :class:`SignatureCounts`' names
    after ``rejected_``."""

    def __init__(
        self, where: str, event_id: str | None, field: str, reason: str, code: str
    ) -> None:
        super().__init__(where, event_id, field, reason)
        self.code = code


@dataclass(slots=True)
class SignatureCounts:
    """``/metrics`` counters: events accepted with a verified signature, and events rejected
    by reason."""

    signatures_verified: int = 0
    rejected_unsigned: int = 0  # no sig at a table that requires one
    rejected_missing_kid: int = 0  # a sig without the kid of its key
    rejected_unknown_kid: int = 0  # a kid that is not one of the table's current keys
    rejected_malformed_sig: int = 0  # not 43 characters of base64url
    rejected_bad_sig: int = 0  # does not verify: altered, forged, or another key's

    def as_dict(self) -> dict[str, int]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


class SignatureCheck:
    """The signature rule for the tables in ``tables`` (those with keys); called on every
    event that decoded: ``None`` (accepted) or the rejection."""

    def __init__(self, tables: Mapping[str, TableKeys]) -> None:
        self._tables = dict(tables)
        self.counts = SignatureCounts()
        self._logged: dict[tuple[str, str], int] = {}

    @property
    def tables(self) -> Mapping[str, TableKeys]:
        return self._tables

    def describe(self) -> str:
        """One line for the log: the tables that sign, their kids and variables (never a
        key)."""
        if not self._tables:
            return "signing: no table has keys: events are accepted signed or not, unchecked"
        parts = []
        for table_id, table in self._tables.items():
            keys = ", ".join(f"{k.kid} (${k.variable})" for k in table.keys.values())
            parts.append(f"{table_id} {'required' if table.required else 'off'}: {keys}")
        return "signing: " + "; ".join(parts)

    def __call__(self, event: AnyEvent, raw: bytes, where: str) -> SignatureRejected | None:
        table = self._tables.get(event.table_id)
        if table is None:
            return None
        sig = event.sig
        if sig is None:
            if not table.required:
                return None
            return self._refuse(
                event,
                where,
                "sig",
                "unsigned",
                f"unsigned: table {event.table_id} accepts only signed events "
                "(kid and sig: HMAC-SHA256 of the event's canonical form)",
            )
        kid = event.kid
        if kid is None:
            return self._refuse(
                event,
                where,
                "kid",
                "missing_kid",
                "missing kid: a signed event names the key that signed it",
            )
        key = table.keys.get(kid)
        if key is None:
            return self._refuse(
                event,
                where,
                "kid",
                "unknown_kid",
                f"unknown kid {kid!r}: not one of table {event.table_id}'s current keys "
                f"({', '.join(table.keys)})",
            )
        if not well_formed(sig):
            return self._refuse(
                event,
                where,
                "sig",
                "malformed_sig",
                f"malformed sig: an HMAC-SHA256 is {SIG_LENGTH} characters of base64url "
                "without padding",
            )
        try:
            good = verifies(event_fields(raw), sig, key.secret)
        except ValueError:  # not after the decoder; refused rather than raised
            good = False
        if not good:
            return self._refuse(
                event,
                where,
                "sig",
                "bad_sig",
                f"bad sig: does not verify with key {kid!r} of table {event.table_id} "
                "(the event was altered after signing, or signed with another key)",
            )
        return None

    def _refuse(
        self, event: AnyEvent, where: str, field: str, code: str, reason: str
    ) -> SignatureRejected:
        # Logged the 1st, 10th, 100th... time for each table and reason: a controller
        # with a wrong key must not flood the log (the counts and the DLQ have them all).
        seen = self._logged.get((event.table_id, code), 0) + 1
        self._logged[(event.table_id, code)] = seen
        if seen == 10 ** (len(str(seen)) - 1):
            log.warning(
                "signature refused (%s at table %s: %d so far): %s (event_id %s): %s",
                code,
                event.table_id,
                seen,
                where,
                event.event_id,
                reason,
            )
        return SignatureRejected(where, event.event_id, field, reason, code)

    def count(self, batch: ClassifiedBatch) -> None:
        """Count a delivered batch's verified signatures and signature rejections."""
        counts = self.counts
        tables = self._tables
        for accepted in batch.accepted:
            event = accepted.event
            if event.sig is not None and event.table_id in tables:
                counts.signatures_verified += 1
        for rejected in batch.rejected:
            refusal = rejected.rejection
            if isinstance(refusal, SignatureRejected):
                name = f"rejected_{refusal.code}"
                setattr(counts, name, getattr(counts, name) + 1)
