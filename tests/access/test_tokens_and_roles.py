"""Tokens (random, hashed, compared in constant time) and the permission map."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from tablewatch.access.access_file import AccessEntry, AccessFile
from tablewatch.access.authenticate import TokenAuthenticator, Unauthenticated
from tablewatch.access.roles import (
    PERMISSION_TABLES,
    PERMISSIONS,
    Permission,
    Role,
    allowed,
    extra_tables,
    parse_role,
    roles_for,
)
from tablewatch.access.tokens import HASH_FORMAT, hash_token, new_token, token_matches


def test_a_token_is_random_prefixed_and_long() -> None:
    made = {new_token() for _ in range(200)}
    assert len(made) == 200
    for token in made:
        assert token.startswith("tw_")
        assert len(token) >= 3 + 43  # 32 bytes, URL-safe base64


def test_the_hash_is_sha256_of_the_token() -> None:
    token = new_token()
    digest = hash_token(token)
    assert HASH_FORMAT.match(digest)
    assert digest == "sha256:" + hashlib.sha256(token.encode()).hexdigest()
    assert token not in digest
    assert token_matches(token, digest)
    assert not token_matches(token + "x", digest)
    assert not token_matches(token, "sha256:" + "0" * 64)


def test_comparisons_are_constant_time_and_cover_every_entry(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls: list[tuple[bytes, bytes]] = []
    real: Callable[[bytes, bytes], bool] = hmac.compare_digest

    def counting(a: bytes, b: bytes) -> bool:
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(hmac, "compare_digest", counting)  # as tokens.py calls it
    held = [new_token() for _ in range(5)]
    now = datetime(2026, 1, 1, tzinfo=UTC)
    access = AccessFile(
        tuple(
            AccessEntry(f"user{i}", Role.AUDITOR, hash_token(token), now)
            for i, token in enumerate(held)
        )
    )
    checker = TokenAuthenticator(access, clock=lambda: now)
    assert checker.check(held[0]).name == "user0"
    assert len(calls) == 5  # the first entry matched; the other four were compared anyway
    calls.clear()
    with pytest.raises(Unauthenticated):
        checker.check(new_token())
    assert len(calls) == 5


def test_the_permission_map() -> None:
    assert dict(PERMISSIONS) == {
        Permission.QUERY: {Role.AUDITOR, Role.ADMIN},
        Permission.METRICS: {Role.SURVEILLANCE, Role.AUDITOR, Role.ADMIN},
        Permission.ACK_ALERT: {Role.FLOOR_MANAGER, Role.ADMIN},
        Permission.READ_ACCESS_LOG: {Role.ADMIN},
        Permission.RECORD_NOTIFIED: {Role.ALERTMANAGER, Role.ADMIN},
        Permission.WORK_CASES: {Role.SURVEILLANCE, Role.ADMIN},
        Permission.READ_CASES: {Role.AUDITOR, Role.SURVEILLANCE, Role.FLOOR_MANAGER, Role.ADMIN},
    }
    assert set(PERMISSIONS) == set(Permission)  # every permission is granted to someone
    assert all(allowed(Role.ADMIN, p) for p in Permission)
    assert allowed(Role.AUDITOR, Permission.QUERY)
    assert not allowed(Role.SURVEILLANCE, Permission.QUERY)
    assert not allowed(Role.FLOOR_MANAGER, Permission.METRICS)
    assert not allowed(None, Permission.METRICS)
    assert roles_for(Permission.QUERY) == [Role.AUDITOR, Role.ADMIN]
    assert roles_for(Permission.ACK_ALERT) == [Role.FLOOR_MANAGER, Role.ADMIN]
    assert not allowed(Role.FLOOR_MANAGER, Permission.RECORD_NOTIFIED)
    assert not allowed(Role.ALERTMANAGER, Permission.ACK_ALERT)


def test_only_admins_read_the_access_log() -> None:
    assert set(PERMISSION_TABLES) == {Permission.READ_ACCESS_LOG}
    assert extra_tables(Role.ADMIN) == {"access_log", "access_log_v"}
    for role in (Role.AUDITOR, Role.SURVEILLANCE, Role.FLOOR_MANAGER, Role.ALERTMANAGER, None):
        assert extra_tables(role) == frozenset()


def test_roles_by_name() -> None:
    assert [role.value for role in Role] == [
        "auditor",
        "surveillance",
        "floor_manager",
        "admin",
        "alertmanager",
    ]
    assert parse_role("floor_manager") is Role.FLOOR_MANAGER
    with pytest.raises(ValueError, match="unknown role 'root': one of auditor, surveillance"):
        parse_role("root")
