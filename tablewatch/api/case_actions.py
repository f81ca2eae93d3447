"""Where the API's case commands are decided (``POST /api/v1/cases/{id}/{action}``).

- :class:`DeskActions`: this process's own :class:`~tablewatch.casework.desk.CaseDesk`
  (``serve-api --dsn``: the API owns a writable client of the store);
- :class:`WorkerActions`: the worker's ``POST /cases/{id}/{action}`` (``serve-api
  --worker``: the worker owns the embedded store), with the caller's own token: the
  worker authenticates it again with its access file and its desk decides, so the API
  can make nobody act under another's name.

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


class WorkerActions:
    def __init__(self, worker_url: str, timeout_s: float = 10.0) -> None:
        self.base = worker_url.rstrip("/")
        self.timeout_s = timeout_s

    async def act(
        self, finding_id: str, action: str, body: bytes, principal: Principal, token: str
    ) -> Answer:
        url = f"{self.base}/cases/{quote(finding_id, safe='')}/{quote(action, safe='')}"
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
            return 503, {"detail": f"the worker at {self.base} cannot be reached: {exc}"}
        try:
            decoded = answer.json()
        except ValueError:
            decoded = {"detail": answer.text[:500]}
        if not isinstance(decoded, dict):
            return 502, {"detail": "the worker answered something other than a JSON object"}
        if answer.status_code >= 400 and "detail" not in decoded:
            decoded = {"detail": decoded.get("error", decoded)}
        return answer.status_code, decoded
