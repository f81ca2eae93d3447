"""The API's reads: SQL over a row source (``run(sql) -> Answer``), rows to models.

Every statement reads the duplicate-free views (``findings_v``, ``rounds_v``,
``settlements_v``, ``raw_events_v``, ``tables_v``) or gives their rows itself (the
findings list: :func:`list_findings`). A caller's value reaches a statement
only as a quoted literal (:func:`literal`): metacharacters in it are characters of the
value. Lists are keyset-paginated: the cursor is the sort key of a page's last row,
base64url JSON; the next page starts strictly after it.
"""

from __future__ import annotations

import base64
import binascii
import json
import time
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote_plus

from tablewatch.api.filters import Filters, epoch_ms
from tablewatch.api.models import (
    FindingOut,
    FindingsPage,
    RoundOut,
    RoundsPage,
    Severity,
    TableOut,
)
from tablewatch.api.sources import RowSource
from tablewatch.finding_money import money_text
from tablewatch.rules.events import ms_to_ts
from tablewatch.store.rollups import judgements_of
from tablewatch.store.sql_literals import integer, quote


class BadCursor(ValueError):
    """A cursor this API did not give (422 naming ``cursor``)."""


def literal(value: str | int) -> str:
    """``value`` as a ClickHouse literal (:mod:`tablewatch.store.sql_literals`)."""
    return quote(value) if isinstance(value, str) else integer(value)


def _instant(ts: str) -> str:
    return f"fromUnixTimestamp64Milli({epoch_ms(ts)}, 'UTC')"


def encode_cursor(key: Sequence[str | int]) -> str:
    return base64.urlsafe_b64encode(json.dumps(list(key)).encode()).decode().rstrip("=")


def decode_cursor(cursor: str, shape: Sequence[type]) -> list[str | int]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        key = json.loads(raw)
    except (binascii.Error, ValueError):
        raise BadCursor(
            "not a cursor this API gave (base64url JSON of a page's last row)"
        ) from None
    if (
        not isinstance(key, list)
        or len(key) != len(shape)
        or not all(type(v) is t for v, t in zip(key, shape, strict=True))
    ):
        raise BadCursor("not a cursor of this list (give next_cursor back as it was)")
    return key


def _rows(source: RowSource, sql: str) -> Sequence[Sequence[Any]]:
    return source.run(sql).rows


# --- findings ---------------------------------------------------------------------------

_FINDING_COLUMNS = """finding_id, table_id, round_id, start_event_id, check, severity, regulation,
    seat, bet, expected, actual, message, event_ids, toUnixTimestamp64Milli(ts) AS ts_ms,
    toUnixTimestamp64Milli(judged_at) AS judged_ms,
    toUnixTimestamp64Milli(ifNull(ts, judged_at)) AS sort_ms"""


def _finding_where(f: Filters) -> list[str]:
    where: list[str] = []
    if f.table is not None:
        where.append(f"table_id = {literal(f.table)}")
    if f.pit is not None or f.game is not None:
        where.append(f"table_id IN (SELECT table_id FROM tables_v WHERE {_directory_where(f)})")
    if f.check is not None:
        where.append(f"check = {literal(f.check)}")
    if f.severity is not None:
        where.append(f"severity = {literal(f.severity.value)}")
    if f.dealer is not None:
        where.append(
            "(table_id, round_id, start_event_id) IN (SELECT table_id, round_id, start_event_id"
            f" FROM rounds_v WHERE dealer_id = {literal(f.dealer)})"
        )
    if f.since is not None:
        where.append(f"ifNull(ts, judged_at) >= {_instant(f.since)}")
    if f.until is not None:
        where.append(f"ifNull(ts, judged_at) < {_instant(f.until)}")
    return where


def _directory_where(f: Filters) -> str:
    parts = []
    if f.pit is not None:
        parts.append(f"pit = {literal(f.pit)}")
    if f.game is not None:
        parts.append(f"game = {literal(f.game)}")
    return " AND ".join(parts)


CANDIDATES = 128  # findings read at a time, before those of an older judgement are dropped
# the rounds' keys written into one statement of their latest judgements, in bytes once
# URL-encoded: a statement read through the worker is a URL, which its web server (aiohttp)
# takes up to 8,190 bytes
KEYS_PER_STATEMENT = 4_000


def list_findings(source: RowSource, f: Filters) -> FindingsPage:
    """Findings newest first (by their time, a table-level one's judgement time), as
    ``findings_v`` shows them: a round's findings of its latest judgement only.

    Without the view's join, which aggregates every stored round's latest judgement
    whatever page is asked for: the findings matching the filters are read newest first
    from ``findings FINAL``, :data:`CANDIDATES` (or the page, if more) at a time; the
    latest judgement of just their rounds is read from ``round_judgements`` (migration
    0014) by its key and from the rounds stored since its last refresh
    (``tablewatch.store.rollups.judgements_of``: exact before the next refresh), and the
    findings of an older judgement than their round's are dropped (``findings_v``'s test:
    a table-level finding always stays; a round's when its ``judged_at`` is at least the
    round's latest, or the round is not written yet),
    until the page is full or no finding is left. The same rows as the view's, at a cost
    that does not grow with the store."""
    where = _finding_where(f)
    after = decode_cursor(f.cursor, (int, str)) if f.cursor is not None else None
    want = f.limit + 1
    batch = max(CANDIDATES, want)
    kept: list[Sequence[Any]] = []
    while len(kept) < want:
        rows = _rows(source, _candidates(where, after, batch))
        latest = _latest_judgements(source, {(str(r[1]), str(r[2])) for r in rows if r[2]})
        kept.extend(
            row[:-1]
            for row in rows
            if not row[2] or int(row[-1]) >= latest.get((str(row[1]), str(row[2]), str(row[3])), 0)
        )
        if len(rows) < batch:
            break
        after = [int(rows[-1][15]), str(rows[-1][0])]
    items = [finding_of(row) for row in kept[: f.limit]]
    last = kept[f.limit - 1] if len(kept) > f.limit else None
    return FindingsPage(
        items=items, next_cursor=encode_cursor([int(last[15]), str(last[0])]) if last else None
    )


def _candidates(where: list[str], after: Sequence[str | int] | None, limit: int) -> str:
    """The statement of the next ``limit`` findings matching ``where`` newest first,
    strictly after the sort key ``after``, each with its ``judged_at`` in ms last."""
    clauses = list(where)
    if after is not None:
        clauses.append(
            "(toUnixTimestamp64Milli(ifNull(ts, judged_at)), finding_id) < "
            f"({literal(after[0])}, {literal(after[1])})"
        )
    return (
        f"SELECT {_FINDING_COLUMNS}, toUnixTimestamp64Milli(judged_at) FROM findings FINAL"
        f"{' WHERE ' + ' AND '.join(clauses) if clauses else ''} "
        f"ORDER BY sort_ms DESC, finding_id DESC LIMIT {integer(limit)}"
    )


def _latest_judgements(
    source: RowSource, rounds: set[tuple[str, str]]
) -> dict[tuple[str, str, str], int]:
    """The latest ``judged_at`` (ms) of each stored round of these (table_id, round_id),
    in statements of at most :data:`KEYS_PER_STATEMENT` bytes of URL-encoded keys."""
    chunks: list[list[str]] = [[]]
    size = 0
    for table_id, round_id in sorted(rounds):
        key = f"({literal(table_id)}, {literal(round_id)})"
        encoded = len(quote_plus(key)) + 6  # and the ", " before the next (4 encoded; 2 spare)
        if size + encoded > KEYS_PER_STATEMENT and chunks[-1]:
            chunks.append([])
            size = 0
        chunks[-1].append(key)
        size += encoded
    latest: dict[tuple[str, str, str], int] = {}
    for keys in (c for c in chunks if c):
        named = f"(table_id, round_id) IN ({', '.join(keys)})"
        for r in _rows(
            source,
            "SELECT table_id, round_id, start_event_id, max(toUnixTimestamp64Milli(judged_at)) "
            f"FROM {judgements_of(named)} "
            "GROUP BY table_id, round_id, start_event_id",
        ):
            latest[(str(r[0]), str(r[1]), str(r[2]))] = int(r[3])
    return latest


def finding_of(row: Sequence[Any]) -> FindingOut:
    (finding_id, table_id, round_id, start_event_id, check, severity, regulation, seat) = row[:8]
    (bet, expected, actual, message, event_ids, ts_ms, judged_ms) = row[8:15]
    expected = None if expected is None else int(expected)
    actual = None if actual is None else int(actual)
    return FindingOut(
        finding_id=str(finding_id),
        table_id=str(table_id),
        round_id=str(round_id) or None,
        start_event_id=str(start_event_id) or None,
        check=str(check),
        severity=Severity(str(severity)),
        regulation=str(regulation),
        seat=None if seat is None else int(seat),
        bet=str(bet) or None,
        expected=expected,
        actual=actual,
        money=money_text(str(check), expected, actual),
        message=str(message),
        event_ids=[str(e) for e in event_ids],
        ts=None if ts_ms is None else ms_to_ts(int(ts_ms)),
        ts_ms=None if ts_ms is None else int(ts_ms),
        judged_at=ms_to_ts(int(judged_ms)),
    )


# --- rounds ------------------------------------------------------------------------------

_ROUND_COLUMNS = """table_id, round_id, start_event_id, game, toUnixTimestamp64Milli(start_ts),
    toUnixTimestamp64Milli(end_ts), dealer_id, deck_id, seats, wagered, paid, voided, complete,
    finding_count"""


def list_rounds(source: RowSource, f: Filters) -> RoundsPage:
    """Rounds, the latest begun first; ``check`` / ``severity``: rounds with such a finding."""
    where: list[str] = []
    if f.table is not None:
        where.append(f"table_id = {literal(f.table)}")
    if f.pit is not None:
        where.append(f"table_id IN (SELECT table_id FROM tables_v WHERE pit = {literal(f.pit)})")
    if f.game is not None:
        where.append(f"game = {literal(f.game)}")
    if f.dealer is not None:
        where.append(f"dealer_id = {literal(f.dealer)}")
    if f.check is not None or f.severity is not None:
        found = []
        if f.check is not None:
            found.append(f"check = {literal(f.check)}")
        if f.severity is not None:
            found.append(f"severity = {literal(f.severity.value)}")
        where.append(
            "(table_id, round_id, start_event_id) IN (SELECT table_id, round_id, start_event_id"
            f" FROM findings_v WHERE {' AND '.join(found)})"
        )
    if f.since is not None:
        where.append(f"start_ts >= {_instant(f.since)}")
    if f.until is not None:
        where.append(f"start_ts < {_instant(f.until)}")
    if f.cursor is not None:
        start_ms, table_id, round_id, start_event_id = decode_cursor(f.cursor, (int, str, str, str))
        where.append(
            "(toUnixTimestamp64Milli(start_ts), table_id, round_id, start_event_id) < "
            f"({literal(start_ms)}, {literal(table_id)}, {literal(round_id)}, "
            f"{literal(start_event_id)})"
        )
    sql = f"SELECT {_ROUND_COLUMNS} FROM rounds_v"
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += (
        " ORDER BY start_ts DESC, table_id DESC, round_id DESC, start_event_id DESC"
        f" LIMIT {f.limit + 1}"
    )
    rows = _rows(source, sql)
    items = [round_of(row) for row in rows[: f.limit]]
    last = items[-1] if len(rows) > f.limit else None
    cursor = (
        encode_cursor([last.start_ms, last.table_id, last.round_id, last.start_event_id])
        if last
        else None
    )
    return RoundsPage(items=items, next_cursor=cursor)


def round_of(row: Sequence[Any]) -> RoundOut:
    (table_id, round_id, start_event_id, game, start_ms, end_ms, dealer, deck) = row[:8]
    (seats, wagered, paid, voided, complete, finding_count) = row[8:14]
    return RoundOut(
        table_id=str(table_id),
        round_id=str(round_id),
        start_event_id=str(start_event_id),
        game=str(game),
        start_ts=ms_to_ts(int(start_ms)),
        end_ts=ms_to_ts(int(end_ms)),
        start_ms=int(start_ms),
        end_ms=int(end_ms),
        dealer_id=None if dealer is None else str(dealer),
        deck_id=None if deck is None else str(deck),
        seats=int(seats),
        wagered=int(wagered),
        paid=int(paid),
        voided=_bool(voided),
        complete=_bool(complete),
        finding_count=int(finding_count),
    )


def _bool(value: Any) -> bool:
    return value if isinstance(value, bool) else str(value).lower() in ("1", "true")


# --- tables ------------------------------------------------------------------------------


def _last_events(source: RowSource, now_ms: int) -> dict[str, int]:
    """Each table's latest stored event time: over the last day first (a range of the
    primary key, table_id then ts), then over the whole history for the tables silent that
    long. A duplicate row has its original's ts, so the table needs no FINAL here."""
    day = f"fromUnixTimestamp64Milli({now_ms - 86_400_000}, 'UTC')"
    select = "SELECT table_id, toUnixTimestamp64Milli(max(ts)) FROM raw_events"
    last = {
        str(r[0]): int(r[1]) for r in _rows(source, f"{select} WHERE ts >= {day} GROUP BY table_id")
    }
    older = f"{select} WHERE ts < {day}"
    if last:
        known = ", ".join(literal(t) for t in sorted(last))
        older += f" AND table_id NOT IN ({known})"
    last.update({str(r[0]): int(r[1]) for r in _rows(source, f"{older} GROUP BY table_id")})
    return last


def list_tables(source: RowSource, now_ms: int | None = None) -> list[TableOut]:
    """Every table the directory knows or that played a round: game, pit, cameras, rounds
    and findings of today (UTC), and how long since its last stored event."""
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    day_ms = now_ms - now_ms % 86_400_000
    day = f"fromUnixTimestamp64Milli({day_ms}, 'UTC')"
    directory = {
        str(r[0]): (str(r[1]), str(r[2]) or None, [str(c) for c in r[3]])
        for r in _rows(source, "SELECT table_id, game, pit, cameras FROM tables_v")
    }
    rounds = {
        str(r[0]): (str(r[1]), int(r[2]))
        for r in _rows(
            source,
            f"SELECT table_id, any(game), countIf(start_ts >= {day}) FROM rounds_v"
            " GROUP BY table_id",
        )
    }
    found = {
        str(r[0]): (int(r[1]), int(r[2]))
        for r in _rows(
            source,
            f"SELECT table_id, countIf(ifNull(ts, judged_at) >= {day}), count() FROM findings_v"
            " GROUP BY table_id",
        )
    }
    last = _last_events(source, now_ms)
    out = []
    for table_id in sorted(set(directory) | set(rounds) | set(last)):
        game, pit, cameras = directory.get(table_id, (rounds.get(table_id, ("", 0))[0], None, []))
        last_ms = last.get(table_id)
        today, total = found.get(table_id, (0, 0))
        out.append(
            TableOut(
                table_id=table_id,
                game=game,
                pit=pit,
                cameras=cameras,
                rounds_today=rounds.get(table_id, ("", 0))[1],
                open_findings=today,
                findings_total=total,
                last_event_ts=None if last_ms is None else ms_to_ts(last_ms),
                seconds_since_last_event=(
                    None if last_ms is None else round(max(0, now_ms - last_ms) / 1000, 3)
                ),
            )
        )
    return out


def no_table(table_id: str) -> str:
    """What the pages and the command line say of a table the store does not know."""
    return f"no table {table_id!r}: the store holds no round, event or directory row of it"


def unknown_table(source: RowSource, table_id: str) -> str | None:
    """:func:`no_table`'s reason when the store holds no directory row, round or event of
    ``table_id`` (the tables :func:`list_tables` lists), else None. One statement, each
    part stopped at its first row."""
    t = literal(table_id)
    parts = " UNION ALL ".join(
        f"(SELECT 1 FROM {view} WHERE table_id = {t} LIMIT 1)"
        for view in ("tables_v", "rounds_v", "raw_events")
    )
    return None if _rows(source, f"SELECT count() FROM ({parts})")[0][0] else no_table(table_id)
