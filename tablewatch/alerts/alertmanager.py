"""Alertmanager's API v2, as the alerter uses it: post alerts, create and expire silences.

Every call is retried with exponential backoff (0.2 s doubling to ``max_backoff_s``,
with jitter) until Alertmanager accepts it or the caller's ``stop`` is set: the alerter
commits its Kafka offsets only after an accepted post, so an Alertmanager down or
restarting delays alerts and loses none. A 4xx answer is no transient fault, but it is
retried too (slower, and logged as an error each time): dropping the alert would be a
silent "all clear".
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import httpx

log = logging.getLogger("tablewatch.alerts.alertmanager")


class Stopped(Exception):
    """The caller's stop was set while a call was being retried."""


@dataclass(slots=True)
class Retry:
    first_s: float = 0.2
    max_backoff_s: float = 5.0
    attempts: int = 0  # calls that needed more than one try, for /health


class AlertmanagerClient:
    def __init__(self, url: str, *, timeout_s: float = 5.0, retry: Retry | None = None) -> None:
        self.url = url.rstrip("/")
        self.retry = retry or Retry()
        self._http = httpx.AsyncClient(timeout=timeout_s)
        self.up = True  # the last call's outcome
        self.last_error = ""

    async def close(self) -> None:
        await self._http.aclose()

    async def _call(
        self, method: str, path: str, body: Any, stop: asyncio.Event | None
    ) -> httpx.Response:
        delay = self.retry.first_s
        tries = 0
        while True:
            tries += 1
            try:
                response = await self._http.request(method, self.url + path, json=body)
                if response.status_code < 300:
                    self.up, self.last_error = True, ""
                    if tries > 1:
                        self.retry.attempts += 1
                    return response
                problem = f"{method} {path}: HTTP {response.status_code} {response.text[:300]}"
                level = logging.ERROR if response.status_code < 500 else logging.WARNING
            except httpx.HTTPError as exc:
                problem = f"{method} {path}: {type(exc).__name__}: {exc}"
                level = logging.WARNING
            self.up, self.last_error = False, problem
            log.log(level, "Alertmanager %s (try %d, again in %.1f s)", problem, tries, delay)
            wait = delay * (0.5 + random.random() / 2)
            if stop is not None:
                try:
                    await asyncio.wait_for(stop.wait(), wait)
                    raise Stopped(problem)
                except TimeoutError:
                    pass
            else:
                await asyncio.sleep(wait)
            delay = min(delay * 2, self.retry.max_backoff_s)

    async def post_alerts(
        self, alerts: Sequence[dict[str, Any]], stop: asyncio.Event | None = None
    ) -> None:
        """``POST /api/v2/alerts``, until accepted (in chunks of 1,000)."""
        for start in range(0, len(alerts), 1000):
            await self._call("POST", "/api/v2/alerts", list(alerts[start : start + 1000]), stop)

    async def silence(
        self,
        matchers: dict[str, str],
        *,
        starts_at: str,
        ends_at: str,
        created_by: str,
        comment: str,
        stop: asyncio.Event | None = None,
    ) -> str:
        """``POST /api/v2/silences`` with equality matchers; the silence's id."""
        body = {
            "matchers": [
                {"name": k, "value": v, "isRegex": False, "isEqual": True}
                for k, v in matchers.items()
            ],
            "startsAt": starts_at,
            "endsAt": ends_at,
            "createdBy": created_by,
            "comment": comment or "acknowledged",
        }
        response = await self._call("POST", "/api/v2/silences", body, stop)
        return str(response.json()["silenceID"])

    async def alerts(self, **filters: str) -> list[dict[str, Any]]:
        """``GET /api/v2/alerts`` once (no retry): for tests and status."""
        params: list[tuple[str, str | int | float | bool | None]] = [
            ("filter", f'{k}="{v}"') for k, v in filters.items()
        ]
        response = await self._http.get(self.url + "/api/v2/alerts", params=params)
        response.raise_for_status()
        result: list[dict[str, Any]] = response.json()
        return result

    async def silences(self) -> list[dict[str, Any]]:
        response = await self._http.get(self.url + "/api/v2/silences")
        response.raise_for_status()
        result: list[dict[str, Any]] = response.json()
        return result
