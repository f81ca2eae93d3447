"""The casework pages (``/cases``, ``/cases/{id}``, the round page's cases) over the API's
world of test_api_cases (an embedded store, serve-api's desk, an access file): what each
caller sees, the queue's order and pages as the API's, the forms by role and state, the
sign-in link, stored text escaped."""

from __future__ import annotations

import re
from html import unescape
from types import SimpleNamespace

from fastapi import FastAPI
from starlette.requests import Request

from tablewatch.api.case_actions import WorkerActions
from tablewatch.api.routes.case_pages import dispositions_of
from tablewatch.casework.dispositions import DEFAULT_DISPOSITIONS
from tablewatch.links import round_path
from tests.casework import test_api_cases
from tests.casework.test_api_cases import World, auth, in_pit, post

world_of_cases = test_api_cases.world  # the API's world (module-scoped): this module's own

ROW = re.compile(r'<tr data-finding="([^"]+)" data-state="([^"]+)">')


def page(world: World, name: str | None, path: str) -> tuple[int, str]:
    headers = auth(world, name) if name else {}
    answer = world.client.get(path, headers=headers)
    return answer.status_code, answer.text


def round_of(world: World, finding_id: str) -> tuple[str, str]:
    case = world.client.get(f"/api/v1/cases/{finding_id}", headers=auth(world, "aud")).json()
    return str(case["table_id"]), str(case["round_id"])


def test_without_a_session_the_queue_links_to_sign_in(world_of_cases: World) -> None:
    world = world_of_cases
    status, html = page(world, None, "/cases?state=open")
    assert status == 401
    assert 'href="/login?next=%2Fcases%3Fstate%3Dopen"' in html
    assert not ROW.search(html)
    assert '<a href="/cases">Cases</a>' in html


def test_the_queue_page_lists_what_the_api_lists_in_its_pages(world_of_cases: World) -> None:
    world = world_of_cases
    pit = world.pits[-1]
    api = world.client.get(f"/api/v1/cases?pit={pit}&limit=1000", headers=auth(world, "aud"))
    want = [c["finding_id"] for c in api.json()["cases"]]
    assert len(want) > 3
    seen: list[str] = []
    path = f"/cases?pit={pit}&limit=3"
    while True:
        status, html = page(world, "aud", path)
        assert status == 200
        seen += [m.group(1) for m in ROW.finditer(html)]
        found = re.search(r'<a id="next" href="([^"]+)"', html)
        if found is None:
            break
        path = unescape(found.group(1))
    assert seen == want
    assert 'id="signed-in">aud <span class="dim">(auditor)' in html


def test_the_queue_filters_state_and_assignee_and_links_to_the_rounds_panel(
    world_of_cases: World,
) -> None:
    world = world_of_cases
    finding_id = in_pit(world, world.pits[0], 0)
    assert post(world, "sam", f"{finding_id}/claim").status_code == 200
    status, html = page(world, "sue", "/cases?state=in_review&assignee=sam")
    assert status == 200
    rows = ROW.findall(html)
    assert (finding_id, "in_review") in rows and all(s == "in_review" for _, s in rows)
    table_id, round_id = round_of(world, finding_id)
    link = f'href="{round_path(table_id, round_id)}#case-{finding_id}"'
    assert link in html


def test_the_round_page_shows_each_case_and_the_forms_its_caller_may_use(
    world_of_cases: World,
) -> None:
    world = world_of_cases
    finding_id = in_pit(world, world.pits[0], 1)
    table_id, round_id = round_of(world, finding_id)
    path = round_path(table_id, round_id)
    _, html = page(world, None, path)
    assert 'id="sign-in"' in html and f'id="case-{finding_id}"' not in html
    _, html = page(world, "sam", path)
    assert f'id="case-{finding_id}"' in html
    assert f'data-finding="{finding_id}" data-action="claim"' in html
    assert (
        'data-action="close"' not in html.split(f'id="case-{finding_id}"')[1].split("</section>")[0]
    )
    assert post(world, "sam", f"{finding_id}/claim").status_code == 200
    assert (
        post(world, "sam", f"{finding_id}/note", {"note": "<b>seen</b> & noted"}).status_code == 200
    )
    _, html = page(world, "sam", path)
    panel = html.split(f'id="case-{finding_id}"')[1].split("</section>")[0]
    assert "in review by sam" in panel
    assert 'data-action="close"' in panel and 'data-action="release"' in panel
    assert all(f"<option>{d}</option>" in panel for d in DEFAULT_DISPOSITIONS[:1])
    assert "&lt;b&gt;seen&lt;/b&gt; &amp; noted" in panel and "<b>seen</b>" not in panel
    assert '<script src="/static/cases.js" defer></script>' in html
    # sue may claim (and be told who has it) but not close; the auditor sees no form
    _, html = page(world, "sue", path)
    panel = html.split(f'id="case-{finding_id}"')[1].split("</section>")[0]
    assert 'data-action="claim"' in panel and 'data-action="close"' not in panel
    _, html = page(world, "aud", path)
    panel = html.split(f'id="case-{finding_id}"')[1].split("</section>")[0]
    assert "in review by sam" in panel and "case-action" not in panel


def test_a_floor_manager_sees_its_pits_cases_only(world_of_cases: World) -> None:
    world = world_of_cases
    theirs = in_pit(world, world.pits[0], 2)
    other = in_pit(world, world.pits[-1], 0)
    _, html = page(world, "fm", "/cases?state=all&limit=1000")
    ids = {m.group(1) for m in ROW.finditer(html)}
    assert theirs in ids and other not in ids
    table_id, round_id = round_of(world, other)
    _, html = page(world, "fm", round_path(table_id, round_id))
    assert f'id="case-{other}"' in html and "reads the cases of its pits only" in html
    assert "case-action" not in html


def test_the_case_page_of_a_finding(world_of_cases: World) -> None:
    world = world_of_cases
    finding_id = in_pit(world, world.pits[0], 3)
    status, html = page(world, "root", f"/cases/{finding_id}")
    assert status == 200 and f'id="case-{finding_id}"' in html
    assert "open, unclaimed" in html
    status, html = page(world, "root", "/cases/no-such-finding")
    assert status == 404 and "no finding" in html


def test_the_close_form_offers_the_rules_files_list_with_a_worker() -> None:
    app = FastAPI()
    app.state.case_actions = WorkerActions("http://127.0.0.1:9")  # the worker's desk decides
    app.state.alert_rules = SimpleNamespace(dispositions=("found on video", "no fault"))
    request = Request({"type": "http", "app": app, "headers": [], "path": "/"})
    assert dispositions_of(request) == ("found on video", "no fault")
    del app.state.alert_rules
    assert dispositions_of(request) == DEFAULT_DISPOSITIONS


def test_an_acknowledged_alerts_case_shows_the_ack(world_of_cases: World) -> None:
    world = world_of_cases
    finding_id = in_pit(world, world.pits[0], 8)
    world.store.command(
        "INSERT INTO alert_events (event_id, alert_id, kind, ts, finding_ids, by, note,"
        " recorded_at) VALUES"
        f" ('e1', 'A-1<b>', 'raised', now64(3), ['{finding_id}'], '', '', now64(3)),"
        f" ('e2', 'A-1<b>', 'acknowledged', now64(3), ['{finding_id}'], 'fm', 'on it <i>',"
        " now64(3))"
    )
    table_id, round_id = round_of(world, finding_id)
    _, html = page(world, "aud", round_path(table_id, round_id))
    panel = html.split(f'id="case-{finding_id}"')[1].split("</section>")[0]
    assert "Alert A-1&lt;b&gt; acknowledged by fm at " in panel
    assert ": on it &lt;i&gt;</p>" in panel


def test_a_bad_filter_or_cursor_is_a_page_naming_it(world_of_cases: World) -> None:
    world = world_of_cases
    status, html = page(world, "aud", "/cases?limit=0")
    assert status == 422 and "limit" in html and not ROW.search(html)
    status, html = page(world, "aud", "/cases?state=lost")
    assert status == 422 and "state" in html
    status, html = page(world, "aud", "/cases?cursor=bm90LWEtY3Vyc29y")
    assert status == 422 and "cursor" in html
