"""What every endpoint runs first: the caller's bearer token checked, the permission looked
up, and the refusal as an HTTP answer. Framework-neutral: the worker's web views use it,
and so can any other server (an ASGI app calls :meth:`Gate.admit` the same way).
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field
from typing import Final

from tablewatch.access.authenticate import (
    AccessUnavailable,
    Authenticator,
    Principal,
    Unauthenticated,
)
from tablewatch.access.roles import Permission, Role, allowed, roles_for

REALM: Final = "tablewatch"
_BEARER: Final = re.compile(r"^Bearer +([A-Za-z0-9\-._~+/]+=*) *$", re.IGNORECASE)


class Forbidden(Exception):
    """The caller is known but its role does not hold the permission (answered 403)."""

    def __init__(self, principal: Principal, permission: Permission) -> None:
        self.principal = principal
        self.permission = permission
        self.needs: list[Role] = roles_for(permission)
        needs = " or ".join(role.value for role in self.needs)
        self.reason = (
            f"{permission.value} needs the role {needs}; "
            f"{principal.name} has the role {principal.role.value}"
        )
        super().__init__(self.reason)


AccessDenied = Unauthenticated | Forbidden | AccessUnavailable


@dataclass(frozen=True, slots=True)
class HttpRefusal:
    status: int
    body: dict[str, object]
    headers: dict[str, str] = field(default_factory=dict)


class Gate:
    """Admits callers to permissions. Without an authenticator access control is off:
    everyone is admitted, as nobody (:meth:`admit` returns None)."""

    def __init__(self, authenticator: Authenticator | None) -> None:
        self.authenticator = authenticator

    @property
    def enabled(self) -> bool:
        return self.authenticator is not None

    async def admit(self, authorization: str | None, permission: Permission) -> Principal | None:
        """The caller of a request with this ``Authorization`` header, if it holds
        ``permission``; raises :class:`Unauthenticated`, :class:`Forbidden` or
        :class:`AccessUnavailable`."""
        if self.authenticator is None:
            return None
        principal = await self.authenticator.authenticate(bearer_token(authorization))
        if not allowed(principal.role, permission):
            raise Forbidden(principal, permission)
        return principal


def bearer_token(authorization: str | None) -> str:
    """The token of an ``Authorization: Bearer <token>`` header; :class:`Unauthenticated`."""
    if authorization is None or not authorization.strip():
        raise Unauthenticated(
            "no bearer token: send Authorization: Bearer <token>", presented=False
        )
    match = _BEARER.match(authorization)
    if match is None:
        raise Unauthenticated("the Authorization header is not Bearer <token>")
    return match.group(1)


def http_refusal(denied: AccessDenied) -> HttpRefusal:
    """401 (with ``WWW-Authenticate: Bearer``), 403 naming the roles needed, or 503."""
    if isinstance(denied, Unauthenticated):
        challenge = f'Bearer realm="{REALM}"'
        if denied.presented:  # RFC 6750 3.1: no error code when nothing was presented
            challenge += ', error="invalid_token"'
        return HttpRefusal(
            401,
            {"error": f"unauthenticated: {denied.reason}"},
            {"WWW-Authenticate": challenge},
        )
    if isinstance(denied, Forbidden):
        return HttpRefusal(
            403,
            {
                "error": f"forbidden: {denied.reason}",
                "needs_role": [role.value for role in denied.needs],
            },
        )
    return HttpRefusal(
        503, {"error": f"access control unavailable: {denied.reason}"}, {"Retry-After": "5"}
    )


def is_loopback(host: str) -> bool:
    """Whether ``host`` is an address or name of this machine's loopback interface."""
    name = host.strip().strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def binding_refusal(host: str, access_controlled: bool) -> str | None:
    """Why serving on ``host`` is refused, or None: without access control, loopback only."""
    if access_controlled or is_loopback(host):
        return None
    return (
        f"refusing to serve on {host} without access control: anyone who can reach it could "
        "read the store. Give an access file (--access-file, or $TABLEWATCH_ACCESS_FILE; "
        "`tablewatch access add` makes one), or serve on 127.0.0.1"
    )
