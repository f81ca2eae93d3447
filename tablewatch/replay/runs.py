"""Reading the recorded replay runs (``replay_runs_v``) through a row source.

The same row sources as :func:`tablewatch.replay.diff.replay_diff` (``run(sql)``, the
answer with ``.columns`` and ``.rows``), SELECTs on the readable views only: the CLI and
the auditor API (``/api/v1/replays``) read them alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

from tablewatch.replay.diff import RowSource, UnknownRun, is_run_id

__all__ = ["ReplayRun", "replay_run", "replay_runs"]

STATUSES: Final = ("running", "complete", "interrupted", "failed")
_COLUMNS: Final = (
    "run_id, source, range, tables, seen_tables, rules_version, config_sha256, events, "
    "rejected, rounds, findings, toUnixTimestamp64Milli(first_event_ts), "
    "toUnixTimestamp64Milli(last_event_ts), toUnixTimestamp64Milli(started), "
    "toUnixTimestamp64Milli(finished), status, detail, patterns"
)


@dataclass(frozen=True, slots=True)
class ReplayRun:
    """One row of ``replay_runs_v``; times in epoch milliseconds (UTC)."""

    run_id: str
    source: str  # files, store, kafka
    range: str  # the paths, or since/until and the offsets read
    tables: tuple[str, ...]  # --tables (() : every table)
    seen_tables: tuple[str, ...]
    rules_version: str
    config_sha256: str
    events: int
    rejected: int
    rounds: int
    findings: int
    first_event_ms: int | None
    last_event_ms: int | None
    started_ms: int
    finished_ms: int | None
    status: str  # running, complete, interrupted, failed
    detail: str
    patterns: bool  # the run computed the patterns across rounds (--patterns)

    def as_dict(self) -> dict[str, Any]:
        out = {name: getattr(self, name) for name in self.__slots__}
        out["tables"] = list(self.tables)
        out["seen_tables"] = list(self.seen_tables)
        return out


def replay_runs(source: RowSource, *, limit: int = 100) -> list[ReplayRun]:
    """The latest ``limit`` runs, newest first."""
    rows = source.run(
        f"SELECT {_COLUMNS} FROM replay_runs_v ORDER BY started DESC, run_id LIMIT {int(limit)}"
    ).rows
    return [_run(row) for row in rows]


def replay_run(source: RowSource, run_id: str) -> ReplayRun:
    """The run ``run_id``; raises :class:`UnknownRun`."""
    if not is_run_id(run_id):
        raise UnknownRun(f"{run_id!r} is not a run id (32 lower-case hex digits)")
    rows = source.run(f"SELECT {_COLUMNS} FROM replay_runs_v WHERE run_id = '{run_id}'").rows
    if not rows:
        raise UnknownRun(f"no replay run {run_id}")
    return _run(rows[0])


def _run(row: Sequence[Any]) -> ReplayRun:
    (run_id, source, range_text, tables, seen, rules, config, events, rejected, rounds,
     findings, first, last, started, finished, status, detail, patterns) = row  # fmt: skip
    return ReplayRun(
        run_id=str(run_id),
        source=str(source),
        range=str(range_text),
        tables=tuple(str(t) for t in tables),
        seen_tables=tuple(str(t) for t in seen),
        rules_version=str(rules),
        config_sha256=str(config),
        events=int(events),
        rejected=int(rejected),
        rounds=int(rounds),
        findings=int(findings),
        first_event_ms=None if first is None else int(first),
        last_event_ms=None if last is None else int(last),
        started_ms=int(started),
        finished_ms=None if finished is None else int(finished),
        status=str(status),
        detail=str(detail),
        patterns=bool(patterns),
    )
