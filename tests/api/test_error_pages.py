"""Errors answered as the route's kind: a page (HTML) gets an HTML page with the status and
the reason escaped; the API (/api/v1/..., /health, /openapi.json) keeps JSON. The source
here fails every statement the way the store does (busy or unreachable: 503; refused: 500;
a bug in the app: an exception of no known kind)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tablewatch.api.app import create_app
from tablewatch.api.sources import SourceError, SourceUnavailable
from tablewatch.store.read_only import Answer

PAGES = ["/", "/findings", "/tables/LIR-01", "/rounds/LIR-01/R-1", "/rounds/PIT%2F1/R%2F7"]
API = ["/api/v1/findings", "/api/v1/tables", "/api/v1/rounds", "/api/v1/rounds/LIR-01/R-1"]


class Failing:
    """A row source whose every statement raises ``error``."""

    def __init__(self, error: Exception) -> None:
        self.error = error

    def run(self, sql: str) -> Answer:
        raise self.error


def client_of(error: Exception) -> TestClient:
    return TestClient(create_app(Failing(error)), raise_server_exceptions=False)


@pytest.mark.parametrize("path", PAGES)
def test_a_page_whose_store_is_unreachable_is_an_html_503_and_the_api_json(path: str) -> None:
    client = client_of(SourceUnavailable("the store <at> 127.0.0.1:8123 is down"))
    reply = client.get(path)
    assert reply.status_code == 503
    assert reply.headers["content-type"].startswith("text/html")
    assert reply.headers["retry-after"] == "5"
    assert "<h2>503</h2>" in reply.text
    assert "the store &lt;at&gt; 127.0.0.1:8123 is down" in reply.text  # escaped
    for api in API:
        answer = client.get(api)
        assert answer.status_code == 503, api
        assert answer.headers["content-type"] == "application/json"
        assert answer.json() == {"detail": "the store <at> 127.0.0.1:8123 is down"}


@pytest.mark.parametrize(
    ("error", "status"),
    [(SourceError("a statement of the API's own was refused"), 500), (RuntimeError("bug"), 500)],
)
def test_a_page_that_fails_is_an_html_500_and_the_api_json(error: Exception, status: int) -> None:
    client = client_of(error)
    page = client.get("/findings")
    assert page.status_code == status
    assert page.headers["content-type"].startswith("text/html")
    assert f"<h2>{status}</h2>" in page.text
    api = client.get("/api/v1/findings")
    assert api.status_code == status
    assert api.headers["content-type"] == "application/json"
    assert isinstance(api.json()["detail"], str)


def test_an_unknown_page_is_an_html_404_and_an_unknown_api_path_json() -> None:
    client = client_of(SourceUnavailable("unused"))
    page = client.get("/no/such/page")
    assert page.status_code == 404 and page.headers["content-type"].startswith("text/html")
    api = client.get("/api/v1/no-such-route")
    assert api.status_code == 404 and api.json() == {"detail": "Not Found"}
