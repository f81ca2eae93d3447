"""``tablewatch dashboards publish`` against a local HTTP server that records each request
and answers as Grafana's HTTP API does (no Grafana server can run on these machines):
the requests are the ones that API expects."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from click.testing import CliRunner

from tablewatch.cli import main
from tablewatch.dashboards.catalog import DASHBOARDS


@dataclass
class Recorded:
    method: str
    path: str
    authorization: str
    body: Any


@dataclass
class RecordingGrafana:
    """Answers GET /api/folders/{uid} with 404 until a folder is created."""

    requests: list[Recorded] = field(default_factory=list)
    folders: set[str] = field(default_factory=set)
    versions: dict[str, int] = field(default_factory=dict)
    url: str = ""


@pytest.fixture
def grafana() -> Iterator[RecordingGrafana]:
    state = RecordingGrafana()

    class Handler(BaseHTTPRequestHandler):
        def _answer(self, status: int, body: object) -> None:
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _record(self) -> Any:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length)) if length else None
            state.requests.append(
                Recorded(self.command, self.path, self.headers.get("Authorization", ""), body)
            )
            return body

        def do_GET(self) -> None:
            self._record()
            uid = self.path.rsplit("/", 1)[-1]
            if self.path.startswith("/api/folders/") and uid in state.folders:
                self._answer(200, {"uid": uid, "title": "TableWatch"})
            else:
                self._answer(404, {"message": "folder not found"})

        def do_POST(self) -> None:
            body = self._record()
            if self.path == "/api/folders":
                state.folders.add(body["uid"])
                self._answer(200, {"uid": body["uid"], "title": body["title"]})
            elif self.path == "/api/dashboards/db":
                uid = body["dashboard"]["uid"]
                state.versions[uid] = state.versions.get(uid, 0) + 1
                self._answer(
                    200,
                    {"status": "success", "uid": uid, "version": state.versions[uid],
                     "url": f"/d/{uid}/x"},
                )  # fmt: skip
            else:
                self._answer(404, {"message": "not found"})

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


def publish(grafana: RecordingGrafana, *extra: str) -> str:
    result = CliRunner().invoke(
        main, ["dashboards", "publish", "--url", grafana.url, "--token", "glsa_test", *extra]
    )
    assert result.exit_code == 0, result.output
    return result.output


def test_publish_creates_the_folder_and_overwrites_each_dashboard(
    grafana: RecordingGrafana,
) -> None:
    publish(grafana, "--message", "shift change 2026-12-01")
    calls = [(r.method, r.path) for r in grafana.requests]
    assert calls == [
        ("GET", "/api/folders/tablewatch"),
        ("POST", "/api/folders"),
        *[("POST", "/api/dashboards/db")] * len(DASHBOARDS),
    ]
    assert {r.authorization for r in grafana.requests} == {"Bearer glsa_test"}
    assert grafana.requests[1].body == {"title": "TableWatch", "uid": "tablewatch"}
    posted = [r.body for r in grafana.requests[2:]]
    assert [b["dashboard"]["uid"] for b in posted] == [s.uid for s in DASHBOARDS]
    for body in posted:
        assert body["overwrite"] is True
        assert body["folderUid"] == "tablewatch"
        assert body["message"] == "shift change 2026-12-01"
        assert "id" not in body["dashboard"]  # matched by uid, never by a numeric id
        assert body["dashboard"]["panels"]


def test_published_again_the_same_uids_get_new_versions(grafana: RecordingGrafana) -> None:
    publish(grafana)
    out = publish(grafana)
    second = grafana.requests[2 + len(DASHBOARDS) :]
    assert [(r.method, r.path) for r in second][:1] == [("GET", "/api/folders/tablewatch")]
    assert all(r.path != "/api/folders" for r in second)  # the folder exists: not created
    assert grafana.versions == {s.uid: 2 for s in DASHBOARDS}
    assert "tablewatch-floor: version 2 /d/tablewatch-floor/x" in out
    assert second[1].body["message"].startswith("tablewatch ")


def test_an_unreachable_grafana_is_reported() -> None:
    result = CliRunner().invoke(
        main, ["dashboards", "publish", "--url", "http://127.0.0.1:9", "--token", "x"]
    )
    assert result.exit_code == 1
    assert "tablewatch dashboards publish:" in result.output
