"""The rollups, brought up to date from the facts stored since their watermarks.

The dashboards and a few readers read rollups (``findings_by_minute``, ``rounds_by_hour``,
``table_activity``, ``hold_by_round``, ``procedure_events``, ``round_judgements``,
``round_index``) rather than the facts (``raw_events``, ``rounds``, ``settlements``,
``findings``). They are filled by :func:`refresh_rollups`, a step the worker runs every
``--rollup-seconds`` on its store thread (one rollup at a time, its batches' inserts
free to run between two: :meth:`RollupRefresher.steps`) and ``tablewatch db
refresh-rollups`` runs once, never inside an insert of facts (migration 0019 dropped the
materialized views that did).

A refresh reads, for each rollup, the facts whose ``stored_at`` (the server's clock when
the row was inserted, migration 0019) lies between the rollup's ``covered`` mark and now,
aggregates them into the rollup, and records in ``rollup_watermarks`` the time it read up
to (``watermark``) and that time less :data:`OVERLAP_MS` (``covered``): the next refresh
reads from there again, so a row whose insert was still under way during this refresh
(another worker's, on a server) is read by the next one; the worker of an embedded store,
its sole writer, reads no overlap (:meth:`RollupRefresher.sole_writer`). Every rollup is
idempotent under rows seen twice: uniqExact, max, min, any and maxMap states; the
ReplacingMergeTree keys of ``procedure_events`` (one row per event) and ``hold_by_round``
(one row per round and wager, recomputed from all the lines of the round's latest
judgement, whichever of them were stored in the window); ``round_index.finding_rows`` is a
maximum of counts, read only as "above zero".

A reader that must be exact (the findings list, a round's reconstruction) reads the facts
stored since ``covered`` in addition to the rollup (:func:`covered_since`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the dashboards import the names here without the client library
    from clickhouse_connect.driver.client import Client

log = logging.getLogger(__name__)

WATERMARKS = "rollup_watermarks"
OVERLAP_MS = 10_000  # what a refresh reads again of the previous one's window
DEFAULT_SECONDS = 2.0  # the worker's refresh period (--rollup-seconds)
# what the sole writer's refresh reads again before its previous one (the two clocks' reads)
SOLE_WRITER_SLACK_MS = 250

# {window}: the stored_at range of the facts a refresh reads
_WINDOW = (
    "stored_at >= fromUnixTimestamp64Milli({lo}, 'UTC') "
    "AND stored_at <= fromUnixTimestamp64Milli({hi}, 'UTC')"
)
_BIG_GROUP = "SETTINGS max_bytes_before_external_group_by = 1073741824"

_PROCEDURE_COLUMNS = """table_id, ts, event_id, seq, type, round_id,
       JSONExtractString(payload, 'deck_id') AS deck_id,
       JSONExtractString(payload, 'dealing') AS dealing,
       JSONExtract(payload, 'card_count', 'Nullable(Int64)') AS card_count,
       if(type = 'stub_count', JSONExtract(payload, 'count', 'Nullable(Int64)'), NULL)
           AS stub_count,
       if(type = 'meter', JSONExtract(payload, 'amount', 'Nullable(Int64)'), NULL) AS amount,
       JSONExtract(payload, 'seat', 'Nullable(Int64)') AS seat,
       JSONExtractString(payload, 'bet') AS bet,
       JSONExtractString(payload, 'result') AS result,
       JSONExtract(payload, 'paid', 'Nullable(Int64)') AS paid,
       JSONExtractString(payload, 'paid_from') AS paid_from,
       JSONExtract(payload, 'meter', 'Nullable(Int64)') AS meter,
       JSONExtractString(payload, 'validated_by') AS validated_by,
       JSONExtractString(payload, 'dealer_id') AS dealer_id,
       ingested_at"""

# hold_by_round: each round with a line stored in the window, recomputed from the lines of
# its latest judgement (one per seat and bet: a retried batch's copy is read once)
_HOLD = """
INSERT INTO hold_by_round (table_id, game, wager, round_id, start_event_id, start_ts, hands,
                           units, unit_squares, house_win, judged_at)
SELECT table_id, any(game_of) AS game, wager_of AS wager, round_id, start_event_id,
       start_ts, toUInt32(uniqExactIf(seat, counted_unit)) AS hands,
       sumIf(stake, counted_unit) AS units,
       sumIf(toFloat64(stake) * toFloat64(stake), counted_unit) AS unit_squares,
       sumIf(line_house_win, seat_counted) AS house_win, max(judged_at) AS judged_at
FROM
(
    SELECT *, seat_counted AND is_unit AS counted_unit
    FROM
    (
        SELECT s.table_id AS table_id, s.round_id AS round_id,
               s.start_event_id AS start_event_id, s.seat AS seat, s.stake AS stake,
               s.start_ts AS start_ts, s.judged_at AS judged_at, s.game AS game_of,
               l.wager AS wager_of, l.is_unit AS is_unit,
               multiIf(s.actual_result = 'lose', s.stake,
                       s.actual_result = 'win' AND l.kept, s.stake - ifNull(s.actual_paid, 0),
                       s.actual_result = 'win', -ifNull(s.actual_paid, 0),
                       0) AS line_house_win,
               countIf(l.is_unit AND s.actual_result IN ('win', 'lose', 'push'))
                   OVER (PARTITION BY s.table_id, s.round_id, s.start_event_id, s.seat,
                                      l.wager) > 0 AS seat_counted
        FROM
        (
            SELECT table_id, round_id, start_event_id, seat, bet, stake, actual_result,
                   actual_paid, start_ts, judged_at, game
            FROM settlements
            WHERE (table_id, start_ts, round_id, start_event_id, judged_at) IN
                  (
                      SELECT table_id, start_ts, round_id, start_event_id, max(judged_at)
                      FROM settlements
                      WHERE (table_id, start_ts, round_id, start_event_id) IN
                            (SELECT DISTINCT table_id, start_ts, round_id, start_event_id
                             FROM settlements WHERE {window})
                      GROUP BY table_id, start_ts, round_id, start_event_id
                  )
            LIMIT 1 BY table_id, start_ts, round_id, start_event_id, seat, bet
        ) AS s
        INNER JOIN
        (
            SELECT game, bet, argMax(wager, updated_at) AS wager,
                   argMax(is_unit, updated_at) AS is_unit, argMax(kept, updated_at) AS kept
            FROM hold_lines
            GROUP BY game, bet
        ) AS l ON l.game = s.game AND l.bet = s.bet
    )
)
GROUP BY table_id, wager, round_id, start_event_id, start_ts
"""

# each rollup: the statements that bring it up to date over {window}
STATEMENTS: Mapping[str, tuple[str, ...]] = {
    "findings_by_minute": (
        """INSERT INTO findings_by_minute (minute, table_id, check, severity, ids, last_ts)
SELECT toStartOfMinute(ifNull(ts, judged_at)) AS minute, table_id, check, severity,
       uniqExactState(finding_id) AS ids, max(ifNull(ts, judged_at)) AS last_ts
FROM findings WHERE {window}
GROUP BY minute, table_id, check, severity""",
    ),
    "rounds_by_hour": (
        """INSERT INTO rounds_by_hour (hour, table_id, game, rounds, last_end)
SELECT toStartOfHour(start_ts) AS hour, table_id, any(game) AS game,
       uniqExactState(round_id, start_event_id) AS rounds, max(end_ts) AS last_end
FROM rounds WHERE {window}
GROUP BY hour, table_id""",
    ),
    "table_activity": (
        """INSERT INTO table_activity (hour, table_id, last_event_ts, last_stored, last_seq)
SELECT toStartOfHour(ts) AS hour, table_id, max(ts) AS last_event_ts,
       max(ingested_at) AS last_stored, max(seq) AS last_seq
FROM raw_events WHERE {window}
GROUP BY hour, table_id""",
    ),
    "hold_by_round": (_HOLD,),
    "procedure_events": (
        f"""INSERT INTO procedure_events
SELECT {_PROCEDURE_COLUMNS}
FROM raw_events
WHERE {{window}}
  AND (type IN ('deck_in', 'deck_out', 'shuffle', 'stub_count', 'meter', 'device_fault',
                'dealer_change')
       OR (type = 'settle' AND position(payload, 'progressive') > 0
           AND JSONExtractString(payload, 'bet') LIKE '%progressive%'))""",
    ),
    "round_judgements": (
        """INSERT INTO round_judgements (table_id, round_id, start_event_id, judged_at)
SELECT table_id, round_id, start_event_id, max(judged_at) AS judged_at
FROM rounds WHERE {window}
GROUP BY table_id, round_id, start_event_id""",
    ),
    "round_index": (
        f"""INSERT INTO round_index (table_id, round_id, first_ts, last_ts, kept)
SELECT table_id, round_id, min(ts), max(ts), max(greatest(ts, ingested_at))
FROM raw_events WHERE round_id != '' AND {{window}}
GROUP BY table_id, round_id {_BIG_GROUP}""",
        f"""INSERT INTO round_index (table_id, round_id, judged, kept)
SELECT table_id, round_id, maxMap(([start_event_id], [toUnixTimestamp64Milli(judged_at)])),
       max(greatest(end_ts, judged_at))
FROM rounds WHERE {{window}}
GROUP BY table_id, round_id {_BIG_GROUP}""",
        f"""INSERT INTO round_index (table_id, round_id, finding_rows, kept)
SELECT table_id, round_id, count(), max(greatest(ifNull(ts, judged_at), judged_at))
FROM findings WHERE round_id != '' AND {{window}}
GROUP BY table_id, round_id {_BIG_GROUP}""",
    ),
}
ROLLUPS: tuple[str, ...] = tuple(STATEMENTS)


@dataclass(frozen=True, slots=True)
class Refreshed:
    """What one refresh did: the time it read up to (ms) and how long it took."""

    watermark_ms: int
    seconds: float
    rollups: tuple[str, ...]


def refresh_rollups(
    client: Client,
    *,
    rollups: Iterable[str] = ROLLUPS,
    overlap_ms: int = OVERLAP_MS,
    since: Callable[[int], int] | None = None,
) -> Refreshed:
    """Bring each rollup up to date with the facts stored since its ``covered`` mark (all
    of them for a rollup without a watermark), then record its new watermark.

    ``since``: given the store's time now (ms), the earliest ``stored_at`` a row written
    since the caller's previous refresh can carry, read from there too if it is before a
    mark (the sole writer's guard against its clock stepped back, :class:`RollupRefresher`)."""
    run = RefreshRun(client, tuple(rollups), overlap_ms, since)
    run.start()
    for name in run.names:
        run.rollup(name)
    return run.finish()


@dataclass(slots=True)
class RefreshRun:
    """One refresh in its steps, run one after another on the client's thread:
    :meth:`start` (the store's time, each rollup's window), :meth:`rollup` for each of
    ``names``, :meth:`finish` (the watermarks). Another statement of the thread may run
    between two steps: a row it inserts carries a ``stored_at`` later than the time read at
    the start (the same clock, read before), or equal to it, which the next refresh reads
    again (its window starts there, inclusive) and a rollup reads twice without harm.
    A step that raises leaves the watermarks where they were: the next refresh reads the
    window again."""

    client: Client
    names: tuple[str, ...]
    overlap_ms: int = OVERLAP_MS
    since: Callable[[int], int] | None = None
    hi: int = 0
    covered: dict[str, int] = field(default_factory=dict)
    floor: int | None = None  # read from here too, if it is before a rollup's mark
    started: float = 0.0

    def __post_init__(self) -> None:
        unknown = [n for n in self.names if n not in STATEMENTS]
        if unknown:
            raise ValueError(f"rollup {unknown[0]!r}: no such rollup (known: {', '.join(ROLLUPS)})")

    def start(self) -> None:
        self.started = time.perf_counter()
        client = self.client
        self.hi = int(client.query("SELECT toUnixTimestamp64Milli(now64(3))").result_rows[0][0])
        self.covered = covered_marks(client)
        self.floor = self.since(self.hi) if self.since is not None else None

    def rollup(self, name: str) -> None:
        lo = self.covered.get(name, 0)
        if self.floor is not None:
            lo = min(lo, max(0, self.floor))
        window = _WINDOW.format(lo=int(lo), hi=self.hi)
        for statement in STATEMENTS[name]:
            self.client.command(statement.replace("{window}", window))

    def finish(self) -> Refreshed:
        mark = max(0, self.hi - self.overlap_ms)
        self.client.insert(
            WATERMARKS,
            [[name, self.hi, max(mark, self.covered.get(name, 0))] for name in self.names],
            column_names=["name", "watermark", "covered"],
        )
        return Refreshed(self.hi, time.perf_counter() - self.started, self.names)


def covered_marks(client: Client) -> dict[str, int]:
    """Each rollup's ``covered`` mark in ms: every fact stored before it is rolled up."""
    rows = client.query(
        f"SELECT name, toUnixTimestamp64Milli(max(covered)) FROM {WATERMARKS} GROUP BY name"
    ).result_rows
    return {str(r[0]): int(r[1]) for r in rows}


def watermarks(client: Client) -> dict[str, int]:
    """Each rollup's watermark in ms: the stored_at its latest refresh read up to."""
    rows = client.query(
        f"SELECT name, toUnixTimestamp64Milli(max(watermark)) FROM {WATERMARKS} GROUP BY name"
    ).result_rows
    return {str(r[0]): int(r[1]) for r in rows}


def covered_since(rollup: str) -> str:
    """An SQL condition on ``stored_at``: the facts a reader of ``rollup`` reads in addition
    to it, to be exact (those stored since its ``covered`` mark; all of them when it has
    no watermark)."""
    if rollup not in STATEMENTS:
        raise ValueError(f"rollup {rollup!r}: no such rollup (known: {', '.join(ROLLUPS)})")
    return f"stored_at >= (SELECT max(covered) FROM {WATERMARKS} WHERE name = '{rollup}')"


@dataclass(slots=True)
class RollupRefresher:
    """The worker's refresh step and its figures for /metrics. :meth:`refresh` runs on the
    thread that uses ``client`` (the worker's store thread); a failure is logged and
    counted, and the next refresh reads its window again (the watermark did not move)."""

    client: Client
    period_s: float = DEFAULT_SECONDS
    refreshes: int = 0
    failures: int = 0
    last_seconds: float = 0.0
    watermark_ms: int = 0
    clock: Callable[[], float] = field(default=time.time)
    # the sole writer of an embedded store reads nothing twice (see sole_writer)
    overlap_ms: int = OVERLAP_MS
    # monotonic seconds when the latest successful refresh read the store's time
    _read_at: float = field(default_factory=time.monotonic)

    @classmethod
    def sole_writer(cls, client: Client, period_s: float = DEFAULT_SECONDS) -> RollupRefresher:
        """The refresher of a store that this process alone writes, on the thread that
        refreshes (an embedded store: one process per directory, the worker's one store
        thread). Every insert on that thread is visible when it returns, so a refresh
        reads no overlap. A row written since the previous refresh carries a ``stored_at``
        no earlier than the store's time then, which is now less the monotonic time since,
        less a slack for the reads of the two clocks: read from there if that is earlier
        than the mark (the clock stepped back); a restart's first refresh reads from the
        process's start the same way."""
        return cls(client, period_s, overlap_ms=0)

    def _since(self, now_ms: int) -> int:
        elapsed_ms = int((time.monotonic() - self._read_at) * 1000)
        return now_ms - elapsed_ms - SOLE_WRITER_SLACK_MS

    def refresh(self) -> None:
        """One refresh, all its steps at once (see :meth:`steps`)."""
        for step in self.steps():
            if not step():
                return

    def steps(self) -> Iterator[Callable[[], bool]]:
        """One refresh as its steps (:class:`RefreshRun`: the start, each rollup, the
        watermarks), each to be run on the client's thread once the one before has returned
        True: an insert queued on that thread meanwhile runs between two steps rather than
        after the whole refresh (the worker's batches wait for one rollup at most). A step
        that fails is logged and counted and returns False: stop there."""
        read_at = time.monotonic()
        run = RefreshRun(
            self.client, ROLLUPS, self.overlap_ms, self._since if self.overlap_ms == 0 else None
        )

        def guarded(step: Callable[[], object]) -> Callable[[], bool]:
            def guarded_step() -> bool:
                try:
                    step()
                except Exception:
                    self.failures += 1
                    log.exception("refreshing the rollups failed; the next refresh reads again")
                    return False
                return True

            return guarded_step

        def finish() -> None:
            done = run.finish()
            self._read_at = read_at
            self.refreshes += 1
            self.last_seconds = done.seconds
            self.watermark_ms = done.watermark_ms

        yield guarded(run.start)
        for name in ROLLUPS:
            yield guarded(partial(run.rollup, name))
        yield guarded(finish)

    def metrics(self) -> dict[str, float | int | None]:
        lag = None if not self.watermark_ms else self.clock() - self.watermark_ms / 1000
        return {
            "every_s": self.period_s,
            "refreshes": self.refreshes,
            "failures": self.failures,
            "last_seconds": round(self.last_seconds, 3),
            # how old the rollups are: now less the time the last refresh read up to
            "lag_s": None if lag is None else round(max(0.0, lag), 3),
        }


def judgements_of(where: str) -> str:
    """A subquery of ``(table_id, round_id, start_event_id, judged_at)`` rows, ``where`` a
    condition on those columns (written once: the engine applies it to both tables' keys
    and indexes): the rounds' judgements in ``round_judgements`` and those
    stored since its ``covered`` mark (:func:`covered_since`), so that the greatest
    ``judged_at`` of a round is its latest judgement even before the next refresh."""
    return (
        "(SELECT * FROM (SELECT table_id, round_id, start_event_id, "
        "CAST(judged_at AS DateTime64(3, 'UTC')) AS judged_at FROM round_judgements "
        "UNION ALL SELECT table_id, round_id, start_event_id, judged_at "
        f"FROM rounds WHERE {covered_since('round_judgements')}) WHERE {where})"
    )
