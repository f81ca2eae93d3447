"""Authentication (tokens, expiry, a file read again when it changes), the gate's answers
(401 with WWW-Authenticate, 403 naming the roles, 503) and the binding rule."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Coroutine
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, TypeVar

import pytest

from tablewatch.access import Authenticator
from tablewatch.access.access_file import AccessEntry, AccessFile, AccessFileError, save
from tablewatch.access.authenticate import (
    AccessUnavailable,
    FileTokenAuthenticator,
    Principal,
    TokenAuthenticator,
    Unauthenticated,
)
from tablewatch.access.gate import (
    Forbidden,
    Gate,
    bearer_token,
    binding_refusal,
    http_refusal,
    is_loopback,
)
from tablewatch.access.roles import Permission, Role
from tablewatch.access.tokens import hash_token, new_token

T = TypeVar("T")
NOW = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
AUDITOR, WATCHER, OLD = new_token(), new_token(), new_token()


def _access() -> AccessFile:
    return AccessFile(
        (
            AccessEntry("alice", Role.AUDITOR, hash_token(AUDITOR), NOW - timedelta(days=9)),
            AccessEntry("sam", Role.SURVEILLANCE, hash_token(WATCHER), NOW),
            AccessEntry(
                "old", Role.ADMIN, hash_token(OLD), NOW - timedelta(days=9), NOW - timedelta(1)
            ),
        )
    )


def run(coroutine: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coroutine)


def test_tokens_known_unknown_and_expired() -> None:
    checker = TokenAuthenticator(_access(), clock=lambda: NOW)
    assert checker.check(AUDITOR) == Principal("alice", Role.AUDITOR, None, "token")
    assert checker.check(WATCHER).role is Role.SURVEILLANCE
    for token in (new_token(), "", "x" * 10_000, hash_token(AUDITOR)):  # a hash is no token
        with pytest.raises(Unauthenticated, match="unknown token"):
            checker.check(token)
    with pytest.raises(Unauthenticated, match=r"expired at 2026-11-30T12:00:00Z"):
        checker.check(OLD)
    later = TokenAuthenticator(_access(), clock=lambda: NOW - timedelta(days=2))
    assert later.check(OLD).name == "old"  # before its expiry


def test_the_bearer_header() -> None:
    assert bearer_token(f"Bearer {AUDITOR}") == AUDITOR
    assert bearer_token(f"bearer  {AUDITOR} ") == AUDITOR
    for missing in (None, "", "  "):
        with pytest.raises(Unauthenticated) as caught:
            bearer_token(missing)
        assert not caught.value.presented
    for wrong in (f"Basic {AUDITOR}", AUDITOR, f"Bearer {AUDITOR} more", "Bearer a,b"):
        with pytest.raises(Unauthenticated, match="not Bearer") as caught:
            bearer_token(wrong)
        assert caught.value.presented


def _gate() -> Gate:
    return Gate(TokenAuthenticator(_access(), clock=lambda: NOW))


def test_the_gate_admits_by_permission() -> None:
    gate = _gate()
    assert gate.enabled
    principal = run(gate.admit(f"Bearer {AUDITOR}", Permission.QUERY))
    assert principal is not None and principal.name == "alice"
    assert run(gate.admit(f"Bearer {WATCHER}", Permission.METRICS)) is not None
    with pytest.raises(Forbidden) as caught:
        run(gate.admit(f"Bearer {WATCHER}", Permission.QUERY))
    assert (
        caught.value.reason
        == "query needs the role auditor or admin; sam has the role surveillance"
    )
    with pytest.raises(Forbidden):
        run(gate.admit(f"Bearer {AUDITOR}", Permission.ACK_ALERT))
    with pytest.raises(Unauthenticated):
        run(gate.admit(None, Permission.METRICS))


def test_without_an_authenticator_everyone_is_admitted_as_nobody() -> None:
    gate = Gate(None)
    assert not gate.enabled
    assert run(gate.admit(None, Permission.QUERY)) is None


def test_refusals_as_http() -> None:
    none = http_refusal(Unauthenticated("no bearer token", presented=False))
    assert (none.status, none.headers) == (401, {"WWW-Authenticate": 'Bearer realm="tablewatch"'})
    bad = http_refusal(Unauthenticated("unknown token"))
    assert bad.status == 401
    assert bad.headers["WWW-Authenticate"] == 'Bearer realm="tablewatch", error="invalid_token"'
    assert bad.body == {"error": "unauthenticated: unknown token"}
    forbidden = http_refusal(Forbidden(Principal("sam", Role.SURVEILLANCE), Permission.QUERY))
    assert forbidden.status == 403
    assert forbidden.body["needs_role"] == ["auditor", "admin"]
    assert "needs the role auditor or admin" in str(forbidden.body["error"])
    unavailable = http_refusal(AccessUnavailable("the access file is refused"))
    assert unavailable.status == 503 and "Retry-After" in unavailable.headers


def test_the_file_is_read_again_when_it_changes_and_fails_closed(tmp_path: Path) -> None:
    path = tmp_path / "access.yaml"
    save(path, _access())
    files = FileTokenAuthenticator(path, clock=lambda: NOW)
    authenticator: Authenticator = files  # the protocol every caller uses
    assert run(authenticator.authenticate(AUDITOR)).name == "alice"

    save(path, _access().without("alice"))  # revoked: refused from the next request
    with pytest.raises(Unauthenticated):
        run(authenticator.authenticate(AUDITOR))
    assert run(authenticator.authenticate(WATCHER)).name == "sam"

    path.write_text("version: 1\nprincipals: [oops\n")  # broken by hand: nobody gets in
    with pytest.raises(AccessUnavailable, match=r"access.yaml:\d+: not YAML"):
        run(authenticator.authenticate(WATCHER))
    os.unlink(path)
    with pytest.raises(AccessUnavailable, match="no such file"):
        run(authenticator.authenticate(WATCHER))

    save(path, _access())  # mended
    assert run(authenticator.authenticate(AUDITOR)).name == "alice"
    assert files.reloads == 2


def test_a_bad_file_at_the_start_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "access.yaml"
    path.write_text(
        "version: 1\nprincipals:\n- name: a\n  role: root\n"
        f"  token_hash: {hash_token(AUDITOR)}\n  created: 2026-12-01\n"
    )
    with pytest.raises(AccessFileError, match=r"access.yaml:4: unknown role 'root'"):
        FileTokenAuthenticator(path)


def test_binding_without_access_control_is_loopback_only() -> None:
    for host in ("127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost", "LOCALHOST"):
        assert is_loopback(host), host
        assert binding_refusal(host, access_controlled=False) is None
    for host in ("0.0.0.0", "::", "", "10.0.0.5", "192.168.1.2", "worker.example", "1.2.3.4"):
        assert not is_loopback(host), host
        refusal = binding_refusal(host, access_controlled=False)
        assert refusal is not None and "--access-file" in refusal and host in refusal
        assert binding_refusal(host, access_controlled=True) is None
