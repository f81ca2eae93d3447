"""The live floor's feed: one poller per app reads the row source and broadcasts what
changed to every subscriber of ``GET /api/v1/stream`` (docs/live_floor.md).

The poller runs while someone listens (started by the first subscriber, stopped when the
last leaves). Every ``interval_s`` it reads the findings judged and the case steps taken
since the last it saw (:mod:`tablewatch.api.floor_reads`); when there are any, and every
``activity_every_s`` (the tables' last events, stale tables, rounds today, the window
sliding), it counts the open cases again, and it publishes events: ``finding``, ``case``,
then each ``tile`` that changed and the ``strip`` if it did.

Each subscriber has a bounded queue of encoded frames: a subscriber whose queue is full
(a client that does not read) is dropped (its stream ends; a browser's EventSource comes
back and starts from the present), never waited for. A poll publishes at most an eighth
of a queue of findings (and of case steps), the rest at the next: a burst (a worker
catching up) reaches readers in steps rather than filling their queues. A newcomer is
sent the floor as it stands (every tile and the strip) before what follows; one that
gives ``Last-Event-ID`` is first sent the findings and case steps it missed, when this
process still holds them (the poller runs on ``linger_s`` after the last subscriber
left, for a browser coming back).

It reads through the :class:`~tablewatch.api.sources.RowSource` the API reads (the
worker's ``/query``, a ClickHouse server or an embedded store through readers), in a
thread: no shortcut of the process that writes.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import time
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from typing import Any, TypeVar

from tablewatch.api import floor_reads as fr
from tablewatch.api.sources import RowSource, SourceBusy, SourceError

log = logging.getLogger(__name__)

T = TypeVar("T")
Frame = bytes
REMEMBERED = 10_000  # finding ids and case steps remembered as sent
PAGES_PER_TICK = 10
BUSY_POLLS = 6  # polls in a row answered busy before the stream says so


def frame(event: str, data: dict[str, Any], event_id: str | None = None) -> Frame:
    """One server-sent event: ``id``, ``event`` and one line of JSON data."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    body = json.dumps(data, separators=(",", ":"), ensure_ascii=True)
    return f"{head}event: {event}\ndata: {body}\n\n".encode()


@dataclass(eq=False)
class Subscriber:
    """One stream's queue of frames; ``None`` in it: the stream was dropped."""

    queue: asyncio.Queue[Frame | None]
    dropped: bool = False


class FloorFeed:
    """The broadcaster of one app (``app.state.floor_feed``)."""

    def __init__(
        self,
        source: RowSource,
        *,
        interval_s: float = 0.5,
        activity_every_s: float = 5.0,
        window_ms: int = fr.WINDOW_MS,
        queue_size: int = 1024,
        history: int = 2000,
        linger_s: float = 30.0,
        clock: Callable[[], int] | None = None,
    ) -> None:
        self.source = source
        self.interval_s = interval_s
        self.activity_every_s = activity_every_s
        self.window_ms = window_ms
        self.queue_size = queue_size
        self._burst = max(1, queue_size // 8)  # findings (and steps) published per poll
        self.linger_s = linger_s
        self._clock = clock or (lambda: int(time.time() * 1000))
        self._epoch = secrets.token_hex(4)
        self._seq = 0
        self._history: deque[tuple[int, Frame]] = deque(maxlen=history)
        self._forgotten = 0  # the latest kept event no longer held
        self._stopping: asyncio.TimerHandle | None = None
        self._subscribers: set[Subscriber] = set()
        self._task: asyncio.Task[None] | None = None
        self.dropped = 0  # subscribers dropped for not reading
        self.ticks = 0
        self._reset()

    def _reset(self) -> None:
        self._tiles: dict[str, fr.Tile] = {}
        self._strip: fr.Strip | None = None
        self._activity: fr.Activity | None = None
        self._activity_ms = 0
        self._cases: fr.OpenCases | None = None
        self._judged_ms: int | None = None  # the latest judged_at seen
        self._step_ms: int | None = None  # the latest case step's at seen
        self._sent_findings: OrderedDict[Hashable, None] = OrderedDict()
        self._sent_steps: OrderedDict[Hashable, None] = OrderedDict()
        self._problem: str | None = None

    @property
    def subscribers(self) -> int:
        return len(self._subscribers)

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    # --- subscribers ---------------------------------------------------------------------

    def subscribe(self, last_event_id: str | None = None) -> tuple[Subscriber, list[Frame]]:
        """A new subscriber and the frames it is sent first: those it missed (by
        ``last_event_id``, when still held), then the floor as it stands."""
        sub = Subscriber(asyncio.Queue(maxsize=self.queue_size))
        first = self._missed(last_event_id)
        if self._strip is not None:
            first += [frame("tile", t.as_json()) for t in self._tiles.values()]
            first.append(frame("strip", self._strip.as_json()))
        self._subscribers.add(sub)
        if self._stopping is not None:
            self._stopping.cancel()
            self._stopping = None
        if not self.running:
            self._task = asyncio.get_running_loop().create_task(self._run())
        return sub, first

    def unsubscribe(self, sub: Subscriber) -> None:
        """``sub`` out; the last one out stops the poller ``linger_s`` later (a browser
        coming back resumes where it was)."""
        self._subscribers.discard(sub)
        if not self._subscribers and self._task is not None and self._stopping is None:
            self._stopping = asyncio.get_running_loop().call_later(self.linger_s, self._stop)

    def _stop(self) -> None:
        self._stopping = None
        if self._subscribers or self._task is None:
            return
        self._task.cancel()
        self._task = None
        self._history.clear()
        self._forgotten = self._seq  # what happened while stopped is not held
        self._reset()

    def _missed(self, last_event_id: str | None) -> list[Frame]:
        if not last_event_id:
            return []
        epoch, _, seq_text = last_event_id.strip().partition("-")
        if epoch != self._epoch or not seq_text.isdigit():
            return []
        seq = int(seq_text)
        if seq < self._forgotten:
            return []  # some of what it missed is no longer held: the floor as it stands
        return [f for s, f in self._history if s > seq]

    def publish(self, event: str, data: dict[str, Any], *, keep: bool = False) -> None:
        """``event`` to every subscriber; ``keep``: held for a resume (findings, steps)."""
        self._seq += 1
        encoded = frame(event, data, f"{self._epoch}-{self._seq}")
        if keep:
            if len(self._history) == self._history.maxlen:
                self._forgotten = self._history[0][0]
            self._history.append((self._seq, encoded))
        for sub in list(self._subscribers):
            try:
                sub.queue.put_nowait(encoded)
            except asyncio.QueueFull:
                self._drop(sub)

    def _drop(self, sub: Subscriber) -> None:
        """A subscriber that does not read: out, its queue emptied, its stream told."""
        self._subscribers.discard(sub)
        sub.dropped = True
        self.dropped += 1
        while not sub.queue.empty():
            sub.queue.get_nowait()
        sub.queue.put_nowait(None)
        log.warning("floor stream: a subscriber not reading was dropped")

    # --- the poller ----------------------------------------------------------------------

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        busy = 0  # polls in a row the source answered busy
        while True:  # until cancelled (_stop)
            started = loop.time()
            try:
                await self.tick()
                busy = 0
                if self._problem is not None:
                    self._problem = None
                    self.publish("problem", {"reason": None})
                # a poll every interval_s, however long the last took (not a pause after)
                delay = max(0.05, self.interval_s - (loop.time() - started))
            except SourceBusy:
                # every reader (the worker's two query threads) taken for a moment: the
                # next poll reads what this one missed; said only when it lasts
                busy += 1
                delay = self.interval_s
                if busy >= BUSY_POLLS and self._problem is None:
                    self._problem = "the store's readers are busy: the floor is behind"
                    self.publish("problem", {"reason": self._problem})
            except SourceError as exc:
                if exc.reason != self._problem:
                    self._problem = exc.reason
                    self.publish("problem", {"reason": exc.reason})
                    log.warning("floor stream: %s", exc.reason)
                delay = max(self.interval_s, 2.0)
            except Exception:
                log.exception("floor stream: the poll failed")
                delay = max(self.interval_s, 5.0)
            await asyncio.sleep(delay)

    async def _read(self, fn: Callable[..., T], *args: Any) -> T:
        return await asyncio.to_thread(fn, self.source, *args)

    async def tick(self) -> None:
        """One poll: read what changed, publish it."""
        now = self._clock()
        self.ticks += 1
        if self._judged_ms is None or self._step_ms is None:
            self._judged_ms = await self._read(fr.latest_judged_ms, now, self.window_ms)
            self._step_ms = await self._read(fr.latest_step_ms, now)
            await self._new_findings(now, burst=None)  # the last moments': not news
            await self._new_steps(burst=None)
        findings = await self._new_findings(now)
        for f in findings:  # news first: the counts follow
            self.publish("finding", f.as_json(), keep=True)
        steps = await self._new_steps()
        for s in steps:
            self.publish("case", s.as_json(), keep=True)
        if self._activity is None or now - self._activity_ms >= self.activity_every_s * 1000:
            self._activity = await self._read(fr.read_activity, now, self.window_ms)
            self._activity_ms = now
            recount = True
        else:
            recount = bool(findings or steps) or self._cases is None
        if recount:
            self._cases = await self._read(fr.read_open_cases, now, self.window_ms)
        if not recount or self._cases is None:
            return
        tiles = fr.tiles_of(self._activity, self._cases, now)
        for tile in fr.changed(self._tiles, tiles):
            self.publish("tile", tile.as_json())
        self._tiles = tiles
        strip = self._cases.strip(now)
        if self._strip is None or (strip.open_cases, strip.oldest_open_ms) != (
            self._strip.open_cases,
            self._strip.oldest_open_ms,
        ):
            self.publish("strip", strip.as_json())
        self._strip = strip

    async def _new_findings(self, now: int, burst: int | None = 0) -> list[fr.NewFinding]:
        """The findings not published yet, at most ``burst`` (0: the feed's; None: all)."""
        most = self._burst if burst == 0 else burst
        assert self._judged_ms is not None
        after: tuple[int, str] = (self._judged_ms - fr.OVERLAP_MS, "")
        out: list[fr.NewFinding] = []
        for _ in range(PAGES_PER_TICK):
            rows = await self._read(fr.read_new_findings, after, now, self.window_ms)
            for f in rows:
                if (
                    most is not None
                    and f.finding_id not in self._sent_findings
                    and len(out) >= most
                ):
                    return out  # the rest next poll: a burst never fills a reader's queue
                self._judged_ms = max(self._judged_ms, f.judged_ms)
                if _remember(self._sent_findings, f.finding_id):
                    out.append(f)
            if len(rows) < fr.PAGE:
                break
            after = (rows[-1].judged_ms, rows[-1].finding_id)
        return out

    async def _new_steps(self, burst: int | None = 0) -> list[fr.CaseStep]:
        most = self._burst if burst == 0 else burst
        assert self._step_ms is not None
        after: tuple[int, str, int] = (self._step_ms - fr.OVERLAP_MS, "", 0)
        out: list[fr.CaseStep] = []
        for _ in range(PAGES_PER_TICK):
            rows = await self._read(fr.read_case_steps, after)
            for s in rows:
                if (
                    most is not None
                    and (s.finding_id, s.step) not in self._sent_steps
                    and len(out) >= most
                ):
                    return out
                self._step_ms = max(self._step_ms, s.at_ms)
                if _remember(self._sent_steps, (s.finding_id, s.step)):
                    out.append(s)
            if len(rows) < fr.PAGE:
                break
            after = (rows[-1].at_ms, rows[-1].finding_id, rows[-1].step)
        return out


def _remember(sent: OrderedDict[Hashable, None], key: Hashable) -> bool:
    """Whether ``key`` is new to ``sent`` (then remembered; the oldest forgotten)."""
    if key in sent:
        sent.move_to_end(key)
        return False
    sent[key] = None
    if len(sent) > REMEMBERED:
        sent.popitem(last=False)
    return True
