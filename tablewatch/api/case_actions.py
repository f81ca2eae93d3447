"""Where the API's case commands are decided (``POST /api/v1/cases/{id}/{action}``).

- :class:`DeskActions`: this process's own :class:`~tablewatch.casework.desk.CaseDesk`
  (``serve-api --dsn``: the API owns a writable client of the store);
- :class:`ForwardedActions`: another process's desk, with the caller's own token: it
  authenticates it again with its access file and its desk decides, so this API can make
  nobody act under another's name. :class:`WorkerActions` posts to the worker's ``POST
  /cases/{id}/{action}`` (``serve-api --worker``: the worker owns the embedded store);
  :class:`DeskForwardActions` to the desk's serve-api ``POST /api/v1/cases/{id}/{action}``
  (``serve-api --cases``: one process per store decides, the desk's lock being per process).

Both answer ``(status, body)``: 200 and the JSON case, or a status and ``{"detail"}``.
"""

from __future__ import annotations

from typing import Any, Protocol
from urllib.parse import quote

import httpx
from starlette.concurrency import run_in_threadpool

from tablewatch.access.authenticate import Principal
from tablewatch.casework.desk import CaseDesk
from tablewatch.casework.model import Actor

Answer = tuple[int, dict[str, Any]]


class CaseActions(Protocol):
    async def act(
        self, finding_id: str, action: str, body: bytes, principal: Principal, token: str
    ) -> Answer: ...


class DeskActions:
    def __init__(self, desk: CaseDesk) -> None:
        self.desk = desk

    async def act(
        self, finding_id: str, action: str, body: bytes, principal: Principal, token: str
    ) -> Answer:
        actor = Actor(principal.name, principal.role)
        return await run_in_threadpool(self.desk.answer, finding_id, action, body, actor)


class ForwardedActions:
    """Posts a case command to ``{url}{path}/{id}/{action}`` as the caller; ``named``
    says who answers there in a 503's detail."""

    def __init__(self, url: str, path: str, named: str, timeout_s: float = 10.0) -> None:
        self.base = url.rstrip("/")
        self.path = path
        self.named = named
        self.timeout_s = timeout_s

    async def act(
        self, finding_id: str, action: str, body: bytes, principal: Principal, token: str
    ) -> Answer:
        url = f"{self.base}{self.path}/{quote(finding_id, safe='')}/{quote(action, safe='')}"
        try:
            async with httpx.AsyncClient(timeout=self.timeout_s) as client:
                answer = await client.post(
                    url,
                    content=body,
                    headers={
                        "Authorization": f"Bearer {token}",
                        "Content-Type": "application/json",
                    },
                )
        except httpx.HTTPError as exc:
            return 503, {"detail": f"{self.named} at {self.base} cannot be reached: {exc}"}
        try:
            decoded = answer.json()
        except ValueError:
            decoded = {"detail": answer.text[:500]}
        if not isinstance(decoded, dict):
            return 502, {"detail": f"{self.named} answered something other than a JSON object"}
        if answer.status_code >= 400 and "detail" not in decoded:
            decoded = {"detail": decoded.get("error", decoded)}
        return answer.status_code, decoded


class WorkerActions(ForwardedActions):
    """The worker's desk: its ``POST /cases/{id}/{action}``."""

    def __init__(self, worker_url: str, timeout_s: float = 10.0) -> None:
        super().__init__(worker_url, "/cases", "the worker", timeout_s)


class DeskForwardActions(ForwardedActions):
    """The casework desk's serve-api: its ``POST /api/v1/cases/{id}/{action}``."""

    def __init__(self, desk_url: str, timeout_s: float = 10.0) -> None:
        super().__init__(desk_url, "/api/v1/cases", "the casework desk", timeout_s)
