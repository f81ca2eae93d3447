"""Every dashboard, in the order the folder lists them."""

from __future__ import annotations

from tablewatch.dashboards import dealers, floor, hold, jackpots, patterns, procedures, table
from tablewatch.dashboards.panels import DashboardSpec

DASHBOARDS: tuple[DashboardSpec, ...] = (
    floor.DASHBOARD,
    table.DASHBOARD,
    jackpots.DASHBOARD,
    procedures.DASHBOARD,
    dealers.DASHBOARD,
    hold.DASHBOARD,
    patterns.DASHBOARD,
)


def by_uid(uid: str) -> DashboardSpec:
    return next(d for d in DASHBOARDS if d.uid == uid)
