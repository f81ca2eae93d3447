"""The case forms in Debian's chromium (headless, playwright's Python client): two
surveillance users sign in, one claims a case from its round page, the other is told
who has it; the first bookmarks, notes and closes it with money in dollars and cents,
then reopens it. What the store holds after each step is read from case_events.
Screenshots go to test-artifacts/cases/."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from tablewatch.links import round_path
from tests.api.live_server import served
from tests.browser import Shots
from tests.casework import test_api_cases
from tests.casework.test_api_cases import World, auth, in_pit

pytestmark = pytest.mark.browser

shot = Shots("cases")

world_of_browser = test_api_cases.world  # the API's world (module-scoped): this module's own


def signed_in(browser: Browser, base: str, token: str, path: str) -> Page:
    page = browser.new_context(viewport={"width": 1500, "height": 1000}).new_page()
    page.goto(f"{base}/login?next={path}")
    page.fill("#token", token)
    page.click("form[action='/login'] button")
    page.wait_for_url(f"{base}{path}")
    return page


def last_step(world: World, finding_id: str) -> tuple[object, ...]:
    rows = world.store.query(
        "SELECT kind, by, state, assignee, disposition, recovered_cents, note, reason, camera,"
        " toUnixTimestamp64Milli(window_start), toUnixTimestamp64Milli(window_end)"
        f" FROM case_events FINAL WHERE finding_id = '{finding_id}' ORDER BY step DESC LIMIT 1"
    ).result_rows
    return tuple(rows[0]) if rows else ()


def test_claim_refused_bookmark_close_reopen_in_the_browser(
    world_of_browser: World, browser: Browser
) -> None:
    world = world_of_browser
    finding_id = in_pit(world, world.pits[0], 4)
    case = world.client.get(f"/api/v1/cases/{finding_id}", headers=auth(world, "aud")).json()
    path = round_path(case["table_id"], case["round_id"])
    panel = f"section#case-{finding_id}"
    with served(world.app) as base:
        sam = signed_in(browser, base, world.tokens["sam"], path)
        sue = signed_in(browser, base, world.tokens["sue"], path)
        expect(sam.locator("#signed-in")).to_contain_text("sam")
        sam.click(f"{panel} form[data-action='claim'] button")
        expect(sam.locator(f"{panel} .case-state")).to_have_text("in review by sam")
        assert last_step(world, finding_id)[:4] == ("claimed", "sam", "in_review", "sam")
        shot(sam, "1-claimed")
        # sue's page was loaded while the case was open: her claim is refused, inline
        sue.click(f"{panel} form[data-action='claim'] button")
        error = sue.locator(f"{panel} form[data-action='claim'] .case-error")
        expect(error).to_contain_text("409")
        expect(error).to_contain_text("in review by sam")
        shot(sue, "2-refused")
        # a bookmark: the table's second camera, the window as offered (the round +- 30 s)
        bookmark = sam.locator(f"{panel} form[data-action='bookmark']")
        cameras = bookmark.locator("select[name='camera'] option").all_inner_texts()
        assert cameras == case["cameras"] and len(cameras) >= 2
        bookmark.locator("select[name='camera']").select_option(cameras[1])
        assert (
            bookmark.locator("input[name='window_start']").input_value()
            == (case["round_window"]["start"])
        )
        bookmark.locator("button").click()
        expect(sam.locator(f"{panel} tr[data-kind='bookmarked']")).to_have_count(1)
        step = last_step(world, finding_id)
        assert step[0] == "bookmarked" and step[8] == cameras[1]
        # related findings linked: ids separated by a comma and spaces
        related = [in_pit(world, world.pits[0], 5), in_pit(world, world.pits[0], 6)]
        link = sam.locator(f"{panel} form[data-action='link']")
        link.locator("input[name='finding_ids']").fill(f" {related[0]}, {related[1]} ")
        link.locator("button").click()
        expect(sam.locator(f"{panel} tr[data-kind='linked']")).to_have_count(1)
        linked = world.client.get(f"/api/v1/cases/{finding_id}", headers=auth(world, "aud"))
        assert sorted(linked.json()["links"]) == sorted(related)
        # money typed wrong is refused in the page, nothing sent
        close = sam.locator(f"{panel} form[data-action='close']")
        close.locator("select[name='disposition']").select_option(
            "confirmed: not corrected, referred"
        )
        close.locator("textarea[name='note']").fill("overpaid <b>twice</b>; see video")
        close.locator("input[name='recovered']").fill("12.5.0")
        close.locator("button").click()
        expect(close.locator(".case-error")).to_contain_text("not an amount")
        assert last_step(world, finding_id)[0] == "linked"
        close.locator("input[name='recovered']").fill("12.50")
        close.locator("button").click()
        expect(sam.locator(f"{panel} .case-state")).to_have_text(
            "closed: confirmed: not corrected, referred"
        )
        step = last_step(world, finding_id)
        assert step[:7] == (
            "closed", "sam", "closed", "", "confirmed: not corrected, referred", 1250,
            "overpaid <b>twice</b>; see video",
        )  # fmt: skip
        expect(sam.locator(f"{panel} tr[data-kind='closed']")).to_contain_text(
            "overpaid <b>twice</b>; see video"
        )
        shot(sam, "3-closed")
        # reopened with its reason
        sam.locator(f"{panel} form[data-action='reopen'] input[name='reason']").fill(
            "the pit boss disputes it"
        )
        sam.locator(f"{panel} form[data-action='reopen'] button").click()
        expect(sam.locator(f"{panel} .case-state")).to_have_text("open")
        assert last_step(world, finding_id)[:3] == ("reopened", "sam", "open")
        assert last_step(world, finding_id)[7] == "the pit boss disputes it"
        shot(sam, "4-reopened")
        # the queue page links to the case on its round page
        sam.goto(f"{base}/cases?state=open")
        sam.locator(f"tr[data-finding='{finding_id}'] a.case-link").click()
        expect(sam.locator(panel)).to_be_visible()
        assert sam.url.endswith(f"#case-{finding_id}")
