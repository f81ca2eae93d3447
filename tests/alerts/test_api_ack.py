"""The auditor API's ``POST /api/v1/alerts/{id}/ack`` forwards to the alerter's HTTP API
(here the alerter's real web app, over an alerter with recording fakes), with the caller's
bearer token: who acknowledged is the token's holder, never a name in the body."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient

from tablewatch.api.app import create_app
from tablewatch.services import free_port
from tests.alerts.http_rig import Served, bearer, served


class NoRows:
    def run(self, sql: str) -> object:
        raise AssertionError("the acknowledgement reads nothing from the store")


@pytest.fixture
def alerter() -> Iterator[Served]:
    with served() as rig:
        yield rig


def api(rig: Served) -> TestClient:
    return TestClient(create_app(NoRows(), alerter_url=rig.url))  # type: ignore[arg-type]


def test_an_acknowledgement_through_the_api_reaches_the_alerter(alerter: Served) -> None:
    alert_id = alerter.alert.alert_id
    client = api(alerter)
    answer = client.post(f"/api/v1/alerts/{alert_id}/ack", json={"note": "ok"},
                         headers=bearer("dana"))  # fmt: skip
    assert answer.status_code == 200, answer.text
    assert answer.json()["acknowledged_by"] == "dana"
    assert answer.json()["acknowledged_at"] == "2025-12-01T12:01:00.000Z"
    acked = [(e.kind, e.by, e.note) for e in alerter.trail.events if e.kind == "acknowledged"]
    assert acked == [("acknowledged", "dana", "ok")]
    again = client.post(f"/api/v1/alerts/{alert_id}/ack", json={}, headers=bearer("ann"))
    assert again.status_code == 409
    assert "acknowledged by dana" in again.json()["detail"]
    missing = client.post("/api/v1/alerts/nope/ack", json={}, headers=bearer("ann"))
    assert missing.status_code == 404
    assert "/api/v1/alerts/{alert_id}/ack" in client.get("/openapi.json").json()["paths"]


def test_the_api_acknowledges_nothing_without_a_token_of_a_role_that_may(
    alerter: Served,
) -> None:
    """Break 2 of issue 26: anyone could acknowledge any alert under any name."""
    alert_id = alerter.alert.alert_id
    client = api(alerter)
    url = f"/api/v1/alerts/{alert_id}/ack"
    anonymous = client.post(url, json={"by": "dana", "note": "not me"})
    assert anonymous.status_code == 401
    assert anonymous.headers["WWW-Authenticate"].startswith('Bearer realm="tablewatch"')
    unknown = client.post(url, json={"note": "x"}, headers=bearer("nobody"))
    assert unknown.status_code == 401
    assert 'error="invalid_token"' in unknown.headers["WWW-Authenticate"]
    watcher = client.post(url, json={"note": "x"}, headers=bearer("sam"))
    assert watcher.status_code == 403
    assert "ack_alert needs the role floor_manager or admin" in watcher.json()["detail"]
    webhook_token = client.post(url, json={"note": "x"}, headers=bearer("am"))
    assert webhook_token.status_code == 403
    posing = client.post(url, json={"by": "ann", "note": "x"}, headers=bearer("dana"))
    assert posing.status_code == 422
    assert "'ann' is not the caller (dana)" in posing.json()["detail"]
    assert [e.kind for e in alerter.trail.events] == ["raised"]  # nothing written
    assert alerter.alerter.alerts[alert_id].acknowledged_by is None
    assert alerter.alerter.counters.acknowledged == 0
    # the same name as the token's holder is accepted (the body's by is checked, not used)
    mine = client.post(url, json={"by": "dana"}, headers=bearer("dana"))
    assert mine.status_code == 200
    assert mine.json()["acknowledged_by"] == "dana"


def test_a_note_with_control_characters_is_refused_and_nothing_written(
    alerter: Served,
) -> None:
    client = api(alerter)
    url = f"/api/v1/alerts/{alerter.alert.alert_id}/ack"
    answer = client.post(url, json={"note": "paid\x1b[2J\x00"}, headers=bearer("dana"))
    assert answer.status_code == 400
    assert answer.json()["detail"] == "note: control characters are refused (\\x00\\x1b)"
    assert [e.kind for e in alerter.trail.events] == ["raised"]
    assert client.post(url, json={"note": "x" * 2001}, headers=bearer("dana")).status_code == 400
    unknown = client.post(url, json={"nope": 1}, headers=bearer("dana"))
    assert unknown.status_code == 400
    assert "unknown field `nope`" in unknown.json()["detail"]
    assert client.post(url, content=b"x" * 16385, headers=bearer("dana")).status_code == 413
    assert [e.kind for e in alerter.trail.events] == ["raised"]
    schema = client.get("/openapi.json").json()["paths"]["/api/v1/alerts/{alert_id}/ack"]
    body = schema["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert set(body["properties"]) == {"note", "by"}


def test_the_alerter_unreachable_is_503_and_without_it_no_route() -> None:
    client = TestClient(create_app(NoRows(), alerter_url=f"http://127.0.0.1:{free_port()}"))  # type: ignore[arg-type]
    answer = client.post("/api/v1/alerts/x/ack", json={}, headers=bearer("dana"))
    assert answer.status_code == 503
    assert answer.headers["Retry-After"] == "5"
    assert "cannot be reached" in answer.json()["detail"]
    plain = TestClient(create_app(NoRows()))  # type: ignore[arg-type]
    assert plain.post("/api/v1/alerts/x/ack", json={}).status_code in (404, 405)
