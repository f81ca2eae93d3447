"""The acknowledgements a case shows, as the alerter holds them (``serve-api --alerter``).

The alerts' trail (``alert_events``) is in the store the alerter writes: on a ClickHouse
server the same database as the findings, so a case reads its alert's acknowledgement
there (:func:`tablewatch.casework.reads.acks`). An embedded store belongs to one process,
so an alerter beside an embedded worker keeps its trail in a folder of its own, which the
API does not read; the alerter's ``GET /api/v1/alerts`` lists what it holds (open alerts,
and those acknowledged since it started or restored from its trail). A case page asks it
for the alerts naming the finding, and shows their acknowledgements beside the store's,
each alert once.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

import httpx

from tablewatch.rules.events import ts_to_ms

log = logging.getLogger(__name__)
TIMEOUT_S = 2.0  # a case page waits this long for the alerter at most


def from_alerter(alerter_url: str, finding_id: str) -> list[dict[str, Any]]:
    """``{alert_id, at (ms), by, note}`` of each acknowledged alert the alerter lists that
    names ``finding_id``; [] when it cannot be reached (logged: the page still answers)."""
    url = alerter_url.rstrip("/") + "/api/v1/alerts"
    try:
        answer = httpx.get(url, timeout=TIMEOUT_S)
        answer.raise_for_status()
        listed = answer.json()
    except (httpx.HTTPError, ValueError) as exc:
        log.warning("the alerter at %s did not list its alerts: %s", url, exc)
        return []
    found = []
    for alert in listed if isinstance(listed, list) else []:
        if not isinstance(alert, dict) or not alert.get("acknowledged_by"):
            continue
        if finding_id not in (alert.get("finding_ids") or ()):
            continue
        try:
            at = ts_to_ms(str(alert.get("acknowledged_at") or ""))
        except ValueError:
            continue
        found.append(
            {"alert_id": str(alert.get("alert_id", "")), "at": at,
             "by": str(alert["acknowledged_by"]), "note": str(alert.get("note") or "")}
        )  # fmt: skip
    return found


def merged(
    stored: Sequence[dict[str, Any]], held: Sequence[dict[str, Any]]
) -> list[dict[str, Any]]:
    """The store's acknowledgements and the alerter's, each alert once, oldest first."""
    known = {a["alert_id"] for a in stored}
    return sorted(
        [*stored, *(a for a in held if a["alert_id"] not in known)],
        key=lambda a: (a["at"], a["alert_id"]),
    )
