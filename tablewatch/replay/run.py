"""One replay run: a source folded through the :class:`Auditor`, recorded in the store.

The run is a row of ``replay_runs``, written when it starts (``running``) and when it
ends (``complete``, ``interrupted`` or ``failed``, with its counts); every round it
judged is a row of ``replay_rounds`` and every finding a row of ``replay_findings``
(the columns of ``findings``, the same ``finding_id``, all with the run's start time as
``judged_at``), written in batches as it goes. A run with ``patterns`` also reads every
judged round with the pattern folds, at the end of its input
(:mod:`tablewatch.replay.patterns`), and records their findings as table-level ones.
The live tables are never written.

Determinism: the findings of a run are a function of the events (each table's in its
order) and the configuration only; the store's rows and :func:`findings_json` give
them in one order (table, round, start event, finding id), whatever the source.
"""

from __future__ import annotations

import operator
import time
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import msgspec
from clickhouse_connect.driver.client import Client

from tablewatch.replay.fold import Run, fold
from tablewatch.replay.patterns import ReplayPatterns
from tablewatch.replay.row_writer import RowWriter, seconds
from tablewatch.rules.audit import Auditor
from tablewatch.rules.decode import EventRejected
from tablewatch.rules.events import ts_to_ms
from tablewatch.rules.findings import Finding
from tablewatch.rules.judge import RoundResult
from tablewatch.rules.table_config import TableConfig
from tablewatch.store.rows import (
    FINDING_COLUMNS,
    FindingRow,
    finding_row,
    round_finding_ids,
)

RUNS = "replay_runs"
FINDINGS = "replay_findings"
ROUNDS = "replay_rounds"
RUN_COLUMNS = (
    "run_id", "source", "range", "tables", "seen_tables", "rules_version", "config_sha256",
    "events", "rejected", "rounds", "findings", "first_event_ts", "last_event_ts", "started",
    "finished", "status", "detail", "revision", "patterns",
)  # fmt: skip
REPLAY_FINDING_COLUMNS = ("run_id", *FINDING_COLUMNS)
ROUND_COLUMNS = (
    "run_id", "table_id", "round_id", "start_event_id", "start_ts", "end_ts", "finding_count",
)  # fmt: skip
BATCH_ROWS = 20_000  # rows of a table gathered before they are written


class Source(Protocol):
    """An event source: its runs of events, and how many events it holds (None: unknown)."""

    @property
    def total(self) -> int | None: ...
    def describe(self) -> str: ...
    def runs(self) -> Iterable[Run]: ...


@dataclass(slots=True)
class RunRecord:
    """What ``replay_runs`` holds of a run."""

    run_id: str
    source: str
    range: str
    tables: tuple[str, ...]
    rules_version: str
    config_sha256: str
    started_ms: int
    events: int = 0
    rejected: int = 0
    rounds: int = 0
    findings: int = 0
    seen_tables: set[str] = field(default_factory=set)
    first_event_ms: int | None = None
    last_event_ms: int | None = None
    finished_ms: int | None = None
    status: str = "running"
    detail: str = ""
    revision: int = 0
    patterns: bool = False  # the run computes the patterns across rounds too

    def row(self) -> list[Any]:
        return [
            self.run_id, self.source, self.range, list(self.tables), sorted(self.seen_tables),
            self.rules_version, self.config_sha256, self.events, self.rejected, self.rounds,
            self.findings, self.first_event_ms, self.last_event_ms, self.started_ms,
            self.finished_ms, self.status, self.detail, self.revision, int(self.patterns),
        ]  # fmt: skip


def new_run_id() -> str:
    return uuid.uuid4().hex


class Recorder:
    """Writes a run's rows to the store, in batches: its ``replay_runs`` row on ``client``,
    its rounds and findings through ``rows`` (:mod:`tablewatch.replay.row_writer`; by
    default on ``client`` too, as they are given)."""

    def __init__(
        self,
        client: Client,
        record: RunRecord,
        batch_rows: int = BATCH_ROWS,
        rows: RowWriter | None = None,
    ) -> None:
        self.client = client
        self.record = record
        self.batch_rows = batch_rows
        self.rows = rows if rows is not None else RowWriter(client)
        self._findings: list[Sequence[Any]] = []
        self._rounds: list[Sequence[Any]] = []

    def write_run(self) -> None:
        self.record.revision += 1
        self.client.insert(RUNS, [self.record.row()], column_names=RUN_COLUMNS)

    def add(self, outcome: RoundResult | Finding, origin: str = "") -> None:
        """Gather the rows of a judged round or a table-level finding (``origin``: what tells
        that finding's id apart, a pattern's :attr:`~PatternFinding.origin`)."""
        record = self.record
        judged = record.started_ms
        run_id = record.run_id
        if isinstance(outcome, RoundResult):
            start_ms = ts_to_ms(outcome.start_ts)
            start = outcome.start_event_id
            record.rounds += 1
            self._rounds.append(
                (run_id, outcome.table_id, outcome.round_id, start, start_ms / 1000,
                 ts_to_ms(outcome.end_ts) / 1000, len(outcome.findings))
            )  # fmt: skip
            ids = round_finding_ids(outcome)
            for finding, id_ in zip(outcome.findings, ids, strict=True):
                row = finding_row(finding, judged, start_ms, start_event_id=start, stored_id=id_)
                self._findings.append(_replay_finding(run_id, row))
            record.findings += len(outcome.findings)
        else:
            row = finding_row(outcome, judged, origin=origin)
            self._findings.append(_replay_finding(run_id, row))
            record.findings += 1
        if len(self._findings) >= self.batch_rows or len(self._rounds) >= self.batch_rows:
            self.flush()

    def flush(self) -> None:
        """Give the rows gathered to the writer (which may write them behind)."""
        if self._findings:
            self.rows.insert(FINDINGS, REPLAY_FINDING_COLUMNS, self._findings)
            self._findings = []
        if self._rounds:
            self.rows.insert(ROUNDS, ROUND_COLUMNS, self._rounds)
            self._rounds = []

    def written(self) -> None:
        """Every row given so far is in the store (raises what a write raised)."""
        self.flush()
        self.rows.wait()


def _replay_finding(run_id: str, row: FindingRow) -> tuple[Any, ...]:
    """A ``replay_findings`` row for JSON: the run's id, then the ``findings`` row with its
    times (``ts``, ``judged_at``) in seconds."""
    *columns, ts_ms, judged_ms = row
    return (run_id, *columns, seconds(ts_ms), judged_ms / 1000)


class Interrupted(Exception):
    """The run was stopped (Ctrl-C, SIGTERM)."""


Progress = Callable[[int], None]  # called with the events folded so far
_TABLE_ID = operator.attrgetter("table_id")


def replay(
    source: Source,
    configs: Mapping[str, TableConfig],
    recorder: Recorder,
    *,
    progress: Progress | None = None,
    rejected: Callable[[EventRejected], None] | None = None,
) -> RunRecord:
    """Fold ``source`` and record what it judged (with ``record.patterns``, the pattern
    findings of every round judged, once the input ends); the record's status is set by the
    caller on an exception (see :func:`record_end`)."""
    auditor = Auditor(configs)
    record = recorder.record
    seen = record.seen_tables
    patterns = ReplayPatterns(configs) if record.patterns else None
    runs = _watched(source.runs(), record, seen, auditor, progress)
    for outcome in fold(auditor, runs):
        if isinstance(outcome, EventRejected):
            record.rejected += 1
            if rejected is not None:
                rejected(outcome)
        else:
            recorder.add(outcome)
            if patterns is not None and isinstance(outcome, RoundResult):
                patterns.add(outcome)
    record.events = auditor.stats.events
    if patterns is not None:
        for found in patterns.findings():
            recorder.add(found.as_finding(), origin=found.origin)
    recorder.written()
    return record


def _watched(
    runs: Iterable[Run],
    record: RunRecord,
    seen: set[str],
    auditor: Auditor,
    progress: Progress | None,
) -> Iterable[Run]:
    """``runs``, noting the tables, the first and last event times and the progress."""
    for run in runs:
        if not isinstance(run, EventRejected) and run:
            seen.update(map(_TABLE_ID, run))
            first, last = ts_to_ms(run[0].ts), ts_to_ms(run[-1].ts)
            low = min(first, last)
            high = max(first, last)
            if record.first_event_ms is None or low < record.first_event_ms:
                record.first_event_ms = low
            if record.last_event_ms is None or high > record.last_event_ms:
                record.last_event_ms = high
        yield run
        record.events = auditor.stats.events
        if progress is not None:
            progress(record.events)


def record_end(recorder: Recorder, status: str, detail: str = "") -> None:
    """Write the run's final row, after the rows of what was judged so far are in the store
    (unless the run failed), and stop its writer."""
    record = recorder.record
    try:
        if status != "failed":
            recorder.written()
    finally:
        recorder.rows.close()
    record.status = status
    record.detail = detail
    record.finished_ms = int(time.time() * 1000)
    recorder.write_run()


_JSON = msgspec.json.Encoder()


def findings_json(client: Client, run_id: str) -> Iterable[bytes]:
    """Every finding of the run, one JSON object a line, in the store's order (table, round,
    start event, finding id): the same bytes for the same events and configuration."""
    columns = ", ".join(
        f"toUnixTimestamp64Milli({c})" if c in ("ts", "judged_at") else c
        for c in FINDING_COLUMNS
        if c != "judged_at"
    )
    sql = (
        f"SELECT {columns} FROM replay_findings_v WHERE run_id = {{r:String}} "
        "ORDER BY table_id, round_id, start_event_id, finding_id"
    )
    names = [c for c in FINDING_COLUMNS if c != "judged_at"]
    with client.query_row_block_stream(sql, parameters={"r": run_id}) as stream:
        for block in stream:
            for row in block:
                yield _JSON.encode(dict(zip(names, row, strict=True)))
