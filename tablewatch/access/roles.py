"""Who may do what: the roles, the permissions, and which role holds which (data, in one place).

Every endpoint names the permission it needs (``/query``: :attr:`Permission.QUERY`, and so
on); :func:`allowed` looks the role up in :data:`PERMISSIONS`. Adding an endpoint is adding
its permission here, with the roles that hold it.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from types import MappingProxyType
from typing import Final

from tablewatch.store.access_log import ACCESS_LOG_TABLES


class Role(StrEnum):
    AUDITOR = "auditor"  # reads the store: findings, rounds, raw events
    SURVEILLANCE = "surveillance"  # watches the floor: the worker's metrics
    FLOOR_MANAGER = "floor_manager"  # acknowledges alerts at the tables
    ADMIN = "admin"  # everything, and the access log
    ALERTMANAGER = "alertmanager"  # Alertmanager itself: tells the alerter what it delivered


class Permission(StrEnum):
    QUERY = "query"  # run read-only SQL on the store (GET /query)
    METRICS = "metrics"  # read the worker's counters (GET /metrics)
    ACK_ALERT = "ack_alert"  # acknowledge an alert (POST /api/v1/alerts/{id}/ack)
    RECORD_NOTIFIED = "record_notified"  # the alerter's webhook (POST .../alertmanager/notified)
    READ_ACCESS_LOG = "read_access_log"  # read access_log through the query endpoints
    WORK_CASES = "work_cases"  # claim, release, note, bookmark, link, close, reopen a case
    READ_CASES = "read_cases"  # read cases (a floor manager: its pits' only)


PERMISSIONS: Final[Mapping[Permission, frozenset[Role]]] = MappingProxyType(
    {
        Permission.QUERY: frozenset({Role.AUDITOR, Role.ADMIN}),
        Permission.METRICS: frozenset({Role.SURVEILLANCE, Role.AUDITOR, Role.ADMIN}),
        Permission.ACK_ALERT: frozenset({Role.FLOOR_MANAGER, Role.ADMIN}),
        Permission.RECORD_NOTIFIED: frozenset({Role.ALERTMANAGER, Role.ADMIN}),
        Permission.READ_ACCESS_LOG: frozenset({Role.ADMIN}),
        Permission.WORK_CASES: frozenset({Role.SURVEILLANCE, Role.ADMIN}),
        Permission.READ_CASES: frozenset(
            {Role.AUDITOR, Role.SURVEILLANCE, Role.FLOOR_MANAGER, Role.ADMIN}
        ),
    }
)

# Tables a query may read beyond the product's own (store/read_only.READABLE), by the
# permission that opens them. The access log holds every caller's SQL: admins only.
PERMISSION_TABLES: Final[Mapping[Permission, frozenset[str]]] = MappingProxyType(
    {Permission.READ_ACCESS_LOG: ACCESS_LOG_TABLES}
)


def allowed(role: Role | None, permission: Permission) -> bool:
    """Whether ``role`` holds ``permission`` (no role holds none)."""
    return role is not None and role in PERMISSIONS[permission]


def roles_for(permission: Permission) -> list[Role]:
    """The roles that hold ``permission``, in :class:`Role`'s order."""
    return [role for role in Role if role in PERMISSIONS[permission]]


def extra_tables(role: Role | None) -> frozenset[str]:
    """The tables ``role`` may read beyond the product's own."""
    tables: frozenset[str] = frozenset()
    for permission, names in PERMISSION_TABLES.items():
        if allowed(role, permission):
            tables |= names
    return tables


def parse_role(text: str) -> Role:
    """The role named ``text``; ValueError naming the roles otherwise."""
    try:
        return Role(text)
    except ValueError:
        raise ValueError(
            f"unknown role {text!r}: one of {', '.join(role.value for role in Role)}"
        ) from None
