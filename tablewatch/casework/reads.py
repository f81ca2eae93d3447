"""The casework's reads, in SQL over any row source (``run(sql) -> Answer``): the queue, a
case with its steps, the finding a step is about (:func:`finding_ref`).

Values reach a statement only as quoted literals. Times are selected as epoch ms.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

from tablewatch.casework.model import Case, CaseState, FindingRef, Step
from tablewatch.casework.rows import SELECT_STEP, case_of, steps_of
from tablewatch.store.read_only import Answer
from tablewatch.store.sql_literals import integer, quote

ROUND_MARGIN_MS: Final = 30_000  # the default video window: the round +- 30 s
SEVERITIES: Final = ("critical", "high", "medium", "low")
STATES: Final = tuple(s.value for s in CaseState)


class Rows(Protocol):
    def run(self, sql: str) -> Answer: ...


def _rows(source: Rows, sql: str) -> Sequence[Sequence[Any]]:
    return source.run(sql).rows


def _ms(value: Any) -> int | None:
    return None if value is None else int(value)


# ---- one finding, one case ---------------------------------------------------------------


def finding_ref(source: Rows, finding_id: str) -> FindingRef | None:
    """The finding ``finding_id`` (its latest judgement), its table's pit and first camera,
    and its round's window +- 30 s; None if the store holds no such finding."""
    found = _rows(
        source,
        "SELECT table_id, round_id, start_event_id, check, severity, toUnixTimestamp64Milli(ts)"
        f" FROM findings FINAL WHERE finding_id = {quote(finding_id)}"
        " ORDER BY judged_at DESC LIMIT 1",
    )
    if not found:
        return None
    table_id, round_id, start_event_id, check, severity, ts_ms = found[0]
    pit, camera = "", ""
    directory = _rows(
        source, f"SELECT pit, cameras FROM tables_v WHERE table_id = {quote(str(table_id))}"
    )
    if directory:
        pit = str(directory[0][0])
        camera = str(directory[0][1][0]) if directory[0][1] else ""
    start: int | None = None
    end: int | None = None
    if round_id:
        window = _rows(
            source,
            "SELECT min(toUnixTimestamp64Milli(start_ts)), max(toUnixTimestamp64Milli(end_ts)),"
            " count() FROM rounds_v"
            f" WHERE table_id = {quote(str(table_id))} AND round_id = {quote(str(round_id))}"
            f" AND start_event_id = {quote(str(start_event_id))}",
        )
        if window and int(window[0][2]) > 0:
            start = int(window[0][0]) - ROUND_MARGIN_MS
            end = int(window[0][1]) + ROUND_MARGIN_MS
    if start is None and ts_ms is not None:
        start, end = int(ts_ms) - ROUND_MARGIN_MS, int(ts_ms) + ROUND_MARGIN_MS
    return FindingRef(
        finding_id, str(table_id), str(round_id), str(check), str(severity), pit,
        _ms(ts_ms), camera, start, end,
    )  # fmt: skip


def missing_findings(source: Rows, finding_ids: Sequence[str]) -> list[str]:
    """Those of ``finding_ids`` the store holds no finding of."""
    if not finding_ids:
        return []
    listed = ", ".join(quote(f) for f in finding_ids)
    held = {
        str(r[0])
        for r in _rows(
            source, f"SELECT DISTINCT finding_id FROM findings WHERE finding_id IN ({listed})"
        )
    }
    return [f for f in finding_ids if f not in held]


def steps(source: Rows, finding_id: str) -> list[Step]:
    """Every step of ``finding_id``'s case, oldest first (a step written twice: once)."""
    return steps_of(
        _rows(
            source,
            f"SELECT {SELECT_STEP} FROM case_events FINAL"
            f" WHERE finding_id = {quote(finding_id)} ORDER BY step",
        )
    )


def current(source: Rows, finding_id: str) -> tuple[Case | None, list[Step]]:
    """The case of ``finding_id`` as it stands (None: no step yet) and its steps."""
    history = steps(source, finding_id)
    return case_of(history), history


# ---- the queue --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Queue:
    """What the queue lists. ``state``: one state, ``all``, or None (open and in review);
    ``pits``: the pits the caller may read (None: every pit); ``after``: the sort key of
    the page before's last case."""

    state: str | None = None
    table: str | None = None
    pit: str | None = None
    check: str | None = None
    severity: str | None = None
    assignee: str | None = None
    since_ms: int | None = None
    until_ms: int | None = None
    limit: int = 100
    after: tuple[int, int, int, str] | None = None
    pits: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class QueuePage:
    cases: list[Case]
    next_key: tuple[int, int, int, str] | None


_STATE_RANK = "multiIf(case_state = 'open', 0, case_state = 'in_review', 1, 2)"
_SEVERITY_RANK = (
    "multiIf(f.severity = 'critical', 0, f.severity = 'high', 1, f.severity = 'medium', 2, "
    "f.severity = 'low', 3, 4)"
)


def queue_statement(q: Queue) -> str:
    """The statement of a queue page (``limit`` + 1 rows, to know whether more follow)."""
    where: list[str] = []
    if q.pits is not None:
        where.append(f"d.pit IN ({', '.join(quote(p) for p in q.pits)})" if q.pits else "0")
    if q.table is not None:
        where.append(f"f.table_id = {quote(q.table)}")
    if q.pit is not None:
        where.append(f"d.pit = {quote(q.pit)}")
    if q.check is not None:
        where.append(f"f.check = {quote(q.check)}")
    if q.severity is not None:
        where.append(f"f.severity = {quote(q.severity)}")
    if q.assignee is not None:
        where.append(f"c.assignee = {quote(q.assignee)}")
    if q.state is None:
        where.append("case_state != 'closed'")
    elif q.state != "all":
        where.append(f"case_state = {quote(q.state)}")
    if q.since_ms is not None:
        where.append(f"age_ms >= {integer(q.since_ms)}")
    if q.until_ms is not None:
        where.append(f"age_ms < {integer(q.until_ms)}")
    if q.after is not None:
        s, v, a, finding_id = q.after
        where.append(
            f"(state_rank, severity_rank, age_ms, f.finding_id) > "
            f"({integer(s)}, {integer(v)}, {integer(a)}, {quote(finding_id)})"
        )
    return (
        "SELECT f.finding_id, c.steps, if(c.steps = 0, 'open', c.state) AS case_state,"
        " c.assignee, c.disposition, c.recovered_cents, c.camera,"
        " toUnixTimestamp64Milli(c.window_start), toUnixTimestamp64Milli(c.window_end), c.links,"
        " toUnixTimestamp64Milli(c.updated_at), c.updated_by, toUnixTimestamp64Milli(c.first_at),"
        " f.table_id, f.round_id, f.check, f.severity, d.pit, toUnixTimestamp64Milli(f.ts),"
        f" {_STATE_RANK} AS state_rank, {_SEVERITY_RANK} AS severity_rank,"
        " toUnixTimestamp64Milli(ifNull(f.ts, f.judged_at)) AS age_ms"
        " FROM findings_v AS f"
        " LEFT JOIN cases_v AS c ON c.finding_id = f.finding_id"
        " LEFT JOIN tables_v AS d ON d.table_id = f.table_id"
        f"{' WHERE ' + ' AND '.join(where) if where else ''}"
        " ORDER BY state_rank, severity_rank, age_ms, f.finding_id"
        f" LIMIT {integer(q.limit + 1)}"
    )


def queue(source: Rows, q: Queue) -> QueuePage:
    """Findings with their cases: open (unclaimed) first, then in review, then closed (when
    asked); within a state by severity (critical first), then oldest first."""
    rows = _rows(source, queue_statement(q))
    cases = [_queued(row) for row in rows[: q.limit]]
    next_key = None
    if len(rows) > q.limit:
        last = rows[q.limit - 1]
        next_key = (int(last[19]), int(last[20]), int(last[21]), str(last[0]))
    return QueuePage(cases, next_key)


def _queued(row: Sequence[Any]) -> Case:
    (finding_id, steps_, state, assignee, disposition, recovered, camera, start, end, links,
     updated_at, updated_by, first_at, table_id, round_id, check, severity, pit,
     finding_ts) = row[:19]  # fmt: skip
    opened = int(steps_ or 0) > 0
    return Case(
        str(finding_id), int(steps_ or 0), CaseState(str(state)), str(assignee or ""),
        str(disposition or ""), int(recovered or 0), str(camera or ""),
        _ms(start) if opened else None, _ms(end) if opened else None,
        tuple(str(x) for x in links or ()), _ms(updated_at) if opened else None,
        str(updated_by or ""), _ms(first_at) if opened else None, str(table_id),
        str(round_id), str(check), str(severity), str(pit or ""), _ms(finding_ts),
    )  # fmt: skip


# ---- what a case page shows beside the case --------------------------------------------


def acks(source: Rows, finding_id: str) -> list[dict[str, Any]]:
    """The acknowledgements of the alerts that name ``finding_id``, oldest first."""
    rows = _rows(
        source,
        "SELECT alert_id, toUnixTimestamp64Milli(ts), by, note FROM alert_events_v"
        " WHERE kind = 'acknowledged' AND alert_id IN (SELECT alert_id FROM alert_events_v"
        f" WHERE has(finding_ids, {quote(finding_id)})) ORDER BY ts, alert_id",
    )
    return [{"alert_id": str(r[0]), "at": int(r[1]), "by": str(r[2]), "note": str(r[3])}
            for r in rows]  # fmt: skip


def cameras(source: Rows, table_id: str) -> list[str]:
    rows = _rows(source, f"SELECT cameras FROM tables_v WHERE table_id = {quote(table_id)}")
    return [str(c) for c in rows[0][0]] if rows else []
