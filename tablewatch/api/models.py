"""The auditor API's answers (pydantic): what ``/openapi.json`` documents.

Money in integer cents; times as RFC 3339 UTC text with milliseconds
(``2026-11-29T18:01:08.385Z``) and, where a client computes with them, epoch
milliseconds too (``*_ms``).
"""

from __future__ import annotations

import dataclasses
from enum import StrEnum
from typing import Any, get_type_hints

from pydantic import BaseModel, ConfigDict, Field, create_model

from tablewatch.rounds.report import FORMAT_VERSION, RoundReport


class Severity(StrEnum):
    critical = "critical"
    high = "high"
    medium = "medium"
    low = "low"


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class FindingOut(Model):
    finding_id: str = Field(description="BLAKE2b-128 hex of the finding's identity")
    table_id: str
    round_id: str | None = Field(description="None: a table-level finding")
    start_event_id: str | None = Field(description="the event that began its round")
    check: str = Field(description="the check code (docs/protocol.md#findings)")
    severity: Severity
    regulation: str
    seat: int | None
    bet: str | None
    expected: int | None = Field(description="cents the rules expected")
    actual: int | None = Field(description="cents the controller reported")
    money: str = Field(
        description="the money that moved, in words by check (tablewatch.finding_money): "
        "'owed $25.00, paid $50.00: overpaid by $25.00', 'stake kept $25.00', "
        "'placed after the lockout $5.00'; empty when the finding has no money"
    )
    message: str
    event_ids: list[str]
    ts: str | None
    ts_ms: int | None
    judged_at: str


class RoundOut(Model):
    table_id: str
    round_id: str
    start_event_id: str
    game: str
    start_ts: str
    end_ts: str
    start_ms: int
    end_ms: int
    dealer_id: str | None
    deck_id: str | None
    seats: int
    wagered: int
    paid: int
    voided: bool
    complete: bool
    finding_count: int


class FindingsPage(Model):
    items: list[FindingOut]
    next_cursor: str | None = Field(
        description="give it as ?cursor= for the next page; None on the last page"
    )


class RoundsPage(Model):
    items: list[RoundOut]
    next_cursor: str | None


class TableOut(Model):
    table_id: str
    game: str
    pit: str | None
    cameras: list[str]
    rounds_today: int = Field(description="rounds begun since 00:00 UTC today")
    open_findings: int = Field(description="findings of today (UTC)")
    findings_total: int
    last_event_ts: str | None
    seconds_since_last_event: float | None


class TablesOut(Model):
    items: list[TableOut]


class ReplayRunOut(Model):
    run_id: str = Field(description="32 lower-case hex digits")
    source: str = Field(description="files, store or kafka")
    range: str = Field(description="the paths, or since/until and the offsets read")
    tables: list[str] = Field(description="the tables asked for ([]: every table)")
    seen_tables: list[str]
    rules_version: str = Field(description="package version + a hash of the rules sources")
    config_sha256: str
    events: int
    rejected: int
    rounds: int
    findings: int
    first_event_ts: str | None
    last_event_ts: str | None
    started: str
    finished: str | None
    status: str = Field(description="running, complete, interrupted or failed")
    detail: str
    patterns: bool = Field(description="the run computed the patterns across rounds too")


class ReplaysOut(Model):
    items: list[ReplayRunOut]


class DiffEntryOut(Model):
    kind: str = Field(description="new, gone or changed")
    table_id: str
    round_id: str = Field(description="'' for a finding outside any round")
    start_event_id: str
    check: str
    seat: int | None
    bet: str = Field(description="'' when none")
    live_expected: int | None
    live_actual: int | None
    replay_expected: int | None
    replay_actual: int | None
    live_severity: str | None
    replay_severity: str | None
    live_message: str | None
    replay_message: str | None
    live_finding_id: str | None
    replay_finding_id: str | None


class ReplayDiffOut(Model):
    run_id: str
    new: int
    gone: int
    changed: int
    rounds: int = Field(description="rounds the replay judged")
    rounds_not_live: int = Field(description="of those, rounds the live store does not hold")
    truncated: bool = Field(description="more differences than the entries shown")
    patterns: bool = Field(
        description="the pattern checks compared (false: the run did not compute them, and "
        "they are left out on both sides)"
    )
    entries: list[DiffEntryOut]


class Problem(Model):
    """An error: ``detail`` says why in words."""

    detail: str


class ValidationItem(Model):
    loc: list[str | int]
    msg: str
    type: str
    input: Any = None
    ctx: dict[str, Any] | None = None


class ValidationProblem(Model):
    """A malformed parameter: ``detail[].loc`` names it (``["query", "limit"]``)."""

    detail: list[ValidationItem]


class Health(Model):
    status: str = Field(description="ok, or what is wrong with the store")
    source: str = Field(description="where the API reads: the worker's /query or a DSN")


def _reconstruction_model() -> type[BaseModel]:
    """The reconstruction's answer: :meth:`RoundReport.as_dict` (fields in docs/rounds.md),
    its model made from the dataclass's own fields and types, so the two cannot drift."""
    hints = get_type_hints(RoundReport)
    fields: dict[str, Any] = {
        field.name: (hints[field.name], ...) for field in dataclasses.fields(RoundReport)
    }
    fields["format"] = (int, Field(description=f"{FORMAT_VERSION}: the version of this shape"))
    model: type[BaseModel] = create_model(
        "RoundReconstruction", __config__=ConfigDict(extra="forbid"), **fields
    )
    return model


RoundReconstruction = _reconstruction_model()
