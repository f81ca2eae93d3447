"""The auditor API's ``POST /api/v1/alerts/{id}/ack`` forwards to the alerter's HTTP API
(here the alerter's real web app, over an alerter with recording fakes)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import pytest
from aiohttp import web
from fastapi.testclient import TestClient

from tablewatch.alerts.alerter import Alerter
from tablewatch.alerts.service import web_app
from tablewatch.api.app import create_app
from tablewatch.services import free_port
from tests.alerts.test_alerter_clock import RULES, Clock, FakeAlertmanager, FakeTrail
from tests.alerts.test_convert import RAISED, message


class NoRows:
    def run(self, sql: str) -> object:
        raise AssertionError("the acknowledgement reads nothing from the store")


@pytest.fixture
def alerter_url() -> Iterator[tuple[str, Alerter, FakeTrail]]:
    trail = FakeTrail()
    alerter = Alerter(RULES, FakeAlertmanager(), trail, clock=Clock(RAISED + 60_000))
    alerter.ready = True
    alert = alerter.alert_for(message(), RAISED)
    assert alert is not None
    port = free_port()
    loop = asyncio.new_event_loop()
    started = threading.Event()

    async def serve() -> web.AppRunner:
        await alerter.raise_alerts([alert], None)
        runner = web.AppRunner(web_app(alerter))
        await runner.setup()
        await web.TCPSite(runner, "127.0.0.1", port).start()
        return runner

    runner = loop.run_until_complete(serve())

    def run() -> None:
        started.set()
        loop.run_forever()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    started.wait()
    try:
        yield f"http://127.0.0.1:{port}", alerter, trail
    finally:
        loop.call_soon_threadsafe(loop.stop)
        thread.join(5)
        loop.run_until_complete(runner.cleanup())
        loop.close()


def test_an_acknowledgement_through_the_api_reaches_the_alerter(
    alerter_url: tuple[str, Alerter, FakeTrail],
) -> None:
    url, alerter, trail = alerter_url
    alert_id = next(iter(alerter.alerts))
    client = TestClient(create_app(NoRows(), alerter_url=url))  # type: ignore[arg-type]
    answer = client.post(f"/api/v1/alerts/{alert_id}/ack", json={"by": "dana", "note": "ok"})
    assert answer.status_code == 200, answer.text
    assert answer.json()["acknowledged_by"] == "dana"
    assert answer.json()["acknowledged_at"] == "2025-12-01T12:01:00.000Z"
    assert [(e.kind, e.by, e.note) for e in trail.events if e.kind == "acknowledged"] == [
        ("acknowledged", "dana", "ok")
    ]
    again = client.post(f"/api/v1/alerts/{alert_id}/ack", json={"by": "eli"})
    assert again.status_code == 409
    assert "acknowledged by dana" in again.json()["detail"]
    missing = client.post("/api/v1/alerts/nope/ack", json={"by": "eli"})
    assert missing.status_code == 404
    assert client.post(f"/api/v1/alerts/{alert_id}/ack", json={"by": ""}).status_code == 422
    assert "/api/v1/alerts/{alert_id}/ack" in client.get("/openapi.json").json()["paths"]


def test_the_alerter_unreachable_is_503_and_without_it_no_route() -> None:
    client = TestClient(create_app(NoRows(), alerter_url=f"http://127.0.0.1:{free_port()}"))  # type: ignore[arg-type]
    answer = client.post("/api/v1/alerts/x/ack", json={"by": "dana"})
    assert answer.status_code == 503
    assert answer.headers["Retry-After"] == "5"
    assert "cannot be reached" in answer.json()["detail"]
    plain = TestClient(create_app(NoRows()))  # type: ignore[arg-type]
    assert plain.post("/api/v1/alerts/x/ack", json={"by": "dana"}).status_code in (404, 405)
