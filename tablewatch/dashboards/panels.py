"""What a dashboard is made of: panels (each with the SQL that answers it) and their order.

A :class:`PanelSql` names what the panel answers (``name``), holds its SQL once, the
columns the panel reads from the result, how it is drawn and how wide it is; a
:class:`DashboardSpec` lists its panels in reading order (``layout.place`` puts them on
Grafana's 24-column grid). The SQL uses the ClickHouse plugin's macros
(``$__timeFilter``, ``$__timeInterval``, ``$__conditionalAll``, ...: :mod:`.macros`)
and the dashboard variables (:mod:`.variables`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from tablewatch.dashboards.clickhouse_query import Format

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
