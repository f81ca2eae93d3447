"""The casework pages over the store of hostile ids (tests/api/hostile_store.py: a table and
round id holding '/', a table id a spreadsheet would run, quotes in it): each case's link
reaches its round page's case as one segment per id, and every id is escaped as text."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from html import unescape
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from tablewatch.access.access_file import AccessEntry, AccessFile, save
from tablewatch.access.authenticate import FileTokenAuthenticator
from tablewatch.access.gate import Gate
from tablewatch.access.roles import Role
from tablewatch.access.tokens import hash_token, new_token
from tablewatch.api.app import create_app
from tablewatch.api.case_actions import DeskActions
from tablewatch.api.sources import ReaderPool, open_product_reader
from tablewatch.casework.desk import CaseDesk
from tablewatch.casework.dispositions import DEFAULT_DISPOSITIONS
from tablewatch.links import round_path
from tablewatch.store.client import connect
from tests.api.hostile_store import FORMULA, SLASH, hostile_store

LINK = re.compile(r'<a class="case-link" href="([^"]+)">')


@pytest.fixture(scope="module")
def signed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[TestClient, str]]:
    directory = Path(tmp_path_factory.mktemp("hostile-cases"))
    dsn = hostile_store(directory)
    token = new_token()
    created = datetime(2026, 1, 1, tzinfo=UTC)
    entry = AccessEntry("sam", Role.SURVEILLANCE, hash_token(token), created)
    save(directory / "access.yaml", AccessFile((entry,)))
    store = connect(dsn)
    pool = ReaderPool(lambda: open_product_reader(dsn), size=2)
    try:
        app = create_app(
            pool,
            gate=Gate(FileTokenAuthenticator(directory / "access.yaml")),
            case_actions=DeskActions(CaseDesk(store, DEFAULT_DISPOSITIONS)),
        )
        client = TestClient(app)
        client.cookies.set("tablewatch_session", token)
        yield client, token
    finally:
        pool.close()
        store.close()


def test_each_case_links_to_its_round_page_and_every_id_is_text(
    signed: tuple[TestClient, str],
) -> None:
    client, _ = signed
    cases = client.get("/api/v1/cases?limit=100").json()["cases"]
    by_table = {c["table_id"]: c for c in cases}
    assert {SLASH[0], FORMULA[0], "LIR-G"} <= set(by_table)
    claimed = by_table[FORMULA[0]]["finding_id"]
    assert client.post(f"/api/v1/cases/{claimed}/claim", json={}).status_code == 200
    html = client.get("/cases?state=all").text
    assert '"http://evil.example/"' not in html and "&#34;http://evil.example/&#34;" in html
    links = [unescape(link) for link in LINK.findall(html)]
    for table_id, round_id in (SLASH, FORMULA):
        finding_id = by_table[table_id]["finding_id"]
        want = f"{round_path(table_id, round_id)}#case-{finding_id}"
        assert want in links
        page = client.get(want.split("#")[0])
        assert page.status_code == 200
        assert f'id="case-{finding_id}"' in page.text
    round_page = client.get(round_path(*FORMULA)).text
    panel = round_page.split(f'id="case-{claimed}"')[1].split("</section>")[0]
    assert "in review by sam" in panel and 'data-action="close"' in panel
    assert "&#34;http://evil.example/&#34;" in round_page
    assert '"http://evil.example/"' not in round_page
