"""Posting events to the HTTP ingest endpoint (stdlib only): one call, or a batching poster.

:func:`post_events` sends one JSON array and returns the reply. A 503 (Kafka
did not confirm) or a connection error is retried: re-sending a batch is safe,
since what was already delivered comes back ``duplicate``.

:class:`BatchPoster` collects events and posts them every ``max_delay``
seconds or ``max_events`` events, whichever comes first (``tablewatch
simulate --follow --post URL``).
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Sequence
from typing import Any


class PostFailed(Exception):
    """The endpoint refused the batch (``status``) or could not be reached (``status`` None)."""

    def __init__(self, status: int | None, reason: str) -> None:
        where = f"HTTP {status}" if status is not None else "no answer"
        super().__init__(f"{where}: {reason}")
        self.status = status
        self.reason = reason


def post_events(
    url: str,
    events_raw: Sequence[bytes],
    *,
    timeout: float = 60.0,
    retries: int = 3,
    backoff: float = 0.5,
) -> dict[str, Any]:
    """POST ``events_raw`` (each one event's JSON) as one array; the reply as a dict.

    Raises :class:`PostFailed` for 400/413 (the body is wrong: not retried) and
    for a 503 or connection error still failing after ``retries`` retries.
    """
    body = b"[" + b",".join(events_raw) + b"]"
    attempt = 0
    while True:
        try:
            return _post_once(url, body, timeout)
        except PostFailed as failed:
            retriable = failed.status is None or failed.status in (502, 503, 504)
            if not retriable or attempt >= retries:
                raise
        attempt += 1
        time.sleep(backoff * 2 ** (attempt - 1))


def _post_once(url: str, body: bytes, timeout: float) -> dict[str, Any]:
    request = urllib.request.Request(
        url, data=body, method="POST", headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            reply: dict[str, Any] = json.loads(response.read())
            return reply
    except urllib.error.HTTPError as exc:
        raise PostFailed(exc.code, _error_of(exc.read())) from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        raise PostFailed(None, f"{url}: {reason}") from None


def _error_of(raw: bytes) -> str:
    try:
        reply = json.loads(raw)
    except ValueError:
        return raw[:200].decode("utf-8", errors="replace")
    if isinstance(reply, dict) and isinstance(reply.get("error"), str):
        return str(reply["error"])
    return raw[:200].decode("utf-8", errors="replace")


class BatchPoster:
    """Buffer events and post them every ``max_delay`` s or ``max_events`` events."""

    def __init__(
        self,
        url: str,
        *,
        max_events: int = 500,
        max_delay: float = 0.2,
        post: Callable[[str, Sequence[bytes]], dict[str, Any]] = post_events,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.url = url
        self.max_events = max_events
        self.max_delay = max_delay
        self._post = post
        self._clock = clock
        self._sleep = sleep
        self._buffer: list[bytes] = []
        self._since = 0.0  # clock() when the oldest buffered event came
        self.posts = 0
        self.accepted = 0
        self.duplicates = 0
        self.rejected = 0
        self.rejections: list[dict[str, Any]] = []  # result rows of rejected events (first 100)

    def add(self, raw: bytes) -> None:
        """Buffer one event's JSON; post if the buffer is full or has waited long enough."""
        if not self._buffer:
            self._since = self._clock()
        self._buffer.append(raw)
        if len(self._buffer) >= self.max_events or self._clock() - self._since >= self.max_delay:
            self.flush()

    def due_in(self) -> float | None:
        """Seconds until the buffer must be posted (None: nothing buffered)."""
        if not self._buffer:
            return None
        return max(0.0, self._since + self.max_delay - self._clock())

    def wait(self, seconds: float) -> None:
        """Sleep ``seconds``, posting the buffer when it falls due meanwhile."""
        end = self._clock() + seconds
        while True:
            left = end - self._clock()
            due = self.due_in()
            if due is not None and due <= left:
                self._sleep(due)
                self.flush()
                continue
            if left > 0:
                self._sleep(left)
            return

    def flush(self) -> dict[str, Any] | None:
        if not self._buffer:
            return None
        events, self._buffer = self._buffer, []
        reply = self._post(self.url, events)
        self.posts += 1
        self.accepted += int(reply.get("accepted", 0))
        self.duplicates += int(reply.get("duplicates", 0))
        self.rejected += int(reply.get("rejected", 0))
        if reply.get("rejected"):
            room = 100 - len(self.rejections)
            rows = [r for r in reply.get("results", []) if r.get("status") == "rejected"]
            self.rejections.extend(rows[: max(room, 0)])
        return reply

    def close(self) -> None:
        self.flush()
