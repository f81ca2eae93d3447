"""Dashboards as the SDK's models, then JSON: panels placed, typed and linked.

Every query and variable uses the provisioned ClickHouse datasource (its uid, in
:class:`Settings`); rows with a table and a round link to the auditor's round page
``{rounds_url}/rounds/{table_id}/{round_id}``, rows with a finding to its case page
``{rounds_url}/cases/{finding_id}``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from grafana_foundation_sdk.builders import bargauge, stat, timeseries
from grafana_foundation_sdk.builders import dashboard as dash
from grafana_foundation_sdk.builders import table as table_panel
from grafana_foundation_sdk.cog import builder as cogbuilder
from grafana_foundation_sdk.cog.encoder import JSONEncoder
from grafana_foundation_sdk.models import dashboard as model

from tablewatch.dashboards.clickhouse_query import PLUGIN_TYPE, ClickHouseQueryBuilder, register
from tablewatch.dashboards.layout import place
from tablewatch.dashboards.panels import DashboardSpec, PanelSql
from tablewatch.dashboards.variables import ALL, VARIABLES

DATASOURCE_UID = "tablewatch-clickhouse"
DEFAULT_ROUNDS_URL = "http://127.0.0.1:8080"


@dataclass(frozen=True, slots=True)
class Settings:
    datasource_uid: str = DATASOURCE_UID
    rounds_url: str = DEFAULT_ROUNDS_URL  # where the auditor API serves /rounds/...

    @property
    def datasource(self) -> model.DataSourceRef:
        return model.DataSourceRef(type_val=PLUGIN_TYPE, uid=self.datasource_uid)

    def round_link(self) -> str:
        base = self.rounds_url.rstrip("/")
        # percent-encoded, '/' as %2F: an id holding '/' stays one segment (tablewatch/links.py)
        return (
            base + "/rounds/${__data.fields.table_id:percentencode}"
            "/${__data.fields.round_id:percentencode}"
        )

    def case_link(self) -> str:
        """The case page of the row's finding (``/cases/{finding_id}``, one segment)."""
        return self.rounds_url.rstrip("/") + "/cases/${__data.fields.finding_id:percentencode}"


def _panel_builder(panel: PanelSql) -> Any:
    if panel.kind == "timeseries":
        return timeseries.Panel()
    if panel.kind == "stat":
        return stat.Panel()
    if panel.kind == "bargauge":
        return bargauge.Panel()
    return table_panel.Panel()


def panel_model(panel: PanelSql, panel_id: int, box: tuple[int, int, int, int], s: Settings) -> Any:
    x, y, w, h = box
    query = (
        ClickHouseQueryBuilder()
        .ref_id("A")
        .datasource(s.datasource)
        .raw_sql(panel.sql.strip())
        .format(panel.format)
    )
    built = (
        _panel_builder(panel)
        .id(panel_id)
        .title(panel.title)
        .datasource(s.datasource)
        .with_target(query)
        .grid_pos(model.GridPos(h=h, w=w, x=x, y=y))
    )
    if panel.description:
        built = built.description(panel.description)
    if panel.unit:
        built = built.unit(panel.unit)
    links = []
    if panel.round_links:
        links.append(dash.DashboardLink("Open the round").url(s.round_link()).target_blank(True))
    if panel.case_links:
        links.append(dash.DashboardLink("Open the case").url(s.case_link()).target_blank(True))
    if links:
        built = built.data_links(links)
    return built


def variable_builders(s: Settings) -> list[cogbuilder.Builder[model.VariableModel]]:
    out: list[cogbuilder.Builder[model.VariableModel]] = []
    for v in VARIABLES:
        out.append(
            dash.QueryVariable(v.name)
            .label(v.label)
            .datasource(s.datasource)
            .query(v.sql)
            .multi(True)
            .include_all(True)
            .current(model.VariableOption(selected=True, text=["All"], value=[ALL]))
            .refresh(
                model.VariableRefresh.ON_TIME_RANGE_CHANGED
                if v.refresh_on_time_range
                else model.VariableRefresh.ON_DASHBOARD_LOAD
            )
            .sort(model.VariableSort.ALPHABETICAL_ASC)
        )
    return out


def dashboard_model(spec: DashboardSpec, s: Settings | None = None) -> model.Dashboard:
    settings = s or Settings()
    builder = (
        dash.Dashboard(spec.title)
        .uid(spec.uid)
        .description(spec.description)
        .tags(list(spec.tags))
        .timezone("utc")
        .time(spec.default_from, "now")
        .refresh(spec.refresh)
        .editable()
        .variables(variable_builders(settings))
    )
    for number, (panel, box) in enumerate(zip(spec.panels, place(spec.panels), strict=True), 1):
        builder = builder.with_panel(panel_model(panel, number, box, settings))
    return builder.build()


def dashboard_json(spec: DashboardSpec, s: Settings | None = None) -> dict[str, Any]:
    """The dashboard as Grafana stores it (a JSON object)."""
    text = json.dumps(dashboard_model(spec, s), cls=JSONEncoder, sort_keys=True)
    data: dict[str, Any] = json.loads(text)
    return data


def read_back(data: dict[str, Any]) -> model.Dashboard:
    """A dashboard's JSON read into the SDK's models (the ClickHouse targets typed)."""
    register()
    return model.Dashboard.from_json(data)
