"""Patterns: the findings no single round shows (``tablewatch.patterns``), over time, the
latest with their statistic, and by dealer and by table.

A pattern finding is a row of ``findings`` like any other (its check one of
:data:`~tablewatch.rules.checks.catalog.PATTERN_CHECKS`), on the round that weighs most
in its evidence, with no ``start_event_id`` (it is no part of that round's judgement). Its
message ends with ``(<statistic name> <statistic>, threshold <threshold>, false alarms
<rate>; <first ts> to <last ts>)`` (``PatternFinding.as_finding``): the statistic, the
threshold and the false-alarm rate are read from there. The dealer of a finding is the
dealer of its evidence round (of any judgement of it).
"""

from __future__ import annotations

from tablewatch.dashboards import filters
from tablewatch.dashboards.panels import DashboardSpec, PanelSql, with_freshness
from tablewatch.rules.checks.catalog import PATTERN_CHECKS

CODES = ", ".join(f"'{code}'" for code in PATTERN_CHECKS)  # codes are [A-Z_]: no quoting needed
_PATTERN = f"check IN ({CODES})"

# the message's tail as PatternFinding.as_finding writes it (a statistic's name may hold
# commas and parentheses: the numbers are read right before ", threshold" and after it)
_NUMBER = "(-?[0-9.]+|-?inf|nan)"
STATISTIC = f"toFloat64OrNull(extract(message, ' {_NUMBER}, threshold '))"
THRESHOLD = f"toFloat64OrNull(extract(message, ', threshold {_NUMBER}, false alarms '))"
FALSE_ALARMS = "extract(message, ', false alarms (.*); [^;]* to [^;]*[)]$')"

PATTERN_FINDINGS_OVER_TIME = PanelSql(
    name="pattern_findings_over_time",
    title="Pattern findings in each interval, by check",
    kind="timeseries",
    width=24,
    height=8,
    columns=("time", "check", "findings"),
    guaranteed_rows=False,
    sql=f"""
SELECT $__timeInterval(minute) AS time, check, toUInt64(uniqExactMerge(ids)) AS findings
FROM findings_by_minute
WHERE {_PATTERN} AND $__timeFilter(minute) AND {filters.tables()}
GROUP BY time, check
ORDER BY time, check
""",
)

LATEST_PATTERN_FINDINGS = PanelSql(
    name="latest_pattern_findings",
    title="Latest pattern findings: the statistic against its threshold",
    description="The unit (a player, a table:dealer:seat, a dealer, a table) is named first "
    "in the message. Each row links to its evidence round (the one that weighs most) and to "
    "its case.",
    kind="table",
    width=24,
    height=10,
    round_links=True,
    case_links=True,
    guaranteed_rows=False,
    columns=(
        "time",
        "check",
        "table_id",
        "round_id",
        "seat",
        "statistic",
        "threshold",
        "false_alarms",
        "message",
        "finding_id",
    ),
    sql=f"""
SELECT ifNull(ts, judged_at) AS time, check, table_id, round_id, seat,
       {STATISTIC} AS statistic, {THRESHOLD} AS threshold, {FALSE_ALARMS} AS false_alarms,
       message, finding_id
FROM findings FINAL
WHERE {_PATTERN} AND $__timeFilter_ms(ifNull(ts, judged_at)) AND {filters.tables()}
ORDER BY time DESC, table_id, finding_id
LIMIT 100
""",
)

PATTERN_FINDINGS_BY_DEALER = PanelSql(
    name="pattern_findings_by_dealer",
    title="Pattern findings by dealer (of the evidence round) and check",
    description="A finding counts against the dealer of the round that weighs most in its "
    "evidence; one with no evidence round, or whose round is not stored, against no dealer "
    "('').",
    kind="table",
    width=12,
    height=8,
    guaranteed_rows=False,
    columns=("dealer_id", "check", "findings"),
    sql=f"""
SELECT dealer_id, check, count() AS findings
FROM
(
    SELECT f.finding_id AS finding_id, f.check AS check, ifNull(r.dealer_id, '') AS dealer_id
    FROM
    (
        SELECT finding_id, table_id, round_id, check
        FROM findings FINAL
        WHERE {_PATTERN} AND $__timeFilter_ms(ifNull(ts, judged_at)) AND {filters.tables()}
    ) AS f
    LEFT JOIN
    (
        SELECT table_id, round_id, argMax(dealer_id, judged_at) AS dealer_id
        FROM rounds FINAL
        WHERE (table_id, round_id) IN (
            SELECT table_id, round_id FROM findings
            WHERE {_PATTERN} AND round_id != '' AND $__timeFilter_ms(ifNull(ts, judged_at))
        )
        GROUP BY table_id, round_id
    ) AS r ON r.table_id = f.table_id AND r.round_id = f.round_id
)
WHERE {filters.dealers()}
GROUP BY dealer_id, check
ORDER BY findings DESC, dealer_id, check
""",
)

PATTERN_FINDINGS_BY_TABLE = PanelSql(
    name="pattern_findings_by_table",
    title="Pattern findings by table and check",
    kind="table",
    width=12,
    height=8,
    guaranteed_rows=False,
    columns=("table_id", "check", "findings"),
    sql=f"""
SELECT table_id, check, toUInt64(uniqExactMerge(ids)) AS findings
FROM findings_by_minute
WHERE {_PATTERN} AND $__timeFilter(minute) AND {filters.tables()}
GROUP BY table_id, check
ORDER BY findings DESC, table_id, check
""",
)

DASHBOARD = with_freshness(
    DashboardSpec(
        uid="tablewatch-patterns",
        title="TableWatch: patterns",
        description="Patterns across rounds (advantage play, a dealer favouring a seat, a "
        "dealer's error rate, hold out of band, a meter's increments): over time, the latest "
        "with their statistic, by dealer and by table.",
        default_from="now-7d",
        refresh="1m",
        panels=(
            PATTERN_FINDINGS_OVER_TIME,
            LATEST_PATTERN_FINDINGS,
            PATTERN_FINDINGS_BY_DEALER,
            PATTERN_FINDINGS_BY_TABLE,
        ),
    )
)
