"""The HTML pages (Jinja2, server-rendered): the floor (kept live by its one script,
``static/floor.js``), a table, a round, the findings with their filters and a CSV
download. They read what the API reads."""

from __future__ import annotations

import csv
import io
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlencode

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response, StreamingResponse
from fastapi.templating import Jinja2Templates
from pydantic import ValidationError

from tablewatch.api import floor_reads, reads
from tablewatch.api.app import HERE, NotFound, source_of
from tablewatch.api.filters import CODES, Filters, from_form
from tablewatch.api.models import FindingOut, Severity, TableOut
from tablewatch.api.routes.rounds import load_report, round_ids
from tablewatch.csv_cells import csv_cell
from tablewatch.finding_money import money_text
from tablewatch.links import round_api_path, round_path, table_path
from tablewatch.report import money
from tablewatch.rules.games import UnknownGame, names, rules_of

router = APIRouter(include_in_schema=False)
templates = Jinja2Templates(directory=HERE / "templates")

SUIT_SYMBOLS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}
SUIT_NAMES = {"c": "clubs", "d": "diamonds", "h": "hearts", "s": "spades"}
RANK_NAMES = {"T": "10", "J": "jack", "Q": "queen", "K": "king", "A": "ace"}
CSV_MOST = 100_000  # findings in one CSV download
CSV_COLUMNS = (
    "ts", "table_id", "round_id", "check", "severity", "regulation", "seat", "bet",
    "expected", "actual", "money", "message", "finding_id", "start_event_id", "event_ids",
)  # fmt: skip


def card_view(text: str) -> dict[str, str]:
    """How a card (``"Td"``) is drawn: rank, suit symbol, colour, its name in words."""
    rank, suit = (text[:1], text[1:2]) if len(text) == 2 else ("?", "?")
    return {
        "rank": "10" if rank == "T" else rank,
        "suit": SUIT_SYMBOLS.get(suit, "?"),
        "colour": "red" if suit in ("d", "h") else "black",
        "name": f"{RANK_NAMES.get(rank, rank)} of {SUIT_NAMES.get(suit, suit)}",
    }


def game_title(game: str) -> str:
    """A game's title as its descriptor writes it; the name itself for a game not
    registered."""
    try:
        return rules_of(game).title
    except UnknownGame:
        return game


def ago(seconds: float | None) -> str:
    if seconds is None:
        return "never"
    if seconds < 120:
        return f"{seconds:.0f} s ago"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min ago"
    if seconds < 172_800:
        return f"{seconds / 3600:.0f} h ago"
    return f"{seconds / 86400:.0f} days ago"


templates.env.filters.update(
    money=money, card=card_view, ago=ago, game=game_title,
    finding_money=lambda f: money_text(f.check, f.expected, f.actual),
)  # fmt: skip
templates.env.globals.update(  # every link to a table or a round (tablewatch.links)
    table_path=table_path, round_path=round_path, round_api_path=round_api_path
)


def _page(request: Request, name: str, code: int = 200, **context: Any) -> HTMLResponse:
    now = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    return templates.TemplateResponse(
        request, name, {"now": now, "refresh": None, **context}, status_code=code
    )


def problem(request: Request, status: int, reason: str) -> HTMLResponse:
    return _page(request, "problem.html", status, status=status, reason=reason)


@router.get("/", response_class=HTMLResponse)
def floor(request: Request) -> HTMLResponse:
    """The live floor: painted as the stream starts from (``floor_reads.read_floor``),
    then kept up to date by ``/static/floor.js`` over ``/api/v1/stream``."""
    now_ms = int(time.time() * 1000)
    window_ms = int(getattr(request.app.state, "floor_window_ms", floor_reads.WINDOW_MS))
    return _page(
        request,
        "floor.html",
        floor=floor_reads.read_floor(source_of(request), now_ms, window_ms),
        now_ms=now_ms,
        window_h=window_ms // 3_600_000,
        severities=floor_reads.SEVERITIES,
    )


def table_of(request: Request, table_id: str) -> TableOut:
    for table in reads.list_tables(source_of(request)):
        if table.table_id == table_id:
            return table
    raise NotFound(reads.no_table(table_id))


@router.get("/tables/{table_id:path}", response_class=HTMLResponse)  # an id may hold '/'
def table(request: Request, table_id: str) -> HTMLResponse:
    try:
        found = table_of(request, table_id)
    except NotFound as exc:
        return problem(request, 404, exc.reason)
    source = source_of(request)
    latest = Filters(table=table_id, limit=25)
    return _page(
        request,
        "table.html",
        table=found,
        findings=reads.list_findings(source, latest),
        rounds=reads.list_rounds(source, latest),
        refresh=30,
    )


@router.get("/rounds/{ids:path}", response_class=HTMLResponse)
def round_page(request: Request, ids: str, start_event_id: str | None = None) -> HTMLResponse:
    """``/rounds/{table_id}/{round_id}``, each id one segment (:mod:`tablewatch.links`)."""
    try:
        table_id, round_id = round_ids(request, ids)
        report = load_report(request, table_id, round_id, start_event_id)
    except NotFound as exc:
        return problem(request, 404, exc.reason)
    from tablewatch.api.routes.case_pages import round_cases  # it reads this module

    return _page(
        request,
        "round.html",
        r=report,
        wrong=report.wrong_lines,
        seqs={t.event_id: str(t.seq) for t in report.timeline},
        evidence={e for f in report.findings for e in f.event_ids},
        **round_cases(request, report),  # each finding's case, for the signed-in caller
    )


@router.get("/findings", response_class=HTMLResponse)
def findings(request: Request) -> HTMLResponse:
    params = {k: v for k, v in request.query_params.items() if k != "cursor"}
    try:
        f = from_form(request.query_params)
    except ValidationError as exc:
        return problem(request, 422, _reasons(exc))
    try:
        page = reads.list_findings(source_of(request), f)
    except reads.BadCursor as exc:
        return problem(request, 422, f"cursor: {exc}")
    return _page(
        request,
        "findings.html",
        f=f,
        page=page,
        query=urlencode({k: v for k, v in params.items() if v}),
        checks=CODES,
        games=names(),
        severities=[s.value for s in Severity],
        table_ids=[t.table_id for t in reads.list_tables(source_of(request))],
        problem=None,
    )


@router.get("/findings.csv")
def findings_csv(request: Request) -> Response:
    """Every finding the filters select, as CSV: money in cents. Past the app's
    ``max_csv_rows`` (100,000), 413 and no rows: a file cut short would pass for the
    whole."""
    try:
        f = from_form({k: v for k, v in request.query_params.items() if k not in ("limit",)})
    except ValidationError as exc:
        return Response(_reasons(exc) + "\n", status_code=422, media_type="text/plain")
    most = int(getattr(request.app.state, "max_csv_rows", CSV_MOST))
    rows = _all_findings(request, f, most + 1)
    if len(rows) > most:
        raise HTTPException(
            413,
            f"over {most:,} findings match these filters, more than one CSV holds: narrow "
            "them (since and until, table, check, severity) and download each part",
        )
    return StreamingResponse(
        _csv(rows),
        media_type="text/csv; charset=utf-8",
        headers={"Content-Disposition": 'attachment; filename="findings.csv"'},
    )


def _all_findings(request: Request, f: Filters, most: int = CSV_MOST) -> list[FindingOut]:
    source = source_of(request)
    out: list[FindingOut] = []
    page_filters = f.model_copy(update={"limit": 1000})
    while len(out) < most:
        page = reads.list_findings(source, page_filters)
        out.extend(page.items)
        if page.next_cursor is None:
            break
        page_filters = page_filters.model_copy(update={"cursor": page.next_cursor})
    return out[:most]


def _csv(rows: list[FindingOut]) -> Iterator[str]:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(CSV_COLUMNS)
    for f in rows:
        writer.writerow(
            map(csv_cell,
                [f.ts or f.judged_at, f.table_id, f.round_id, f.check, f.severity.value,
                 f.regulation, f.seat, f.bet, f.expected, f.actual, f.money, f.message,
                 f.finding_id, f.start_event_id, " ".join(f.event_ids)])
        )  # fmt: skip
        if buffer.tell() > 65_536:
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()
    yield buffer.getvalue()


def _reasons(exc: ValidationError) -> str:
    return "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors())
