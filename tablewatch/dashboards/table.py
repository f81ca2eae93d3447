"""One table (or the tables chosen): its rounds, its payouts, the money its errors moved,
its findings and the dealers on duty. Read from the tables, time-filtered (their sorting
keys begin with table_id, start_ts)."""

from __future__ import annotations

from tablewatch.dashboards import filters
from tablewatch.dashboards.panels import DashboardSpec, PanelSql, with_freshness

ROUNDS_OVER_TIME = PanelSql(
    name="rounds_over_time",
    title="Rounds over time",
    kind="timeseries",
    width=12,
    columns=("time", "table_id", "rounds"),
    sql=f"""
SELECT $__timeInterval(start_ts) AS time, table_id, count() AS rounds
FROM rounds FINAL
WHERE $__timeFilter_ms(start_ts) AND {filters.tables()} AND {filters.dealers()}
GROUP BY time, table_id
ORDER BY time, table_id
""",
)

EXPECTED_VS_ACTUAL_PAYOUTS_BY_WAGER = PanelSql(
    name="expected_vs_actual_payouts_by_wager",
    title="Expected vs actual payouts by wager ($)",
    kind="table",
    width=12,
    unit="currencyUSD",
    columns=("bet", "lines", "staked", "expected_payout", "actual_payout", "difference"),
    sql=f"""
SELECT bet, count() AS lines, sum(stake) / 100 AS staked,
       sum(ifNull(expected_paid, 0)) / 100 AS expected_payout,
       sum(ifNull(actual_paid, 0)) / 100 AS actual_payout,
       (sum(ifNull(actual_paid, 0)) - sum(ifNull(expected_paid, 0))) / 100 AS difference
FROM settlements FINAL
WHERE $__timeFilter_ms(start_ts) AND {filters.tables()}
GROUP BY bet
ORDER BY bet
""",
)

MONEY_MOVED_BY_ERRORS = PanelSql(
    name="money_moved_by_errors",
    title="Money the errors moved ($): over- and under-payments",
    kind="table",
    width=12,
    unit="currencyUSD",
    columns=("table_id", "check", "findings", "overpaid", "underpaid"),
    sql=f"""
SELECT table_id, check, count() AS findings,
       sumIf(actual - expected, actual > expected) / 100 AS overpaid,
       sumIf(expected - actual, expected > actual) / 100 AS underpaid
FROM findings FINAL
WHERE expected IS NOT NULL AND actual IS NOT NULL
  AND $__timeFilter_ms(ifNull(ts, judged_at)) AND {filters.tables()}
GROUP BY table_id, check
ORDER BY overpaid + underpaid DESC, table_id, check
""",
)

TABLE_FINDINGS = PanelSql(
    name="table_findings",
    title="Findings",
    kind="table",
    width=12,
    round_links=True,
    columns=("time", "table_id", "round_id", "start_event_id", "check", "severity", "message"),
    sql=f"""
SELECT ifNull(ts, judged_at) AS time, table_id, round_id, start_event_id, check, severity,
       message
FROM findings FINAL
WHERE $__timeFilter_ms(ifNull(ts, judged_at)) AND {filters.tables()}
ORDER BY time DESC, table_id, round_id
LIMIT 500
""",
)

DEALERS_ON_DUTY = PanelSql(
    name="dealers_on_duty",
    title="Dealers on duty",
    kind="table",
    width=24,
    height=7,
    columns=("table_id", "dealer_id", "first_round", "last_round", "rounds"),
    sql=f"""
SELECT table_id, ifNull(dealer_id, '') AS dealer_id, min(start_ts) AS first_round,
       max(end_ts) AS last_round, count() AS rounds
FROM rounds FINAL
WHERE $__timeFilter_ms(start_ts) AND {filters.tables()} AND {filters.dealers()}
GROUP BY table_id, dealer_id
ORDER BY last_round DESC, table_id
""",
)

DASHBOARD = with_freshness(
    DashboardSpec(
        uid="tablewatch-table",
        title="TableWatch: table",
        description="One table: rounds, payouts by wager, the money errors moved, findings, "
        "dealers on duty.",
        default_from="now-24h",
        refresh="1m",
        panels=(
            ROUNDS_OVER_TIME,
            EXPECTED_VS_ACTUAL_PAYOUTS_BY_WAGER,
            MONEY_MOVED_BY_ERRORS,
            TABLE_FINDINGS,
            DEALERS_ON_DUTY,
        ),
    )
)
