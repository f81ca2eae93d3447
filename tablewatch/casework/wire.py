"""Casework over HTTP: a request body to a :class:`~.model.Command`, a case and a step to
JSON. One reading of the bodies for the API and the worker (``docs/api.md``).

A body is a JSON object of the action's keys only. ``by`` is refused (who acts is the
token's holder, never a field), as is any unknown key, a value of the wrong type, a time
that is not ISO 8601 UTC (``2026-12-01T18:00:00.000Z``, milliseconds optional).
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any, Final

from tablewatch.casework.model import (
    ACTIONS,
    Bookmark,
    Case,
    Claim,
    Close,
    Command,
    Link,
    Note,
    Release,
    Reopen,
    Step,
    iso,
)

MAX_BODY_BYTES: Final = 64 * 1024
_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?Z$")
KEYS: Final[dict[str, tuple[str, ...]]] = {
    "claim": (),
    "release": ("reason",),
    "note": ("note",),
    "bookmark": ("camera", "window_start", "window_end"),
    "link": ("finding_ids",),
    "close": ("disposition", "note", "recovered_cents", "camera", "window_start", "window_end"),
    "reopen": ("reason",),
}


class BodyRefused(Exception):
    """A request refused before any decision: ``status`` (404, 413, 415, 422) and why."""

    def __init__(self, status: int, reason: str) -> None:
        super().__init__(reason)
        self.status = status
        self.reason = reason


def command_of(action: str, body: bytes) -> Command:
    """The command of ``action`` with this JSON ``body`` (empty: ``{}``); :class:`BodyRefused`."""
    if action not in ACTIONS:
        raise BodyRefused(404, f"no action {action!r}: one of {', '.join(ACTIONS)}")
    if len(body) > MAX_BODY_BYTES:
        raise BodyRefused(413, f"the body is over {MAX_BODY_BYTES:,} bytes")
    try:
        fields = json.loads(body) if body.strip() else {}
    except (ValueError, UnicodeDecodeError) as exc:
        raise BodyRefused(422, f"the body is not JSON: {exc}") from None
    if not isinstance(fields, dict):
        raise BodyRefused(422, "the body must be a JSON object")
    if "by" in fields:
        raise BodyRefused(
            422, "by: not accepted: who acts is the holder of the token, never a body field"
        )
    allowed = KEYS[action]
    for key in fields:
        if key not in allowed:
            known = ", ".join(allowed) if allowed else "none"
            raise BodyRefused(422, f"{key}: unknown key for {action} (its keys: {known})")
    b = _Body(fields)
    if action == "claim":
        return Claim()
    if action == "release":
        return Release(b.text("reason") or "")
    if action == "note":
        return Note(b.text("note", required=True) or "")
    if action == "bookmark":
        return Bookmark(b.text("camera"), b.time("window_start"), b.time("window_end"))
    if action == "link":
        return Link(b.ids("finding_ids"))
    if action == "close":
        return Close(
            b.text("disposition", required=True) or "",
            b.text("note") or "",
            b.cents("recovered_cents"),
            b.text("camera"),
            b.time("window_start"),
            b.time("window_end"),
        )
    return Reopen(b.text("reason", required=True) or "")


class _Body:
    def __init__(self, fields: dict[str, Any]) -> None:
        self.fields = fields

    def text(self, key: str, *, required: bool = False) -> str | None:
        value = self.fields.get(key)
        if value is None:
            if required:
                raise BodyRefused(422, f"{key}: required")
            return None
        if not isinstance(value, str):
            raise BodyRefused(422, f"{key}: must be a string")
        return value

    def time(self, key: str) -> int | None:
        value = self.text(key)
        if value is None:
            return None
        if not _TIME.match(value):
            raise BodyRefused(
                422, f"{key}: {value!r} is not ISO 8601 UTC like 2026-12-01T18:00:00.000Z"
            )
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError as exc:
            raise BodyRefused(422, f"{key}: {value!r}: {exc}") from None
        if not 1970 <= moment.year <= 2299:
            raise BodyRefused(422, f"{key}: {value!r}: years 1970 to 2299 only")
        return round(moment.timestamp() * 1000)

    def cents(self, key: str) -> int:
        value = self.fields.get(key, 0)
        if value is None:
            return 0
        if isinstance(value, bool) or not isinstance(value, int):
            raise BodyRefused(422, f"{key}: must be an integer number of cents")
        return value

    def ids(self, key: str) -> tuple[str, ...]:
        value = self.fields.get(key)
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise BodyRefused(422, f"{key}: must be a list of finding ids (strings)")
        return tuple(value)


def case_json(case: Case) -> dict[str, Any]:
    """The JSON ``Case`` of the API (times ISO 8601 UTC with ms, or null)."""
    return {
        "finding_id": case.finding_id,
        "state": case.state.value,
        "assignee": case.assignee or None,
        "disposition": case.disposition or None,
        "recovered_cents": case.recovered_cents,
        "camera": case.camera or None,
        "window_start": iso(case.window_start),
        "window_end": iso(case.window_end),
        "links": list(case.links),
        "steps": case.steps,
        "updated_at": iso(case.updated_at),
        "updated_by": case.updated_by or None,
        "first_at": iso(case.first_at),
        "table_id": case.table_id,
        "round_id": case.round_id or None,
        "check": case.check,
        "severity": case.severity,
        "pit": case.pit or None,
        "finding_ts": iso(case.finding_ts),
    }


def step_json(step: Step) -> dict[str, Any]:
    """The JSON ``Step``: the step and the case's fields after it."""
    after = case_json(step.case)
    return {
        **after,
        "step": step.step,
        "kind": step.kind.value,
        "at": iso(step.at),
        "by": step.by,
        "role": step.role,
        "note": step.note,
        "reason": step.reason,
    }
