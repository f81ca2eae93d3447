"""A stored round, reconstructed: read over any row source, judged again, put in words.

The row source is anything with ``run(sql) -> Answer`` (``.columns``, ``.rows``): a
:class:`~tablewatch.store.read_only.ReadOnlyReader`, or the worker's ``/query``. Every
statement here is one SELECT on readable tables and views (``raw_events``,
``procedure_events``, ``round_judgements``, ``findings``, ``tables_v``), and every value
given (table, round, start) is written into it as a quoted literal
(:mod:`tablewatch.store.sql_literals`). Events are read from ``raw_events`` itself,
without the ``FINAL`` of its view (which costs several times the read): the copies of an
event a redelivery stores are the same bytes under the same ``event_id``, and each is
decoded once (:func:`_decoded`).

Which round: a stored round is ``(table_id, round_id, start_event_id)``
(``docs/store.md``, "A round's identity"). A ``round_id`` a table gave twice is several
rounds; without ``start_event_id`` the one begun last is read, and the report lists the
others' start events (``same_round_id``). A round's events are those of its ``round_id``
from its start event up to the next round of that id, with the table events stored
between its first and last event. It is judged again from them under its table's
configuration (the table directory's, ``tables_v.config``, unless one is given) with its
deck's dealing (the deck's last ``deck_in`` before it) and the meter read before it; its
findings are the stored ones (the worker's judgement, with the table-level findings it
attached), or, for a round the worker has not judged yet, the new judgement's.

The stored findings are read from ``findings`` for the round's key with the round's
latest ``judged_at`` (from ``round_judgements``, in the first statement) as the lower
bound, each ``finding_id``'s latest row kept (the one ``FINAL`` keeps): the rows
``findings_v`` shows for the round, without the view's join, which aggregates every
stored round's latest judgement whatever round is asked for. No read takes ``FINAL``,
whose cost grows with the parts of the whole table rather than with the round.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from typing import Any, Protocol

from tablewatch.rounds.reconstruct import judge_alone, report_of
from tablewatch.rounds.report import FindingEntry, RoundNotFound, RoundReport, UnknownTable
from tablewatch.rules.config import ConfigError, parse_table
from tablewatch.rules.decode import decode_event
from tablewatch.rules.events import (
    AnyEvent,
    RoundStart,
    Wager,
    ms_to_ts,
    ts_to_ms,
)
from tablewatch.rules.table_config import TableConfig
from tablewatch.store.read_only import Answer
from tablewatch.store.sql_literals import integer, quote


class RowSource(Protocol):
    """Where the reads run their statements (``ReadOnlyReader`` is one)."""

    def run(self, sql: str) -> Answer: ...


# every event row read: what it is to the reconstruction, its time, seq, id and bytes
_EVENT_COLUMNS = "toUnixTimestamp64Milli(ts) AS at_ms, seq, event_id, payload"
# a deck's deck_in, the last meter reading: first in the 9 hours before the round (a deck
# stays at most 4 hours dealt by hand, 8 from a shoe: DECK_CHANGE_OVERDUE), then further
LOOK_BACK_MS = 9 * 3_600_000
MARGIN_MS = 60_000  # table events between a round's first and last: within a minute of them

Rows = Sequence[Sequence[Any]]


def load_round(
    source: RowSource,
    table_id: str,
    round_id: str,
    *,
    start_event_id: str | None = None,
    configs: Mapping[str, TableConfig] | None = None,
) -> RoundReport:
    """The reconstruction of a stored round; raises :class:`UnknownTable` (no configuration
    of the table, given or in the directory) or :class:`RoundNotFound` (no event of that
    round, or no round of it begun by ``start_event_id``), each naming what is missing.

    Two statements in the usual case (each statement a source runs costs its checks and a
    round trip): the round's events, its judged starts and the table's configuration in
    one; the table events while it was open, its deck's ``deck_in``, the meter before it
    and its stored findings in the other."""
    table, rnd = quote(table_id), quote(round_id)
    parts = [
        f"SELECT 'event' AS part, {_EVENT_COLUMNS} FROM raw_events "
        f"WHERE table_id = {table} AND round_id = {rnd}",
        "SELECT 'judged', max(toUnixTimestamp64Milli(judged_at)), 0, start_event_id, '' "
        f"FROM round_judgements WHERE table_id = {table} AND round_id = {rnd} "
        "GROUP BY start_event_id",
    ]
    if configs is None:
        parts.append(f"SELECT 'config', 0, 0, '', config FROM tables_v WHERE table_id = {table}")
    rows = source.run(" UNION ALL ".join(parts)).rows
    config = _config(table_id, configs, [r[4] for r in rows if r[0] == "config"])
    events = _decoded(sorted((r for r in rows if r[0] == "event"), key=_in_time))
    if not events:
        raise RoundNotFound(f"table {table_id} has no stored event of round {round_id!r}")
    judged = {str(r[3]): int(r[1]) for r in rows if r[0] == "judged"}  # start: judged_at ms
    starts = _starts(events, judged)
    if start_event_id is None:
        chosen = len(starts) - 1
    else:
        ids = [events[i].event_id for i in starts]
        if start_event_id not in ids:
            raise RoundNotFound(
                f"table {table_id} has no round {round_id!r} begun by event {start_event_id!r} "
                f"(its rounds of that id begin with: {', '.join(ids)})"
            )
        chosen = ids.index(start_event_id)
    begin = starts[chosen]
    end = starts[chosen + 1] if chosen + 1 < len(starts) else len(events)
    own = sorted(events[begin:end], key=lambda e: (e.seq, e.event_id))  # folded in seq order
    start = own[0].event_id  # the event the fold begins with: the round's start_event_id
    timeline, dealing, meter, stored = _around(
        source, table_id, own, config, (round_id, start, judged[start]) if start in judged else None
    )
    result = judge_alone(config, timeline, dealing=dealing, meter=meter)
    others = [events[i].event_id for i in starts if i != begin]
    return report_of(result, timeline, config, findings=stored, same_round_id=others)


def _in_time(row: Sequence[Any]) -> tuple[int, int, str]:
    return int(row[1]), int(row[2]), str(row[3])


def _config(
    table_id: str, configs: Mapping[str, TableConfig] | None, stored: Sequence[Any]
) -> TableConfig:
    if configs is not None:
        config = configs.get(table_id)
        if config is None:
            raise UnknownTable(f"table {table_id!r} is not in the configuration given")
        return config
    if not stored or not stored[0]:
        raise UnknownTable(
            f"table {table_id!r} is not in the store's table directory (tables_v, written by "
            "the worker when it starts): give its configuration"
        )
    try:
        return parse_table(table_id, json.loads(str(stored[0])))
    except (ConfigError, ValueError) as exc:
        raise UnknownTable(
            f"table {table_id!r}: its configuration in the table directory is not valid: {exc}"
        ) from None


def _decoded(rows: Rows) -> list[AnyEvent]:
    """The events of ``part, at_ms, seq, event_id, payload`` rows, in their order, decoded
    again from the payload stored as received; an ``event_id`` once (its first row: the
    copies of a redelivered event are the same bytes)."""
    out = []
    seen: set[str] = set()
    for row in rows:
        if row[3] in seen:
            continue
        seen.add(row[3])
        payload = row[4]
        out.append(decode_event(payload if isinstance(payload, bytes | str) else str(payload)))
    return out


def _starts(events: Sequence[AnyEvent], judged: Collection[str]) -> list[int]:
    """Indexes in ``events`` (one round_id, in time order: a controller reset may have
    started its ``seq`` again) of the events that began a round: the judged rounds' start
    events, each ``round_start``, and the first event."""
    starts = {0}
    for index, event in enumerate(events):
        if event.event_id in judged or isinstance(event, RoundStart):
            starts.add(index)
    return sorted(starts)


def _ts_at_least(ms: int) -> str:
    return f"ts >= fromUnixTimestamp64Milli({integer(ms)}, 'UTC')"


def _ts_at_most(ms: int) -> str:
    return f"ts <= fromUnixTimestamp64Milli({integer(ms)}, 'UTC')"


def _around(
    source: RowSource,
    table_id: str,
    own: Sequence[AnyEvent],
    config: TableConfig,
    judged: tuple[str, str, int] | None,
) -> tuple[list[AnyEvent], str | None, int | None, list[FindingEntry] | None]:
    """The round's events with the table events stored between its first and its last (by
    ``seq``, looked for within a minute of the round's times, on the primary key); the
    dealing of its deck (its last ``deck_in`` before the round) and, for a round with a
    wager a meter pays, the last meter reading before it, each read from
    ``procedure_events`` (the table's procedure events, about one in thirty) in the 9
    hours before the round, then, when none is there, in the table's whole history; and
    the stored findings of the round ``judged`` (round_id, start_event_id,
    its latest judgement in ms): those of that judgement, as ``findings_v`` shows them,
    None when it is not judged."""
    first, last = own[0], own[-1]
    table = quote(table_id)
    start_ms = ts_to_ms(first.ts)
    # before the round in time, then in seq (a reset controller's seq may start again)
    at = f"fromUnixTimestamp64Milli({integer(start_ms)}, 'UTC')"
    before = f"table_id = {table} AND ts <= {at} AND (ts, seq) < ({at}, {integer(first.seq)})"
    window = _ts_at_least(start_ms - LOOK_BACK_MS)
    deck_id = getattr(first, "deck_id", None)
    parts = []
    if last.seq - first.seq + 1 != len(own):  # events between them that are not the round's
        parts.append(
            f"SELECT 'between' AS part, {_EVENT_COLUMNS} FROM raw_events "
            f"WHERE table_id = {table} AND {_ts_at_least(start_ms - MARGIN_MS)} "
            f"AND {_ts_at_most(ts_to_ms(last.ts) + MARGIN_MS)} "
            f"AND round_id = '' AND seq > {integer(first.seq)} AND seq < {integer(last.seq)}"
        )
    # the meter prices only a wager on a pay table that pays a share of it
    metered = any(
        isinstance(e, Wager) and (t := config.paytables.get(e.bet)) is not None and t.pays_meter
        for e in own
    )
    wanted: dict[str, str] = {}  # the procedure events looked for, by type
    if isinstance(deck_id, str):
        wanted["deck_in"] = f"(type = 'deck_in' AND deck_id = {quote(deck_id)})"
    if metered:
        wanted["meter"] = "type = 'meter'"
    if wanted:  # first in the window before the round, as most are
        parts.append(_last_of(f"{before} AND {window} AND ({' OR '.join(wanted.values())})"))
    if judged is not None:  # findings_v's rows of the round, without its join
        parts.append(
            "SELECT 'finding', toUnixTimestamp64Milli(judged_at), 0, finding_id, "
            "toJSONString(tuple(check, severity, regulation, message, seat, bet, expected, "
            "actual, event_ids, toUnixTimestamp64Milli(ts))) FROM findings "
            f"WHERE table_id = {table} AND round_id = {quote(judged[0])} "
            f"AND start_event_id = {quote(judged[1])} "
            f"AND judged_at >= fromUnixTimestamp64Milli({integer(judged[2])}, 'UTC')"
        )
    rows = list(source.run(" UNION ALL ".join(parts)).rows) if parts else []
    missing = [where for kind, where in wanted.items() if not any(r[0] == kind for r in rows)]
    if missing:  # not in the window: further back, in the table's whole history
        rows += source.run(_last_of(f"{before} AND ({' OR '.join(missing)})")).rows
    between = _decoded(sorted((r for r in rows if r[0] == "between"), key=_in_time))
    dealing = next((str(r[4]) for r in rows if r[0] == "deck_in"), None)
    meter = next((int(r[4]) for r in rows if r[0] == "meter"), None)
    timeline = sorted([*own, *between], key=lambda e: (e.seq, e.event_id))
    findings = None
    if judged is not None:  # a finding's latest row (the rows FINAL would keep)
        latest: dict[str, tuple[int, str]] = {}
        for r in rows:
            if r[0] == "finding" and int(r[1]) >= latest.get(str(r[3]), (-1, ""))[0]:
                latest[str(r[3])] = (int(r[1]), str(r[4]))
        findings = sorted(
            (_finding(finding_id, text) for finding_id, (_, text) in latest.items()),
            key=_finding_order,
        )
    return timeline, dealing, meter, findings


def _last_of(where: str) -> str:
    """The statement of the last event of each type (in time, then seq) in
    ``procedure_events`` matching ``where``: ``type, 0, seq, event_id`` and the value the
    reconstruction takes of it (a deck_in's dealing, a meter's amount) as the decoded
    event holds it (``raw_events``, which the view fills it from, holds decoded events
    only: docs/store.md)."""
    return (
        "SELECT type AS part, 0, seq, event_id, if(type = 'meter', toString(amount), "
        f"toString(dealing)) FROM procedure_events WHERE {where} "
        "ORDER BY ts DESC, seq DESC LIMIT 1 BY type"
    )


def _finding(finding_id: str, text: str) -> FindingEntry:
    """A stored finding from its id and the JSON array of its columns (check, severity,
    regulation, message, seat, bet, expected, actual, event_ids, ts in ms)."""
    c = json.loads(text)
    return FindingEntry(
        check=str(c[0]),
        severity=str(c[1]),
        regulation=str(c[2]),
        message=str(c[3]),
        seat=None if c[4] is None else int(c[4]),
        bet=str(c[5]) or None,
        expected=None if c[6] is None else int(c[6]),
        actual=None if c[7] is None else int(c[7]),
        event_ids=[str(e) for e in c[8]],
        ts=None if c[9] is None else ms_to_ts(int(c[9])),
        finding_id=finding_id,
    )


def _finding_order(f: FindingEntry) -> tuple[bool, str, str, bool, int, str, str]:
    """By time, check, seat, bet and id (a missing time or seat last)."""
    return (f.ts is None, f.ts or "", f.check, f.seat is None, f.seat or 0, f.bet or "",
            f.finding_id or "")  # fmt: skip
