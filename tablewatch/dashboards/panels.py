"""What a dashboard is made of: panels (each with the SQL that answers it) and their order.

A :class:`PanelSql` names what the panel answers (``name``), holds its SQL once, the
columns the panel reads from the result, how it is drawn and how wide it is; a
:class:`DashboardSpec` lists its panels in reading order (``layout.place`` puts them on
Grafana's 24-column grid). The SQL uses the ClickHouse plugin's macros
(``$__timeFilter``, ``$__timeInterval``, ``$__conditionalAll``, ...: :mod:`.macros`)
and the dashboard variables (:mod:`.variables`).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass, field
from typing import Literal

from tablewatch.dashboards.clickhouse_query import Format
from tablewatch.store.rollups import DEFAULT_SECONDS, ROLLUPS, WATERMARKS

PanelKind = Literal["stat", "timeseries", "table", "bargauge"]


@dataclass(frozen=True, slots=True)
class PanelSql:
    name: str  # what the panel answers, snake_case: the SQL's one name
    title: str
    sql: str
    columns: tuple[str, ...]  # what the panel reads from the result, in order
    kind: PanelKind = "table"
    width: int = 12
    height: int = 8
    unit: str | None = None
    description: str = ""
    round_links: bool = False  # rows carry table_id and round_id: each links to its round page
    case_links: bool = False  # rows carry finding_id: each links to its case page
    # the floor of the panel tests has findings of every code, jackpots, every procedure
    # event: its panels all return rows there, but for those named False here
    guaranteed_rows: bool = True

    @property
    def format(self) -> Format:
        return Format.TIME_SERIES if self.kind == "timeseries" else Format.TABLE


@dataclass(frozen=True, slots=True)
class DashboardSpec:
    uid: str  # stable: publish overwrites the dashboard of that uid
    title: str
    description: str
    panels: tuple[PanelSql, ...]
    default_from: str = "now-6h"  # the default time range, to now
    refresh: str = "30s"
    tags: tuple[str, ...] = field(default=("tablewatch",))

    def panel(self, name: str) -> PanelSql:
        return next(p for p in self.panels if p.name == name)


_ROLLUP = re.compile(rf"\b({'|'.join(ROLLUPS)})\b")


def rollups_read(panel: PanelSql) -> list[str]:
    """The rollups (tablewatch.store.rollups) the panel's SQL reads, in the order named."""
    return list(dict.fromkeys(_ROLLUP.findall(panel.sql)))


def with_freshness(spec: DashboardSpec, every_s: float = DEFAULT_SECONDS) -> DashboardSpec:
    """The dashboard with each panel that reads a rollup saying so in its description, and
    how fresh it is, and a last stat panel, "Rollups as of": the time up to which the
    rollups it reads hold what was stored (the oldest of their watermarks)."""
    read: list[str] = []
    panels: list[PanelSql] = []
    for panel in spec.panels:
        names = rollups_read(panel)
        read += names
        if names:
            note = (
                f"Read from the rollup{'s' if len(names) > 1 else ''} {', '.join(names)}, "
                f"refreshed every {every_s:g} s by the worker: what was stored since is "
                "counted at the next refresh (see 'Rollups as of')."
            )
            panel = dataclasses.replace(panel, description=f"{panel.description} {note}".strip())
        panels.append(panel)
    if not read:
        return spec
    listed = ", ".join(f"'{name}'" for name in dict.fromkeys(read))
    as_of = PanelSql(
        name=f"{spec.uid.removeprefix('tablewatch-')}_rollups_as_of",
        title="Rollups as of",
        kind="stat",
        width=6,
        height=4,
        unit="dateTimeFromNow",
        columns=("as_of",),
        description=f"The time up to which the rollups this dashboard reads ({listed}) hold "
        f"what was stored: the oldest of their watermarks ({WATERMARKS}). The worker "
        f"refreshes them every {every_s:g} s; a store written otherwise: tablewatch db "
        "refresh-rollups.",
        sql=f"""
SELECT toUnixTimestamp64Milli(min(w)) AS as_of
FROM (SELECT name, max(watermark) AS w FROM {WATERMARKS} WHERE name IN ({listed}) GROUP BY name)
""",
    )
    return dataclasses.replace(spec, panels=(*panels, as_of))
