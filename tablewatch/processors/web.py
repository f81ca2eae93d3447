"""The worker's web views: health, metrics, read-only queries of its embedded store, and
the casework commands its desk decides (the one process writing that store).

The embedded ClickHouse (chdb) lives inside the worker process, so while the
worker runs, other commands read it through ``GET /query?sql=...`` here.
"""

from __future__ import annotations

import asyncio
import gc
import time
from concurrent.futures import Executor
from typing import Any, Protocol, cast

import faust
from faust.web import Request, Response, View

from tablewatch.access.authenticate import Principal
from tablewatch.access.log import AccessOutcome, Entry
from tablewatch.access.roles import Permission, extra_tables
from tablewatch.casework.desk import CaseDesk
from tablewatch.casework.model import Actor
from tablewatch.patterns.worker_child import PatternsChild
from tablewatch.processors.access_control import WorkerAccess
from tablewatch.processors.batch_writer import BatchWriter
from tablewatch.processors.consumer_loop import EventsLoop
from tablewatch.processors.processor import LiveProcessor
from tablewatch.processors.settings import WorkerSettings
from tablewatch.store.query_pool import PoolBusy, QueryPool
from tablewatch.store.read_only import QueryFailed, QueryRefused
from tablewatch.store.rollups import RollupRefresher


class WorkerView(Protocol):
    """What the views read of the worker (:class:`tablewatch.processors.app.Worker`,
    which installs them with itself)."""

    @property
    def app(self) -> faust.App: ...

    @property
    def settings(self) -> WorkerSettings: ...

    @property
    def access(self) -> WorkerAccess: ...

    @property
    def queries(self) -> QueryPool: ...

    @property
    def processor(self) -> LiveProcessor[Any]: ...

    @property
    def batches(self) -> BatchWriter[Any]: ...

    @property
    def events(self) -> EventsLoop | None: ...  # the consumer loop (None: not started yet)

    @property
    def started(self) -> float: ...  # time.time() at start

    @property
    def cases(self) -> CaseDesk: ...  # decides and writes case steps, on the store thread

    @property
    def store_thread(self) -> Executor: ...  # the one thread that uses the writing client

    @property
    def rollups(self) -> RollupRefresher: ...  # the rollups' refresh step and its figures

    @property
    def patterns(self) -> PatternsChild | None: ...  # the patterns companion (None: not run)


def install_views(worker: WorkerView) -> None:
    app = worker.app

    @app.page("/health")
    async def health(web: View, request: Request) -> Response:
        """200 once the worker consumes (partitions assigned, state restored); 503 before."""
        state = readiness(worker)
        body = {"status": state, "uptime_s": round(time.time() - worker.started, 1)}
        return web.json(body, status=200 if state == "ok" else 503)

    @app.page("/metrics")
    async def metrics(web: View, request: Request) -> Response:
        """The counters (permission ``metrics``: see :mod:`.access_control`)."""

        async def answer(principal: Principal | None, entry: Entry) -> Response:
            return web.json(await metrics_of(worker))

        return await worker.access.serve(web, request, Permission.METRICS, "GET /metrics", answer)

    @app.page("/query")
    async def query(web: View, request: Request) -> Response:
        """One read-only statement on the store (see :mod:`tablewatch.store.read_only`);
        permission ``query``, and the tables the caller's role adds (``access_log``)."""
        sql = request.query.get("sql", "")

        async def answer(principal: Principal | None, entry: Entry) -> Response:
            also = extra_tables(principal.role if principal else None)
            try:
                result = await worker.queries.run(sql, also=also)
            except QueryRefused as refused:
                entry.set(AccessOutcome.REFUSED, 400, refused.reason)
                return web.json({"error": f"refused: {refused.reason}"}, status=400)
            except QueryFailed as failed:
                status = _FAILED_STATUS.get(failed.kind, 400)
                entry.set(AccessOutcome.FAILED, status, f"{failed.kind}: {failed.reason}")
                return web.json({"error": failed.reason, "kind": failed.kind}, status=status)
            except PoolBusy as busy:
                entry.set(AccessOutcome.BUSY, 503, str(busy))
                return web.json(
                    {"error": str(busy)},
                    status=503,
                    headers={"Retry-After": str(busy.retry_after_s)},
                )
            rows = [[_plain(v) for v in row] for row in result.rows]
            entry.rows_returned = len(rows)
            return web.json({"columns": result.columns, "rows": rows})

        return await worker.access.serve(web, request, Permission.QUERY, sql, answer)

    @app.page("/cases/{finding_id}/{action}")
    class CaseCommand(View):
        """``POST /cases/{finding_id}/{action}``: a casework command (``docs/casework.md``),
        decided by the worker's desk as the caller (permission ``work_cases``)."""

        async def post(self, request: Request, finding_id: str, action: str) -> Response:
            return await case_command(worker, self, request, finding_id, action)


async def case_command(
    worker: WorkerView, web: View, request: Request, finding_id: str, action: str
) -> Response:
    """A case command by the caller (its token's principal), decided on the store thread."""

    async def answer(principal: Principal | None, entry: Entry) -> Response:
        if principal is None:
            reason = "casework needs access control: start the worker with --access-file"
            entry.set(AccessOutcome.REFUSED, 503, reason)
            return web.json({"detail": reason}, status=503)
        kind = request.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if kind != "application/json":
            reason = "a request that changes a case must be Content-Type: application/json"
            entry.set(AccessOutcome.REFUSED, 415, reason)
            return web.json({"detail": reason}, status=415)
        body = await cast(Any, request).read()
        actor = Actor(principal.name, principal.role)
        status, answered = await asyncio.get_running_loop().run_in_executor(
            worker.store_thread, worker.cases.answer, finding_id, action, bytes(body), actor
        )
        if status != 200:
            entry.set(AccessOutcome.REFUSED, status, str(answered.get("detail", "")))
        return web.json(answered, status=status)

    what = f"POST /cases/{finding_id[:200]}/{action[:20]}"
    return await worker.access.serve(web, request, Permission.WORK_CASES, what, answer)


# a statement the engine stopped: over its time (cancelled), its result or memory limits
_FAILED_STATUS = {"timeout": 504, "too_large": 413, "memory": 413, "refused": 400}


def readiness(worker: WorkerView) -> str:
    """``ok`` when the worker is consuming its events topic, else what it waits for."""
    events = worker.events
    return "starting" if events is None else events.readiness()


async def metrics_of(worker: WorkerView) -> dict[str, Any]:
    counters = worker.processor.counters
    elapsed = max(time.time() - worker.started, 1e-9)
    lag: dict[str, int] = {}
    uncommitted: dict[str, int] = {}  # messages not yet covered by a committed offset
    events = worker.events
    for partition in sorted(events.partitions) if events is not None else ():
        assert events is not None
        high = await events.highwater(partition)
        done = events.positions.get(partition, -1)
        if high is not None:
            lag[str(partition)] = max(0, high - done - 1)
            committed = events.commits.committed.get(partition) or 0
            uncommitted[str(partition)] = max(0, high - committed)
    commits = events.commits if events is not None else None
    return {
        "status": readiness(worker),
        "rebalances": events.rebalances if events is not None else 0,
        "events": counters.events,
        "events_per_s": round(counters.events / elapsed, 1),
        "rejected": counters.rejected,
        # messages dead-lettered by the stage that failed (decode = rejected, judge, store)
        "dead_lettered": dict(counters.refused),
        "processing_errors": counters.errors,  # the worker's own code failed (logged)
        "states_not_saved": counters.states_not_saved,
        "states_not_restored": counters.states_not_restored,
        "write_retries": dict(worker.batches.retries),  # store or broker failures waited out
        "batches_isolated": worker.batches.isolated,  # inserts the store refused, split
        "rows_set_aside": worker.batches.rows_set_aside,
        "duplicates": worker.processor.auditor.stats.duplicates,
        "checkpoints_signed": counters.checkpoints,  # of the tables' hash chains
        "rounds": worker.processor.auditor.stats.rounds,
        "open_rounds": worker.processor.open_rounds(),
        "findings_by_check": counters.findings_by_check,
        "consumer_lag": lag,
        "consumer_lag_total": sum(lag.values()),
        "uncommitted": uncommitted,
        "offset_gaps": commits.gaps if commits is not None else 0,  # holes in the events topic
        "commits_refused": commits.refused if commits is not None else 0,  # by a rebalance
        # partitions read again from their restore fence (tables restored older than the commit)
        "restores_fenced": events.restores_fenced if events is not None else 0,
        "flushes": worker.batches.flushes,
        "write_seconds": round(worker.batches.write_seconds, 3),
        "stale_batches": worker.batches.stale,
        "consumer_delay_ms": round(events.delay_s * 1000) if events is not None else 0,
        "batches_waiting": worker.batches.waiting(),
        "unacknowledged": commits.waiting() if commits is not None else 0,
        "access": worker.access.metrics(),  # access control, and the access log's rows
        # the rollups' refreshes: how many, the last one's seconds, now less its watermark
        "rollups": worker.rollups.metrics(),
        # objects start-up made, out of the collector's sight (gc.freeze) once consuming
        "gc_frozen_objects": gc.get_freeze_count(),
        # the patterns companion (None: not run by this worker)
        "patterns": worker.patterns.metrics() if worker.patterns is not None else None,
    }


def _plain(value: Any) -> Any:
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return str(value)
