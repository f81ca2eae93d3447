"""Jackpots and progressives: the meters, the hits, what was paid from where, the
validations missing. Read from ``procedure_events`` (meter readings and progressive
settlements) and ``findings``."""

from __future__ import annotations

from tablewatch.dashboards import filters
from tablewatch.dashboards.panels import DashboardSpec, PanelSql, with_freshness

PROGRESSIVE_METERS = PanelSql(
    name="progressive_meters",
    title="Progressive meters ($)",
    kind="timeseries",
    width=12,
    unit="currencyUSD",
    columns=("time", "table_id", "meter"),
    sql=f"""
SELECT $__timeInterval(ts) AS time, table_id, max(amount) / 100 AS meter
FROM procedure_events FINAL
WHERE type = 'meter' AND $__timeFilter_ms(ts) AND {filters.tables()}
GROUP BY time, table_id
ORDER BY time, table_id
""",
)

PAID_FROM_WHERE = PanelSql(
    name="paid_from_where",
    title="Progressive payouts by source",
    kind="table",
    width=12,
    unit="currencyUSD",
    columns=("paid_from", "hits", "paid"),
    sql=f"""
SELECT if(paid_from = '', '(not given)', toString(paid_from)) AS paid_from, count() AS hits,
       sum(ifNull(paid, 0)) / 100 AS paid
FROM procedure_events FINAL
WHERE type = 'settle' AND result = 'win' AND $__timeFilter_ms(ts) AND {filters.tables()}
GROUP BY paid_from
ORDER BY paid DESC
""",
)

JACKPOT_HITS = PanelSql(
    name="jackpot_hits",
    title="Progressive hits",
    kind="table",
    width=24,
    round_links=True,
    columns=(
        "time",
        "table_id",
        "round_id",
        "seat",
        "bet",
        "paid",
        "paid_from",
        "meter",
        "validated_by",
    ),
    sql=f"""
SELECT ts AS time, table_id, round_id, seat, bet, ifNull(paid, 0) / 100 AS paid, paid_from,
       meter / 100 AS meter, validated_by
FROM procedure_events FINAL
WHERE type = 'settle' AND result = 'win' AND $__timeFilter_ms(ts) AND {filters.tables()}
ORDER BY time DESC, table_id
LIMIT 500
""",
)

JACKPOT_VALIDATIONS_MISSING = PanelSql(
    name="jackpot_validations_missing",
    title="Jackpots not validated, or paid from the table inventory",
    kind="table",
    width=24,
    round_links=True,
    columns=("time", "table_id", "round_id", "start_event_id", "check", "actual", "message"),
    sql=f"""
SELECT ifNull(ts, judged_at) AS time, table_id, round_id, start_event_id, check,
       actual / 100 AS actual, message
FROM findings FINAL
WHERE check IN ('JACKPOT_NOT_VALIDATED', 'JACKPOT_PAID_FROM_INVENTORY')
  AND $__timeFilter_ms(ifNull(ts, judged_at)) AND {filters.tables()}
ORDER BY time DESC, table_id
LIMIT 500
""",
)

DASHBOARD = with_freshness(
    DashboardSpec(
        uid="tablewatch-jackpots",
        title="TableWatch: jackpots and progressives",
        description="Meters, hits, what was paid from where, validations missing.",
        default_from="now-7d",
        refresh="1m",
        panels=(PROGRESSIVE_METERS, PAID_FROM_WHERE, JACKPOT_HITS, JACKPOT_VALIDATIONS_MISSING),
    )
)
