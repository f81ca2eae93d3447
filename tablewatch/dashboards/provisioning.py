"""``tablewatch dashboards build --out DIR``: what a Grafana container mounts.

::

    DIR/dashboards/<uid>.json                       the dashboards (mount at DASHBOARDS_PATH)
    DIR/provisioning/datasources/tablewatch.yaml    the ClickHouse datasource
    DIR/provisioning/dashboards/tablewatch.yaml     the provider: DASHBOARDS_PATH, into the folder

(mount ``DIR/provisioning`` at ``/etc/grafana/provisioning``). The datasource's
password is not in any file: Grafana reads it from the environment variable named by
``password_env`` when it provisions (``$__env{...}``). ``build`` runs :data:`WRITERS` in
order, each writing its files and returning their paths: another part adds its own
(alert rules, say) with :func:`add_writer`.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from tablewatch.dashboards.catalog import DASHBOARDS
from tablewatch.dashboards.clickhouse_query import PLUGIN_TYPE
from tablewatch.dashboards.render import (
    DATASOURCE_UID,
    DEFAULT_ROUNDS_URL,
    Settings,
    dashboard_json,
)

FOLDER_TITLE = "TableWatch"
FOLDER_UID = "tablewatch"
DASHBOARDS_PATH = "/var/lib/grafana/dashboards/tablewatch"
PASSWORD_ENV = "TABLEWATCH_GRAFANA_CLICKHOUSE_PASSWORD"


@dataclass(frozen=True, slots=True)
class BuildOptions:
    host: str = "clickhouse"
    port: int = 8123
    protocol: str = "http"  # http or native (9000)
    secure: bool = False
    username: str = "tablewatch_grafana"
    database: str = "default"
    password_env: str = PASSWORD_ENV
    datasource_uid: str = DATASOURCE_UID
    rounds_url: str = DEFAULT_ROUNDS_URL
    folder_title: str = FOLDER_TITLE
    folder_uid: str = FOLDER_UID
    dashboards_path: str = DASHBOARDS_PATH
    extra: dict[str, str] = field(default_factory=dict)  # options of writers added later

    @property
    def settings(self) -> Settings:
        return Settings(datasource_uid=self.datasource_uid, rounds_url=self.rounds_url)


Writer = Callable[[Path, BuildOptions], list[Path]]


def datasource_document(o: BuildOptions) -> dict[str, object]:
    return {
        "apiVersion": 1,
        "datasources": [
            {
                "name": "TableWatch ClickHouse",
                "type": PLUGIN_TYPE,
                "uid": o.datasource_uid,
                "access": "proxy",
                "editable": False,
                "jsonData": {
                    "host": o.host,
                    "port": o.port,
                    "protocol": o.protocol,
                    "secure": o.secure,
                    "username": o.username,
                    "defaultDatabase": o.database,
                },
                "secureJsonData": {"password": f"$__env{{{o.password_env}}}"},
            }
        ],
    }


def provider_document(o: BuildOptions) -> dict[str, object]:
    return {
        "apiVersion": 1,
        "providers": [
            {
                "name": "tablewatch",
                "orgId": 1,
                "folder": o.folder_title,
                "folderUid": o.folder_uid,
                "type": "file",
                "disableDeletion": False,
                "allowUiUpdates": False,
                "updateIntervalSeconds": 60,
                "options": {"path": o.dashboards_path, "foldersFromFilesStructure": False},
            }
        ],
    }


def _write_yaml(path: Path, document: dict[str, object]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(yaml.safe_dump(document, sort_keys=False), encoding="utf-8")
    return path


def write_datasource(out: Path, o: BuildOptions) -> list[Path]:
    path = out / "provisioning" / "datasources" / "tablewatch.yaml"
    return [_write_yaml(path, datasource_document(o))]


def write_dashboard_provider(out: Path, o: BuildOptions) -> list[Path]:
    path = out / "provisioning" / "dashboards" / "tablewatch.yaml"
    return [_write_yaml(path, provider_document(o))]


def write_dashboards(out: Path, o: BuildOptions) -> list[Path]:
    folder = out / "dashboards"
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for spec in DASHBOARDS:
        path = folder / f"{spec.uid}.json"
        text = json.dumps(dashboard_json(spec, o.settings), indent=2, sort_keys=True)
        path.write_text(text + "\n", encoding="utf-8")
        paths.append(path)
    return paths


WRITERS: list[Writer] = [write_datasource, write_dashboard_provider, write_dashboards]


def add_writer(writer: Writer) -> None:
    """Another part's files in every build (after the dashboards'); added once."""
    if writer not in WRITERS:
        WRITERS.append(writer)


def build(out: Path, options: BuildOptions | None = None) -> list[Path]:
    """Every writer's files under ``out``; their paths."""
    o = options or BuildOptions()
    paths: list[Path] = []
    for writer in WRITERS:
        paths.extend(writer(out, o))
    return paths
