"""``GET /api/v1/replays`` and ``/api/v1/replays/{run_id}/diff`` (tablewatch/replay/)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Path, Query, Request

from tablewatch.api.app import NotFound, source_of
from tablewatch.api.models import DiffEntryOut, ReplayDiffOut, ReplayRunOut, ReplaysOut
from tablewatch.api.routes.common import INVALID, NOT_FOUND, UNAVAILABLE
from tablewatch.replay.diff import UnknownRun, replay_diff
from tablewatch.replay.runs import ReplayRun, replay_runs
from tablewatch.rules.events import ms_to_ts

router = APIRouter(prefix="/api/v1", tags=["replays"])


@router.get("/replays", response_model=ReplaysOut, responses={**INVALID, **UNAVAILABLE})
def list_replays(request: Request, limit: Annotated[int, Query(ge=1, le=1000)] = 100) -> ReplaysOut:
    """The latest replay runs, newest first."""
    return ReplaysOut(items=[run_out(run) for run in replay_runs(source_of(request), limit=limit)])


@router.get(
    "/replays/{run_id}/diff",
    response_model=ReplayDiffOut,
    responses={**NOT_FOUND, **INVALID, **UNAVAILABLE},
)
def diff(
    request: Request,
    run_id: Annotated[str, Path(max_length=64, description="32 lower-case hex digits")],
    limit: Annotated[int, Query(ge=1, le=10_000)] = 1000,
) -> ReplayDiffOut:
    """The run's findings against the live findings of the same rounds: new, gone,
    changed (both amounts), the first ``limit`` entries."""
    try:
        found = replay_diff(source_of(request), run_id, limit=limit)
    except UnknownRun as unknown:
        raise NotFound(str(unknown)) from None
    return ReplayDiffOut(
        run_id=found.run_id,
        new=found.new,
        gone=found.gone,
        changed=found.changed,
        rounds=found.rounds,
        rounds_not_live=found.rounds_not_live,
        truncated=found.truncated,
        patterns=found.patterns,
        entries=[DiffEntryOut(**entry.as_dict()) for entry in found.entries],
    )


def run_out(run: ReplayRun) -> ReplayRunOut:
    def ts(ms: int | None) -> str | None:
        return None if ms is None else ms_to_ts(ms)

    return ReplayRunOut(
        run_id=run.run_id,
        source=run.source,
        range=run.range,
        tables=list(run.tables),
        seen_tables=list(run.seen_tables),
        rules_version=run.rules_version,
        config_sha256=run.config_sha256,
        events=run.events,
        rejected=run.rejected,
        rounds=run.rounds,
        findings=run.findings,
        first_event_ts=ts(run.first_event_ms),
        last_event_ts=ts(run.last_event_ms),
        started=ms_to_ts(run.started_ms),
        finished=ts(run.finished_ms),
        status=run.status,
        detail=run.detail,
        patterns=run.patterns,
    )
