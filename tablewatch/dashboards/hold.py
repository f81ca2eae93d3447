"""Hold: actual hold against the theoretical edge, with a band of ±3 standard errors.

Actual hold of a wager = what the house won / the units staked (``hold_by_round``: the
bets each game's descriptor counts in the wager, per unit of its unit bet, its
``hold``; a side bet per its stake). Its theoretical value is the
edge of the table's pay table (``table_paytables``, ``theoretical``); its standard
error, with hands of unit stakes ``u_i``, is ``std_dev * sqrt(sum u_i^2) / sum u_i``
(hands taken as independent). A hold outside the band is worth a look: a mis-set pay
table, chips walking, a dealer paying wrong.
"""

from __future__ import annotations

from tablewatch.dashboards import filters
from tablewatch.dashboards.panels import DashboardSpec, PanelSql, with_freshness

BAND_SE = 3

_BANDED = f"""
    t.edge AS theoretical_edge,
    t.std_dev * sqrt(h.unit_squares) / h.units AS standard_error,
    theoretical_edge - {BAND_SE} * standard_error AS band_low,
    theoretical_edge + {BAND_SE} * standard_error AS band_high,
    h.house_win / h.units AS actual_hold,
    actual_hold >= band_low AND actual_hold <= band_high AS inside_band"""

HOLD_BY_TABLE_AND_WAGER = PanelSql(
    name="hold_by_table_and_wager",
    title="Hold by table and wager, against the theoretical edge ±3 standard errors",
    kind="table",
    width=24,
    height=10,
    unit="percentunit",
    columns=(
        "table_id",
        "game",
        "wager",
        "paytable",
        "hands",
        "units",
        "theoretical_edge",
        "standard_error",
        "band_low",
        "band_high",
        "actual_hold",
        "inside_band",
    ),
    sql=f"""
SELECT h.table_id AS table_id, h.game AS game, h.wager AS wager, p.paytable AS paytable,
       h.hands AS hands, h.units / 100 AS units, {_BANDED}
FROM
(
    SELECT table_id, game, wager, sum(hands) AS hands, sum(units) AS units,
           sum(unit_squares) AS unit_squares, sum(house_win) AS house_win
    FROM hold_by_round FINAL
    WHERE $__timeFilter_ms(start_ts) AND {filters.tables()}
    GROUP BY table_id, game, wager
    HAVING units > 0
) AS h
LEFT JOIN table_paytables_v AS p ON p.table_id = h.table_id AND p.wager = h.wager
LEFT JOIN theoretical_v AS t ON t.game = h.game AND t.wager = h.wager AND t.paytable = p.paytable
ORDER BY inside_band, table_id, wager
""",
)

HOLD_BY_WAGER = PanelSql(
    name="hold_by_wager",
    title="Hold by wager and pay table, the tables chosen together",
    kind="table",
    width=24,
    unit="percentunit",
    columns=(
        "game",
        "wager",
        "paytable",
        "tables",
        "hands",
        "units",
        "theoretical_edge",
        "standard_error",
        "band_low",
        "band_high",
        "actual_hold",
        "inside_band",
    ),
    sql=f"""
SELECT h.game AS game, h.wager AS wager, h.paytable AS paytable, h.tables AS tables,
       h.hands AS hands, h.units / 100 AS units, {_BANDED}
FROM
(
    SELECT r.game AS game, r.wager AS wager, p.paytable AS paytable,
           uniqExact(r.table_id) AS tables, sum(r.hands) AS hands, sum(r.units) AS units,
           sum(r.unit_squares) AS unit_squares, sum(r.house_win) AS house_win
    FROM
    (
        SELECT table_id, game, wager, sum(hands) AS hands, sum(units) AS units,
               sum(unit_squares) AS unit_squares, sum(house_win) AS house_win
        FROM hold_by_round FINAL
        WHERE $__timeFilter_ms(start_ts) AND {filters.tables()}
        GROUP BY table_id, game, wager
    ) AS r
    LEFT JOIN table_paytables_v AS p ON p.table_id = r.table_id AND p.wager = r.wager
    GROUP BY game, wager, paytable
    HAVING units > 0
) AS h
LEFT JOIN theoretical_v AS t ON t.game = h.game AND t.wager = h.wager AND t.paytable = h.paytable
ORDER BY game, wager, paytable
""",
)

DASHBOARD = with_freshness(
    DashboardSpec(
        uid="tablewatch-hold",
        title="TableWatch: hold",
        description="Actual hold per table and wager against the theoretical edge, "
        "±3 standard errors.",
        default_from="now-30d",
        refresh="5m",
        panels=(HOLD_BY_TABLE_AND_WAGER, HOLD_BY_WAGER),
    )
)
