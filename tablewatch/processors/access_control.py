"""Access control of the worker's web views, and their access log.

- ``/query`` and ``/metrics`` are guarded: with an access file (``--access-file``) a caller
  needs a bearer token whose role holds the view's permission (``tablewatch.access.roles``);
  401 (``WWW-Authenticate: Bearer``) without a known, unexpired token, 403 naming the roles
  that hold it. ``/health`` stays open, for probes.
- Without an access file everyone is admitted, and the worker serves on a loopback address
  only: binding another host without one is refused at the start (:class:`AccessError`).
- Every request to a guarded view, answered or refused, is recorded
  (:mod:`tablewatch.access.log`) and written to ``access_log`` on the store thread, with
  the worker's writing client, about once a second; event processing never waits for it.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clickhouse_connect.driver.client import Client
from faust.types import AppT
from faust.web import Request, Response, View

from tablewatch.access.access_file import AccessError
from tablewatch.access.authenticate import (
    AccessUnavailable,
    FileTokenAuthenticator,
    Principal,
    Unauthenticated,
)
from tablewatch.access.gate import Forbidden, Gate, binding_refusal, http_refusal
from tablewatch.access.log import AccessLog, AccessLogFull, AccessLogWriter, AccessOutcome, Entry
from tablewatch.access.roles import Permission
from tablewatch.store.access_log import AccessLogTable
from tablewatch.store.errors import is_data_error

log = logging.getLogger("tablewatch.worker")
# what a guarded view does once its caller is admitted: fills ``entry`` in (outcome,
# status, rows, detail) and answers
Answer = Callable[[Principal | None, Entry], Awaitable[Response]]
SHUTDOWN_FLUSH_S = 5.0


@dataclass(frozen=True, slots=True)
class AccessSettings:
    web_host: str
    access_file: Path | None


class WorkerAccess:
    """The worker's gate, its access log and the log's writer."""

    def __init__(self, settings: AccessSettings) -> None:
        refusal = binding_refusal(settings.web_host, settings.access_file is not None)
        if refusal is not None:
            raise AccessError(refusal)
        authenticator = (
            FileTokenAuthenticator(settings.access_file) if settings.access_file else None
        )
        self.gate = Gate(authenticator)
        self.log = AccessLog()
        self.writer: AccessLogWriter | None = None

    def install(self, app: AppT, store: Client, store_thread: Executor) -> None:
        """Write the log with ``store`` on ``store_thread`` (the batches' thread): a task
        on a timer, and a last flush when the app stops."""
        table = AccessLogTable(store)

        async def insert(rows: list[Any]) -> None:
            await asyncio.get_running_loop().run_in_executor(
                store_thread, lambda: table.insert(rows)
            )

        writer = AccessLogWriter(self.log, insert, is_data_error=is_data_error)
        self.writer = writer

        async def write_access_log() -> None:
            if not self.gate.enabled:
                log.warning(
                    "access control is off (no --access-file): /query and /metrics answer "
                    "anyone who reaches this machine's loopback address"
                )
            await writer.run()

        async def last_flush(sender: Any, /, *_: Any, signal: Any, **__: Any) -> None:
            await writer.close(SHUTDOWN_FLUSH_S)

        app.task(write_access_log)
        app.on_before_shutdown.connect(last_flush)

    async def serve(
        self,
        web: View,
        request: Request,
        permission: Permission,
        what: str,
        answer: Answer,
    ) -> Response:
        """Admit the caller to ``permission``, run ``answer``, record the request."""
        endpoint = str(request.url.path)
        client = str(getattr(request, "remote", None) or "")
        try:
            entry = self.log.begin(endpoint, what, client)
        except AccessLogFull as full:
            return web.json(
                {"error": f"not served: the access log is behind ({full})"},
                status=503,
                headers={"Retry-After": "5"},
            )
        try:
            try:
                principal = await self.gate.admit(request.headers.get("Authorization"), permission)
            except (Unauthenticated, Forbidden, AccessUnavailable) as denied:
                refusal = http_refusal(denied)
                entry.outcome = _DENIED[type(denied)]
                entry.status = refusal.status
                entry.detail = denied.reason
                if isinstance(denied, Forbidden):
                    entry.principal = denied.principal.name
                    entry.role = denied.principal.role.value
                return web.json(refusal.body, status=refusal.status, headers=refusal.headers)
            if principal is not None:
                entry.principal, entry.role = principal.name, principal.role.value
            entry.outcome, entry.status = AccessOutcome.OK, 200
            try:
                return await answer(principal, entry)
            except BaseException as exc:
                entry.outcome, entry.status = AccessOutcome.ERROR, 500
                entry.detail = f"{type(exc).__name__}: {exc}"
                raise
        finally:
            self.log.end(entry)

    def metrics(self) -> dict[str, Any]:
        writer = self.writer
        return {
            "enabled": self.gate.enabled,
            "log_waiting": self.log.waiting(),
            "log_written": writer.written if writer else 0,
            "log_retries": writer.retries if writer else 0,
            "log_set_aside": writer.set_aside if writer else 0,
            "refused_log_full": self.log.refused_full,
        }


_DENIED = {
    Unauthenticated: AccessOutcome.UNAUTHENTICATED,
    Forbidden: AccessOutcome.FORBIDDEN,
    AccessUnavailable: AccessOutcome.UNAVAILABLE,
}
