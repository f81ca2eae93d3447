"""The shift report's data: every finding of one shift with its case, the totals, and the
cases carried over. No I/O but the row source's statements (``run(sql) -> Answer``).

- The window: the shift ``NAME`` of the alerts rules file on the date ``D``, in the file's
  time zone; a shift that runs past midnight belongs to the date it starts. Optionally one
  pit: a table's pit is the rules file's (:meth:`AlertRules.pit_of`, with the table
  directory's as the fallback), as the alerts route it.
- A finding is of the window when its time (a table-level finding's: its judgement's) is
  within ``[start, end)``; the findings are those ``findings_v`` shows (a round's latest
  judgement), read without its join (:func:`_current`).
- Each case is shown as it stood at the window's end (its steps taken before then), so a
  report made again later says the same: the state, disposition, who has it (in review)
  or closed it, every note, the money recovered.
- Carried over: the findings before the window whose case was not closed at its end (a
  finding without a step is open): all counted, the latest :data:`MAX_CARRIED` listed.
- Totals by check, by table and by dealer (the round's ``dealer_id``; a table-level
  finding has none): findings, open, in review, closed, and the money expected, paid
  (the finding's ``actual``) and recovered, in cents.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import Any, Final

from tablewatch.alerts.rules_file import UNASSIGNED_PIT, AlertRules
from tablewatch.api.sources import RowSource
from tablewatch.finding_money import money_text
from tablewatch.rules.events import ms_to_ts
from tablewatch.store.rollups import judgements_of
from tablewatch.store.sql_literals import integer, quote

MAX_LINES: Final = 10_000  # findings of the shift in one report (more: refused)
MAX_CARRIED: Final = 1_000  # cases carried over listed (the latest; all are counted)
STATES: Final = ("open", "in_review", "closed")


class ReportError(ValueError):
    """A report that cannot be made as asked: the item, the field and the reason."""


class ReportTooLarge(ReportError):
    """More findings than one report holds (:data:`MAX_LINES`)."""


@dataclass(frozen=True, slots=True)
class ShiftWindow:
    day: date
    shift: str
    pit: str | None
    timezone: str
    start_ms: int  # inclusive, UTC epoch ms
    end_ms: int  # exclusive

    @property
    def start(self) -> str:
        return ms_to_ts(self.start_ms)

    @property
    def end(self) -> str:
        return ms_to_ts(self.end_ms)


def parse_day(text: str) -> date:
    """``YYYY-MM-DD``; :class:`ReportError` naming ``date`` otherwise."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        raise ReportError(f"date: {text!r} is not a date YYYY-MM-DD") from None


def shift_window(rules: AlertRules, day: date, shift: str, pit: str | None = None) -> ShiftWindow:
    """The window of ``shift`` on ``day`` in the rules file's time zone; an unknown shift
    or pit is a :class:`ReportError` naming the known ones."""
    chosen = next((s for s in rules.shifts if s.name == shift), None)
    if chosen is None:
        known = ", ".join(s.name for s in rules.shifts)
        raise ReportError(f"shift: {shift!r} is not a shift of {rules.source} (known: {known})")
    if pit is not None:
        pits = [p.name for p in rules.pits] + [UNASSIGNED_PIT]
        if pit not in pits:
            raise ReportError(f"pit: {pit!r} is not a pit of {rules.source} (known: "
                              f"{', '.join(pits)})")  # fmt: skip
    zone = rules.timezone
    start = datetime.combine(day, chosen.start, zone)
    end_day = day if chosen.start < chosen.end else day + timedelta(days=1)
    end = datetime.combine(end_day, chosen.end, zone)
    return ShiftWindow(day, shift, pit, str(zone), _ms(start), _ms(end))


def _ms(moment: datetime) -> int:
    delta = moment.astimezone(UTC) - datetime(1970, 1, 1, tzinfo=UTC)
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000


# ---- the model -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Note:
    at_ms: int
    by: str
    kind: str  # the step: noted, closed, reopened (its reason), released (its reason) ...
    text: str


@dataclass(frozen=True, slots=True)
class Line:
    """A finding and its case as it stood at the window's end."""

    finding_id: str
    at_ms: int  # the finding's time (a table-level finding's: its judgement's)
    table_id: str
    pit: str
    round_id: str  # '' for a table-level finding
    dealer_id: str | None
    check: str
    severity: str
    message: str
    expected_cents: int | None
    paid_cents: int | None  # the finding's actual
    money: str  # the amounts in words (tablewatch.finding_money)
    state: str  # open, in_review, closed
    disposition: str
    assignee: str  # in review: who has it
    closed_by: str  # closed: who closed it
    recovered_cents: int
    notes: tuple[Note, ...] = ()


@dataclass(slots=True)
class Total:
    key: str | None  # a check code, a table id, a dealer id (None: no dealer)
    findings: int = 0
    open: int = 0
    in_review: int = 0
    closed: int = 0
    expected_cents: int = 0
    paid_cents: int = 0
    recovered_cents: int = 0

    def add(self, line: Line) -> None:
        self.findings += 1
        if line.state == "closed":
            self.closed += 1
        elif line.state == "in_review":
            self.in_review += 1
        else:
            self.open += 1
        self.expected_cents += line.expected_cents or 0
        self.paid_cents += line.paid_cents or 0
        self.recovered_cents += line.recovered_cents


@dataclass(frozen=True, slots=True)
class ShiftReport:
    window: ShiftWindow
    casino: str
    generated_ms: int
    lines: tuple[Line, ...]
    carried_over: tuple[Line, ...]  # the latest MAX_CARRIED, oldest first
    carried_over_total: int = 0  # all of them
    summary: Total = field(default_factory=lambda: Total("all"))
    by_check: tuple[Total, ...] = ()
    by_table: tuple[Total, ...] = ()
    by_dealer: tuple[Total, ...] = ()


# ---- reading -------------------------------------------------------------------------

_STEP = (
    "finding_id, step, kind, toUnixTimestamp64Milli(`at`), `by`, note, reason, state, "
    "assignee, disposition, recovered_cents"
)
_TIME = "ifNull(ts, judged_at)"  # a finding's time; a table-level finding's: its judgement's
IDS_PER_STATEMENT: Final = 100  # a statement read through the worker is a URL (8 KiB)


def _instant(ms: int) -> str:
    return f"fromUnixTimestamp64Milli({integer(ms)}, 'UTC')"


def _rows(source: RowSource, sql: str) -> Sequence[Sequence[Any]]:
    return source.run(sql).rows


def _current(where: str, also: str = "") -> str:
    """The findings matching ``where`` as ``findings_v`` shows them (a round's latest
    judgement), one row per id, without the view's join over every stored round: the
    latest judgements of just their rounds are read from ``round_judgements`` by its key
    (as the floor's open cases are, ``tablewatch/api/floor_reads.py``). ``also``: a further
    condition on the columns ``id`` and ``at_ms``."""
    judged = judgements_of(
        "(table_id, round_id) IN (SELECT table_id, round_id FROM findings "
        f"WHERE {where} AND round_id != '')"
    )
    return f"""SELECT f.id, f.t, f.rid, f.sid, f.chk, f.sev, f.exp, f.act, f.msg, f.at_ms
FROM (SELECT finding_id AS id, any(table_id) AS t, any(round_id) AS rid,
             any(start_event_id) AS sid, any(`check`) AS chk, any(severity) AS sev,
             any(expected) AS exp, any(actual) AS act, any(message) AS msg,
             max(judged_at) AS judged, min(toUnixTimestamp64Milli({_TIME})) AS at_ms
      FROM findings WHERE {where} GROUP BY finding_id) AS f
LEFT JOIN (SELECT table_id, round_id, start_event_id, max(judged_at) AS latest
           FROM {judged}
           GROUP BY table_id, round_id, start_event_id) AS r
  ON f.t = r.table_id AND f.rid = r.round_id AND f.sid = r.start_event_id
WHERE (f.rid = '' OR f.judged >= r.latest){" AND " + also if also else ""}"""


def read_shift_report(
    source: RowSource,
    rules: AlertRules,
    window: ShiftWindow,
    *,
    casino: str = "",
    now_ms: int,
    most: int = MAX_LINES,
    most_carried: int = MAX_CARRIED,
) -> ShiftReport:
    """The report of ``window`` read from ``source`` (module docstring): more than
    ``most`` findings of the shift is :class:`ReportTooLarge`; of the cases carried over
    the latest ``most_carried`` are listed, and all are counted."""
    pits = _pits(source, rules)
    tables = None if window.pit is None else sorted(t for t, p in pits.items() if p == window.pit)
    where_tables = "" if tables is None else f" AND table_id IN ({_list(tables)})"
    in_window = (
        f"{_TIME} >= {_instant(window.start_ms)} AND {_TIME} < {_instant(window.end_ms)}"
        f"{where_tables}"
    )
    before = f"{_TIME} < {_instant(window.start_ms)}{where_tables}"
    not_closed = (
        "f.id NOT IN (SELECT finding_id FROM case_events WHERE `at` < "
        f"{_instant(window.end_ms)} AND finding_id IN (SELECT finding_id FROM findings "
        f"WHERE {before}) GROUP BY finding_id HAVING argMax(state, step) = 'closed')"
    )
    of_window = _rows(
        source, f"{_current(in_window)} ORDER BY f.at_ms, f.id LIMIT {integer(most + 1)}"
    )
    if len(of_window) > most:
        raise ReportTooLarge(
            f"report: more than {most:,} findings of the shift: one report holds {most:,}; "
            "give a pit"
        )
    carried_sql = _current(before, not_closed)
    carried = list(reversed(_rows(  # the latest, listed oldest first
        source, f"{carried_sql} ORDER BY f.at_ms DESC, f.id DESC LIMIT {integer(most_carried)}"
    )))  # fmt: skip
    carried_total = len(carried)
    if carried_total == most_carried:
        carried_total = int(_rows(source, f"SELECT count() FROM ({carried_sql})")[0][0])
    carried_ids = [str(r[0]) for r in carried]
    steps = _steps(source, window.end_ms, in_window, carried_ids)
    dealers = _dealers(source, in_window, carried_ids)

    def line(row: Sequence[Any]) -> Line:
        table_id = str(row[1])
        return _line(row, pits.get(table_id) or rules.pit_of(table_id), dealers,
                     steps.get(str(row[0]), []))  # fmt: skip

    lines = tuple(line(r) for r in of_window)
    summary = Total("all")
    for item in lines:
        summary.add(item)
    return ShiftReport(
        window=window,
        casino=casino,
        generated_ms=now_ms,
        lines=lines,
        carried_over=tuple(line(r) for r in carried),
        carried_over_total=carried_total,
        summary=summary,
        by_check=_totals(lines, lambda x: x.check),
        by_table=_totals(lines, lambda x: x.table_id),
        by_dealer=_totals(lines, lambda x: x.dealer_id),
    )


def _list(values: Iterable[str]) -> str:
    text = ", ".join(quote(v) for v in values)
    return text or "''"  # no table: matches none ('' is no table id)


def _chunks(ids: Sequence[str]) -> list[Sequence[str]]:
    return [ids[i : i + IDS_PER_STATEMENT] for i in range(0, len(ids), IDS_PER_STATEMENT)]


def _pits(source: RowSource, rules: AlertRules) -> dict[str, str]:
    """Every table's pit (the rules file's, else the directory's if the file names it)."""
    directory = {str(t): str(p) for t, p in _rows(source, "SELECT table_id, pit FROM tables_v")}
    found = [str(r[0]) for r in _rows(source, "SELECT DISTINCT table_id FROM findings")]
    return {t: rules.pit_of(t, directory.get(t) or None) for t in {*directory, *found}}


def _steps(
    source: RowSource, end_ms: int, in_window: str, ids: Sequence[str]
) -> dict[str, list[Any]]:
    """The steps taken before ``end_ms`` on the cases of the findings of the window and
    of ``ids``, each case's in order."""
    sets = [f"SELECT finding_id FROM findings WHERE {in_window}"]
    sets += [_list(chunk) for chunk in _chunks(ids)]
    out: dict[str, list[Any]] = {}
    for listed in sets:
        for row in _rows(
            source,
            f"SELECT {_STEP} FROM case_events FINAL WHERE `at` < {_instant(end_ms)} "
            f"AND finding_id IN ({listed}) ORDER BY finding_id, step",
        ):
            out.setdefault(str(row[0]), []).append(row)
    return out


def _dealers(
    source: RowSource, in_window: str, ids: Sequence[str]
) -> dict[tuple[str, str, str], str | None]:
    """The dealer of each round of the findings of the window and of ``ids``."""
    wheres = [in_window] + [f"finding_id IN ({_list(chunk)})" for chunk in _chunks(ids)]
    out: dict[tuple[str, str, str], str | None] = {}
    for where in wheres:
        for a, b, c, d in _rows(
            source,
            "SELECT table_id, round_id, start_event_id, dealer_id FROM rounds_v WHERE "
            "(table_id, round_id, start_event_id) IN (SELECT table_id, round_id, "
            f"start_event_id FROM findings WHERE round_id != '' AND {where})",
        ):
            out[(str(a), str(b), str(c))] = None if d is None else str(d)
    return out


def _line(
    row: Sequence[Any],
    pit: str,
    dealers: dict[tuple[str, str, str], str | None],
    steps: Sequence[Sequence[Any]],
) -> Line:
    (finding_id, table_id, round_id, start_event_id, check, severity) = row[:6]
    (expected, actual, message, at_ms) = row[6:10]
    expected = None if expected is None else int(expected)
    actual = None if actual is None else int(actual)
    state, disposition, assignee, closed_by, recovered = "open", "", "", "", 0
    notes: list[Note] = []
    for _, _, kind, at, by, note, reason, s, who, disp, cents in steps:
        state, disposition, assignee, recovered = str(s), str(disp), str(who), int(cents)
        closed_by = str(by) if state == "closed" else ""
        for text in (str(note), str(reason)):
            if text:
                notes.append(Note(int(at), str(by), str(kind), text))
    return Line(
        finding_id=str(finding_id),
        at_ms=int(at_ms),
        table_id=str(table_id),
        pit=pit,
        round_id=str(round_id),
        dealer_id=dealers.get((str(table_id), str(round_id), str(start_event_id))),
        check=str(check),
        severity=str(severity),
        message=str(message),
        expected_cents=expected,
        paid_cents=actual,
        money=money_text(str(check), expected, actual),
        state=state,
        disposition=disposition,
        assignee=assignee if state == "in_review" else "",
        closed_by=closed_by,
        recovered_cents=recovered,
        notes=tuple(notes),
    )


def _totals(lines: Iterable[Line], key: Callable[[Line], str | None]) -> tuple[Total, ...]:
    totals: dict[str | None, Total] = {}
    for item in lines:
        k = key(item)
        totals.setdefault(k, Total(k)).add(item)
    return tuple(sorted(totals.values(), key=lambda t: (t.key is None, t.key or "")))


# ---- JSON ----------------------------------------------------------------------------


def total_json(total: Total) -> dict[str, Any]:
    return {
        "key": total.key,
        "findings": total.findings,
        "open": total.open,
        "in_review": total.in_review,
        "closed": total.closed,
        "expected_cents": total.expected_cents,
        "paid_cents": total.paid_cents,
        "recovered_cents": total.recovered_cents,
    }


def line_json(line: Line) -> dict[str, Any]:
    return {
        "finding_id": line.finding_id,
        "ts": ms_to_ts(line.at_ms),
        "table_id": line.table_id,
        "pit": line.pit,
        "round_id": line.round_id or None,
        "dealer_id": line.dealer_id,
        "check": line.check,
        "severity": line.severity,
        "message": line.message,
        "expected_cents": line.expected_cents,
        "paid_cents": line.paid_cents,
        "money": line.money,
        "state": line.state,
        "disposition": line.disposition or None,
        "assignee": line.assignee or None,
        "closed_by": line.closed_by or None,
        "recovered_cents": line.recovered_cents,
        "notes": [
            {"at": ms_to_ts(n.at_ms), "by": n.by, "kind": n.kind, "text": n.text}
            for n in line.notes
        ],
    }


def report_json(report: ShiftReport) -> dict[str, Any]:
    """The report as JSON (money in cents, times ISO 8601 UTC with ms)."""
    w = report.window
    return {
        "casino": report.casino or None,
        "date": w.day.isoformat(),
        "shift": w.shift,
        "pit": w.pit,
        "timezone": w.timezone,
        "window": {"start": w.start, "end": w.end},
        "cases_as_of": w.end,
        "generated_at": ms_to_ts(report.generated_ms),
        "summary": total_json(report.summary),
        "findings": [line_json(x) for x in report.lines],
        "totals": {
            "by_check": [total_json(t) for t in report.by_check],
            "by_table": [total_json(t) for t in report.by_table],
            "by_dealer": [total_json(t) for t in report.by_dealer],
        },
        "carried_over": [line_json(x) for x in report.carried_over],
        "carried_over_total": report.carried_over_total,
    }
