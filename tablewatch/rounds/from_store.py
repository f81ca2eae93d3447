"""A stored round, reconstructed: read over any row source, judged again, put in words.

The row source is anything with ``run(sql) -> Answer`` (``.columns``, ``.rows``): a
:class:`~tablewatch.store.read_only.ReadOnlyReader`, or the worker's ``/query``. Every
statement here is one SELECT on readable tables and views (``round_index``, ``raw_events``,
``procedure_events``, ``round_judgements``, ``findings``, ``table_directory``), and every value
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

What is read, by primary key each: first the round_id's row of ``round_index``
(migration 0015: the span of its events' times, the latest judgement of each of its
rounds, whether any finding row names it); then its events as a range of ``raw_events``
(ordered by table and time) with the table events around them, the deck_in and meter
readings that may be the last before it (``procedure_events``), the table's configuration
and, when it has any, its stored findings. Each statement reads a few granules, whatever
the store holds; each statement costs its checks and a round trip, each read the engine's
fixed cost of a table (docs/api.md, "Figures"), one table after another. A source that
runs statements at once (the API's pool of readers) has each statement split in two and
both halves run together: the table directory beside the index, the events beside the
rest.

The stored findings are those of the round's key at or after its latest ``judged_at``,
each ``finding_id``'s latest row kept (the one ``FINAL`` keeps): the rows ``findings_v``
shows for the round, without the view's join, which aggregates every stored round's latest
judgement whatever round is asked for. No read takes ``FINAL``, whose cost grows with the
parts of the whole table rather than with the round.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol

from tablewatch.rounds.reconstruct import judge_alone, report_of
from tablewatch.rounds.report import (
    FindingEntry,
    RoundNotFound,
    RoundReport,
    RoundTooLarge,
    UnknownTable,
)
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
from tablewatch.store.rollups import covered_since, judgements_of
from tablewatch.store.sql_literals import integer, quote


class RowSource(Protocol):
    """Where the reads run their statements (``ReadOnlyReader`` is one). A source whose
    statements from several threads run at once, each waiting for a reader of its own (the
    API's :class:`~tablewatch.api.sources.ReaderPool`), says so with a true ``concurrent``
    attribute: the reconstruction then runs each of its statements as two halves at once
    (:func:`_together`). The worker's ``/query`` does not: it refuses a statement when
    its few readers are busy rather than wait, and would turn away another caller's."""

    def run(self, sql: str) -> Answer: ...


# every event row read: what it is to the reconstruction, its time, seq, id and bytes
# (the event's time, seq and id are the decoded payload's: reading their columns too costs
# about a third more)
_EVENT_COLUMNS = "0 AS at_ms, 0 AS seq, '' AS event_id, payload"
# a deck's deck_in, the last meter reading: first in the 9 hours before the round (a deck
# stays at most 4 hours dealt by hand, 8 from a shoe: DECK_CHANGE_OVERDUE), then further
LOOK_BACK_MS = 9 * 3_600_000
MARGIN_MS = 60_000  # table events between a round's first and last: within a minute of them
# a round_id's events over at most an hour: one round (or two given one id within the hour),
# whose table events, deck_in and meter are read with its events, around their span
NARROW_MS = 3_600_000
# the events a reconstruction reads at most, the round's and the table's around it (a
# round has tens, a minute of a table's events a few hundred): each statement reading
# events asks for one more, and one more refuses the round (RoundTooLarge)
MAX_EVENTS = 10_000

Rows = Sequence[Sequence[Any]]
# the threads a reconstruction's statements run on at once (a few requests' worth: each
# waits for a reader of its source as a single statement would)
_READS = ThreadPoolExecutor(max_workers=4, thread_name_prefix="round-reads")


def load_round(
    source: RowSource,
    table_id: str,
    round_id: str,
    *,
    start_event_id: str | None = None,
    configs: Mapping[str, TableConfig] | None = None,
    max_events: int = MAX_EVENTS,
) -> RoundReport:
    """The reconstruction of a stored round; raises :class:`UnknownTable` (no configuration
    of the table, given or in the directory) or :class:`RoundNotFound` (no event of that
    round, or no round of it begun by ``start_event_id``), each naming what is missing, or
    :class:`RoundTooLarge` when a statement reading its events (its own, the table's around
    it) finds over ``max_events`` of them (each asks for ``max_events`` + 1 at most).

    Two statements in the usual case (the module's docstring), each split in two run at
    once on a concurrent source (:class:`RowSource`). A round_id whose events span
    over an hour (given by the table to rounds hours apart) has its events read by their
    span, then what is around the chosen round as a third statement; one the index does not
    hold (an index row is kept as long as the rows it counts: the store's own
    ``round_judgements`` and the round_id bloom filter are the way back) has its events and
    judgements read as the store holds them."""
    table, rnd = quote(table_id), quote(round_id)
    concurrent = bool(getattr(source, "concurrent", False))
    # a row per part not merged yet: the span of its events' ts in ms (NULL: none counted
    # there), its finding rows, the latest judged_at in ms by start_event_id as JSON arrays
    # [[starts], [ms]]
    index = (
        "SELECT toUnixTimestamp64Milli(first_ts), toUnixTimestamp64Milli(last_ts), "
        f"finding_rows, toJSONString(judged) FROM round_index WHERE table_id = {table} "
        f"AND round_id = {rnd}{_indexed_since(table, rnd)}"
    )
    # tables_v's row (the newest by updated_at) without its FINAL
    directory = [] if configs is not None else [
        "SELECT 'config', toUnixTimestamp64Milli(updated_at), 0, '', config "
        f"FROM table_directory WHERE table_id = {table}"
    ]  # fmt: skip
    # on a concurrent source the directory is read beside the index, else with the events
    indexed, *configured = _together(source, [index, *directory]) if concurrent else [
        source.run(index).rows
    ]  # fmt: skip
    judged: dict[str, int] = {}  # start_event_id: its latest judged_at in ms
    for row in indexed:  # the index's rows of the round_id merged: maxima, minima, a sum
        for start, ms in zip(*json.loads(str(row[3])), strict=True):
            judged[str(start)] = max(int(ms), judged.get(str(start), int(ms)))
    firsts = [int(r[0]) for r in indexed if r[0] is not None]
    lasts = [int(r[1]) for r in indexed if r[1] is not None]
    span = (min(firsts), max(lasts)) if firsts and lasts else None
    findings = not indexed or sum(int(r[2]) for r in indexed) > 0  # any finding row stored
    around = span is not None and span[1] - span[0] <= NARROW_MS
    reads = _round_reads(table_id, round_id, span, judged if findings else {}, max_events)
    if not indexed:  # the index holds none of its rows: as the store holds them
        reads.append(
            "SELECT 'judged', max(toUnixTimestamp64Milli(judged_at)), 0, start_event_id, '' "
            f"FROM {judgements_of(f'table_id = {table} AND round_id = {rnd}')} "
            "GROUP BY start_event_id"
        )
    if concurrent:  # the events beside the rest
        halves = [reads[0], " UNION ALL ".join(reads[1:])] if len(reads) > 1 else reads
        rows = [row for part in [*_together(source, halves), *configured] for row in part]
    else:
        rows = list(source.run(" UNION ALL ".join([*reads, *directory])).rows)
    newest = max((r for r in rows if r[0] == "config"), key=lambda r: (r[1], r[4]), default=None)
    config = _config(table_id, configs, [] if newest is None else [newest[4]])
    if not indexed:
        judged = {str(r[3]): int(r[1]) for r in rows if r[0] == "judged"}
    if sum(1 for r in rows if r[0] in ("event", "between")) > max_events:
        raise _too_large(source, table_id, round_id, reads[0], max_events)
    if around and sum(1 for r in rows if r[0] in ("deck_in", "meter")) > max_events:
        raise _too_large(source, table_id, round_id, reads[1], max_events)
    events = _decoded(r for r in rows if r[0] == "event")
    if not events:
        raise RoundNotFound(f"table {table_id} has no stored event of round {round_id!r}")
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
        source,
        table_id,
        own,
        config,
        (round_id, start, judged[start]) if start in judged else None,
        rows if around else None,
        max_events,
    )
    result = judge_alone(config, timeline, dealing=dealing, meter=meter)
    others = [events[i].event_id for i in starts if i != begin]
    return report_of(result, timeline, config, findings=stored, same_round_id=others)


def _indexed_since(table: str, rnd: str) -> str:
    """What ``round_index`` will hold of the round_id (quoted ``table`` and ``rnd``) once
    refreshed, from the facts stored since its last refresh, as rows of the index's
    statement (none where nothing was): a round just stored is found before the next
    refresh (``tablewatch.store.rollups``)."""
    where = f"table_id = {table} AND round_id = {rnd} AND {covered_since('round_index')}"
    return (
        " UNION ALL SELECT toUnixTimestamp64Milli(min(ts)), toUnixTimestamp64Milli(max(ts)), "
        f"toUInt64(0), '[[],[]]' FROM raw_events WHERE {where} GROUP BY table_id"
        " UNION ALL SELECT NULL, NULL, toUInt64(0), toJSONString(maxMap(([start_event_id], "
        f"[toUnixTimestamp64Milli(judged_at)]))) FROM rounds WHERE {where} GROUP BY table_id"
        " UNION ALL SELECT NULL, NULL, count(), '[[],[]]' "
        f"FROM findings WHERE {where} GROUP BY table_id"
    )


def _together(source: RowSource, statements: Sequence[str]) -> list[Rows]:
    """The rows of each statement, in their order, the first run on this thread and the
    others at once on threads of :data:`_READS` (on a concurrent source: :class:`RowSource`).
    Each table a statement reads costs the engine its planning, about as much as the read,
    one table after another: split in two, a round's reads take about the time of the larger
    half."""
    others = [_READS.submit(source.run, statement) for statement in statements[1:]]
    try:
        first = source.run(statements[0]).rows
    finally:
        answers = [other.result() for other in others]  # none left running past the call
    return [first, *(answer.rows for answer in answers)]


def _round_reads(
    table_id: str,
    round_id: str,
    span: tuple[int, int] | None,
    judged: Mapping[str, int],
    max_events: int = MAX_EVENTS,
) -> list[str]:
    """The statements (to be joined by ``UNION ALL``) reading a round_id's events by its
    ``span`` (first, last ts in ms; None: by its bloom filter), and, for a span of at most
    :data:`NARROW_MS`, what :func:`_around` needs around them: the table events within
    :data:`MARGIN_MS` of the span (part ``between``); the deck_in of every deck and the
    meter, the last before the span and every one within it, in one read of
    ``procedure_events`` (:func:`_last_of`); and, when ``judged`` (the latest judgement of
    each start, in ms) holds any, the stored findings of the round_id since the earliest.
    The events' statement, first, reads ``max_events`` + 1 rows at most."""
    table, rnd = quote(table_id), quote(round_id)
    if span is None:
        return [_events_of("'event'", table_id, f"round_id = {rnd}", max_events)]
    first, last = span
    if last - first > NARROW_MS:
        return [
            _events_of(
                "'event'",
                table_id,
                f"{_ts_at_least(first)} AND {_ts_at_most(last)} AND round_id = {rnd}",
                max_events,
            )
        ]
    reads = [
        _events_of(
            "if(round_id = '', 'between', 'event')",
            table_id,
            f"{_ts_at_least(first - MARGIN_MS)} AND {_ts_at_most(last + MARGIN_MS)} "
            f"AND round_id IN ({rnd}, '')",
            max_events,
        ),
        # before the span the last of each type and deck, within it each one (by event_id)
        _last_of(
            f"table_id = {table} AND {_ts_at_least(first - LOOK_BACK_MS)} "
            f"AND {_ts_at_most(last)} AND type IN ('deck_in', 'meter')",
            by=f"type, deck_id, if(ts < {_ms(first)}, '', event_id)",
            limit=max_events + 1,
        ),
    ]
    if judged:
        reads.append(_findings_of(table_id, round_id, None, min(judged.values())))
    return reads


def _events_of(part: str, table_id: str, where: str, max_events: int) -> str:
    """The statement of the table's ``raw_events`` rows matching ``where``, each named by
    the expression ``part``, in :data:`_EVENT_COLUMNS` (:func:`_decoded` reads them),
    ``max_events`` + 1 of them at most (one more than a reconstruction reads)."""
    return (
        f"SELECT {part} AS part, {_EVENT_COLUMNS} FROM raw_events "
        f"WHERE table_id = {quote(table_id)} AND {where} LIMIT {integer(max_events + 1)}"
    )


def _too_large(
    source: RowSource, table_id: str, round_id: str, statement: str, max_events: int
) -> RoundTooLarge:
    """The refusal of a round whose ``statement`` reading events (:func:`_events_of`'s,
    or :func:`_last_of`'s of those within the round) reached its limit, with the count of
    the rows its WHERE matches (a count on the primary key: the payloads are not read)."""
    # its table and WHERE, without ORDER BY and LIMIT (a count of a subquery would be held
    # to the reader's result limits)
    # (the first FROM and WHERE, the last ORDER BY and LIMIT are the statement's own: a
    # value given is a literal after the first WHERE and before the ORDER BY)
    if f" FROM {_PROCEDURES} WHERE " in statement:  # _last_of's
        table = _PROCEDURES
        where = statement.split(f" FROM {_PROCEDURES} WHERE ", 1)[1].rsplit(" LIMIT ", 1)[0]
        where = where.rsplit(_LAST_ORDER, 1)[0]
    else:
        table, where = statement.split(" FROM ", 1)[1].split(" WHERE ", 1)
        where = where.rsplit(" LIMIT ", 1)[0]
    counted = source.run(f"SELECT count() FROM {table} WHERE {where}").rows
    return RoundTooLarge(table_id, round_id, int(counted[0][0]), max_events)


def _in_time(event: AnyEvent) -> tuple[int, int, str]:
    return ts_to_ms(event.ts), event.seq, event.event_id


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


def _decoded(rows: Iterable[Sequence[Any]]) -> list[AnyEvent]:
    """The events of the rows' payloads (their last column), decoded again from the payload
    stored as received, in time, then seq and event_id order; an ``event_id`` once (the
    copies of a redelivered event are the same bytes, decoded once)."""
    payloads = {row[-1] if isinstance(row[-1], bytes | str) else str(row[-1]) for row in rows}
    out: list[AnyEvent] = []
    seen: set[str] = set()
    for event in sorted(map(decode_event, payloads), key=_in_time):
        if event.event_id not in seen:
            seen.add(event.event_id)
            out.append(event)
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


def _ms(ms: int) -> str:
    return f"fromUnixTimestamp64Milli({integer(ms)}, 'UTC')"


def _ts_at_least(ms: int) -> str:
    return f"ts >= {_ms(ms)}"


def _ts_at_most(ms: int) -> str:
    return f"ts <= {_ms(ms)}"


def _around(
    source: RowSource,
    table_id: str,
    own: Sequence[AnyEvent],
    config: TableConfig,
    judged: tuple[str, str, int] | None,
    read: Rows | None,
    max_events: int = MAX_EVENTS,
) -> tuple[list[AnyEvent], str | None, int | None, list[FindingEntry] | None]:
    """The round's events with the table events stored between its first and its last (by
    ``seq``, looked for within a minute of the round's times, on the primary key); the
    dealing of its deck (its last ``deck_in`` before the round) and, for a round with a
    wager a meter pays, the last meter reading before it, each from ``procedure_events``
    (the table's procedure events, about one in thirty); and the stored findings of the
    round ``judged`` (round_id, start_event_id, its latest judgement in ms): those of that
    judgement, as ``findings_v`` shows them, None when it is not judged.

    From the rows ``read`` with the round's events (:func:`_round_reads`, around its span)
    when given, else read here: the table events by the round's own times, the deck_in and
    the meter in the 9 hours before it, its findings by its identity. Either way, a deck_in
    or a meter reading found nowhere before the round is then looked for in the table's
    whole history."""
    first, last = own[0], own[-1]
    start_ms = ts_to_ms(first.ts)
    deck_id = getattr(first, "deck_id", None)
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
    table = quote(table_id)
    # before the round in time, then in seq (a reset controller's seq may start again)
    at = _ms(start_ms)
    before = f"table_id = {table} AND ts <= {at} AND (ts, seq) < ({at}, {integer(first.seq)})"
    gaps = last.seq - first.seq + 1 != len(own)  # events between them not the round's
    if read is None:
        parts = []
        if gaps:
            parts.append(
                _events_of(
                    "'between'",
                    table_id,
                    f"{_ts_at_least(start_ms - MARGIN_MS)} "
                    f"AND {_ts_at_most(ts_to_ms(last.ts) + MARGIN_MS)} AND round_id = '' "
                    f"AND seq > {integer(first.seq)} AND seq < {integer(last.seq)}",
                    max_events,
                )
            )
        if wanted:  # first in the window before the round, as most are
            window = _ts_at_least(start_ms - LOOK_BACK_MS)
            parts.append(_last_of(f"{before} AND {window} AND ({' OR '.join(wanted.values())})"))
        if judged is not None:
            parts.append(_findings_of(table_id, judged[0], judged[1], judged[2]))
        read = list(source.run(" UNION ALL ".join(parts)).rows) if parts else []
        if gaps and sum(1 for r in read if r[0] == "between") > max_events:
            raise _too_large(
                source, table_id, str(getattr(first, "round_id", "")), parts[0], max_events
            )
    key = (start_ms, first.seq)
    found = {kind: _latest_before(read, kind, key, deck_id) for kind in wanted}
    missing = [where for kind, where in wanted.items() if found[kind] is None]
    if missing:  # not in the window: further back, in the table's whole history
        further = source.run(_last_of(f"{before} AND ({' OR '.join(missing)})")).rows
        for kind in wanted:
            if found[kind] is None:
                found[kind] = _latest_before(further, kind, key, deck_id)
    dealing, meter = found.get("deck_in"), found.get("meter")
    low, high = start_ms - MARGIN_MS, ts_to_ms(last.ts) + MARGIN_MS
    between = [
        e
        for e in (_decoded(r for r in read if r[0] == "between") if gaps else [])
        if first.seq < e.seq < last.seq and low <= ts_to_ms(e.ts) <= high
    ]
    timeline = sorted([*own, *between], key=lambda e: (e.seq, e.event_id))
    return timeline, dealing, None if meter is None else int(meter), _stored(read, judged)


def _latest_before(rows: Rows, kind: str, before: tuple[int, int], deck_id: object) -> str | None:
    """The value of the last ``kind`` row (``deck_in`` of ``deck_id``, or ``meter``) of
    ``rows`` (:func:`_last_of`'s) before the round's first event, in time, then seq."""
    candidates = [
        (int(r[1]), int(r[2]), str(r[3]), str(r[4]))
        for r in rows
        if r[0] == kind
        and (int(r[1]), int(r[2])) < before
        and (kind != "deck_in" or r[3] == deck_id)
    ]
    return max(candidates)[3] if candidates else None


def _stored(rows: Rows, judged: tuple[str, str, int] | None) -> list[FindingEntry] | None:
    """The findings of the round ``judged`` among the ``finding`` rows
    (:func:`_findings_of`'s): of its start and its latest judgement, a finding's latest row
    (the one ``FINAL`` would keep), as ``findings_v`` shows them; None when not judged."""
    if judged is None:
        return None
    latest: dict[str, tuple[int, list[Any]]] = {}
    for r in rows:
        if r[0] != "finding" or int(r[1]) < judged[2]:
            continue
        columns = json.loads(str(r[4]))
        if columns[10] == judged[1] and int(r[1]) >= latest.get(str(r[3]), (-1, []))[0]:
            latest[str(r[3])] = (int(r[1]), columns)
    return sorted(
        (_finding(finding_id, columns) for finding_id, (_, columns) in latest.items()),
        key=_finding_order,
    )


def _findings_of(table_id: str, round_id: str, start: str | None, since_ms: int) -> str:
    """The statement of the stored findings of a round_id (of the round begun by ``start``
    only, when given) judged at ``since_ms`` or later: ``finding``, judged_at in ms, 0,
    finding_id and its columns as a JSON array (:func:`_finding`), its round's
    start_event_id last."""
    started = "" if start is None else f"AND start_event_id = {quote(start)} "
    return (
        "SELECT 'finding', toUnixTimestamp64Milli(judged_at), 0, finding_id, "
        "toJSONString(tuple(check, severity, regulation, message, seat, bet, expected, "
        "actual, event_ids, toUnixTimestamp64Milli(ts), start_event_id)) FROM findings "
        f"WHERE table_id = {quote(table_id)} AND round_id = {quote(round_id)} {started}"
        f"AND judged_at >= {_ms(since_ms)}"
    )


_LAST_ORDER = " ORDER BY ts DESC, seq DESC, event_id DESC LIMIT 1 BY "
# the deck changes and meter readings: procedure_events, and those of raw_events stored since
# its last refresh (tablewatch.store.rollups), each with the columns _last_of reads
_PROCEDURES = (
    "(SELECT table_id, ts, event_id, seq, type, deck_id, dealing, amount "
    "FROM procedure_events UNION ALL "
    "SELECT table_id, ts, event_id, seq, type, JSONExtractString(payload, 'deck_id'), "
    "JSONExtractString(payload, 'dealing'), "
    "if(type = 'meter', JSONExtract(payload, 'amount', 'Nullable(Int64)'), NULL) "
    f"FROM raw_events WHERE type IN ('deck_in', 'meter') AND {covered_since('procedure_events')})"
)


def _last_of(where: str, *, by: str = "type", limit: int | None = None) -> str:
    """The statement of the last event (in time, then seq) of each ``by`` (each type: the
    deck_in looked for and the meter) in ``procedure_events`` (and in the events stored
    since its last refresh: :data:`_PROCEDURES`) matching ``where``: its
    type, ts in ms, seq, deck_id and the value the reconstruction takes of it (a deck_in's
    dealing, a meter's amount) as the decoded event holds it (``raw_events``, which the
    view fills it from, holds decoded events only: docs/store.md); ``limit`` rows at most."""
    return (
        "SELECT type AS part, toUnixTimestamp64Milli(ts), seq, deck_id, if(type = 'meter', "
        f"toString(amount), toString(dealing)) FROM {_PROCEDURES} WHERE {where}"
        f"{_LAST_ORDER}{by}" + ("" if limit is None else f" LIMIT {integer(limit)}")
    )


def _finding(finding_id: str, c: Sequence[Any]) -> FindingEntry:
    """A stored finding from its id and its columns, from JSON (check, severity, regulation,
    message, seat, bet, expected, actual, event_ids, ts in ms)."""
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
