"""The dashboards' JSON: read back into the SDK's models, ids unique, panels apart on the
grid, every datasource the provisioned one, every variable used defined; the files that
``tablewatch dashboards build`` writes."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from grafana_foundation_sdk.models import dashboard as model

from tablewatch.cli import main
from tablewatch.dashboards.catalog import DASHBOARDS
from tablewatch.dashboards.clickhouse_query import PLUGIN_TYPE, ClickHouseQuery, Format
from tablewatch.dashboards.layout import overlaps
from tablewatch.dashboards.macros import used_variables
from tablewatch.dashboards.panels import DashboardSpec
from tablewatch.dashboards.render import Settings, dashboard_json, read_back

UID = "provisioned-ch"
SETTINGS = Settings(datasource_uid=UID, rounds_url="https://audit.casino.example/")


def built(spec: DashboardSpec) -> dict[str, Any]:
    return dashboard_json(spec, SETTINGS)


def datasource_refs(node: object) -> list[dict[str, Any]]:
    """Every "datasource" object anywhere in the JSON."""
    found: list[dict[str, Any]] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "datasource" and isinstance(value, dict):
                found.append(value)
            found.extend(datasource_refs(value))
    elif isinstance(node, list):
        for item in node:
            found.extend(datasource_refs(item))
    return found


@pytest.mark.parametrize("spec", DASHBOARDS, ids=lambda s: s.uid)
def test_a_dashboard_reads_back_into_the_sdk_models(spec: DashboardSpec) -> None:
    data = built(spec)
    back = read_back(data)
    assert isinstance(back, model.Dashboard)
    assert back.uid == spec.uid and back.title == spec.title
    assert back.panels is not None and len(back.panels) == len(spec.panels)
    for panel, want in zip(back.panels, spec.panels, strict=True):
        assert isinstance(panel, model.Panel)
        assert panel.targets is not None and len(panel.targets) == 1
        target = panel.targets[0]
        assert isinstance(target, ClickHouseQuery)  # typed, not the SDK's unknown bag
        assert target.raw_sql == want.sql.strip()
        assert target.editor_type == "sql"
        assert target.format_val == (
            Format.TIME_SERIES if want.kind == "timeseries" else Format.TABLE
        )
    # and the models write the same targets, places and variables again (the SDK fills in
    # the panel types' default options on reading, so the options may differ)
    again = json.loads(json.dumps(back, default=lambda o: o.to_json(), sort_keys=True))
    for key in ("uid", "title", "time", "refresh", "templating"):
        assert again[key] == data[key], key
    for a, b in zip(again["panels"], data["panels"], strict=True):
        for key in ("id", "type", "title", "gridPos", "targets", "datasource"):
            assert a[key] == b[key], key


@pytest.mark.parametrize("spec", DASHBOARDS, ids=lambda s: s.uid)
def test_panel_ids_are_unique_and_panels_do_not_overlap(spec: DashboardSpec) -> None:
    panels = built(spec)["panels"]
    ids = [p["id"] for p in panels]
    assert len(ids) == len(set(ids))
    boxes = [
        (p["gridPos"]["x"], p["gridPos"]["y"], p["gridPos"]["w"], p["gridPos"]["h"]) for p in panels
    ]
    assert all(x >= 0 and w > 0 and x + w <= 24 and h > 0 for x, _, w, h in boxes)
    assert overlaps(boxes) == []


def test_the_overlap_check_sees_an_overlap() -> None:
    assert overlaps([(0, 0, 12, 8), (11, 7, 2, 2)]) == [((0, 0, 12, 8), (11, 7, 2, 2))]
    assert overlaps([(0, 0, 12, 8), (12, 0, 12, 8), (0, 8, 24, 1)]) == []


@pytest.mark.parametrize("spec", DASHBOARDS, ids=lambda s: s.uid)
def test_every_datasource_is_the_provisioned_one(spec: DashboardSpec) -> None:
    data = built(spec)
    refs = datasource_refs(data)
    # each panel, its target and each of the four variables
    assert len(refs) == 2 * len(spec.panels) + 4
    assert all(ref == {"type": PLUGIN_TYPE, "uid": UID} for ref in refs)


@pytest.mark.parametrize("spec", DASHBOARDS, ids=lambda s: s.uid)
def test_every_variable_the_sql_uses_is_defined(spec: DashboardSpec) -> None:
    data = built(spec)
    defined = {v["name"] for v in data["templating"]["list"]}
    assert defined == {"pit", "game", "table", "dealer"}
    texts = [t["rawSql"] for p in data["panels"] for t in p["targets"]]
    texts += [v["query"] for v in data["templating"]["list"]]
    for text in texts:
        assert used_variables(text) <= defined, text
    # the filters of the panels name them: none of the four is forgotten on the floor
    assert {"pit", "game", "table"} <= set().union(*(used_variables(t) for t in texts))


def test_the_variable_check_finds_an_undefined_variable() -> None:
    assert used_variables("SELECT 1 WHERE x IN (${casino:singlequote}) AND $__timeFilter(t)") == {
        "casino"
    }


def test_rows_with_a_round_link_to_the_auditor_round_page() -> None:
    floor = next(s for s in DASHBOARDS if s.uid == "tablewatch-floor")
    panel = next(p for p in built(floor)["panels"] if p["title"] == "Latest critical findings")
    links = panel["fieldConfig"]["defaults"]["links"]
    assert links[0]["url"] == (
        "https://audit.casino.example/rounds/${__data.fields.table_id:percentencode}"
        "/${__data.fields.round_id:percentencode}"
    )
    linked = [p.name for s in DASHBOARDS for p in s.panels if p.round_links]
    assert all(
        {"table_id", "round_id"} <= set(p.columns)
        for s in DASHBOARDS
        for p in s.panels
        if p.round_links
    )
    assert len(linked) >= 5


def test_pattern_rows_link_to_their_evidence_round_and_their_case() -> None:
    spec = next(s for s in DASHBOARDS if s.uid == "tablewatch-patterns")
    panel = next(p for p in built(spec)["panels"] if p["title"].startswith("Latest pattern"))
    links = panel["fieldConfig"]["defaults"]["links"]
    assert [(link["title"], link["url"]) for link in links] == [
        (
            "Open the round",
            "https://audit.casino.example/rounds/${__data.fields.table_id:percentencode}"
            "/${__data.fields.round_id:percentencode}",
        ),
        (
            "Open the case",
            "https://audit.casino.example/cases/${__data.fields.finding_id:percentencode}",
        ),
    ]
    cased = [p for s in DASHBOARDS for p in s.panels if p.case_links]
    assert cased and all("finding_id" in p.columns for p in cased)


def test_uids_and_panel_names_are_unique_and_stable() -> None:
    uids = [s.uid for s in DASHBOARDS]
    assert uids == [
        "tablewatch-floor", "tablewatch-table", "tablewatch-jackpots",
        "tablewatch-procedures", "tablewatch-dealers", "tablewatch-hold",
        "tablewatch-patterns",
    ]  # fmt: skip
    names = [p.name for s in DASHBOARDS for p in s.panels]
    assert len(names) == len(set(names))
    assert all(re.fullmatch(r"[a-z0-9_]+", n) for n in names)


def test_build_writes_the_dashboards_and_the_provisioning(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        main,
        ["dashboards", "build", "--out", str(tmp_path), "--host", "ch.internal", "--port", "8443",
         "--secure", "--username", "grafana_ro", "--database", "tw",
         "--password-env", "CH_GRAFANA_PASSWORD", "--rounds-url", "https://audit.example"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    source = yaml.safe_load((tmp_path / "provisioning/datasources/tablewatch.yaml").read_text())
    (ds,) = source["datasources"]
    assert ds["type"] == "grafana-clickhouse-datasource" and ds["uid"] == "tablewatch-clickhouse"
    assert ds["jsonData"] == {
        "host": "ch.internal", "port": 8443, "protocol": "http", "secure": True,
        "username": "grafana_ro", "defaultDatabase": "tw",
    }  # fmt: skip
    assert ds["secureJsonData"] == {"password": "$__env{CH_GRAFANA_PASSWORD}"}
    assert "password" not in json.dumps(ds["jsonData"])
    provider = yaml.safe_load((tmp_path / "provisioning/dashboards/tablewatch.yaml").read_text())
    (p,) = provider["providers"]
    assert (p["type"], p["folder"], p["folderUid"]) == ("file", "TableWatch", "tablewatch")
    files = sorted((tmp_path / "dashboards").glob("*.json"))
    assert [f.stem for f in files] == sorted(s.uid for s in DASHBOARDS)
    floor = json.loads((tmp_path / "dashboards/tablewatch-floor.json").read_text())
    assert read_back(floor).uid == "tablewatch-floor"
    assert all(r["uid"] == "tablewatch-clickhouse" for r in datasource_refs(floor))
    assert "https://audit.example/rounds/" in json.dumps(floor)
