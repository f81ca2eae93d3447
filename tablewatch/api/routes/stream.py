"""``GET /api/v1/stream``: the live floor as server-sent events (tablewatch/api/floor_feed.py,
docs/live_floor.md)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from fastapi import APIRouter, Header, Request
from fastapi.responses import StreamingResponse

from tablewatch.api.app import source_of
from tablewatch.api.floor_feed import FloorFeed
from tablewatch.api.floor_reads import WINDOW_MS

router = APIRouter()

HEARTBEAT_S = 15.0  # a comment line this often keeps proxies from closing a quiet stream
RETRY_MS = 2000  # how soon a browser's EventSource comes back


def feed_of(request: Request) -> FloorFeed:
    """The app's one feed (made on first use)."""
    feed: FloorFeed | None = getattr(request.app.state, "floor_feed", None)
    if feed is None:
        window_ms = int(getattr(request.app.state, "floor_window_ms", WINDOW_MS))
        feed = FloorFeed(source_of(request), window_ms=window_ms)
        request.app.state.floor_feed = feed
    return feed


@router.get(
    "/api/v1/stream",
    response_class=StreamingResponse,
    responses={200: {"content": {"text/event-stream": {}}}},
    summary="The live floor (server-sent events)",
)
async def stream(
    request: Request, last_event_id: str | None = Header(default=None, max_length=64)
) -> StreamingResponse:
    """Server-sent events, never ending: first every ``tile`` and the ``strip`` as they
    stand, then as things change ``finding`` (finding_id, table_id, round_id, check,
    severity, ts), ``case`` (finding_id, state, assignee, table_id, severity, at), ``tile``
    (table_id, open_cases by severity, level ok/amber/red, last_event_ts, table_open,
    stale, rounds_today) and ``strip`` (open_cases by severity, open_total,
    oldest_open_ts, oldest_open_ms, oldest_open_age_s, now_ms); ``problem`` (reason, or null once
    resolved) when the store cannot be read. A comment every 15 s. ``Last-Event-ID``:
    the findings and case steps missed are sent first, while this process holds them."""
    feed = feed_of(request)
    sub, first = feed.subscribe(last_event_id)
    heartbeat = float(getattr(request.app.state, "stream_heartbeat_s", HEARTBEAT_S))

    async def frames() -> AsyncIterator[bytes]:
        try:
            yield f"retry: {RETRY_MS}\n\n".encode()
            for f in first:
                yield f
            while True:
                try:
                    item = await asyncio.wait_for(sub.queue.get(), heartbeat)
                except TimeoutError:
                    yield b": keep-alive\n\n"
                    continue
                if item is None:  # dropped for not reading: the client comes back
                    return
                yield item
        finally:
            feed.unsubscribe(sub)

    return StreamingResponse(
        frames(),
        media_type="text/event-stream",
        headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"},
    )
