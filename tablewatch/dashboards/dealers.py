"""Dealers: errors per 100 rounds dealt, by check code, against the floor's average.

A finding counts against the dealer of its round (``rounds.dealer_id``); table-level
findings (no round) against no dealer. The floor average is over the tables chosen."""

from __future__ import annotations

from tablewatch.dashboards import filters
from tablewatch.dashboards.panels import DashboardSpec, PanelSql

_ROUNDS = f"""
    SELECT table_id, round_id, start_event_id, ifNull(dealer_id, '') AS dealer_id
    FROM rounds FINAL
    WHERE $__timeFilter_ms(start_ts) AND {filters.tables()}"""
_FINDINGS = f"""
    SELECT table_id, round_id, start_event_id, check
    FROM findings FINAL
    WHERE round_id != '' AND $__timeFilter_ms(ifNull(ts, judged_at)) AND {filters.tables()}"""

ERRORS_PER_100_ROUNDS_BY_DEALER_AND_CHECK = PanelSql(
    name="errors_per_100_rounds_by_dealer_and_check",
    title="Errors per 100 rounds, by dealer and check code, and the floor's",
    kind="table",
    width=24,
    height=10,
    columns=("dealer_id", "check", "findings", "rounds", "per_100_rounds", "floor_per_100_rounds"),
    sql=f"""
WITH r AS ({_ROUNDS}
), f AS ({_FINDINGS}
), dealt AS (SELECT dealer_id, count() AS rounds FROM r GROUP BY dealer_id
), floor AS (SELECT count() AS rounds FROM r
)
SELECT e.dealer_id AS dealer_id, e.check AS check, e.findings AS findings,
       d.rounds AS rounds, round(100 * e.findings / d.rounds, 2) AS per_100_rounds,
       round(100 * c.findings / (SELECT rounds FROM floor), 2) AS floor_per_100_rounds
FROM
(
    SELECT r.dealer_id AS dealer_id, f.check AS check, count() AS findings
    FROM f INNER JOIN r ON f.table_id = r.table_id AND f.round_id = r.round_id
                       AND f.start_event_id = r.start_event_id
    GROUP BY dealer_id, check
) AS e
INNER JOIN dealt AS d ON d.dealer_id = e.dealer_id
INNER JOIN
(
    SELECT f.check AS check, count() AS findings
    FROM f INNER JOIN r ON f.table_id = r.table_id AND f.round_id = r.round_id
                       AND f.start_event_id = r.start_event_id
    GROUP BY check
) AS c ON c.check = e.check
WHERE {filters.dealers("e.dealer_id")}
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
WITH r AS ({_ROUNDS}
), f AS ({_FINDINGS}
), found AS
(
    SELECT r.dealer_id AS dealer_id, count() AS findings
    FROM f INNER JOIN r ON f.table_id = r.table_id AND f.round_id = r.round_id
                       AND f.start_event_id = r.start_event_id
    GROUP BY dealer_id
)
SELECT d.dealer_id AS dealer_id, d.rounds AS rounds, ifNull(x.findings, 0) AS findings,
       round(100 * ifNull(x.findings, 0) / d.rounds, 2) AS per_100_rounds,
       round(100 * (SELECT sum(findings) FROM found) / (SELECT count() FROM r), 2)
           AS floor_per_100_rounds
FROM (SELECT dealer_id, count() AS rounds FROM r GROUP BY dealer_id) AS d
LEFT JOIN found AS x ON x.dealer_id = d.dealer_id
WHERE {filters.dealers("d.dealer_id")}
ORDER BY per_100_rounds DESC, dealer_id
""",
)

DASHBOARD = DashboardSpec(
    uid="tablewatch-dealers",
    title="TableWatch: dealers",
    description="Errors per 100 rounds by check code, against the floor average.",
    default_from="now-7d",
    refresh="5m",
    panels=(ERRORS_PER_100_ROUNDS_BY_DEALER, ERRORS_PER_100_ROUNDS_BY_DEALER_AND_CHECK),
)
