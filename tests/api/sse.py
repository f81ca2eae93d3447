"""A server-sent events client on a thread, for the stream's tests."""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import httpx


@dataclass(frozen=True)
class Sse:
    event: str
    data: dict[str, Any]
    id: str | None


class Listener:
    """``GET url`` read on a thread; every event parsed into :attr:`events`."""

    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        self.url = url
        self.headers = headers or {}
        self.events: queue.Queue[Sse] = queue.Queue()
        self.seen: list[Sse] = []
        self.comments = 0
        self.content_type = ""
        self.ended = threading.Event()
        self._client = httpx.Client(timeout=httpx.Timeout(10.0, read=None))
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        try:
            with self._client.stream("GET", self.url, headers=self.headers) as reply:
                self.content_type = reply.headers.get("content-type", "")
                fields: dict[str, str] = {}
                for line in reply.iter_lines():
                    if line.startswith(":"):
                        self.comments += 1
                    elif line == "":
                        if "data" in fields:
                            self.events.put(
                                Sse(fields.get("event", "message"), json.loads(fields["data"]),
                                    fields.get("id"))
                            )  # fmt: skip
                        fields = {}
                    else:
                        name, _, value = line.partition(":")
                        fields[name] = value[1:] if value.startswith(" ") else value
        except (httpx.HTTPError, RuntimeError):
            pass  # closed by the test
        finally:
            self.ended.set()

    def next(
        self,
        event: str,
        where: Callable[[dict[str, Any]], bool] = lambda d: True,
        timeout_s: float = 3.0,
    ) -> Sse:
        """The next ``event`` whose data ``where`` holds, within ``timeout_s``."""
        deadline = time.monotonic() + timeout_s
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(
                    f"no {event} event within {timeout_s} s; seen {self.seen[-8:]}"
                )
            try:
                item = self.events.get(timeout=left)
            except queue.Empty:
                continue
            self.seen.append(item)
            if item.event == event and where(item.data):
                return item

    def snapshot(self, timeout_s: float = 10.0) -> tuple[dict[str, dict[str, Any]], dict[str, Any]]:
        """The tiles and the strip the stream starts with (the strip comes last)."""
        tiles: dict[str, dict[str, Any]] = {}
        deadline = time.monotonic() + timeout_s
        while True:
            item = self.events.get(timeout=max(0.01, deadline - time.monotonic()))
            self.seen.append(item)
            if item.event == "tile":
                tiles[item.data["table_id"]] = item.data
            elif item.event == "strip":
                return tiles, item.data


@contextmanager
def listening(url: str, headers: dict[str, str] | None = None) -> Iterator[Listener]:
    listener = Listener(url, headers)
    listener._thread.start()
    try:
        yield listener
    finally:
        listener._client.close()
        listener._thread.join(timeout=5)
