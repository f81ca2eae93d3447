"""The query of the official ClickHouse plugin (``grafana-clickhouse-datasource`` 4.x).

The SDK ships no ClickHouse query type. :class:`ClickHouseQuery` is the target a panel
of that plugin stores in its SQL editor (``editorType: sql``): ``refId``,
``datasource {type, uid}``, ``rawSql``, ``format`` (the plugin's numeric enum:
0 time series, 1 table, 2 logs, 3 traces, 4 auto), ``queryType`` (``table``,
``timeSeries``, ``logs``, ``traces``) and ``pluginVersion``. :func:`register` makes the
SDK's runtime read such targets back into it (``Dashboard.from_json``) instead of an
untyped bag.
"""

from __future__ import annotations

from enum import IntEnum
from typing import Any, Self

from grafana_foundation_sdk.cog import builder as cogbuilder
from grafana_foundation_sdk.cog import runtime as cogruntime
from grafana_foundation_sdk.cog import variants as cogvariants
from grafana_foundation_sdk.models.dashboard import DataSourceRef

PLUGIN_TYPE = "grafana-clickhouse-datasource"
PLUGIN_VERSION = "4.10.1"


class Format(IntEnum):
    TIME_SERIES = 0
    TABLE = 1
    LOGS = 2
    TRACES = 3
    AUTO = 4


QUERY_TYPE_OF_FORMAT = {
    Format.TIME_SERIES: "timeSeries",
    Format.TABLE: "table",
    Format.LOGS: "logs",
    Format.TRACES: "traces",
    Format.AUTO: "table",
}


class ClickHouseQuery(cogvariants.Dataquery):
    """One SQL target of the ClickHouse plugin."""

    def __init__(
        self,
        ref_id: str = "A",
        datasource: DataSourceRef | None = None,
        raw_sql: str = "",
        format_val: Format = Format.TABLE,
        query_type: str | None = None,
        editor_type: str = "sql",
        plugin_version: str = PLUGIN_VERSION,
        hide: bool | None = None,
    ) -> None:
        self.ref_id = ref_id
        self.datasource = datasource
        self.raw_sql = raw_sql
        self.format_val = format_val
        self.query_type = query_type or QUERY_TYPE_OF_FORMAT[format_val]
        self.editor_type = editor_type
        self.plugin_version = plugin_version
        self.hide = hide

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "refId": self.ref_id,
            "editorType": self.editor_type,
            "rawSql": self.raw_sql,
            "format": int(self.format_val),
            "queryType": self.query_type,
            "pluginVersion": self.plugin_version,
        }
        if self.datasource is not None:
            out["datasource"] = self.datasource.to_json()
        if self.hide is not None:
            out["hide"] = self.hide
        return out

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Self:
        source = data.get("datasource")
        return cls(
            ref_id=str(data.get("refId", "A")),
            datasource=DataSourceRef.from_json(source) if isinstance(source, dict) else None,
            raw_sql=str(data.get("rawSql", "")),
            format_val=Format(int(data.get("format", Format.TABLE))),
            query_type=data.get("queryType"),
            editor_type=str(data.get("editorType", "sql")),
            plugin_version=str(data.get("pluginVersion", PLUGIN_VERSION)),
            hide=data.get("hide"),
        )


class ClickHouseQueryBuilder(cogbuilder.Builder[ClickHouseQuery]):
    """The SDK's builder style for :class:`ClickHouseQuery`."""

    def __init__(self) -> None:
        self._internal = ClickHouseQuery()

    def build(self) -> ClickHouseQuery:
        return self._internal

    def ref_id(self, ref_id: str) -> Self:
        self._internal.ref_id = ref_id
        return self

    def datasource(self, datasource: DataSourceRef) -> Self:
        self._internal.datasource = datasource
        return self

    def raw_sql(self, raw_sql: str) -> Self:
        self._internal.raw_sql = raw_sql
        return self

    def format(self, format_val: Format) -> Self:
        self._internal.format_val = format_val
        self._internal.query_type = QUERY_TYPE_OF_FORMAT[format_val]
        return self


def register() -> None:
    """Register the SDK's own plugins and this query type with the SDK's runtime (idempotent)."""
    from grafana_foundation_sdk.cog.plugins import register_default_plugins

    register_default_plugins()
    cogruntime.register_dataquery_variant(
        cogruntime.DataqueryConfig(identifier=PLUGIN_TYPE, from_json_hook=ClickHouseQuery.from_json)
    )
