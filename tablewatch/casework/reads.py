"""The casework's reads, in SQL over any row source (``run(sql) -> Answer``): the queue, a
case with its steps, the finding a step is about (:func:`finding_ref`).

Values reach a statement only as quoted literals. Times are selected as epoch ms.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Any, Final, Protocol

from tablewatch.api.reads import _latest_judgements
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
    and its round's window +- 30 s (a pattern's: its evidence round's); None if the store
    holds no such finding."""
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
        # a finding of no judgement of its round (a pattern's, on its evidence round): the
        # round of that id, whichever began it
        started = f" AND start_event_id = {quote(str(start_event_id))}" if start_event_id else ""
        window = _rows(
            source,
            "SELECT min(toUnixTimestamp64Milli(start_ts)), max(toUnixTimestamp64Milli(end_ts)),"
            " count() FROM rounds_v"
            f" WHERE table_id = {quote(str(table_id))} AND round_id = {quote(str(round_id))}"
            f"{started}",
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


QUEUE_SPARE: Final = 16  # open findings read beyond a page (those of an older judgement dropped)
_QUEUE_STATES: Final = ("open", "in_review", "closed")  # the queue's order of states


def _severity_rank(column: str) -> str:
    ranks = ", ".join(f"{column} = {quote(s)}, {i}" for i, s in enumerate(SEVERITIES))
    return f"multiIf({ranks}, {len(SEVERITIES)})"


def queue(source: Rows, q: Queue) -> QueuePage:
    """Findings with their cases: open (unclaimed) first, then in review, then closed (when
    asked); within a state by severity (critical first), then oldest first; keyset pages
    on (state, severity, age in ms, finding_id).

    Each state is read on its own, from where the page before stopped, until the page is
    full, so a page costs what its rows cost, not what the store holds:
    - open: the findings (``findings FINAL``, newest judgement only: the rounds' latest
      judgements read for the candidates only, as :func:`tablewatch.api.reads.list_findings`
      does, never ``findings_v``'s join over every round) with no case step, or whose case
      was released or reopened; their age is the finding's time (a table-level one's
      judgement time);
    - in review, closed: the cases (``cases_v``, the finding's fields copied in every step,
      so no join), narrowed first to the findings with a step matching the filters; their
      age is the finding's time (a table-level one's: its case's first step)."""
    wanted = {None: ("open", "in_review"), "all": _QUEUE_STATES}.get(q.state, (q.state,))
    want = q.limit + 1
    keyed: list[tuple[tuple[int, int, int, str], Case]] = []
    for rank, state in enumerate(_QUEUE_STATES):
        if state not in wanted or (q.after is not None and q.after[0] > rank):
            continue
        after = q.after[1:] if q.after is not None and q.after[0] == rank else None
        read = _open_cases if state == "open" else _worked_cases
        keyed += read(source, q, rank, after, want - len(keyed))
        if len(keyed) >= want:
            break
    next_key = keyed[q.limit - 1][0] if len(keyed) > q.limit else None
    return QueuePage([case for _, case in keyed[: q.limit]], next_key)


def _after(after: tuple[int, int, str] | None, severity: str, age: str, finding_id: str) -> str:
    v, a, f = after  # type: ignore[misc]
    return f"({severity}, {age}, {finding_id}) > ({integer(v)}, {integer(a)}, {quote(f)})"


def _open_cases(
    source: Rows, q: Queue, rank: int, after: tuple[int, int, str] | None, want: int
) -> list[tuple[tuple[int, int, int, str], Case]]:
    if q.assignee is not None:  # an open case has no assignee
        return []
    age = "toUnixTimestamp64Milli(ifNull(ts, judged_at))"
    severity = _severity_rank("severity")
    where = [f"finding_id NOT IN (SELECT finding_id FROM {_LAST_STEPS} WHERE state != 'open')"]
    if q.table is not None:
        where.append(f"table_id = {quote(q.table)}")
    for pits in ((q.pit,) if q.pit is not None else None, q.pits):
        if pits is not None:
            listed = ", ".join(quote(p) for p in pits)
            where.append(
                f"table_id IN (SELECT table_id FROM tables_v WHERE pit IN ({listed}))"
                if pits else "0"
            )  # fmt: skip
    if q.check is not None:
        where.append(f"check = {quote(q.check)}")
    if q.severity is not None:
        where.append(f"severity = {quote(q.severity)}")
    if q.since_ms is not None:
        where.append(f"{age} >= {integer(q.since_ms)}")
    if q.until_ms is not None:
        where.append(f"{age} < {integer(q.until_ms)}")
    batch = want + QUEUE_SPARE
    kept: list[Sequence[Any]] = []
    worked: dict[str, Case] = {}  # released or reopened
    table_pits: dict[str, str] = {}
    while len(kept) < want:
        clauses = where + ([_after(after, severity, age, "finding_id")] if after else [])
        # no FINAL: a finding stored twice (judged again, not merged yet) is one row, the
        # latest judgement's (LIMIT 1 BY)
        rows = _rows(
            source,
            "SELECT finding_id, table_id, round_id, start_event_id, check, severity,"
            f" toUnixTimestamp64Milli(ts), {severity} AS severity_rank, {age} AS age_ms,"
            " toUnixTimestamp64Milli(judged_at), finding_id IN (SELECT finding_id FROM"
            " case_events WHERE state = 'open') FROM findings"
            f" WHERE {' AND '.join(clauses)}"
            " ORDER BY severity_rank, age_ms, finding_id, judged_at DESC"
            f" LIMIT 1 BY finding_id LIMIT {integer(batch)}",
        )
        # the rounds' latest judgements, the cases of those released or reopened and the
        # pits, at once on a source that runs statements at once
        keys = {(str(r[1]), str(r[2])) for r in rows if r[2]}
        flagged = [str(r[0]) for r in rows if _bool(r[10])]
        latest, found, table_pits = _together(
            source,
            partial(_latest_judgements, source, keys),
            partial(_cases_of, source, flagged),
            partial(_pits, source) if not table_pits else partial(dict, table_pits),
        )
        worked.update(found)
        kept += [
            r for r in rows
            if not r[2] or int(r[9]) >= latest.get((str(r[1]), str(r[2]), str(r[3])), 0)
        ]  # fmt: skip
        if len(rows) < batch:
            break
        after = (int(rows[-1][7]), int(rows[-1][8]), str(rows[-1][0]))
    kept = kept[:want]
    out = []
    for r in kept:
        finding_id, table_id = str(r[0]), str(r[1])
        case = worked.get(finding_id) or Case(
            finding_id, 0, CaseState.OPEN, "", "", 0, "", None, None, (), None, "", None,
            table_id, str(r[2]), str(r[4]), str(r[5]), table_pits.get(table_id, ""), _ms(r[6]),
        )  # fmt: skip
        out.append(((rank, int(r[7]), int(r[8]), finding_id), case))
    return out


# each finding's last step, read in the table's order (finding_id, step): cheaper than
# cases_v's aggregation of every column when only a few are needed
_LAST_STEPS: Final = (
    "(SELECT finding_id, state FROM case_events ORDER BY finding_id, step DESC"
    " LIMIT 1 BY finding_id)"
)
_CASE_COLUMNS: Final = (
    "finding_id, max(step), argMax(state, step), argMax(assignee, step),"
    " argMax(disposition, step), argMax(recovered_cents, step), argMax(camera, step),"
    " toUnixTimestamp64Milli(argMax(window_start, step)),"
    " toUnixTimestamp64Milli(argMax(window_end, step)), argMax(links, step),"
    " toUnixTimestamp64Milli(argMax(at, step)), argMax(by, step),"
    " toUnixTimestamp64Milli(min(at)), any(table_id), any(round_id), any(check),"
    " any(severity), any(pit), toUnixTimestamp64Milli(any(finding_ts))"
)  # cases_v's, for the findings named only
IDS_PER_STATEMENT: Final = 100  # a statement read through the worker is a URL (8 KiB)


def _worked_cases(
    source: Rows, q: Queue, rank: int, after: tuple[int, int, str] | None, want: int
) -> list[tuple[tuple[int, int, int, str], Case]]:
    """In review or closed: the keys of a page from each finding's last step, then the
    page's cases."""
    state = _QUEUE_STATES[rank]
    age = "toUnixTimestamp64Milli(ifNull(finding_ts, toDateTime64(0, 3, 'UTC')))"
    severity = _severity_rank("severity")
    steps: list[str] = []  # the finding's fields, the same in each of its steps
    if q.table is not None:
        steps.append(f"table_id = {quote(q.table)}")
    if q.pit is not None:
        steps.append(f"pit = {quote(q.pit)}")
    if q.pits is not None:
        steps.append(f"pit IN ({', '.join(quote(p) for p in q.pits)})" if q.pits else "0")
    if q.check is not None:
        steps.append(f"check = {quote(q.check)}")
    if q.severity is not None:
        steps.append(f"severity = {quote(q.severity)}")
    where = [f"state = {quote(state)}"]
    if q.assignee is not None:
        where.append(f"assignee = {quote(q.assignee)}")
    if q.since_ms is not None:
        where.append(f"{age} >= {integer(q.since_ms)}")
    if q.until_ms is not None:
        where.append(f"{age} < {integer(q.until_ms)}")
    if after is not None:
        where.append(_after(after, severity, age, "finding_id"))
    keys = _rows(
        source,
        f"SELECT finding_id, {severity} AS severity_rank, {age} AS age_ms FROM"
        " (SELECT finding_id, state, assignee, severity, finding_ts FROM case_events"
        f"{' WHERE ' + ' AND '.join(steps) if steps else ''}"
        " ORDER BY finding_id, step DESC LIMIT 1 BY finding_id)"
        f" WHERE {' AND '.join(where)}"
        f" ORDER BY severity_rank, age_ms, finding_id LIMIT {integer(want)}",
    )
    ids = [str(k[0]) for k in keys]
    half = (len(ids) + 1) // 2
    first, second = _together(
        source, partial(_cases_of, source, ids[:half]), partial(_cases_of, source, ids[half:])
    )
    cases = {**first, **second}
    return [((rank, int(k[1]), int(k[2]), str(k[0])), cases[str(k[0])]) for k in keys]


# the threads a queue page's independent statements run on at once (a few requests' worth:
# each waits for a reader of the source as a single statement would)
_READS: Final = ThreadPoolExecutor(max_workers=4, thread_name_prefix="queue-reads")


def _together(source: Rows, *calls: Callable[[], Any]) -> list[Any]:
    """Each of ``calls``' answers: at once on a source that runs statements at once (its
    ``concurrent`` attribute: the API's pool of readers), else one after the other (the
    worker's ``/query`` turns away a statement when its few readers are busy)."""
    if not getattr(source, "concurrent", False):
        return [call() for call in calls]
    return [future.result() for future in [_READS.submit(call) for call in calls]]


def _cases_of(source: Rows, finding_ids: Sequence[str]) -> dict[str, Case]:
    """The cases of those of ``finding_ids`` that have a step."""
    out: dict[str, Case] = {}
    if not finding_ids:
        return out
    for at in range(0, len(finding_ids), IDS_PER_STATEMENT):
        listed = ", ".join(quote(f) for f in finding_ids[at : at + IDS_PER_STATEMENT])
        for r in _rows(
            source,
            f"SELECT {_CASE_COLUMNS} FROM case_events PREWHERE finding_id IN ({listed})"
            " GROUP BY finding_id",
        ):
            out[str(r[0])] = _queued(r)
    return out


def _pits(source: Rows) -> dict[str, str]:
    return {str(r[0]): str(r[1]) for r in _rows(source, "SELECT table_id, pit FROM tables_v")}


def _queued(row: Sequence[Any]) -> Case:
    (finding_id, steps_, state, assignee, disposition, recovered, camera, start, end, links,
     updated_at, updated_by, first_at, table_id, round_id, check, severity, pit,
     finding_ts) = row[:19]  # fmt: skip
    return Case(
        str(finding_id), int(steps_), CaseState(str(state)), str(assignee),
        str(disposition), int(recovered), str(camera), _ms(start), _ms(end),
        tuple(str(x) for x in links), _ms(updated_at), str(updated_by), _ms(first_at),
        str(table_id), str(round_id), str(check), str(severity), str(pit), _ms(finding_ts),
    )  # fmt: skip


def _bool(value: Any) -> bool:
    return value if isinstance(value, bool) else str(value).lower() in ("1", "true")


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
