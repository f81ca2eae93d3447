"""A replay's findings against the live findings of the same rounds: new, gone, changed.

:func:`replay_diff` reads through any *row source* (an object with
``run(sql) -> answer``, the answer having ``.columns`` and ``.rows``:
:class:`tablewatch.store.read_only.ReadOnlyReader` is one) with SELECTs on the
readable views only (``replay_runs_v``, ``replay_rounds_v``, ``replay_findings_v``,
``findings_v``), so the CLI and the auditor API compute it the same way.

What is compared (docs/replay.md, "The diff"):

- the live findings (``findings_v``) of the rounds the replay judged (``replay_rounds_v``,
  a round known by table, ``round_id`` and ``start_event_id``), and the live findings
  outside any judged round (``start_event_id`` '') of the tables the replay read, from
  its first event's time to its last's;
- ``EVENT_NOT_PROCESSED`` is left out on both sides: it is the worker's report of a
  message it could not decode or store, not a judgement of the rules;
- the pattern checks (:data:`~tablewatch.rules.checks.catalog.PATTERN_CHECKS`) are left
  out on both sides of a run that did not compute the patterns (``replay_runs_v.patterns``
  0); a run that did compares them as any finding;
- a finding of the same id, severity and amounts on both sides is the same; the others
  are paired by key (table, round, start event, check, seat, bet), in finding-id order
  within a key: a pair is *changed* (both amounts shown), a replay finding left alone is
  *new*, a live one *gone*.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol

from tablewatch.rules.checks.catalog import PATTERN_CHECKS

__all__ = [
    "DiffEntry",
    "ReplayDiff",
    "RowSource",
    "UnknownRun",
    "is_run_id",
    "replay_diff",
]

KINDS: Final = ("new", "gone", "changed")
LEFT_OUT: Final = ("EVENT_NOT_PROCESSED",)
_RUN_ID = re.compile(r"^[0-9a-f]{32}$")


class Answer(Protocol):
    @property
    def columns(self) -> list[str]: ...
    @property
    def rows(self) -> Sequence[Sequence[Any]]: ...


class RowSource(Protocol):
    """Where rows come from: ``ReadOnlyReader`` (``run(sql)`` with the store's checks)."""

    def run(self, sql: str) -> Answer: ...


class UnknownRun(LookupError):
    """No replay run of that id (or the id is not one: 32 lower-case hex digits)."""


def is_run_id(text: str) -> bool:
    """Whether ``text`` has the form of a run id (32 lower-case hex digits)."""
    return bool(_RUN_ID.match(text))


@dataclass(frozen=True, slots=True)
class DiffEntry:
    """One difference. ``live_*`` are None for a new finding, ``replay_*`` for a gone one."""

    kind: str  # new, gone, changed
    table_id: str
    round_id: str  # '' for a finding outside any round
    start_event_id: str
    check: str
    seat: int | None
    bet: str  # '' when none
    live_expected: int | None
    live_actual: int | None
    replay_expected: int | None
    replay_actual: int | None
    live_severity: str | None
    replay_severity: str | None
    live_message: str | None
    replay_message: str | None
    live_finding_id: str | None
    replay_finding_id: str | None

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}


@dataclass(frozen=True, slots=True)
class ReplayDiff:
    run_id: str
    new: int
    gone: int
    changed: int
    rounds: int  # rounds the replay judged
    rounds_not_live: int  # of those, rounds the live store does not hold
    entries: tuple[DiffEntry, ...]  # ordered by table, round, start, check, seat, bet, kind
    truncated: bool  # more differences than ``limit``
    patterns: bool = False  # the pattern checks compared (the run computed them)

    @property
    def empty(self) -> bool:
        return self.new == 0 and self.gone == 0 and self.changed == 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "new": self.new,
            "gone": self.gone,
            "changed": self.changed,
            "rounds": self.rounds,
            "rounds_not_live": self.rounds_not_live,
            "truncated": self.truncated,
            "patterns": self.patterns,
            "entries": [entry.as_dict() for entry in self.entries],
        }


def replay_diff(source: RowSource, run_id: str, *, limit: int = 10_000) -> ReplayDiff:
    """The diff of run ``run_id`` (raises :class:`UnknownRun`): every count, and the first
    ``limit`` differences in their order."""
    if not is_run_id(run_id):
        raise UnknownRun(f"{run_id!r} is not a run id (32 lower-case hex digits)")
    known = source.run(
        f"SELECT count(), any(patterns) FROM replay_runs_v WHERE run_id = '{run_id}'"
    ).rows
    if not known or int(known[0][0]) == 0:
        raise UnknownRun(f"no replay run {run_id}")
    patterns = bool(known[0][1])
    diff = _diff_sql(run_id, LEFT_OUT if patterns else (*LEFT_OUT, *PATTERN_CHECKS))
    counts = {
        str(kind): int(n)
        for kind, n in _rows(source, f"SELECT kind, count() FROM ({diff}) GROUP BY kind")
    }
    rounds = _rows(
        source,
        "SELECT count(), countIf((table_id, round_id, start_event_id) NOT IN "
        "(SELECT table_id, round_id, start_event_id FROM rounds_v WHERE table_id IN "
        f"(SELECT DISTINCT table_id FROM replay_rounds_v WHERE run_id = '{run_id}'))) "
        f"FROM replay_rounds_v WHERE run_id = '{run_id}'",
    )[0]
    order = "table_id, round_id, start_event_id, check, seat_key, bet, kind, n"
    rows = _rows(source, f"SELECT * FROM ({diff}) ORDER BY {order} LIMIT {int(limit)}")
    entries = tuple(_entry(row) for row in rows)
    total = sum(counts.values())
    return ReplayDiff(
        run_id=run_id,
        new=counts.get("new", 0),
        gone=counts.get("gone", 0),
        changed=counts.get("changed", 0),
        rounds=int(rounds[0]),
        rounds_not_live=int(rounds[1]),
        entries=entries,
        truncated=total > len(entries),
        patterns=patterns,
    )


def _rows(source: RowSource, sql: str) -> Sequence[Sequence[Any]]:
    return source.run(sql).rows


_SIDE = (
    "SELECT table_id, round_id, start_event_id, check, ifNull(toInt16(seat), -1) AS seat_key, "
    "bet, finding_id, severity, expected, actual, message, "
    "concat(finding_id, '|', severity, '|', ifNull(toString(expected), '-'), '|', "
    "ifNull(toString(actual), '-')) AS sig "
)
_NUMBERED = (
    "SELECT *, 1 AS present, row_number() OVER (PARTITION BY table_id, round_id, "
    "start_event_id, check, seat_key, bet ORDER BY finding_id, sig) AS n "
)


def _diff_sql(run_id: str, codes: Sequence[str]) -> str:
    """One SELECT of every difference of the run, the checks ``codes`` left out on both sides
    (see the module's docstring)."""
    left_out = ", ".join(f"'{code}'" for code in codes)
    run = f"run_id = '{run_id}'"
    replay = f"{_SIDE} FROM replay_findings_v WHERE {run} AND check NOT IN ({left_out})"
    live = (
        f"{_SIDE} FROM findings_v WHERE check NOT IN ({left_out}) AND ("
        "(table_id, round_id, start_event_id) IN (SELECT table_id, round_id, start_event_id "
        f"FROM replay_rounds_v WHERE {run}) "
        "OR (start_event_id = '' "
        f"AND has((SELECT any(seen_tables) FROM replay_runs_v WHERE {run}), table_id) "
        f"AND ts >= (SELECT any(first_event_ts) FROM replay_runs_v WHERE {run}) "
        f"AND ts <= (SELECT any(last_event_ts) FROM replay_runs_v WHERE {run})))"
    )
    replay_rest = f"{_NUMBERED} FROM ({replay}) WHERE sig NOT IN (SELECT sig FROM ({live}))"
    live_rest = f"{_NUMBERED} FROM ({live}) WHERE sig NOT IN (SELECT sig FROM ({replay}))"
    return (
        "SELECT multiIf(l.present = 0, 'new', r.present = 0, 'gone', 'changed') AS kind, "
        "table_id, round_id, start_event_id, check, seat_key, bet, n, "
        "l.expected AS live_expected, l.actual AS live_actual, "
        "r.expected AS replay_expected, r.actual AS replay_actual, "
        "l.severity AS live_severity, r.severity AS replay_severity, "
        "l.message AS live_message, r.message AS replay_message, "
        "l.finding_id AS live_finding_id, r.finding_id AS replay_finding_id, "
        "l.present AS live_present, r.present AS replay_present "
        f"FROM ({replay_rest}) AS r FULL OUTER JOIN ({live_rest}) AS l "
        "USING (table_id, round_id, start_event_id, check, seat_key, bet, n)"
    )


def _entry(row: Sequence[Any]) -> DiffEntry:
    (kind, table_id, round_id, start, check, seat_key, bet, _n, live_e, live_a, rep_e, rep_a,
     live_sev, rep_sev, live_msg, rep_msg, live_id, rep_id, live_present,
     rep_present) = row  # fmt: skip
    live = bool(live_present)
    replay = bool(rep_present)
    return DiffEntry(
        kind=str(kind),
        table_id=str(table_id),
        round_id=str(round_id),
        start_event_id=str(start),
        check=str(check),
        seat=None if int(seat_key) < 0 else int(seat_key),
        bet=str(bet),
        live_expected=_cents(live_e) if live else None,
        live_actual=_cents(live_a) if live else None,
        replay_expected=_cents(rep_e) if replay else None,
        replay_actual=_cents(rep_a) if replay else None,
        live_severity=str(live_sev) if live else None,
        replay_severity=str(rep_sev) if replay else None,
        live_message=str(live_msg) if live else None,
        replay_message=str(rep_msg) if replay else None,
        live_finding_id=str(live_id) if live else None,
        replay_finding_id=str(rep_id) if replay else None,
    )


def _cents(value: Any) -> int | None:
    return None if value is None else int(value)
