"""What the latency benchmarks share: the floor's controllers posting to the ingest endpoint,
one poll of the worker's ``/query`` for every round still awaited, cores kept busy, quantiles.

Imported by ``bench_pipeline.py`` and ``bench_alerts.py`` (run as scripts from the
repository's root: this directory is on their path).
"""

from __future__ import annotations

import asyncio
import math
import os
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

# The poll names at most this many awaited rounds (the oldest first): its URL stays under the
# 8,190 bytes of a request line the worker's web server reads, whatever the worker's lag.
MAX_AWAITED_PER_POLL = 60


def quantiles(values: Sequence[float], scale: float = 1000.0) -> dict[str, int | None]:
    """p50, p95, p99 (nearest rank: the smallest value with at least that share at or
    below it) and max of ``values``, times ``scale`` and rounded (seconds to ms)."""
    ordered = sorted(values)

    def rank(q: float) -> int | None:
        if not ordered:
            return None
        return round(scale * ordered[max(0, math.ceil(q * len(ordered)) - 1)])

    return {"p50": rank(0.50), "p95": rank(0.95), "p99": rank(0.99), "max": rank(1.0)}


def cpu_seconds(pid: int, thread: int | None = None) -> float:
    """CPU seconds of a process, or of one of its threads (Linux /proc)."""
    path = f"/proc/{pid}/stat" if thread is None else f"/proc/{pid}/task/{thread}/stat"
    fields = Path(path).read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@dataclass
class CpuLoad:
    """``cores`` child processes, each spinning one core (a busy loop at the default nice
    value, 0): the other services of a site sharing the machine."""

    cores: int
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    def cpu_seconds(self) -> float:
        return sum(cpu_seconds(p.pid) for p in self.processes if p.poll() is None)


@contextmanager
def cpu_load(cores: int) -> Iterator[CpuLoad]:
    """:class:`CpuLoad` of ``cores`` processes, stopped (each by its own id) at the end."""
    load = CpuLoad(cores)
    try:
        for _ in range(cores):
            load.processes.append(
                subprocess.Popen([sys.executable, "-c", "while True: pass"])  # nice 0: inherited
            )
        yield load
    finally:
        for process in load.processes:
            process.kill()
        for process in load.processes:
            process.wait()


def _literal(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _keys(rounds: Sequence[tuple[str, str]]) -> str:
    return ", ".join(f"({_literal(t)}, {_literal(r)})" for t, r in rounds)


def awaited_sql(
    rounds: Sequence[tuple[str, str]], with_findings: Sequence[tuple[str, str]] = ()
) -> str:
    """One statement: rows ``('round', table, round, finding_count)`` of ``rounds``
    (table_id, round_id) found in ``rounds_v``, and ``('findings', table, round, n)``: how
    many findings the store holds of each of ``with_findings`` (the rounds that may carry
    findings: not yet shown, or shown with findings), only when there are any. Asked in
    the same statement as the rows, a round's findings written with its row are seen by
    the same poll.

    The findings are counted in ``findings`` (distinct finding_id), not ``findings_v``: a
    round judged once shows its findings in both at the same instant, and the view's join
    over every round costs the worker about 8 ms of CPU more per poll (on 1,153 rounds)."""
    sql = (
        "SELECT 'round' AS kind, table_id, round_id, toUInt64(finding_count) AS n FROM rounds_v "
        f"WHERE (table_id, round_id) IN ({_keys(rounds)})"
    )
    if with_findings:
        sql += (
            " UNION ALL SELECT 'findings' AS kind, table_id, round_id, uniqExact(finding_id) AS n "
            f"FROM findings WHERE (table_id, round_id) IN ({_keys(with_findings)}) "
            "GROUP BY table_id, round_id"
        )
    return sql


# The recent poll reads the rounds judged in the last RECENT_S seconds; a round awaited
# longer than FALLBACK_S since its round_end was answered is asked for by name instead.
RECENT_S = 3
FALLBACK_S = 2.0


def recent_sql() -> str:
    """One statement, the same text at every poll (as a live page's panel sends it again at
    each refresh): rows ``('round', table, round, finding_count)`` of the rounds in
    ``rounds_v`` judged in the last :data:`RECENT_S` seconds, and ``('findings', table,
    round, n)``: how many findings the store holds of each of them (a round's findings carry
    its judged_at). The worker checks a text it has already checked once only
    (``store/read_only.py``), so this poll costs it the statement alone."""
    since = f"now64(3) - INTERVAL {RECENT_S} SECOND"
    return (
        "SELECT 'round' AS kind, table_id, round_id, toUInt64(finding_count) AS n FROM rounds_v "
        f"WHERE judged_at >= {since} "
        "UNION ALL SELECT 'findings' AS kind, table_id, round_id, uniqExact(finding_id) AS n "
        f"FROM findings WHERE judged_at >= {since} GROUP BY table_id, round_id"
    )


@dataclass
class Awaited:
    """Rounds whose ``round_end`` was answered by the ingest endpoint, until each is queryable:
    its ``rounds_v`` row and all its findings (as many as the row's finding_count) shown."""

    answered: dict[tuple[str, str], float] = field(default_factory=dict)  # monotonic
    row_seen: dict[tuple[str, str], float] = field(default_factory=dict)
    queryable: dict[tuple[str, str], float] = field(default_factory=dict)
    findings: dict[tuple[str, str], int] = field(default_factory=dict)  # each row's count

    def answer(self, key: tuple[str, str], at: float) -> None:
        self.answered.setdefault(key, at)

    def pending(self, limit: int = MAX_AWAITED_PER_POLL) -> list[tuple[str, str]]:
        """The rounds answered and not yet queryable, the oldest first, at most ``limit``."""
        waiting = [k for k in self.answered if k not in self.queryable]
        return waiting[:limit]

    def overdue(self, now: float, after: float = FALLBACK_S) -> bool:
        """Whether a round answered more than ``after`` seconds before ``now`` is awaited
        still (the recent poll may no longer show it: ask for it by name)."""
        return any(now - at > after for k, at in self.answered.items() if k not in self.queryable)

    def findings_awaited(self, rounds: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
        """Those of ``rounds`` not yet queryable that may carry findings: their row not yet
        shown, or shown with findings."""
        return [
            k
            for k in rounds
            if k not in self.queryable and (k not in self.row_seen or self.findings[k] > 0)
        ]

    def update(self, rows: Sequence[Sequence[Any]], at: float) -> None:
        """Take one poll's rows (:func:`awaited_sql`), answered at ``at``."""
        shown: dict[tuple[str, str], int] = {}
        touched: list[tuple[str, str]] = []
        for kind, table_id, round_id, n in rows:
            key = (str(table_id), str(round_id))
            if key not in self.answered or key in self.queryable:
                continue
            touched.append(key)
            if kind == "round":
                self.row_seen.setdefault(key, at)
                self.findings[key] = max(self.findings.get(key, 0), int(n))
            else:
                shown[key] = int(n)
        for key in touched:
            if key in self.row_seen and shown.get(key, 0) >= self.findings[key]:
                self.queryable[key] = at

    def waits(self, since: float = float("-inf")) -> tuple[list[float], list[float]]:
        """Answered → queryable, in seconds, of every round answered at or after ``since``, and
        of those among them carrying a finding."""
        counted = [k for k, t in self.answered.items() if t >= since and k in self.queryable]
        every = [self.queryable[k] - self.answered[k] for k in counted]
        with_findings = [self.queryable[k] - self.answered[k] for k in counted if self.findings[k]]
        return every, with_findings


@dataclass
class Posted:
    """What the controllers' POSTs did."""

    posts: int = 0
    events: int = 0
    accepted: int = 0
    not_accepted: int = 0  # rejected or duplicate: a defect of the benchmark's floor
    retried: int = 0  # 503 (busy) or no answer, sent again
    post_s: list[float] = field(default_factory=list)  # each answered POST's round trip


class Controller:
    """One table's controller: its events posted in order, in small POSTs: what happened since
    the last POST, sent ``linger`` seconds after the first of them or at once when a round
    ends, whichever comes first; one POST at a time (the next waits for the answer)."""

    def __init__(
        self,
        session: aiohttp.ClientSession,
        url: str,
        linger: float,
        awaited: Awaited,
        posted: Posted,
    ) -> None:
        self.session = session
        self.url = url
        self.linger = linger
        self.awaited = awaited
        self.posted = posted
        self.buffer: list[tuple[bytes, tuple[str, str] | None]] = []
        self.first_at = 0.0
        self.round_ended = False
        self.wake = asyncio.Event()

    def add(self, raw: bytes, round_end: tuple[str, str] | None) -> None:
        """An event as it happens; ``round_end`` its (table_id, round_id) when it ends one."""
        if not self.buffer:
            self.first_at = time.monotonic()
        self.buffer.append((raw, round_end))
        self.round_ended = self.round_ended or round_end is not None
        self.wake.set()

    async def run(self, done: asyncio.Event) -> None:
        """Post until ``done`` is set and nothing is left to post."""
        while True:
            if not self.buffer:
                if done.is_set():
                    return
                await self._woken(done, None)
                continue
            left = self.first_at + self.linger - time.monotonic()
            if not self.round_ended and left > 0 and not done.is_set():
                await self._woken(done, left)
                continue
            batch, self.buffer, self.round_ended = self.buffer, [], False
            await self._post(batch)

    async def _woken(self, done: asyncio.Event, timeout: float | None) -> None:
        """Until an event is added, ``done`` is set, or ``timeout`` s have passed."""
        self.wake.clear()
        waiter = asyncio.ensure_future(self.wake.wait())
        stopper = asyncio.ensure_future(done.wait())
        await asyncio.wait({waiter, stopper}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()
        stopper.cancel()

    async def _post(self, batch: list[tuple[bytes, tuple[str, str] | None]]) -> None:
        body = b"[" + b",".join(raw for raw, _ in batch) + b"]"
        headers = {"Content-Type": "application/json"}
        while True:
            sent = time.monotonic()
            try:
                async with self.session.post(self.url, data=body, headers=headers) as reply:
                    payload = await reply.json() if reply.status in (200, 202) else None
                    status = reply.status
            except (aiohttp.ClientError, TimeoutError):
                status, payload = 0, None
            answered = time.monotonic()
            if payload is not None:
                break
            if status not in (0, 502, 503, 504):
                raise RuntimeError(f"the ingest endpoint answered {status} to a POST")
            self.posted.retried += 1
            await asyncio.sleep(0.05)
        self.posted.posts += 1
        self.posted.events += len(batch)
        self.posted.accepted += int(payload.get("accepted", 0))
        self.posted.not_accepted += len(batch) - int(payload.get("accepted", 0))
        self.posted.post_s.append(answered - sent)
        for _, round_end in batch:
            if round_end is not None:
                self.awaited.answer(round_end, answered)
