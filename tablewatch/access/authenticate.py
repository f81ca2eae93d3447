"""Who is calling: a bearer token in, a :class:`Principal` (name and role) out.

:class:`Authenticator` is what every endpoint calls. :class:`TokenAuthenticator` checks
the tokens of an access file; a site with an identity provider plugs in a verifier of its
JWTs (OIDC) with the same method, mapping a claim to a :class:`~.roles.Role`, and no
caller changes (see ``docs/access.md``).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Protocol

from tablewatch.access.access_file import AccessEntry, AccessFile, AccessFileError, format_time
from tablewatch.access.access_file import load as load_access_file
from tablewatch.access.roles import Role
from tablewatch.access.tokens import MAX_TOKEN_LENGTH, hash_token, hashes_equal

log = logging.getLogger("tablewatch.access")
Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


@dataclass(frozen=True, slots=True)
class Principal:
    """An authenticated caller."""

    name: str
    role: Role
    expires: datetime | None = None
    method: str = "token"  # how it was authenticated: "token", "oidc", ...
    pits: tuple[str, ...] = ()  # a floor manager: the pits whose cases it reads


class Unauthenticated(Exception):
    """No caller can be recognised (answered 401). ``presented``: a credential was sent
    (unknown, expired or malformed) rather than none at all."""

    def __init__(self, reason: str, *, presented: bool = True) -> None:
        super().__init__(reason)
        self.reason = reason
        self.presented = presented


class AccessUnavailable(Exception):
    """The authenticator cannot decide now (its access file is unreadable, an identity
    provider does not answer): refused, answered 503."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Authenticator(Protocol):
    """Turns a presented bearer token into a principal.

    Raises :class:`Unauthenticated` (unknown, expired or invalid) or
    :class:`AccessUnavailable`. Async, so that a verifier may fetch what it needs (an
    identity provider's keys) without blocking the event loop.
    """

    async def authenticate(self, token: str) -> Principal: ...


class TokenAuthenticator:
    """The tokens of an access file (held as their hashes)."""

    def __init__(self, access: AccessFile, clock: Clock = utc_now) -> None:
        self._entries: tuple[AccessEntry, ...] = access.entries
        self._clock = clock

    async def authenticate(self, token: str) -> Principal:
        return self.check(token)

    def check(self, token: str) -> Principal:
        if not token or len(token) > MAX_TOKEN_LENGTH:
            raise Unauthenticated("unknown token")
        presented = hash_token(token)
        found: AccessEntry | None = None
        # every entry, each compared in constant time: how long this takes says nothing
        # about which hash, or how much of one, the token matched
        for entry in self._entries:
            if hashes_equal(presented, entry.token_hash):
                found = entry
        if found is None:
            raise Unauthenticated("unknown token")
        if found.expired(self._clock()):
            assert found.expires is not None
            raise Unauthenticated(f"the token expired at {format_time(found.expires)}")
        return Principal(found.name, found.role, found.expires, "token", found.pits)


class FileTokenAuthenticator:
    """:class:`TokenAuthenticator` on the access file at ``path``, read again whenever the
    file changes (a token added or revoked counts from the next request, no restart).

    A file that cannot be read at the start raises :class:`AccessFileError`; one that
    turns bad later refuses every caller (:class:`AccessUnavailable`, logged) until it is
    mended: access control fails closed.
    """

    def __init__(self, path: Path | str, clock: Clock = utc_now) -> None:
        self.path = Path(path)
        self._clock = clock
        self._stamp = self._stat()
        self._tokens = TokenAuthenticator(load_access_file(self.path), clock)
        self._broken: str | None = None
        self.reloads = 0

    async def authenticate(self, token: str) -> Principal:
        self._refresh()
        if self._broken is not None:
            raise AccessUnavailable(f"the access file is refused: {self._broken}")
        return self._tokens.check(token)

    def _stat(self) -> tuple[int, int, int] | None:
        try:
            status = os.stat(self.path)
        except OSError:
            return None
        return (status.st_mtime_ns, status.st_size, status.st_ino)

    def _refresh(self) -> None:
        stamp = self._stat()
        if stamp == self._stamp:
            return
        self._stamp = stamp
        try:
            self._tokens = TokenAuthenticator(load_access_file(self.path), self._clock)
        except AccessFileError as exc:
            if self._broken != str(exc):
                log.error("access file refused, every caller is refused until it is mended: %s",
                          exc)  # fmt: skip
            self._broken = str(exc)
            return
        if self._broken is not None:
            log.warning("access file %s read again: callers are admitted again", self.path)
        self._broken = None
        self.reloads += 1
