"""``/api/v1/cases``: the casework queue, a case with its history, and the commands on a
case (claim, release, note, bookmark, link, close, reopen). See ``docs/casework.md``.

Every route needs the caller's token (header or login cookie, :mod:`tablewatch.api.callers`):
``read_cases`` to read (a floor manager: the cases of its pits only), ``work_cases`` to
act. Who acts is the token's holder. The commands are decided where the store is
written (:mod:`tablewatch.api.case_actions`).
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import JSONResponse
from pydantic import AfterValidator, BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from tablewatch.access.authenticate import Principal
from tablewatch.access.roles import Permission, Role
from tablewatch.api import alerter_acks
from tablewatch.api import reads as api_reads
from tablewatch.api.app import source_of
from tablewatch.api.callers import caller, require_json, token_of
from tablewatch.api.case_actions import CaseActions
from tablewatch.api.filters import ID_MAX, MAX_LIMIT, Time, _known_check, epoch_ms
from tablewatch.api.models import Severity
from tablewatch.api.routes.common import UNAVAILABLE
from tablewatch.api.sources import RowSource
from tablewatch.casework import reads
from tablewatch.casework.model import ACTIONS, Case, FindingRef, iso
from tablewatch.casework.wire import KEYS, MAX_BODY_BYTES, case_json, step_json
from tablewatch.store.sql_literals import quote

router = APIRouter(prefix="/api/v1", tags=["cases"])

REFUSALS: dict[int | str, dict[str, Any]] = {
    401: {"description": "no token, or one unknown or expired"},
    403: {"description": "the role may not (the roles that may are named)"},
    503: {"description": "no access file (casework off), or the store or worker unreachable"},
}


class CaseFilters(BaseModel):
    """``state, table, pit, check, severity, assignee, since, until, limit, cursor``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    state: Annotated[
        str | None,
        Field(
            pattern=r"^(open|in_review|closed|all)$",
            description="one state, or all (without: open and in_review)",
        ),
    ] = None
    table: Annotated[str | None, Field(max_length=ID_MAX)] = None
    pit: Annotated[str | None, Field(max_length=ID_MAX)] = None
    check: Annotated[str | None, Field(max_length=64), AfterValidator(_known_check)] = None
    severity: Severity | None = None
    assignee: Annotated[str | None, Field(max_length=ID_MAX)] = None
    since: Time = None
    until: Time = None
    limit: Annotated[int, Field(ge=1, le=MAX_LIMIT)] = 100
    cursor: Annotated[str | None, Field(max_length=512, pattern=r"^[A-Za-z0-9_-]+$")] = None


def visible_pits(principal: Principal) -> tuple[str, ...] | None:
    """The pits whose cases ``principal`` reads (None: every pit)."""
    return principal.pits if principal.role is Role.FLOOR_MANAGER else None


def queue_of(f: CaseFilters, pits: tuple[str, ...] | None) -> reads.Queue:
    after = None
    if f.cursor is not None:
        s, v, a, finding_id = api_reads.decode_cursor(f.cursor, (int, int, int, str))
        after = (int(s), int(v), int(a), str(finding_id))
    return reads.Queue(
        state=f.state, table=f.table, pit=f.pit, check=f.check,
        severity=f.severity.value if f.severity else None, assignee=f.assignee,
        since_ms=epoch_ms(f.since) if f.since else None,
        until_ms=epoch_ms(f.until) if f.until else None, limit=f.limit, after=after, pits=pits,
    )  # fmt: skip


@router.get("/cases", responses={**REFUSALS, **UNAVAILABLE})
async def list_cases(request: Request, f: Annotated[CaseFilters, Query()]) -> dict[str, Any]:
    """The queue: unclaimed (open) cases first, then in review, then closed (``state=closed``
    or ``all``); within, by severity (critical first) and age (oldest first)."""
    principal = await caller(request, Permission.READ_CASES)
    page = await run_in_threadpool(
        reads.queue, source_of(request), queue_of(f, visible_pits(principal))
    )
    return {
        "cases": [case_json(c) for c in page.cases],
        "next_cursor": api_reads.encode_cursor(list(page.next_key)) if page.next_key else None,
    }


def may_read(principal: Principal, pit: str) -> None:
    pits = visible_pits(principal)
    if pits is not None and pit not in pits:
        shown = ", ".join(pits) if pits else "none"
        raise HTTPException(
            403,
            f"{principal.name} reads the cases of its pits only ({shown}); this finding's "
            f"table is in pit {pit or '(none)'}",
        )


def case_page(
    source: RowSource, finding_id: str, principal: Principal, alerter_url: str | None = None
) -> dict[str, Any]:
    """A case, its finding, steps, acks, cameras and round window (blocking); the acks the
    alerter at ``alerter_url`` holds too (:mod:`tablewatch.api.alerter_acks`)."""
    finding = reads.finding_ref(source, finding_id)
    if finding is None:
        raise HTTPException(404, f"no finding {finding_id!r}")
    may_read(principal, finding.pit)
    case, history = reads.current(source, finding_id)
    shown: Case = case or Case.unopened(finding)
    rows = source.run(
        f"SELECT {api_reads._FINDING_COLUMNS} FROM findings_v"
        f" WHERE finding_id = {quote(finding_id)} ORDER BY judged_at DESC LIMIT 1"
    ).rows
    acks = reads.acks(source, finding_id)
    if alerter_url is not None:
        acks = alerter_acks.merged(acks, alerter_acks.from_alerter(alerter_url, finding_id))
    return {
        **case_json(shown),
        "finding": api_reads.finding_of(rows[0]).model_dump(mode="json") if rows else None,
        "steps": [step_json(s) for s in history],
        "step_count": shown.steps,
        "acks": [{**a, "at": iso(a["at"])} for a in acks],
        "cameras": reads.cameras(source, finding.table_id),
        "round_window": _window(finding),
    }


def alerter_of(request: Request) -> str | None:
    """The alerter's URL (``serve-api --alerter``), or None."""
    url: str | None = getattr(request.app.state, "alerter_url", None)
    return url


def _window(finding: FindingRef) -> dict[str, str | None]:
    return {"start": iso(finding.window_start), "end": iso(finding.window_end)}


@router.get("/cases/{finding_id}", responses={**REFUSALS, **UNAVAILABLE, 404: {}})
async def get_case(request: Request, finding_id: str) -> dict[str, Any]:
    """A finding's case with its steps (oldest first), the acknowledgements of the alerts
    naming it, its table's cameras and its round's window (+- 30 s: the video's default).
    ``steps`` is the list; ``step_count`` the number (the case's ``steps`` elsewhere)."""
    principal = await caller(request, Permission.READ_CASES)
    if len(finding_id) > ID_MAX:
        raise HTTPException(404, f"no finding: an id is at most {ID_MAX} characters")
    page: dict[str, Any] = await run_in_threadpool(
        case_page, source_of(request), finding_id, principal, alerter_of(request)
    )
    return page


def _body_schema(action: str) -> dict[str, Any]:
    return {
        "requestBody": {
            "required": action not in ("claim", "release", "bookmark"),
            "content": {
                "application/json": {
                    "schema": {
                        "type": "object",
                        "additionalProperties": False,
                        "properties": {key: {} for key in KEYS[action]},
                    }
                }
            },
        }
    }


async def _act(request: Request, finding_id: str, action: str) -> JSONResponse:
    principal = await caller(request, Permission.WORK_CASES)
    require_json(request)
    actions: CaseActions | None = getattr(request.app.state, "case_actions", None)
    if actions is None:
        raise HTTPException(503, "casework cannot be written here: no desk and no worker")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY_BYTES:
            raise HTTPException(413, f"the body is over {MAX_BODY_BYTES:,} bytes")
    if len(finding_id) > ID_MAX:
        raise HTTPException(404, f"no finding: an id is at most {ID_MAX} characters")
    status, answer = await actions.act(
        finding_id, action, bytes(body), principal, token_of(request)
    )
    return JSONResponse(answer, status_code=status)


def _route(action: str) -> None:
    async def act(request: Request, finding_id: str) -> JSONResponse:
        return await _act(request, finding_id, action)

    act.__name__ = f"{action}_case"
    act.__doc__ = f"{action.capitalize()} the case of a finding, as the token's holder."
    router.add_api_route(
        f"/cases/{{finding_id}}/{action}",
        act,
        methods=["POST"],
        openapi_extra=_body_schema(action),
        responses={
            **REFUSALS,
            404: {"description": "no such finding"},
            409: {"description": "the case is not in a state for this (the reason says why)"},
            413: {"description": "a body over 64 KiB"},
            415: {"description": "not Content-Type: application/json"},
            422: {"description": "the body refused (by, an unknown disposition...)"},
        },
    )


for _action in ACTIONS:
    _route(_action)
