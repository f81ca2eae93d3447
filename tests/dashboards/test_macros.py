"""The plugin's macros and Grafana's variables expanded as Grafana would (expected strings
written out by hand from the plugin's pkg/macros and the frontend's conditionalAll)."""

from __future__ import annotations

import pytest

from tablewatch.dashboards.macros import MacroError, Selection, TimeRange, expand

NAMES = frozenset({"table", "pit", "dealer"})
# 2026-11-29T18:00:00.000Z .. 2026-11-29T20:00:00.500Z
RANGE = TimeRange(1_795_975_200_000, 1_795_982_400_500)


def test_time_macros() -> None:
    sql = (
        "SELECT $__timeInterval(ts), $__timeInterval_ms(ts), $__interval_s FROM t"
        " WHERE $__timeFilter(ts) AND $__timeFilter_ms(ifNull(ts, j)) AND $__dateFilter(d)"
        " AND a >= $__fromTime AND a <= $__toTime AND b >= $__fromTime_ms AND b <= $__toTime_ms"
    )
    # 2 h 0.5 s over 1000 points: 7,200.5 ms, rounded up to Grafana's 10 s
    assert expand(sql, RANGE, Selection(), NAMES) == (
        "SELECT toStartOfInterval(toDateTime(ts), INTERVAL 10 second),"
        " toStartOfInterval(toDateTime64(ts, 3), INTERVAL 10000 millisecond), 10 FROM t"
        " WHERE ts >= toDateTime(1795975200) AND ts <= toDateTime(1795982400)"
        " AND ifNull(ts, j) >= fromUnixTimestamp64Milli(1795975200000)"
        " AND ifNull(ts, j) <= fromUnixTimestamp64Milli(1795982400500)"
        " AND d >= toDate('2026-11-29') AND d <= toDate('2026-11-29')"
        " AND a >= toDateTime(1795975200) AND a <= toDateTime(1795982400)"
        " AND b >= fromUnixTimestamp64Milli(1795975200000)"
        " AND b <= fromUnixTimestamp64Milli(1795982400500)"
    )


def test_conditional_all_and_variables() -> None:
    sql = (
        "SELECT 1 WHERE $__conditionalAll(t IN (${table:singlequote}), $table)"
        " AND $__conditionalAll(p IN (SELECT x FROM y WHERE z IN (${pit:singlequote})), $pit)"
    )
    assert expand(sql, RANGE, Selection(), NAMES) == "SELECT 1 WHERE 1=1 AND 1=1"
    chosen = Selection({"table": ["LIR-01", "FCP-'2"], "pit": ["$__all"]})
    assert expand(sql, RANGE, chosen, NAMES) == (
        "SELECT 1 WHERE t IN ('LIR-01','FCP-\\'2') AND 1=1"
    )
    assert expand("SELECT '${dealer}'", RANGE, Selection({"dealer": ["D1"]}), NAMES) == (
        "SELECT 'D1'"
    )


@pytest.mark.parametrize(
    ("sql", "word"),
    [
        ("SELECT $casino", "$casino is not defined"),
        ("SELECT $__conditionalAll(a = 1, $casino)", "names no dashboard variable"),
        ("SELECT $__timeFilter(a, b)", "takes one column"),
        ("SELECT $__timeFilter(a", "never closed"),
        ("SELECT $__unixEpochFilter(a)", "not expanded here"),
        ("SELECT ${table}", "options are not known"),
    ],
)
def test_what_cannot_be_expanded_is_named(sql: str, word: str) -> None:
    with pytest.raises(MacroError, match=word.replace("$", r"\$")):
        expand(sql, RANGE, Selection(), NAMES)
