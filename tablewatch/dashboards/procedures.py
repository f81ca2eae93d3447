"""Procedures: stub counts, bets after lockout, deck age, shuffler counts, sequence gaps.
Read from ``rounds``, ``procedure_events``, ``findings_by_minute`` and ``findings``."""

from __future__ import annotations

from tablewatch.dashboards import filters
from tablewatch.dashboards.panels import DashboardSpec, PanelSql, with_freshness

STUB_COUNT_COMPLIANCE = PanelSql(
    name="stub_count_compliance",
    title="Stub counts: rounds, counts taken, missing and mismatched",
    kind="table",
    width=12,
    columns=("table_id", "rounds", "stub_counts", "missing", "mismatched"),
    sql=f"""
SELECT r.table_id AS table_id, r.rounds AS rounds, ifNull(s.stub_counts, 0) AS stub_counts,
       ifNull(f.missing, 0) AS missing, ifNull(f.mismatched, 0) AS mismatched
FROM
(
    SELECT table_id, toUInt64(uniqExactMerge(rounds)) AS rounds
    FROM rounds_by_hour WHERE $__timeFilter(hour) AND {filters.tables()} GROUP BY table_id
) AS r
LEFT JOIN
(
    SELECT table_id, count() AS stub_counts
    FROM procedure_events FINAL
    WHERE type = 'stub_count' AND $__timeFilter_ms(ts) GROUP BY table_id
) AS s ON s.table_id = r.table_id
LEFT JOIN
(
    SELECT table_id,
           toUInt64(uniqExactMergeIf(ids, check = 'STUB_COUNT_MISSING')) AS missing,
           toUInt64(uniqExactMergeIf(ids, check = 'STUB_COUNT_MISMATCH')) AS mismatched
    FROM findings_by_minute
    WHERE $__timeFilter(minute) AND check IN ('STUB_COUNT_MISSING', 'STUB_COUNT_MISMATCH')
    GROUP BY table_id
) AS f ON f.table_id = r.table_id
ORDER BY missing + mismatched DESC, table_id
""",
)

BETS_AFTER_LOCKOUT = PanelSql(
    name="bets_after_lockout",
    title="Bets after lockout",
    kind="timeseries",
    width=12,
    columns=("time", "table_id", "findings"),
    sql=f"""
SELECT $__timeInterval(minute) AS time, table_id, toUInt64(uniqExactMerge(ids)) AS findings
FROM findings_by_minute
WHERE check = 'BET_AFTER_LOCKOUT' AND $__timeFilter(minute) AND {filters.tables()}
GROUP BY time, table_id
ORDER BY time, table_id
""",
)

DECK_AGE = PanelSql(
    name="deck_age",
    title="Deck in play and its age (hours)",
    description="The deck of each table's last deck_in in the 31 days before the range's "
    "end; a hand-dealt deck is due after 4 hours, a shoe's after 8 (DECK_CHANGE_OVERDUE).",
    kind="table",
    width=12,
    columns=("table_id", "deck_id", "dealing", "since", "age_hours"),
    sql=f"""
SELECT table_id, argMax(deck_id, ts) AS deck_id, argMax(dealing, ts) AS dealing,
       max(ts) AS since,
       round(dateDiff('second', max(ts), least(now64(3), $__toTime_ms)) / 3600, 2) AS age_hours
FROM procedure_events FINAL
WHERE type = 'deck_in' AND ts <= $__toTime_ms
  AND ts >= $__toTime_ms - INTERVAL 31 DAY AND {filters.tables()}
GROUP BY table_id
ORDER BY age_hours DESC, table_id
""",
)

SHUFFLER_COUNTS = PanelSql(
    name="shuffler_counts",
    title="Shuffles: counted 52, counted otherwise, not counted",
    kind="table",
    width=12,
    columns=("table_id", "shuffles", "counted_52", "counted_other", "not_counted"),
    sql=f"""
SELECT table_id, count() AS shuffles, countIf(card_count = 52) AS counted_52,
       countIf(card_count IS NOT NULL AND card_count != 52) AS counted_other,
       countIf(card_count IS NULL) AS not_counted
FROM procedure_events FINAL
WHERE type = 'shuffle' AND $__timeFilter_ms(ts) AND {filters.tables()}
GROUP BY table_id
ORDER BY counted_other DESC, table_id
""",
)

SEQUENCE_GAPS = PanelSql(
    name="sequence_gaps",
    title="Sequence gaps (events lost by a controller)",
    kind="table",
    width=24,
    round_links=True,
    columns=("time", "table_id", "round_id", "start_event_id", "message"),
    sql=f"""
SELECT ifNull(ts, judged_at) AS time, table_id, round_id, start_event_id, message
FROM findings FINAL
WHERE check = 'SEQUENCE_GAP' AND $__timeFilter_ms(ifNull(ts, judged_at)) AND {filters.tables()}
ORDER BY time DESC, table_id
LIMIT 500
""",
)

DASHBOARD = with_freshness(
    DashboardSpec(
        uid="tablewatch-procedures",
        title="TableWatch: procedures",
        description="Stub-count compliance, bets after lockout, deck age, shuffler counts, "
        "sequence gaps.",
        default_from="now-24h",
        refresh="1m",
        panels=(
            STUB_COUNT_COMPLIANCE,
            BETS_AFTER_LOCKOUT,
            DECK_AGE,
            SHUFFLER_COUNTS,
            SEQUENCE_GAPS,
        ),
    )
)
