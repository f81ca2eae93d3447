"""The shift report (:mod:`tablewatch.reports.shift`) in the API and pages:

- ``GET /reports``: a form (date, shift, pit, format) from the rules file's shifts and pits;
- ``GET /reports/shift?date=&shift=&pit=&format=html|pdf|csv|json``: the report as a page,
  or downloaded;
- ``GET /api/v1/reports/shift?date=&shift=&pit=``: its JSON.

The shifts, their time zone and the pits are the alerts rules file's (``serve-api --rules``;
without it these routes answer 503). The report shows cases (who, notes): it needs the
caller's token, as the casework routes do (:mod:`tablewatch.api.callers`, ``read_cases``);
a floor manager asks for one of its pits.
"""

from __future__ import annotations

import json
import time
from datetime import UTC, datetime
from typing import Annotated, Any, Literal
from urllib.parse import quote, urlencode

from fastapi import APIRouter, HTTPException, Query, Request
from fastapi.responses import HTMLResponse, Response
from pydantic import BaseModel, ConfigDict, Field, field_validator
from starlette.concurrency import run_in_threadpool

from tablewatch.access.authenticate import Principal
from tablewatch.access.roles import Permission, Role
from tablewatch.alerts.rules_file import UNASSIGNED_PIT, AlertRules
from tablewatch.api.app import source_of
from tablewatch.api.callers import caller
from tablewatch.api.routes.common import UNAVAILABLE
from tablewatch.api.routes.pages import _page, problem
from tablewatch.finding_money import dollars
from tablewatch.reports.shift import (
    ReportError,
    ReportTooLarge,
    ShiftReport,
    parse_day,
    read_shift_report,
    report_json,
    shift_window,
)

router = APIRouter()
MEDIA = {
    "pdf": "application/pdf",
    "csv": "text/csv; charset=utf-8",
    "json": "application/json",
}


class ShiftQuery(BaseModel):
    """``date, shift, pit``: the shift ``shift`` starting on ``date``, optionally one pit."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    date: Annotated[str, Field(pattern=r"^\d{4}-\d{2}-\d{2}$", description="YYYY-MM-DD")]
    shift: Annotated[str, Field(min_length=1, max_length=64)]
    pit: Annotated[
        str | None, Field(max_length=64, description="one pit (none, or empty: every pit)")
    ] = None

    @field_validator("pit", mode="before")
    @classmethod
    def _every_pit(cls, value: object) -> object:
        return value or None  # the form's "every pit" is pit=


class ShiftPageQuery(ShiftQuery):
    format: Literal["html", "pdf", "csv", "json"] = "html"


def rules_of(request: Request) -> AlertRules:
    rules: AlertRules | None = getattr(request.app.state, "alert_rules", None)
    if rules is None:
        raise HTTPException(
            503,
            "no shifts: serve-api was started without --rules (the alerts rules file whose "
            "shifts, time zone and pits the shift report uses)",
        )
    return rules


def _may_read(principal: Principal, pit: str | None) -> None:
    """A floor manager reads the report of one of its pits only."""
    if principal.role is not Role.FLOOR_MANAGER:
        return
    if pit is None or pit not in principal.pits:
        shown = ", ".join(principal.pits) or "none"
        raise HTTPException(
            403, f"{principal.name} reads the shift reports of its pits only ({shown}): give pit"
        )


def _report(request: Request, q: ShiftQuery) -> ShiftReport:
    """The report (blocking: run in a thread); 422 naming the field, 413 too large."""
    rules = rules_of(request)
    try:
        window = shift_window(rules, parse_day(q.date), q.shift, q.pit)
        return read_shift_report(
            source_of(request), rules, window,
            casino=str(getattr(request.app.state, "casino", "") or ""),
            now_ms=time.time_ns() // 1_000_000,
        )  # fmt: skip
    except ReportTooLarge as exc:
        raise HTTPException(413, str(exc)) from None
    except ReportError as exc:
        field, _, reason = str(exc).partition(": ")
        item = {"loc": ["query", field], "msg": reason, "type": "value_error"}
        raise HTTPException(422, [item]) from None


async def _allowed_report(request: Request, q: ShiftQuery) -> ShiftReport:
    principal = await caller(request, Permission.READ_CASES)
    _may_read(principal, q.pit)
    return await run_in_threadpool(_report, request, q)


@router.get(
    "/api/v1/reports/shift",
    tags=["reports"],
    responses={
        401: {"description": "no token, or one unknown or expired"},
        403: {"description": "a role without read_cases; a floor manager's other pit"},
        413: {"description": "more findings than one report holds"},
        **UNAVAILABLE,
    },
)
async def shift_report_json(request: Request, q: Annotated[ShiftQuery, Query()]) -> Any:
    """The shift report: every finding of the shift with its case as at the shift's end,
    the totals by check, table and dealer, the open cases carried over (money in cents,
    times ISO 8601 UTC with ms)."""
    return report_json(await _allowed_report(request, q))


# ---- pages ---------------------------------------------------------------------------


@router.get("/reports", response_class=HTMLResponse, include_in_schema=False)
def reports_page(request: Request) -> HTMLResponse:
    rules: AlertRules | None = getattr(request.app.state, "alert_rules", None)
    today = ""
    if rules is not None:
        today = datetime.now(UTC).astimezone(rules.timezone).date().isoformat()
    return _page(
        request, "reports.html", rules=rules, today=today,
        shifts=[s.name for s in rules.shifts] if rules else [],
        pits=[p.name for p in rules.pits] + [UNASSIGNED_PIT] if rules else [],
        login="/login?" + urlencode({"next": "/reports"}),
    )  # fmt: skip


@router.get("/reports/shift", include_in_schema=False, response_model=None)
async def shift_report_page(request: Request, q: Annotated[ShiftPageQuery, Query()]) -> Response:
    try:
        made = await _allowed_report(request, q)
    except HTTPException as exc:
        if exc.status_code == 401:
            target = request.url.path + "?" + request.url.query
            reason = f"{exc.detail}: sign in at /login?{urlencode({'next': target})}"
            return problem(request, 401, reason)
        raise
    if q.format == "html":
        return _page(
            request, "shift_report.html", r=made, j=report_json(made), cents=_cents,
            query=urlencode({k: v for k, v in q.model_dump().items()
                             if v is not None and k != "format"}),
        )  # fmt: skip
    w = made.window
    name = f"shift-report-{w.day.isoformat()}-{w.shift}" + (f"-{w.pit}" if w.pit else "")
    data: bytes
    if q.format == "json":
        data = json.dumps(report_json(made), ensure_ascii=False, indent=2).encode()
    elif q.format == "csv":
        from tablewatch.reports.shift_csv import shift_csv

        data = shift_csv(made).encode()
    else:
        from tablewatch.reports.shift_pdf import shift_pdf

        try:
            data = await run_in_threadpool(shift_pdf, made)
        except ReportError as exc:  # the font missing: the server's fault
            raise HTTPException(500, str(exc)) from None
    disposition = f"attachment; filename*=UTF-8''{quote(name + '.' + q.format, safe='')}"
    return Response(data, media_type=MEDIA[q.format],
                    headers={"Content-Disposition": disposition})  # fmt: skip


def _cents(value: int | None) -> str:
    return "" if value is None else dollars(value)
