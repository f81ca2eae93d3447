"""Bad input: unknown tables, rounds and runs are 404 with the reason; malformed filters
are 422 naming the parameter; SQL metacharacters in any parameter are characters of a
value: they select nothing more, break nothing, and change no stored row."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import pytest
from fastapi.testclient import TestClient

from tests.api.store import FilledStore

METACHARACTERS = [
    "LIR-01' OR '1'='1",
    "LIR-01'; DROP TABLE findings; --",
    "LIR-01\\' OR 1=1 --",
    "' UNION SELECT finding_id FROM findings_v --",
    "LIR-01/* */",
    "LIR-01\x00",
    "LIR-01`",
    '"LIR-01"',
    "$$;$$ DROP TABLE rounds",
    "%' OR table_id LIKE '%",
]


def every_finding(client: TestClient) -> list[dict[str, Any]]:
    body = client.get("/api/v1/findings", params={"limit": 1000}).json()
    assert body["next_cursor"] is None
    items: list[dict[str, Any]] = body["items"]
    return items


def test_unknown_table_round_and_run_are_404_with_the_reason(client: TestClient) -> None:
    cases = {
        "/api/v1/rounds/NO-SUCH-TABLE/R-1": "NO-SUCH-TABLE",
        "/api/v1/rounds/LIR-01/R-999999": "R-999999",
        "/api/v1/replays/0123456789abcdef0123456789abcdef/diff": "no replay run",
        "/api/v1/replays/not-a-run/diff": "not a run id",
    }
    for path, reason in cases.items():
        reply = client.get(path)
        assert reply.status_code == 404, path
        assert reason in reply.json()["detail"], (path, reply.json())
    for path, reason in {
        "/rounds/NO-SUCH-TABLE/R-1": "NO-SUCH-TABLE",
        "/rounds/LIR-01/R-999999": "R-999999",
        "/tables/NO-SUCH-TABLE": "no table &#39;NO-SUCH-TABLE&#39;",
    }.items():
        reply = client.get(path)
        assert reply.status_code == 404, path
        assert reason in reply.text


def test_a_round_begun_by_another_event_is_404_naming_the_rounds_there(
    client: TestClient, filled: FilledStore
) -> None:
    first = filled.audited.rounds[0]
    reply = client.get(
        f"/api/v1/rounds/{first.table_id}/{first.round_id}", params={"start_event_id": "nope"}
    )
    assert reply.status_code == 404
    assert first.start_event_id in reply.json()["detail"]


@pytest.mark.parametrize(
    ("path", "name", "value"),
    [
        ("/api/v1/findings", "limit", "0"),
        ("/api/v1/findings", "limit", "1001"),
        ("/api/v1/findings", "limit", "ten"),
        ("/api/v1/findings", "severity", "urgent"),
        ("/api/v1/findings", "check", "WRONG_PAY"),
        ("/api/v1/findings", "since", "yesterday"),
        ("/api/v1/findings", "until", "2026-02-31T00:00:00Z"),
        ("/api/v1/findings", "game", "poker"),
        ("/api/v1/findings", "cursor", "not a cursor"),
        ("/api/v1/findings", "cursor", "WzFd"),  # base64url of [1]: not this list's
        ("/api/v1/findings", "table", "T" * 129),
        ("/api/v1/rounds", "since", "2026-11-29 18:00:00"),
        ("/api/v1/rounds", "dealer", "D" * 129),
        ("/api/v1/rounds", "cursor", "eyJhIjogMX0"),  # base64url of {"a": 1}
        ("/api/v1/replays", "limit", "-1"),
    ],
)
def test_a_malformed_filter_is_422_naming_it(
    client: TestClient, path: str, name: str, value: str
) -> None:
    reply = client.get(path, params={name: value})
    assert reply.status_code == 422, reply.text
    assert [item["loc"] for item in reply.json()["detail"]] == [["query", name]]


def test_the_findings_page_names_a_malformed_filter(client: TestClient) -> None:
    reply = client.get("/findings", params={"severity": "urgent", "table": ""})
    assert reply.status_code == 422
    assert "severity" in reply.text


def test_sql_metacharacters_in_any_parameter_change_nothing(
    client: TestClient, filled: FilledStore
) -> None:
    before = every_finding(client)
    assert {f["finding_id"] for f in before} == filled.audited.finding_ids()
    rounds_before = client.get("/api/v1/rounds", params={"limit": 1000}).json()
    for value in METACHARACTERS:
        for name in ("table", "pit", "dealer"):
            for path in ("/api/v1/findings", "/api/v1/rounds"):
                reply = client.get(path, params={name: value})
                assert reply.status_code == 200, (path, name, value, reply.text)
                assert reply.json() == {"items": [], "next_cursor": None}, (path, name, value)
        segment = quote(value, safe="")
        for path in (
            f"/api/v1/rounds/{segment}/R-1",
            f"/api/v1/rounds/LIR-01/{segment}",
            f"/api/v1/replays/{segment}/diff",
            f"/rounds/LIR-01/{segment}",
            f"/tables/{segment}",
        ):
            reply = client.get(path)
            assert reply.status_code == 404, (path, reply.text)
        reply = client.get("/findings", params={"table": value})
        assert reply.status_code == 200 and "no findings" in reply.text
        reply = client.get("/findings.csv", params={"table": value})
        assert reply.status_code == 200
        assert reply.text.splitlines()[1:] == []
    # nothing changed in the store: the same findings and rounds as before
    assert every_finding(client) == before
    assert client.get("/api/v1/rounds", params={"limit": 1000}).json() == rounds_before
