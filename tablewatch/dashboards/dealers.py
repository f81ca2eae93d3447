"""Dealers: errors per 100 rounds dealt, by check code, against the floor's average.

A finding counts against the dealer of its round (``rounds.dealer_id``); table-level
findings (no round) against no dealer. The floor average is over the tables chosen."""

from __future__ import annotations

from tablewatch.dashboards import filters
from tablewatch.dashboards.panels import DashboardSpec, PanelSql, with_freshness

_ROUNDS = f"""
        SELECT table_id, round_id, start_event_id, ifNull(dealer_id, '') AS dealer_id,
               count() OVER (PARTITION BY dealer_id) AS dealer_rounds,
               count() OVER () AS floor_rounds
        FROM rounds FINAL
        WHERE $__timeFilter_ms(start_ts) AND {filters.tables()}"""
_FINDINGS_BY_ROUND = f"""
        SELECT table_id, round_id, start_event_id, check, count() AS n
        FROM findings FINAL
        WHERE round_id != '' AND $__timeFilter_ms(ifNull(ts, judged_at)) AND {filters.tables()}
        GROUP BY table_id, round_id, start_event_id, check"""

ERRORS_PER_100_ROUNDS_BY_DEALER_AND_CHECK = PanelSql(
    name="errors_per_100_rounds_by_dealer_and_check",
    title="Errors per 100 rounds, by dealer and check code, and the floor's",
    kind="table",
    width=24,
    height=10,
    columns=("dealer_id", "check", "findings", "rounds", "per_100_rounds", "floor_per_100_rounds"),
    sql=f"""
SELECT dealer_id, check, findings, rounds, round(100 * findings / rounds, 2) AS per_100_rounds,
       round(100 * check_findings / floor_rounds, 2) AS floor_per_100_rounds
FROM
(
    SELECT dealer_id, check, findings, rounds, floor_rounds,
           sum(findings) OVER (PARTITION BY check) AS check_findings
    FROM
    (
        SELECT r.dealer_id AS dealer_id, f.check AS check, sum(f.n) AS findings,
               any(r.dealer_rounds) AS rounds, any(r.floor_rounds) AS floor_rounds
        FROM ({_ROUNDS}
        ) AS r
        INNER JOIN ({_FINDINGS_BY_ROUND}
        ) AS f ON f.table_id = r.table_id AND f.round_id = r.round_id
              AND f.start_event_id = r.start_event_id
        GROUP BY dealer_id, check
    )
)
WHERE {filters.dealers()}
ORDER BY per_100_rounds DESC, dealer_id, check
""",
)

ERRORS_PER_100_ROUNDS_BY_DEALER = PanelSql(
    name="errors_per_100_rounds_by_dealer",
    title="Errors per 100 rounds, by dealer, and the floor's",
    kind="table",
    width=24,
    columns=("dealer_id", "rounds", "findings", "per_100_rounds", "floor_per_100_rounds"),
    sql=f"""
SELECT dealer_id, rounds, findings, round(100 * findings / rounds, 2) AS per_100_rounds,
       round(100 * floor_findings / floor_rounds, 2) AS floor_per_100_rounds
FROM
(
    SELECT dealer_id, rounds, findings, sum(rounds) OVER () AS floor_rounds,
           sum(findings) OVER () AS floor_findings
    FROM
    (
        SELECT r.dealer_id AS dealer_id, count() AS rounds, sum(f.n) AS findings
        FROM ({_ROUNDS}
        ) AS r
        LEFT JOIN
        (
            SELECT table_id, round_id, start_event_id, sum(n) AS n
            FROM ({_FINDINGS_BY_ROUND}
            )
            GROUP BY table_id, round_id, start_event_id
        ) AS f ON f.table_id = r.table_id AND f.round_id = r.round_id
              AND f.start_event_id = r.start_event_id
        GROUP BY dealer_id
    )
)
WHERE {filters.dealers()}
ORDER BY per_100_rounds DESC, dealer_id
""",
)

DASHBOARD = with_freshness(
    DashboardSpec(
        uid="tablewatch-dealers",
        title="TableWatch: dealers",
        description="Errors per 100 rounds by check code, against the floor average.",
        default_from="now-7d",
        refresh="5m",
        panels=(ERRORS_PER_100_ROUNDS_BY_DEALER, ERRORS_PER_100_ROUNDS_BY_DEALER_AND_CHECK),
    )
)
