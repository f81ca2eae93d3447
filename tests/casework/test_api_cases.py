"""The casework API over an embedded store (chDB) with its desk in this process (as
``serve-api --dsn``), through FastAPI: who may do what, two claims at once, nothing
written without a token, the body's refusals, the login cookie and the queue's order."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from clickhouse_connect.driver.client import Client
from fastapi import FastAPI
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
from tablewatch.store.client import connect
from tests.api.store import FilledStore, fill_store

SEVERITY_ORDER = {"critical": 0, "high": 1, "medium": 2, "low": 3}


@dataclass(frozen=True)
class World:
    client: TestClient
    app: FastAPI
    store: Client  # the desk's writable client, also for the tests' own counts
    tokens: dict[str, str]  # name -> token
    findings: list[tuple[str, str, str, str, int]]  # id, table, pit, severity, age ms
    pits: list[str]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    directory = Path(tmp_path_factory.mktemp("cases"))
    filled: FilledStore = fill_store(directory / "store", tables=6, rounds=180)
    store = connect(filled.dsn)
    pool = ReaderPool(lambda: open_product_reader(filled.dsn), size=2)
    try:
        rows = store.query(
            "SELECT f.finding_id, f.table_id, d.pit, f.severity,"
            " toUnixTimestamp64Milli(ifNull(f.ts, f.judged_at))"
            " FROM findings_v AS f LEFT JOIN tables_v AS d ON d.table_id = f.table_id"
        ).result_rows
        findings = [(str(a), str(b), str(c), str(d), int(e)) for a, b, c, d, e in rows]
        pits = sorted({f[2] for f in findings})
        assert len(pits) >= 2 and len(findings) >= 20, (pits, len(findings))
        tokens = {name: new_token() for name in ("sam", "sue", "fm", "aud", "root")}
        roles = {
            "sam": Role.SURVEILLANCE,
            "sue": Role.SURVEILLANCE,
            "fm": Role.FLOOR_MANAGER,
            "aud": Role.AUDITOR,
            "root": Role.ADMIN,
        }
        created = datetime(2026, 1, 1, tzinfo=UTC)
        access = AccessFile(
            tuple(
                AccessEntry(
                    name,
                    roles[name],
                    hash_token(token),
                    created,
                    pits=(pits[0],) if name == "fm" else (),
                )
                for name, token in tokens.items()
            )
        )
        save(directory / "access.yaml", access)
        gate = Gate(FileTokenAuthenticator(directory / "access.yaml"))
        desk = CaseDesk(store, DEFAULT_DISPOSITIONS)
        app = create_app(pool, described_as=filled.dsn, gate=gate, case_actions=DeskActions(desk))
        yield World(TestClient(app), app, store, tokens, findings, pits)
    finally:
        pool.close()
        store.close()


def auth(world: World, name: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {world.tokens[name]}"}


def post(
    world: World, name: str | None, path: str, body: dict[str, Any] | None = None
) -> httpx.Response:
    headers = auth(world, name) if name else {}
    answer: httpx.Response = world.client.post(
        f"/api/v1/cases/{path}", json=body or {}, headers=headers
    )
    return answer


def step_rows(world: World, finding_id: str | None = None) -> int:
    where = f" WHERE finding_id = '{finding_id}'" if finding_id else ""
    return int(world.store.query(f"SELECT count() FROM case_events{where}").result_rows[0][0])


def in_pit(world: World, pit: str, index: int) -> str:
    return [f[0] for f in world.findings if f[2] == pit][index]


def test_claim_note_bookmark_close_reopen(world: World) -> None:
    fid = in_pit(world, world.pits[1], 0)
    claimed = post(world, "sam", f"{fid}/claim")
    assert claimed.status_code == 200, claimed.text
    assert (claimed.json()["state"], claimed.json()["assignee"]) == ("in_review", "sam")
    assert post(world, "sam", f"{fid}/claim").json()["steps"] == 1  # again: nothing new
    assert (
        post(world, "sam", f"{fid}/note", {"note": "dealer paid the wrong line"}).status_code == 200
    )
    marked = post(world, "sam", f"{fid}/bookmark")
    assert marked.status_code == 200, marked.text
    table = next(f[1] for f in world.findings if f[0] == fid)
    first_camera = world.store.query(
        f"SELECT cameras[1] FROM tables_v WHERE table_id = '{table}'"
    ).result_rows[0][0]
    assert marked.json()["camera"] == first_camera and first_camera.startswith("CAM-")
    assert marked.json()["window_start"] < marked.json()["window_end"]
    closed = post(
        world,
        "sam",
        f"{fid}/close",
        {
            "disposition": "confirmed: corrected at the table",
            "note": "paid back",
            "recovered_cents": 2500,
        },
    )
    assert closed.status_code == 200, closed.text
    body = closed.json()
    assert (body["state"], body["disposition"], body["recovered_cents"], body["assignee"]) == (
        "closed",
        "confirmed: corrected at the table",
        2500,
        None,
    )
    assert body["updated_by"] == "sam" and body["updated_at"].endswith("Z")
    refused = post(world, "sue", f"{fid}/claim")
    assert refused.status_code == 409
    assert refused.json()["detail"].startswith(
        "closed (confirmed: corrected at the table) by sam at "
    )
    assert post(world, "sue", f"{fid}/reopen", {}).status_code == 422  # no reason
    reopened = post(world, "sue", f"{fid}/reopen", {"reason": "second angle shows more"})
    assert reopened.status_code == 200 and reopened.json()["state"] == "open"

    page = world.client.get(f"/api/v1/cases/{fid}", headers=auth(world, "aud"))
    assert page.status_code == 200, page.text
    shown = page.json()
    kinds = [(s["kind"], s["by"], s["role"]) for s in shown["steps"]]
    assert kinds == [
        ("claimed", "sam", "surveillance"),
        ("noted", "sam", "surveillance"),
        ("bookmarked", "sam", "surveillance"),
        ("closed", "sam", "surveillance"),
        ("reopened", "sue", "surveillance"),
    ]
    assert shown["steps"][1]["note"] == "dealer paid the wrong line"
    assert shown["steps"][4]["reason"] == "second angle shows more"
    assert shown["state"] == "open" and shown["finding"]["finding_id"] == fid
    assert shown["cameras"] and shown["camera"] == shown["cameras"][0]
    assert shown["round_window"]["start"] < shown["round_window"]["end"]
    assert step_rows(world, fid) == 5


def test_two_claims_at_once_one_wins_the_other_is_told_who(world: World) -> None:
    fid = in_pit(world, world.pits[1], 1)

    async def both() -> list[httpx.Response]:
        transport = httpx.ASGITransport(app=world.app)
        async with httpx.AsyncClient(transport=transport, base_url="http://t") as client:
            return list(
                await asyncio.gather(
                    *(
                        client.post(f"/api/v1/cases/{fid}/claim", json={}, headers=auth(world, who))
                        for who in ("sam", "sue")
                    )
                )
            )

    answers = asyncio.run(both())
    assert sorted(a.status_code for a in answers) == [200, 409]
    won = next(a for a in answers if a.status_code == 200).json()["assignee"]
    lost = next(a for a in answers if a.status_code == 409).json()["detail"]
    assert won in ("sam", "sue") and lost.startswith(f"in review by {won} since ")
    assert step_rows(world, fid) == 1


def test_a_floor_manager_reads_its_pits_and_cannot_work_cases(world: World) -> None:
    own, other = world.pits[0], world.pits[1]
    fid = in_pit(world, own, 0)
    assert post(world, "sam", f"{fid}/claim").status_code == 200
    before = step_rows(world)
    for action, body in (
        ("close", {"disposition": "duplicate"}),
        ("claim", {}),
        ("note", {"note": "x"}),
    ):
        refused = post(world, "fm", f"{fid}/{action}", body)
        assert refused.status_code == 403, refused.text
        assert "work_cases needs the role surveillance or admin" in refused.json()["detail"]
    assert step_rows(world) == before
    listed = world.client.get("/api/v1/cases?state=all&limit=1000", headers=auth(world, "fm"))
    assert listed.status_code == 200
    assert {c["pit"] for c in listed.json()["cases"]} == {own}
    assert len(listed.json()["cases"]) == sum(1 for f in world.findings if f[2] == own)
    elsewhere = world.client.get(
        f"/api/v1/cases/{in_pit(world, other, 0)}", headers=auth(world, "fm")
    )
    assert elsewhere.status_code == 403 and other in elsewhere.json()["detail"]
    assert world.client.get(f"/api/v1/cases/{fid}", headers=auth(world, "fm")).status_code == 200


def test_without_a_token_nothing_is_written(world: World) -> None:
    fid = in_pit(world, world.pits[1], 2)
    before = step_rows(world)
    for action in ("claim", "note", "close", "reopen"):
        refused = post(world, None, f"{fid}/{action}", {"note": "x"} if action == "note" else {})
        assert refused.status_code == 401, refused.text
        assert refused.headers["WWW-Authenticate"].startswith("Bearer")
    bad = world.client.post(
        f"/api/v1/cases/{fid}/claim", json={}, headers={"Authorization": "Bearer tw_not_a_token"}
    )
    assert bad.status_code == 401
    assert world.client.get("/api/v1/cases").status_code == 401
    assert step_rows(world) == before


def test_bodies_refused(world: World) -> None:
    fid = in_pit(world, world.pits[1], 3)
    before = step_rows(world)
    as_someone = post(world, "sam", f"{fid}/claim", {"by": "sue"})
    assert as_someone.status_code == 422 and as_someone.json()["detail"].startswith("by: ")
    assert post(world, "sam", f"{fid}/note", {"note": "x", "by": "sam"}).status_code == 422
    assert post(world, "sam", f"{fid}/note", {"text": "x"}).status_code == 422
    assert post(world, "sam", f"{fid}/claim").status_code == 200
    unknown = post(world, "sam", f"{fid}/close", {"disposition": "all good"})
    assert unknown.status_code == 422
    assert unknown.json()["detail"] == (
        "disposition 'all good' is not one of the configured list: "
        + "; ".join(DEFAULT_DISPOSITIONS)
    )
    money = post(world, "sam", f"{fid}/close", {"disposition": "duplicate", "recovered_cents": 2.5})
    assert money.status_code == 422 and "recovered_cents" in money.json()["detail"]
    form = world.client.post(
        f"/api/v1/cases/{fid}/release",
        content=b"reason=x",
        headers={**auth(world, "sam"), "Content-Type": "application/x-www-form-urlencoded"},
    )
    assert form.status_code == 415
    assert post(world, "sam", "no-such-finding/claim").status_code == 404
    assert step_rows(world) == before + 1  # the claim only


def test_login_sets_a_strict_http_only_cookie_that_acts(world: World) -> None:
    fid = in_pit(world, world.pits[1], 4)
    client = TestClient(world.app)
    assert client.get("/login").status_code == 200
    wrong = client.post("/login", data={"token": "tw_wrong"}, follow_redirects=False)
    assert wrong.status_code == 401 and "unknown token" in wrong.text
    signed = client.post(
        "/login",
        data={"token": world.tokens["sue"], "next": "//evil.example"},
        follow_redirects=False,
    )
    assert signed.status_code == 303 and signed.headers["location"] == "/"
    cookie = signed.headers["set-cookie"]
    assert cookie.startswith("tablewatch_session=")
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
    claimed = client.post(f"/api/v1/cases/{fid}/claim", json={})
    assert claimed.status_code == 200 and claimed.json()["assignee"] == "sue"
    # the cookie alone with a form's content type (a cross-site form) changes nothing
    forged = client.post(
        f"/api/v1/cases/{fid}/note",
        content=b'{"note": "x"}',
        headers={"Content-Type": "text/plain"},
    )
    assert forged.status_code == 415
    assert step_rows(world, fid) == 1
    out = client.post("/logout", follow_redirects=False)
    assert out.status_code == 303 and 'tablewatch_session=""' in out.headers["set-cookie"]


def test_a_sign_in_or_out_posted_from_another_site_is_refused(world: World) -> None:
    client = TestClient(world.app)
    form = {"token": world.tokens["sue"], "next": "/cases"}
    elsewhere = {"Origin": "https://evil.example"}
    refused = client.post("/login", data=form, headers=elsewhere, follow_redirects=False)
    assert refused.status_code == 403 and "another site" in refused.text
    assert "set-cookie" not in refused.headers
    here = {"Origin": "http://testserver"}  # the browser's Origin of this site's own form
    signed = client.post("/login", data=form, headers=here, follow_redirects=False)
    assert signed.status_code == 303 and signed.headers["location"] == "/cases"
    out = client.post("/logout", headers=elsewhere, follow_redirects=False)
    assert out.status_code == 403 and "set-cookie" not in out.headers
    assert client.post("/logout", headers=here, follow_redirects=False).status_code == 303
    # behind a proxy that rewrites Host, the site is the one it forwards
    proxied = {"Origin": "https://tablewatch.casino.example",
               "X-Forwarded-Host": "tablewatch.casino.example"}  # fmt: skip
    again = client.post("/login", data=form, headers=proxied, follow_redirects=False)
    assert again.status_code == 303


def test_the_queue_unclaimed_first_by_severity_then_age(world: World) -> None:
    pit = world.pits[-1]
    page = world.client.get(f"/api/v1/cases?pit={pit}&limit=1000", headers=auth(world, "aud"))
    assert page.status_code == 200, page.text
    cases = page.json()["cases"]
    states = {c["finding_id"]: c["state"] for c in cases}
    expected = sorted(
        (f for f in world.findings if f[2] == pit and states.get(f[0]) != "closed"),
        key=lambda f: ({"open": 0, "in_review": 1}[states[f[0]]], SEVERITY_ORDER[f[3]], f[4], f[0]),
    )
    assert [c["finding_id"] for c in cases] == [f[0] for f in expected]
    assert "in_review" in states.values() and "open" in states.values()
    assert "closed" not in states.values()
    # paged by two: the same list
    seen: list[str] = []
    cursor = ""
    while True:
        got = world.client.get(
            f"/api/v1/cases?pit={pit}&limit=2{cursor}", headers=auth(world, "aud")
        )
        seen += [c["finding_id"] for c in got.json()["cases"]]
        if not got.json()["next_cursor"]:
            break
        cursor = f"&cursor={got.json()['next_cursor']}"
    assert seen == [f[0] for f in expected]
    mine = world.client.get(
        "/api/v1/cases?assignee=sam&state=in_review", headers=auth(world, "aud")
    )
    assert mine.json()["cases"] and all(c["assignee"] == "sam" for c in mine.json()["cases"])
