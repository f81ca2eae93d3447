"""Ids the protocol allows that break naive links and exports: a ``/`` in a table_id and a
round_id (``PIT/1``, ``R/7``) reaches its pages and API routes from every link to it, in
the TestClient and through uvicorn; ids that a spreadsheet would run as a formula are
neutralised in the findings CSV. The store holds the golden Let It Ride round (one
WRONG_PAYOUT) three times: as ``LIR-G``/``R-77``, under the ids with ``/``, and under
formula ids."""

from __future__ import annotations

import csv
import html
import io
import re
from collections.abc import Iterator
from urllib.parse import urlsplit

import httpx
import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from tablewatch.alerts.convert import round_url
from tablewatch.api.app import create_app
from tablewatch.api.sources import ReaderPool, open_product_reader
from tests.api.hostile_store import FORMULA, SLASH, hostile_store
from tests.api.live_server import served
from tests.rounds.golden import LIR_EVENTS


@pytest.fixture(scope="module")
def dsn(tmp_path_factory: pytest.TempPathFactory) -> str:
    return hostile_store(tmp_path_factory.mktemp("hostile-ids"))


@pytest.fixture(scope="module")
def app(dsn: str) -> Iterator[FastAPI]:
    readers = ReaderPool(lambda: open_product_reader(dsn), size=2)
    try:
        yield create_app(readers, described_as=dsn)
    finally:
        readers.close()


@pytest.fixture(scope="module")
def client(app: FastAPI) -> TestClient:
    return TestClient(app)


def links(page: str) -> set[str]:
    """The page's links to a table, a round or a round's JSON (their query dropped)."""
    hrefs = {html.unescape(h).split("?")[0] for h in re.findall(r'href="([^"]+)"', page)}
    return {h for h in hrefs if h.startswith(("/tables/", "/rounds/", "/api/v1/rounds/"))}


def test_ids_with_a_slash_reach_their_pages_and_api_route(client: TestClient) -> None:
    table = client.get("/tables/PIT%2F1")
    assert table.status_code == 200, table.text
    assert "all findings of PIT/1" in table.text
    page = client.get("/rounds/PIT%2F1/R%2F7")
    assert page.status_code == 200, page.text
    assert "Round R/7 at" in page.text
    api = client.get("/api/v1/rounds/PIT%2F1/R%2F7")
    assert api.status_code == 200, api.text
    assert (api.json()["table_id"], api.json()["round_id"]) == SLASH
    assert len(api.json()["timeline"]) == len(LIR_EVENTS) - 1  # all but the deck_in


def test_every_link_to_a_table_or_round_answers_200(client: TestClient) -> None:
    seen: set[str] = set()
    for path in ("/", "/findings", "/tables/PIT%2F1", "/rounds/PIT%2F1/R%2F7"):
        reply = client.get(path)
        assert reply.status_code == 200, (path, reply.text)
        seen |= links(reply.text)
    assert {"/tables/PIT%2F1", "/rounds/PIT%2F1/R%2F7", "/api/v1/rounds/PIT%2F1/R%2F7"} <= seen
    for link in sorted(seen):
        assert client.get(link).status_code == 200, link


def test_the_alert_mails_link_reaches_the_round(client: TestClient) -> None:
    url = round_url("http://auditor.example", *SLASH)
    assert url == "http://auditor.example/rounds/PIT%2F1/R%2F7"
    reply = client.get(urlsplit(url).path)
    assert reply.status_code == 200 and "Round R/7 at" in reply.text


@pytest.mark.parametrize(
    "path",
    ["/rounds/PIT/1/R/7", "/rounds/PIT%2F1", "/api/v1/rounds/PIT/1/R%2F7", "/api/v1/rounds/A%2FB"],
)
def test_a_path_whose_ids_are_not_one_segment_each_is_404_naming_the_rule(
    client: TestClient, path: str
) -> None:
    reply = client.get(path)
    assert reply.status_code == 404
    assert "%2F" in reply.text


def test_ids_with_a_slash_through_uvicorn(app: FastAPI) -> None:
    """uvicorn gives the path as sent (raw_path) as the TestClient does."""
    with served(app) as base:
        for path in ("/tables/PIT%2F1", "/rounds/PIT%2F1/R%2F7", "/api/v1/rounds/PIT%2F1/R%2F7"):
            assert httpx.get(base + path, timeout=30).status_code == 200, path


def test_the_findings_csv_neutralises_formula_cells_and_keeps_numbers(
    client: TestClient,
) -> None:
    reply = client.get("/findings.csv")
    assert reply.status_code == 200
    rows = list(csv.DictReader(io.StringIO(reply.text)))
    hostile = [r for r in rows if r["table_id"].startswith("'")]
    assert [(r["table_id"], r["round_id"]) for r in hostile] == [
        ("'" + FORMULA[0], "'" + FORMULA[1])
    ]
    assert (hostile[0]["seat"], hostile[0]["expected"], hostile[0]["actual"]) == ("5", "500", "400")
    assert not [r for r in rows for v in r.values() if v.startswith(("=", "+", "-", "@"))]
    plain = [r for r in rows if r["table_id"] == "LIR-G"]
    assert len(plain) == 1 and plain[0]["round_id"] == "R-77"
