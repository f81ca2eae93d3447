"""What the live floor shows, read from a row source: the statements behind the floor
page's first paint and the stream (:mod:`tablewatch.api.floor_feed`), and the tiles and
the header strip they make (docs/live_floor.md).

Every statement is cheap whatever the store holds: each reads a time range.

- *Open cases* are the findings of the last :data:`WINDOW_MS` (24 h, by the finding's
  time, its judgement's when it has none) whose case is not ``closed`` (``case_events``'
  last step; a finding without one is open and unclaimed), as ``findings_v`` shows them
  (a finding of an older judgement of its round than the latest is not counted). An
  older finding still open is on the case queue, not on the floor.
- A table is *open* when its latest event of that window is not a ``table_close`` (a
  controller dealing rounds is at an open table, as ``tablewatch/alerts/silent.py``
  reads it), and *stale* when it is open and silent for :data:`STALE_MS` (10 minutes).
- New findings are read by ``judged_at`` and case steps by ``at``, each from a little
  before the latest seen (:data:`OVERLAP_MS`: rows of several writers become visible out
  of order), and told apart by id.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from tablewatch.api.models import Severity
from tablewatch.api.sources import RowSource
from tablewatch.rules.events import ms_to_ts
from tablewatch.store.rollups import judgements_of
from tablewatch.store.sql_literals import integer, quote

WINDOW_MS = 24 * 3_600_000  # the open cases and the tables' activity the floor reads
STALE_MS = 10 * 60_000  # an open table silent this long is stale
OVERLAP_MS = 10_000  # re-read before the latest seen row: late-visible rows
PAGE = 1000  # rows of new findings or case steps per statement
SEVERITIES = tuple(s.value for s in Severity)  # critical, high, medium, low
RED = frozenset({"critical", "high"})


def _instant(ms: int) -> str:
    return f"fromUnixTimestamp64Milli({integer(ms)}, 'UTC')"


def _ts(ms: int | None) -> str | None:
    return None if ms is None else ms_to_ts(ms)


def _counts(by_severity: Mapping[str, int]) -> dict[str, int]:
    return {s: int(by_severity.get(s, 0)) for s in SEVERITIES}


def level(open_by_severity: Mapping[str, int]) -> str:
    """A tile's colour: ``red`` with an open high or critical case, ``amber`` with only
    medium or low ones, ``ok`` with none."""
    if any(open_by_severity.get(s, 0) for s in RED):
        return "red"
    if any(open_by_severity.values()):
        return "amber"
    return "ok"


@dataclass(frozen=True, slots=True)
class Tile:
    """One table on the floor."""

    table_id: str
    open_cases: dict[str, int]  # by severity, every severity named
    last_event_ms: int | None
    table_open: bool
    stale: bool
    rounds_today: int

    @property
    def level(self) -> str:
        return level(self.open_cases)

    def as_json(self) -> dict[str, Any]:
        return {
            "table_id": self.table_id,
            "open_cases": self.open_cases,
            "level": self.level,
            "last_event_ts": _ts(self.last_event_ms),
            "last_event_ms": self.last_event_ms,
            "table_open": self.table_open,
            "stale": self.stale,
            "rounds_today": self.rounds_today,
        }


@dataclass(frozen=True, slots=True)
class Strip:
    """The header strip: the floor's open cases by severity and the oldest one's time."""

    open_cases: dict[str, int]
    oldest_open_ms: int | None
    now_ms: int

    def as_json(self) -> dict[str, Any]:
        age = None if self.oldest_open_ms is None else max(0, self.now_ms - self.oldest_open_ms)
        return {
            "open_cases": self.open_cases,
            "open_total": sum(self.open_cases.values()),
            "oldest_open_ts": _ts(self.oldest_open_ms),
            "oldest_open_ms": self.oldest_open_ms,
            "oldest_open_age_s": None if age is None else age // 1000,
            "now_ms": self.now_ms,
        }


@dataclass(frozen=True, slots=True)
class OpenCases:
    """The open cases of the window: per table by severity, and the oldest's time."""

    by_table: dict[str, dict[str, int]]
    oldest_ms: dict[str, int]  # per table

    def strip(self, now_ms: int) -> Strip:
        total: dict[str, int] = {}
        for counts in self.by_table.values():
            for severity, n in counts.items():
                total[severity] = total.get(severity, 0) + n
        oldest = min(self.oldest_ms.values(), default=None)
        return Strip(_counts(total), oldest, now_ms)


@dataclass(frozen=True, slots=True)
class Activity:
    """Each table's latest event of the window and whether it left the table open;
    rounds begun today (UTC); the directory's tables."""

    last_ms: dict[str, int]
    open: dict[str, bool]
    rounds_today: dict[str, int]
    directory: dict[str, tuple[str, str]]  # table -> (game, pit)


@dataclass(frozen=True, slots=True)
class NewFinding:
    finding_id: str
    table_id: str
    round_id: str | None
    check: str
    severity: str
    ts_ms: int
    judged_ms: int

    def as_json(self) -> dict[str, Any]:
        return {
            "finding_id": self.finding_id,
            "table_id": self.table_id,
            "round_id": self.round_id,
            "check": self.check,
            "severity": self.severity,
            "ts": ms_to_ts(self.ts_ms),
        }


@dataclass(frozen=True, slots=True)
class CaseStep:
    finding_id: str
    step: int
    state: str
    assignee: str | None
    table_id: str
    severity: str
    at_ms: int

    def as_json(self) -> dict[str, Any]:
        return {
            "finding_id": self.finding_id,
            "state": self.state,
            "assignee": self.assignee,
            "table_id": self.table_id,
            "severity": self.severity,
            "at": ms_to_ts(self.at_ms),
        }


@dataclass(frozen=True, slots=True)
class Floor:
    """The floor at ``now_ms``: a tile per table (sorted by id) and the strip."""

    tiles: dict[str, Tile]
    strip: Strip
    directory: dict[str, tuple[str, str]]  # table -> (game, pit)


def _rows(source: RowSource, sql: str) -> Sequence[Sequence[Any]]:
    return source.run(sql).rows


def _recent(since_ms: int) -> str:
    """The findings of ``since_ms`` on by their time (their judgement's when they have
    none), in a form the ``ts`` index and the month partitions narrow."""
    since = _instant(since_ms)
    return f"(ts >= {since} OR (ts IS NULL AND judged_at >= {since}))"


def read_open_cases(source: RowSource, now_ms: int, window_ms: int = WINDOW_MS) -> OpenCases:
    """One statement: the window's findings, one row per id (a finding stored again, or
    of a round judged again, is one; no ``FINAL``, which merges the whole partition: ten
    times the cost on a store of a million findings), those of an older judgement than
    their round's latest dropped (as ``findings_v`` does, by the rounds' keys in
    ``round_judgements``), less those whose case's last step left it closed."""
    recent = _recent(now_ms - window_ms)
    judged = judgements_of(
        "(table_id, round_id) IN (SELECT table_id, round_id FROM findings "
        f"WHERE {recent} AND round_id != '')"
    )
    sql = f"""SELECT f.t, f.sev, count(), min(f.at_ms)
FROM (SELECT finding_id AS id, any(table_id) AS t, any(round_id) AS rid,
             any(start_event_id) AS sid, any(severity) AS sev, max(judged_at) AS judged,
             min(toUnixTimestamp64Milli(ifNull(ts, judged_at))) AS at_ms
      FROM findings WHERE {recent} GROUP BY finding_id) AS f
LEFT JOIN (SELECT table_id, round_id, start_event_id, max(judged_at) AS latest
           FROM {judged}
           GROUP BY table_id, round_id, start_event_id) AS r
  ON f.t = r.table_id AND f.rid = r.round_id AND f.sid = r.start_event_id
WHERE (f.rid = '' OR f.judged >= r.latest)
  AND f.id NOT IN (SELECT finding_id FROM case_events
                   WHERE finding_id IN (SELECT finding_id FROM findings WHERE {recent})
                   GROUP BY finding_id HAVING argMax(state, step) = 'closed')
GROUP BY f.t, f.sev"""
    by_table: dict[str, dict[str, int]] = {}
    oldest: dict[str, int] = {}
    for table_id, severity, n, first_ms in _rows(source, sql):
        t = str(table_id)
        by_table.setdefault(t, {})[str(severity)] = int(n)
        oldest[t] = min(oldest.get(t, int(first_ms)), int(first_ms))
    return OpenCases(by_table, oldest)


def read_activity(source: RowSource, now_ms: int, window_ms: int = WINDOW_MS) -> Activity:
    """Three statements: the window's latest event per table (a range of ``raw_events``'
    key and partitions), the rounds begun today (``rounds_by_hour``) and the directory."""
    since = _instant(now_ms - window_ms)
    last: dict[str, int] = {}
    is_open: dict[str, bool] = {}
    for table_id, last_ms, last_type in _rows(
        source,
        "SELECT table_id, toUnixTimestamp64Milli(max(ts)), argMax(type, ts) FROM raw_events "
        f"WHERE ts >= {since} GROUP BY table_id",
    ):
        last[str(table_id)] = int(last_ms)
        is_open[str(table_id)] = str(last_type) != "table_close"
    day_ms = now_ms - now_ms % 86_400_000
    rounds = {
        str(r[0]): int(r[1])
        for r in _rows(
            source,
            "SELECT table_id, uniqExactMerge(rounds) FROM rounds_by_hour "
            f"WHERE hour >= {_instant(day_ms)} GROUP BY table_id",
        )
    }
    directory = {
        str(r[0]): (str(r[1]), str(r[2]))
        for r in _rows(source, "SELECT table_id, game, pit FROM tables_v")
    }
    return Activity(last, is_open, rounds, directory)


def tiles_of(activity: Activity, cases: OpenCases, now_ms: int) -> dict[str, Tile]:
    """A tile for every table of the directory, of the window's events or open cases."""
    out: dict[str, Tile] = {}
    tables = set(activity.directory) | set(activity.last_ms) | set(cases.by_table)
    for table_id in sorted(tables):
        last = activity.last_ms.get(table_id)
        table_open = activity.open.get(table_id, False)
        out[table_id] = Tile(
            table_id=table_id,
            open_cases=_counts(cases.by_table.get(table_id, {})),
            last_event_ms=last,
            table_open=table_open,
            stale=table_open and last is not None and now_ms - last >= STALE_MS,
            rounds_today=activity.rounds_today.get(table_id, 0),
        )
    return out


def read_floor(source: RowSource, now_ms: int, window_ms: int = WINDOW_MS) -> Floor:
    """The floor as the page paints it first and the stream starts from."""
    cases = read_open_cases(source, now_ms, window_ms)
    activity = read_activity(source, now_ms, window_ms)
    return Floor(tiles_of(activity, cases, now_ms), cases.strip(now_ms), activity.directory)


def latest_judged_ms(source: RowSource, now_ms: int, window_ms: int = WINDOW_MS) -> int:
    """Where the stream's new findings start: the latest judgement of the window's
    findings (``now_ms`` when there is none)."""
    rows = _rows(
        source,
        "SELECT toUnixTimestamp64Milli(max(judged_at)), count() FROM findings "
        f"WHERE {_recent(now_ms - window_ms)}",
    )
    return int(rows[0][0]) if rows and int(rows[0][1]) else now_ms


def latest_step_ms(source: RowSource, now_ms: int) -> int:
    """Where the stream's case steps start: the latest step's time (``now_ms`` if none)."""
    rows = _rows(source, "SELECT toUnixTimestamp64Milli(max(at)), count() FROM case_events")
    return int(rows[0][0]) if rows and int(rows[0][1]) else now_ms


def read_new_findings(
    source: RowSource, after: tuple[int, str], now_ms: int, window_ms: int = WINDOW_MS
) -> list[NewFinding]:
    """Up to :data:`PAGE` findings of the window judged after ``after`` (judged_at ms,
    finding_id), in that order. Every version of a finding: the caller tells them apart."""
    judged_ms, finding_id = after
    sql = (
        "SELECT finding_id, table_id, round_id, check, severity, "
        "toUnixTimestamp64Milli(ifNull(ts, judged_at)), toUnixTimestamp64Milli(judged_at) AS j "
        f"FROM findings WHERE judged_at >= {_instant(judged_ms)} "
        f"AND (j, finding_id) > ({integer(judged_ms)}, {quote(finding_id)}) "
        f"AND {_recent(now_ms - window_ms)} ORDER BY j, finding_id LIMIT {PAGE}"
    )
    return [
        NewFinding(
            str(r[0]), str(r[1]), str(r[2]) or None, str(r[3]), str(r[4]), int(r[5]), int(r[6])
        )
        for r in _rows(source, sql)
    ]


def read_case_steps(source: RowSource, after: tuple[int, str, int]) -> list[CaseStep]:
    """Up to :data:`PAGE` case steps taken after ``after`` (at ms, finding_id, step)."""
    at_ms, finding_id, step = after
    sql = (
        "SELECT finding_id, step, state, assignee, table_id, severity, "
        "toUnixTimestamp64Milli(at) AS a FROM case_events "
        f"WHERE at >= {_instant(at_ms)} AND (a, finding_id, step) > "
        f"({integer(at_ms)}, {quote(finding_id)}, {integer(step)}) "
        f"ORDER BY a, finding_id, step LIMIT {PAGE}"
    )
    return [
        CaseStep(
            str(r[0]), int(r[1]), str(r[2]), str(r[3]) or None, str(r[4]), str(r[5]), int(r[6])
        )
        for r in _rows(source, sql)
    ]


def changed(before: Mapping[str, Tile], after: Mapping[str, Tile]) -> Iterable[Tile]:
    """The tiles of ``after`` that differ from ``before``'s."""
    return (tile for key, tile in after.items() if before.get(key) != tile)
