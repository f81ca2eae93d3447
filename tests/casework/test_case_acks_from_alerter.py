"""A case shows its alert's acknowledgement when the alerter keeps its trail in a store of
its own (beside an embedded worker): read from the alerter's ``GET /api/v1/alerts``
(``serve-api --alerter``), beside the acknowledgements of the store's trail, each alert once."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fastapi import FastAPI

from tablewatch.links import round_path
from tablewatch.services import free_port
from tests.api.live_server import served
from tests.casework import test_api_cases
from tests.casework.test_api_cases import World, auth, in_pit

world_of_acks = test_api_cases.world  # the API's world (module-scoped): this module's own


def listed_alert(alert_id: str, finding_id: str, by: str | None, at: str | None) -> dict[str, Any]:
    """One alert as the alerter's listing gives it (``Alert.summary``)."""
    return {
        "alert_id": alert_id, "kind": "finding", "table_id": "T", "pit": "Pit 1",
        "game": "let_it_ride", "check": "WRONG_PAYOUT", "severity": "critical",
        "escalation": 0, "shift": "day", "raised_at": "2026-12-04T10:00:00.000Z",
        "acknowledged_by": by, "acknowledged_at": at, "note": "on my way to the table",
        "resolved_at": None, "open": by is None, "finding_ids": [finding_id], "summary": "",
        "round_url": "",
    }  # fmt: skip


@pytest.fixture
def alerter(world_of_acks: World) -> Iterator[list[dict[str, Any]]]:
    """A stand-in alerter serving the listing the test fills; the API told of it."""
    listing: list[dict[str, Any]] = []
    fake = FastAPI()

    @fake.get("/api/v1/alerts")
    def alerts() -> list[dict[str, Any]]:
        return listing

    with served(fake) as url:
        world_of_acks.app.state.alerter_url = url
        try:
            yield listing
        finally:
            del world_of_acks.app.state.alerter_url


def test_the_alerters_acknowledgement_is_on_the_case_and_its_round_page(
    world_of_acks: World, alerter: list[dict[str, Any]]
) -> None:
    world = world_of_acks
    finding_id = in_pit(world, world.pits[0], 3)
    other = in_pit(world, world.pits[0], 4)
    alerter += [
        listed_alert("A-7", finding_id, "fm", "2026-12-04T10:02:03.456Z"),
        listed_alert("A-8", finding_id, None, None),  # not acknowledged: not shown
        listed_alert("A-9", other, "fm", "2026-12-04T10:05:00.000Z"),  # another finding's
    ]
    answer = world.client.get(f"/api/v1/cases/{finding_id}", headers=auth(world, "aud"))
    assert answer.status_code == 200, answer.text
    assert answer.json()["acks"] == [
        {"alert_id": "A-7", "at": "2026-12-04T10:02:03.456Z", "by": "fm",
         "note": "on my way to the table"}
    ]  # fmt: skip
    table_id, round_id = next(
        (t, r) for t, r in world.store.query(
            f"SELECT table_id, round_id FROM findings_v WHERE finding_id = '{finding_id}'"
        ).result_rows
    )  # fmt: skip
    page = world.client.get(round_path(table_id, round_id), headers=auth(world, "aud"))
    panel = page.text.split(f'id="case-{finding_id}"')[1].split("</section>")[0]
    assert "Alert A-7 acknowledged by fm at 2026-12-04T10:02:03.456Z" in panel, panel


def test_an_alert_in_both_trails_is_shown_once(
    world_of_acks: World, alerter: list[dict[str, Any]]
) -> None:
    world = world_of_acks
    finding_id = in_pit(world, world.pits[0], 5)
    world.store.command(
        "INSERT INTO alert_events (event_id, alert_id, kind, ts, finding_ids, by, note,"
        f" recorded_at) VALUES ('e-b', 'A-11', 'acknowledged',"
        f" toDateTime64('2026-12-04 10:02:03.456', 3, 'UTC'), ['{finding_id}'], 'fm',"
        " 'on my way to the table', now64(3))"
    )
    alerter.append(listed_alert("A-11", finding_id, "fm", "2026-12-04T10:02:03.456Z"))
    answer = world.client.get(f"/api/v1/cases/{finding_id}", headers=auth(world, "aud"))
    assert [a["alert_id"] for a in answer.json()["acks"]] == ["A-11"]


def test_an_alerter_out_of_reach_leaves_the_case_readable(world_of_acks: World) -> None:
    world = world_of_acks
    finding_id = in_pit(world, world.pits[0], 6)
    world.app.state.alerter_url = f"http://127.0.0.1:{free_port()}"  # nobody listens
    try:
        answer = world.client.get(f"/api/v1/cases/{finding_id}", headers=auth(world, "aud"))
    finally:
        del world.app.state.alerter_url
    assert answer.status_code == 200 and answer.json()["acks"] == []
