"""Who calls the API's guarded routes (casework): a bearer token, from the
``Authorization: Bearer`` header or the login cookie, checked against serve-api's access
file (``--access-file``).

- no access file: the guarded routes answer 503 (casework needs to know who acts);
- no token, or one unknown or expired: 401 (``WWW-Authenticate: Bearer``);
- a role without the permission: 403 naming the roles that hold it.

A state-changing request must be ``Content-Type: application/json``: a cross-site form
cannot send it, so the cookie alone never changes a case (CSRF); 415 otherwise.
"""

from __future__ import annotations

from typing import Final

from fastapi import HTTPException, Request

from tablewatch.access.authenticate import AccessUnavailable, Principal, Unauthenticated
from tablewatch.access.gate import REALM, Forbidden, Gate, bearer_token, http_refusal
from tablewatch.access.roles import Permission

SESSION_COOKIE: Final = "tablewatch_session"


def gate_of(request: Request) -> Gate | None:
    gate: Gate | None = getattr(request.app.state, "gate", None)
    return gate


def authorization_of(request: Request) -> str | None:
    """The request's ``Authorization`` header, else ``Bearer`` and its session cookie."""
    header = request.headers.get("authorization")
    if header:
        return header
    cookie = request.cookies.get(SESSION_COOKIE)
    return f"Bearer {cookie}" if cookie else None


def token_of(request: Request) -> str:
    """The caller's token (the route has admitted it: :func:`caller`)."""
    return bearer_token(authorization_of(request))


async def caller(request: Request, permission: Permission) -> Principal:
    """The caller holding ``permission``; HTTPException 401, 403 or 503 otherwise."""
    gate = gate_of(request)
    if gate is None or not gate.enabled:
        raise HTTPException(
            503,
            "casework is off: serve-api was started without an access file "
            "(--access-file or $TABLEWATCH_ACCESS_FILE): it cannot know who acts",
        )
    try:
        principal = await gate.admit(authorization_of(request), permission)
    except (Unauthenticated, Forbidden, AccessUnavailable) as denied:
        refusal = http_refusal(denied)
        raise HTTPException(
            refusal.status, str(refusal.body["error"]), headers=refusal.headers
        ) from None
    assert principal is not None  # the gate is enabled
    return principal


def require_json(request: Request) -> None:
    """415 unless the request says its body is JSON (a cross-site form cannot)."""
    kind = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if kind != "application/json":
        raise HTTPException(
            415,
            "a request that changes a case must be Content-Type: application/json",
        )


def challenge() -> dict[str, str]:
    return {"WWW-Authenticate": f'Bearer realm="{REALM}"'}
