"""The auditor API and pages: one FastAPI app, a router per concern (``routes/``).

``create_app(source)`` serves every route over one row source
(:mod:`tablewatch.api.sources`), which is read-only (the worker's ``/query``, or readers
with ``readonly``). The one thing written is a case's step: the casework routes
(``routes/cases.py``) hand their commands to the desk (``case_actions.py``: serve-api's
own, or the worker's). Another
concern adds its router with ``app.include_router`` (the routers read what they need
from ``request.app.state``: :func:`source_of`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exception_handlers import http_exception_handler
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException

from tablewatch.access.gate import Gate
from tablewatch.api.case_actions import CaseActions
from tablewatch.api.reads import BadCursor
from tablewatch.api.sources import RowSource, SourceBusy, SourceError, SourceUnavailable

HERE = Path(__file__).parent
PROBLEMS: dict[int | str, dict[str, Any]] = {}


class NotFound(Exception):
    """A table, round or replay run the store does not hold (404 with the reason)."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def create_app(
    source: RowSource,
    *,
    described_as: str = "",
    alerter_url: str | None = None,
    gate: Gate | None = None,
    case_actions: CaseActions | None = None,
) -> FastAPI:
    """The app over ``source``; ``described_as`` says where it reads (``/health``);
    ``alerter_url``: acknowledgements forwarded to the alerter (``routes/alerts.py``);
    ``gate``: who calls the casework routes (serve-api's access file; without one they
    answer 503); ``case_actions``: where case commands are decided (``case_actions.py``)."""
    from importlib.metadata import version

    from tablewatch.api.routes import findings, health, pages, replays, rounds, stream, tables

    app = FastAPI(
        title="TableWatch auditor API",
        version=version("tablewatch"),
        description="Read-only: findings, rounds and their reconstruction, tables, replays.",
    )
    app.state.source = source
    app.state.described_as = described_as
    app.state.gate = gate
    app.state.case_actions = case_actions
    from tablewatch.api.routes import case_pages, cases, reports, session

    for module in (cases, session, case_pages, reports):
        app.include_router(module.router)
    for module in (health, findings, rounds, tables, replays, stream, pages):
        app.include_router(module.router)
    if alerter_url is not None:
        from tablewatch.api.routes import alerts

        app.state.alerter_url = alerter_url
        app.include_router(alerts.router)
    app.mount("/static", StaticFiles(directory=HERE / "static"), name="static")
    _install_errors(app)
    return app


def source_of(request: Request) -> RowSource:
    source: RowSource = request.app.state.source
    return source


API_PATHS = ("/api/", "/health", "/openapi.json", "/docs", "/redoc", "/static/")


def is_page(request: Request) -> bool:
    """Whether ``request`` is for a page (HTML) rather than the API (JSON): the API is
    ``/api/v1/...``, ``/health``, ``/openapi.json`` and its documentation."""
    path = request.url.path
    return not any(path == p.rstrip("/") or path.startswith(p) for p in API_PATHS)


def _answer(
    request: Request, status: int, detail: Any, headers: dict[str, str] | None = None
) -> Response:
    """The error as the route's kind answers: an HTML page for a page (the status, the
    reason escaped by the template), JSON ``{"detail": ...}`` for the API."""
    if not is_page(request):
        return JSONResponse({"detail": detail}, status_code=status, headers=headers)
    from tablewatch.api.routes.pages import problem

    reason = detail if isinstance(detail, str) else "; ".join(
        f"{'.'.join(str(p) for p in d.get('loc', []))}: {d.get('msg', '')}" for d in detail
    )  # fmt: skip
    page = problem(request, status, reason)
    page.headers.update(headers or {})
    return page


def _install_errors(app: FastAPI) -> None:
    @app.exception_handler(NotFound)
    async def not_found(request: Request, exc: NotFound) -> Response:
        return _answer(request, 404, exc.reason)

    @app.exception_handler(BadCursor)
    async def bad_cursor(request: Request, exc: BadCursor) -> Response:
        item = {"loc": ["query", "cursor"], "msg": str(exc), "type": "value_error"}
        return _answer(request, 422, [item])

    @app.exception_handler(SourceError)
    async def source_error(request: Request, exc: SourceError) -> Response:
        headers = {}
        if isinstance(exc, SourceBusy | SourceUnavailable):
            headers["Retry-After"] = str(exc.retry_after_s)
        return _answer(request, exc.status, exc.reason, headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> Response:
        return _answer(request, 422, _plain(exc.errors()))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code < 400:  # not an error: as Starlette answers it
            return await http_exception_handler(request, exc)
        return _answer(request, exc.status_code, exc.detail, dict(exc.headers or {}))

    @app.exception_handler(Exception)
    async def failed(request: Request, exc: Exception) -> Response:
        """A bug: 500, the reason for the log only (Starlette logs it and raises it on)."""
        return _answer(request, 500, "the server failed to answer (an internal error)")


def _plain(errors: Any) -> Any:
    """Validation errors as JSON (a ``ctx`` may hold the exception itself)."""
    out = []
    for error in errors:
        item = {k: v for k, v in error.items() if k in ("loc", "msg", "type", "input")}
        item["loc"] = list(item.get("loc", []))
        if "ctx" in error:
            item["ctx"] = {k: str(v) for k, v in error["ctx"].items()}
        if not isinstance(item.get("input"), str | int | float | bool | type(None)):
            item["input"] = None
        out.append(item)
    return out
