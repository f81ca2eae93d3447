"""``tablewatch dashboards publish``: the dashboards into a running Grafana, by its HTTP API.

The folder (``GET /api/folders/{uid}``, created by ``POST /api/folders`` when missing),
then each dashboard by ``POST /api/dashboards/db`` with its stable uid, into the
folder, ``overwrite: true`` and a version message: published again, a dashboard gets a
new version under the same uid and URL. Needs a service account token (Editor on the
folder); the datasource itself is provisioned (``dashboards build``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from grafana_client.api import GrafanaApi
from grafana_client.client import GrafanaClientError

from tablewatch.dashboards.catalog import DASHBOARDS
from tablewatch.dashboards.panels import DashboardSpec
from tablewatch.dashboards.provisioning import FOLDER_TITLE, FOLDER_UID
from tablewatch.dashboards.render import Settings, dashboard_json


@dataclass(frozen=True, slots=True)
class Published:
    uid: str
    title: str
    version: int | None
    url: str


def publish(
    url: str,
    token: str,
    *,
    message: str,
    settings: Settings | None = None,
    folder_uid: str = FOLDER_UID,
    folder_title: str = FOLDER_TITLE,
    specs: Sequence[DashboardSpec] = DASHBOARDS,
    timeout: float = 10.0,
) -> list[Published]:
    api = GrafanaApi.from_url(url, credential=token, timeout=timeout)
    try:
        api.folder.get_folder(folder_uid)
    except GrafanaClientError as exc:
        if exc.status_code != 404:
            raise
        api.folder.create_folder(folder_title, uid=folder_uid)
    out = []
    for spec in specs:
        body = dashboard_json(spec, settings)
        body.pop("id", None)
        answer = api.dashboard.update_dashboard(
            {"dashboard": body, "folderUid": folder_uid, "overwrite": True, "message": message}
        )
        version = answer.get("version") if isinstance(answer, dict) else None
        link = answer.get("url", "") if isinstance(answer, dict) else ""
        out.append(
            Published(
                spec.uid, spec.title, int(version) if version is not None else None, str(link)
            )
        )
    return out
