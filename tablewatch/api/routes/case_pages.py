"""The casework pages: ``/cases`` (the queue, with the filters of ``/findings`` and a
case's state and assignee) and ``/cases/{finding_id}`` (one case); the case panels of
the round page (:func:`round_cases`).

They read what ``/api/v1/cases`` reads, as the signed-in caller (the session cookie of
``/login``, or ``Authorization: Bearer``): a page without a session says so and links to
``/login``; a floor manager sees the cases of its pits only. The forms of a case are
sent by ``static/cases.js`` as JSON to ``POST /api/v1/cases/{id}/{action}``: the pages
themselves change nothing. Every stored text is escaped by the templates, every id in a
link is one percent-encoded segment (:mod:`tablewatch.links`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlencode

import anyio.from_thread
from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse
from pydantic import ValidationError
from starlette.concurrency import run_in_threadpool

from tablewatch.access.authenticate import Principal
from tablewatch.access.roles import Permission, allowed
from tablewatch.api.app import source_of
from tablewatch.api.callers import caller
from tablewatch.api.filters import CODES, ID_MAX
from tablewatch.api.models import Severity
from tablewatch.api.reads import BadCursor, encode_cursor
from tablewatch.api.routes.cases import (
    CaseFilters,
    alerter_of,
    case_page,
    queue_of,
    visible_pits,
)
from tablewatch.api.routes.pages import _page, _reasons, problem
from tablewatch.casework import reads
from tablewatch.casework.dispositions import DEFAULT_DISPOSITIONS
from tablewatch.casework.wire import case_json
from tablewatch.links import id_segment, round_path
from tablewatch.rounds.report import RoundReport
from tablewatch.rules.checks.catalog import PATTERN_CHECKS

router = APIRouter(include_in_schema=False)
STATES = ("open", "in_review", "closed", "all")


@dataclass(frozen=True)
class Viewer:
    """Who looks at a case page: the caller allowed to read cases, else why not
    (``status`` 401 not signed in, 403 a role or pit without it, 503 casework off)."""

    principal: Principal | None
    status: int = 200
    reason: str = ""

    @property
    def can_work(self) -> bool:
        return self.principal is not None and allowed(self.principal.role, Permission.WORK_CASES)

    @property
    def user(self) -> dict[str, str]:
        p = self.principal
        return {"name": p.name, "role": p.role.value} if p else {"name": "", "role": ""}


async def viewer_of(request: Request) -> Viewer:
    try:
        return Viewer(await caller(request, Permission.READ_CASES))
    except HTTPException as exc:
        return Viewer(None, exc.status_code, str(exc.detail))


def login_link(request: Request) -> str:
    """``/login`` coming back to this page."""
    target = request.url.path + (f"?{request.url.query}" if request.url.query else "")
    return "/login?" + urlencode({"next": target})


def dispositions_of(request: Request) -> Sequence[str]:
    """The configured list: the desk's (``serve-api --dsn``), else the rules file's
    (``serve-api --rules``; with ``--worker`` the worker's desk decides by its own, the
    same file), else the default."""
    state = request.app.state
    desk = getattr(getattr(state, "case_actions", None), "desk", None)
    rules = getattr(state, "alert_rules", None)
    found = getattr(desk, "dispositions", None) or getattr(rules, "dispositions", None)
    return tuple(found) if found else DEFAULT_DISPOSITIONS


def case_link(case: dict[str, Any]) -> str:
    """Where a case is worked: its round page's panel, or the case's own page for a
    table-level finding (no round) and a pattern's (its round is its evidence, whose page
    lists the round's own findings)."""
    anchor = f"#case-{quote(str(case['finding_id']), safe='')}"
    if case.get("round_id") and case.get("check") not in PATTERN_CHECKS:
        return round_path(str(case["table_id"]), str(case["round_id"])) + anchor
    return f"/cases/{id_segment(str(case['finding_id']))}"


def _context(request: Request, viewer: Viewer, **more: Any) -> dict[str, Any]:
    return {
        "viewer": viewer,
        "user": viewer.user,
        "login": login_link(request),
        "case_link": case_link,
        "id_segment": id_segment,
        **more,
    }


@router.get("/cases", response_class=HTMLResponse)
async def cases_page(request: Request) -> HTMLResponse:
    viewer = await viewer_of(request)
    params = {k: v for k, v in request.query_params.items() if v != ""}
    try:
        f = CaseFilters.model_validate(params)
    except ValidationError as exc:
        return problem(request, 422, _reasons(exc))
    shown = {k: v for k, v in params.items() if k != "cursor"}
    context = _context(
        request, viewer, f=f, states=STATES, checks=CODES,
        severities=[s.value for s in Severity], query=urlencode(shown), cases=[],
        next_cursor=None, table_ids=[],
    )  # fmt: skip
    if viewer.principal is None:
        return _page(request, "cases.html", viewer.status, **context)
    try:
        page = await run_in_threadpool(
            reads.queue, source_of(request), queue_of(f, visible_pits(viewer.principal))
        )
    except BadCursor as exc:
        return problem(request, 422, f"cursor: {exc}")
    context["cases"] = [case_json(c) for c in page.cases]
    context["next_cursor"] = encode_cursor(list(page.next_key)) if page.next_key else None
    context["table_ids"] = await run_in_threadpool(_table_ids, request)
    return _page(request, "cases.html", **context)


def _table_ids(request: Request) -> list[str]:
    rows = source_of(request).run("SELECT table_id FROM tables_v ORDER BY table_id").rows
    return [str(r[0]) for r in rows]


@router.get("/cases/{finding_id}", response_class=HTMLResponse)
async def case_page_html(request: Request, finding_id: str) -> HTMLResponse:
    """One case (a table-level finding's, which has no round page)."""
    viewer = await viewer_of(request)
    if viewer.principal is None:
        return _page(request, "case.html", viewer.status, **_context(request, viewer, d=None))
    if len(finding_id) > ID_MAX:
        return problem(request, 404, f"no finding: an id is at most {ID_MAX} characters")
    try:
        d = await run_in_threadpool(
            case_page, source_of(request), finding_id, viewer.principal, alerter_of(request)
        )
    except HTTPException as exc:
        return problem(request, exc.status_code, str(exc.detail))
    return _page(
        request, "case.html",
        **_context(request, viewer, d=d, dispositions=dispositions_of(request)),
    )  # fmt: skip


def round_cases(request: Request, report: RoundReport) -> dict[str, Any]:
    """The round page's casework (called on the page's worker thread): the viewer, and
    for each stored finding of the round its case (the JSON of ``/api/v1/cases/{id}``),
    or why it is not shown."""
    viewer: Viewer = anyio.from_thread.run(viewer_of, request)
    panels: list[dict[str, Any]] = []
    if viewer.principal is not None:
        for finding in report.findings:
            if finding.finding_id is None:
                continue
            try:
                panels.append(
                    case_page(source_of(request), finding.finding_id, viewer.principal,
                              alerter_of(request))
                )  # fmt: skip
            except HTTPException as exc:
                panels.append({"finding_id": finding.finding_id, "refused": str(exc.detail)})
    return _context(
        request, viewer, panels=panels, dispositions=dispositions_of(request),
    )  # fmt: skip
