"""The floor: the surveillance wall. Which table needs eyes now.

Read from the rollups (``findings_by_minute``, ``rounds_by_hour``, ``table_activity``)
and, for the latest critical findings, from ``findings`` in the time range.
"Open" findings are those judged in the time range: the store records no
acknowledgement.
"""

from __future__ import annotations

from tablewatch.dashboards import filters
from tablewatch.dashboards.panels import DashboardSpec, PanelSql, with_freshness

OPEN_FINDINGS_BY_SEVERITY = PanelSql(
    name="open_findings_by_severity",
    title="Open findings by severity",
    kind="stat",
    width=8,
    height=6,
    columns=("severity", "findings"),
    sql=f"""
SELECT severity, toUInt64(uniqExactMerge(ids)) AS findings
FROM findings_by_minute
WHERE $__timeFilter(minute) AND {filters.tables()}
GROUP BY severity
ORDER BY indexOf(['critical', 'high', 'medium', 'low'], severity), severity
""",
)

FINDINGS_PER_MINUTE = PanelSql(
    name="findings_per_minute",
    title="Findings per minute",
    kind="timeseries",
    width=16,
    height=6,
    columns=("time", "severity", "findings"),
    sql=f"""
SELECT $__timeInterval(minute) AS time, severity,
       toUInt64(uniqExactMerge(ids)) / greatest($__interval_s / 60, 1) AS findings
FROM findings_by_minute
WHERE $__timeFilter(minute) AND {filters.tables()}
GROUP BY time, severity
ORDER BY time, severity
""",
)

TABLE_TILES = PanelSql(
    name="table_tiles",
    title="Tables: rounds per hour, open findings, seconds since the last event",
    description="A controller gone silent shows as a growing age of its last event; "
    "none in 31 days: no age.",
    kind="table",
    width=24,
    height=10,
    columns=(
        "table_id",
        "game",
        "pit",
        "rounds_per_hour",
        "open_findings",
        "seconds_since_last_event",
    ),
    sql=f"""
SELECT d.table_id AS table_id, d.game AS game, d.pit AS pit,
       round(ifNull(r.rounds, 0) * 3600
             / greatest(dateDiff('second', $__fromTime, $__toTime), 60), 1) AS rounds_per_hour,
       ifNull(f.findings, 0) AS open_findings,
       if(a.table_id = '', NULL, dateDiff('second', a.last_event_ts, now64(3)))
           AS seconds_since_last_event
FROM tables_v AS d
LEFT JOIN
(
    SELECT table_id, toUInt64(uniqExactMerge(rounds)) AS rounds
    FROM rounds_by_hour WHERE $__timeFilter(hour) GROUP BY table_id
) AS r ON r.table_id = d.table_id
LEFT JOIN
(
    SELECT table_id, toUInt64(uniqExactMerge(ids)) AS findings
    FROM findings_by_minute WHERE $__timeFilter(minute) GROUP BY table_id
) AS f ON f.table_id = d.table_id
LEFT JOIN
(
    SELECT table_id, max(last_event_ts) AS last_event_ts FROM table_activity
    WHERE hour >= toStartOfHour(now()) - INTERVAL 31 DAY GROUP BY table_id
) AS a ON a.table_id = d.table_id
WHERE {filters.tables("d.table_id")}
ORDER BY open_findings DESC, table_id
""",
)

LATEST_CRITICAL_FINDINGS = PanelSql(
    name="latest_critical_findings",
    title="Latest critical findings",
    description="Each row links to its round.",
    kind="table",
    width=24,
    height=10,
    round_links=True,
    columns=("time", "table_id", "round_id", "start_event_id", "check", "message"),
    sql=f"""
SELECT ifNull(ts, judged_at) AS time, table_id, round_id, start_event_id, check, message
FROM findings FINAL
WHERE severity = 'critical' AND $__timeFilter_ms(ifNull(ts, judged_at))
  AND {filters.tables()}
ORDER BY time DESC, table_id, round_id
LIMIT 100
""",
)

DASHBOARD = with_freshness(
    DashboardSpec(
        uid="tablewatch-floor",
        title="TableWatch: floor",
        description="The surveillance wall: open findings, findings per minute, every table, "
        "the latest critical findings.",
        default_from="now-6h",
        refresh="30s",
        panels=(
            OPEN_FINDINGS_BY_SEVERITY,
            FINDINGS_PER_MINUTE,
            TABLE_TILES,
            LATEST_CRITICAL_FINDINGS,
        ),
    )
)
